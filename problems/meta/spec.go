package meta

import (
	"fmt"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
)

// Params are the problem's parameters; DefaultParams gives the defaults.
// The digits are embedded: Options.Data must be empty; Options.Seed draws
// the tasks and the start. Each field's doc tag documents it
// (problems.Params).
type Params struct {
	problems.Options
	Ways      int     `rhgd:"ways" doc:"classes per task"`
	Shots     int     `rhgd:"shots" doc:"support images per class"`
	Queries   int     `rhgd:"queries" doc:"query images per class"`
	Tasks     int     `rhgd:"tasks" doc:"meta-training tasks (the lower level has one head per task)"`
	TestTasks int     `rhgd:"test-tasks" doc:"held-out tasks of the test accuracy"`
	P         int     `rhgd:"features" doc:"P, the columns of Θ ∈ St(64, P)"`
	Lambda    float64 `rhgd:"lambda" doc:"λ > 0, the ridge of each head"`
	Split     string  `rhgd:"split" doc:"samples: each class's images halved between meta-training and test tasks; classes: digits 0–4 for meta-training, 5–9 for test tasks"`
	Baseline  string  `rhgd:"baseline" doc:"\"\" for RHGD on St(64, P), phgd for the extrinsic baseline (Euclidean hypergradient step, then projection onto St)"`
}

// DefaultParams returns the defaults, with the rhgd command's seed.
func DefaultParams() Params {
	return Params{Options: problems.Options{Seed: problems.DefaultSeed}, Ways: DefaultWays, Shots: DefaultShots, Queries: DefaultQueries,
		Tasks: DefaultTasks, TestTasks: DefaultTestTasks, P: DefaultP, Lambda: DefaultLambda, Split: BySample.String()}
}

// Spec is the meta-learning problem for the command line and the C ABI:
// few-shot tasks drawn from the embedded 8×8 digits (from the seed), RHGD
// on St(64, P) by default or the extrinsic baseline PHGD with
// -baseline phgd. Its Instance reports the mean test accuracy over the
// held-out tasks, and as its baseline the same heads on PCA features.
var Spec = problems.Define(problems.Spec{
	Name:    "meta",
	Summary: "Riemannian meta-learning (Sec. 4.3): a shared layer tanh(Θᵀx), Θ ∈ St(64,16), and a ridge-regularized softmax head per 5-way 5-shot digits task; -baseline phgd for the projected baseline",
}, DefaultParams, Build)

// Build draws p's tasks from the embedded digits and returns the problem
// (NewInstance).
func Build(p Params) (*problems.Instance, error) {
	by, err := ParseSplit(p.Split)
	if err != nil {
		return nil, err
	}
	ext := false
	switch p.Baseline {
	case "", "rhgd":
	case "phgd":
		ext = true
	default:
		return nil, numerr.Errorf("meta: %w: %v %q (want phgd, or nothing for RHGD)", problems.ErrBadData, problems.Param("baseline"), p.Baseline)
	}
	if p.Data != "" {
		return nil, numerr.Errorf("meta: %w: no %v: the digits are embedded", problems.ErrBadData, problems.Param("data"))
	}
	d, err := Digits()
	if err != nil {
		return nil, err
	}
	ts, err := MakeTasks(d, by, TaskSpec{Ways: p.Ways, Shots: p.Shots, Queries: p.Queries}, p.Tasks, p.TestTasks, p.Seed)
	if err != nil {
		return nil, err
	}
	return NewInstance(d, ts, Config{P: p.P, Lambda: p.Lambda, Extrinsic: ext}, by, p.Seed)
}

// NewInstance returns the problem ready to run from a random Θ (seed) and
// zero heads, with the Paper's settings, the estimators, the test accuracy and the
// PCA baseline. by only labels the description.
func NewInstance(d *Data, t *Tasks, cfg Config, by SplitBy, seed uint64) (*problems.Instance, error) {
	p, err := New(d, t, cfg, seed)
	if err != nil {
		return nil, err
	}
	th, w := p.Start(0)
	method := "RHGD on St"
	if cfg.Extrinsic {
		method = "PHGD (extrinsic: Euclidean steps projected onto St)"
	}
	s := t.Spec
	in := Paper.Instance()
	in.Problem, in.X0, in.Y0, in.Accuracy = p.Bilevel(), th, w, p.Accuracy
	in.Baseline = func() (string, float64, error) {
		acc, err := p.BaselineAccuracy()
		return fmt.Sprintf("PCA(%d) features", cfg.P), acc, err
	}
	in.Describe = fmt.Sprintf("%s(%d,%d) × R^{%d×%d}: %d-way %d-shot tasks (%d queries per class) from %s split by %s, %d meta-training and %d test tasks, λ = %g; %s",
		"St", d.Dim, cfg.P, len(t.Train)*(cfg.P+1), s.Ways, s.Ways, s.Shots, s.Queries, d.Name, by, len(t.Train), len(t.Test), cfg.Lambda, method)
	return in, nil
}

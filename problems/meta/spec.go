package meta

import (
	"flag"
	"fmt"
	"maps"

	"github.com/rhgd/rhgd/problems"
)

// Spec is the meta-learning problem for the command line and the C ABI:
// few-shot tasks drawn from the embedded 8×8 digits (from the seed), RHGD
// on St(64, P) by default or the extrinsic baseline PHGD with
// -baseline phgd. Its Instance reports the mean test accuracy over the
// held-out tasks, and as its baseline the same heads on PCA features.
var Spec = problems.Spec{
	Name:    "meta",
	Summary: "Riemannian meta-learning (Sec. 4.3): a shared layer tanh(Θᵀx), Θ ∈ St(64,16), and a ridge-regularized softmax head per 5-way 5-shot digits task; -baseline phgd for the projected baseline",
	Flags: func(fs *flag.FlagSet) func(problems.Options) (*problems.Instance, error) {
		ways := fs.Int("ways", DefaultWays, "classes per task")
		shots := fs.Int("shots", DefaultShots, "support images per class")
		queries := fs.Int("queries", DefaultQueries, "query images per class")
		tasks := fs.Int("tasks", DefaultTasks, "meta-training tasks (the lower level has one head per task)")
		test := fs.Int("test-tasks", DefaultTestTasks, "held-out tasks of the test accuracy")
		p := fs.Int("features", DefaultP, "P, the columns of Θ ∈ St(64, P)")
		lambda := fs.Float64("lambda", DefaultLambda, "λ > 0, the ridge of each head")
		split := fs.String("split", BySample.String(), "samples: each class's images halved between meta-training and test tasks; classes: digits 0–4 for meta-training, 5–9 for test tasks")
		base := fs.String("baseline", "", `"" for RHGD on St(64, P), phgd for the extrinsic baseline (Euclidean hypergradient step, then projection onto St)`)
		return func(o problems.Options) (*problems.Instance, error) {
			by, err := ParseSplit(*split)
			if err != nil {
				return nil, err
			}
			ext := false
			switch *base {
			case "", "rhgd":
			case "phgd":
				ext = true
			default:
				return nil, fmt.Errorf("meta: %w: -baseline %q (want phgd, or nothing for RHGD)", problems.ErrBadData, *base)
			}
			if o.Data != "" {
				return nil, fmt.Errorf("meta: %w: no -data: the digits are embedded", problems.ErrBadData)
			}
			d, err := Digits()
			if err != nil {
				return nil, err
			}
			ts, err := MakeTasks(d, by, TaskSpec{Ways: *ways, Shots: *shots, Queries: *queries}, *tasks, *test, o.Seed)
			if err != nil {
				return nil, err
			}
			return NewInstance(d, ts, Config{P: *p, Lambda: *lambda, Extrinsic: ext}, by, o.Seed)
		}
	},
}

// NewInstance returns the problem ready to run from a random Θ (seed) and
// zero heads, with PaperSettings, the estimators, the test accuracy and the
// PCA baseline. by only labels the description.
func NewInstance(d *Data, t *Tasks, cfg Config, by SplitBy, seed uint64) (*problems.Instance, error) {
	p, err := New(d, t, cfg, seed)
	if err != nil {
		return nil, err
	}
	th, w := p.Start()
	method := "RHGD on St"
	if cfg.Extrinsic {
		method = "PHGD (extrinsic: Euclidean steps projected onto St)"
	}
	s := t.Spec
	return &problems.Instance{
		Problem: p.Problem(), X0: th, Y0: w, Settings: PaperSettings(),
		Estimators: maps.Clone(paperSpecs), Accuracy: p.Accuracy,
		Baseline: func() (string, float64, error) {
			acc, err := p.BaselineAccuracy()
			return fmt.Sprintf("PCA(%d) features", cfg.P), acc, err
		},
		Describe: fmt.Sprintf("%s(%d,%d) × R^{%d×%d}: %d-way %d-shot tasks (%d queries per class) from %s split by %s, %d meta-training and %d test tasks, λ = %g; %s",
			"St", d.Dim, cfg.P, len(t.Train)*(cfg.P+1), s.Ways, s.Ways, s.Shots, s.Queries, d.Name, by, len(t.Train), len(t.Test), cfg.Lambda, method),
	}, nil
}

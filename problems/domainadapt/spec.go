package domainadapt

import (
	"fmt"
	"math"

	officecaltech "github.com/rhgd/rhgd/data/office-caltech10"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
)

// Params are the problem's parameters; DefaultParams gives the paper's.
// Options.Data names a .npz file (Load) that replaces Source, Target and
// Features. Each field's doc tag documents it (problems.Params).
type Params struct {
	problems.Options
	Source         string  `rhgd:"source" doc:"source domain (labelled): amazon, caltech, dslr or webcam"`
	Target         string  `rhgd:"target" doc:"target domain (classified): amazon, caltech, dslr or webcam"`
	Features       string  `rhgd:"features" doc:"features: decaf6 (dslr and webcam only) or surf (all four domains)"`
	Alpha          float64 `rhgd:"alpha" doc:"α ∈ [0, 1], the weight of d²(M, XᵀX) in the lower objective"`
	Lambda         float64 `rhgd:"lambda" doc:"λ ≥ 0, the entropic regularization of the upper objective"`
	Ridge          float64 `rhgd:"ridge" doc:"ε > 0 in XᵀX + εI and X̂ᵀX̂ + εI"`
	BaselineLambda float64 `rhgd:"baseline-lambda" zero:"the paper's, 1e-3 for W→D and 5e-3 otherwise" doc:"λ > 0 of the OT-SKH baseline on the squared Euclidean costs"`
}

// DefaultParams returns the paper's D→W pair on DeCAF6 features, with the
// rhgd command's seed.
func DefaultParams() Params {
	return Params{Options: problems.Options{Seed: problems.DefaultSeed}, Source: "dslr", Target: "webcam", Features: "decaf6",
		Alpha: PaperAlpha, Lambda: PaperLambda, Ridge: PaperRidge}
}

// Spec is the domain adaptation problem for the command line and the C
// ABI: a pair of Office-Caltech10 domains (embedded in the binary) or the
// data of a .npz file (see Load), with the paper's settings by default.
var Spec = problems.Define(problems.Spec{
	Name:    "domainadapt",
	Summary: "the paper's unsupervised domain adaptation (Sec. 4.4): a transport plan on Π(μ,ν) whose cost uses the metric M*, a weighted geometric mean on SPD(d)",
	Data:    "a .npz file with arrays X (n×d, the source), Y (m×d, the target) and optionally Xlabels (n) and Ylabels (m), positive integers that the accuracy and the baseline need; the features are used as they are; replaces -source, -target and -features",
}, DefaultParams, Build)

// Build returns the problem for p's pair of domains or data file
// (NewInstance).
func Build(p Params) (*problems.Instance, error) {
	var data *Data
	var err error
	bl := p.BaselineLambda
	if p.Data != "" {
		if data, err = Load(p.Data); err != nil {
			return nil, err
		}
		if bl == 0 {
			bl = 5e-3
		}
	} else {
		s, err := officecaltech.ParseDomain(p.Source)
		if err != nil {
			return nil, numerr.Errorf("%w: %v: %w", ErrBadData, problems.Param("source"), err)
		}
		t, err := officecaltech.ParseDomain(p.Target)
		if err != nil {
			return nil, numerr.Errorf("%w: %v: %w", ErrBadData, problems.Param("target"), err)
		}
		f, err := officecaltech.ParseFeatures(p.Features)
		if err != nil {
			return nil, numerr.Errorf("%w: %v: %w", ErrBadData, problems.Param("features"), err)
		}
		if data, err = LoadPair(s, t, f); err != nil {
			return nil, err
		}
		if bl == 0 {
			bl = PaperBaselineLambda(s, t)
		}
	}
	if !(bl > 0) || math.IsInf(bl, 0) {
		return nil, numerr.Errorf("%w: %v %v must be positive", ErrBadData, problems.Param("baseline-lambda"), bl)
	}
	return NewInstance(data, Config{Alpha: p.Alpha, Lambda: p.Lambda, Ridge: p.Ridge}, bl)
}

// NewInstance returns the problem for data and c, ready to run: starting at
// the independent plan μνᵀ and M*(μνᵀ), with the Paper's settings, the estimators
// with the authors' settings, the accuracy of a plan and metric when the data
// have labels, and the OT-SKH baseline with λ = baselineLambda.
func NewInstance(data *Data, c Config, baselineLambda float64) (*problems.Instance, error) {
	p, err := New(data, c)
	if err != nil {
		return nil, err
	}
	x0, y0 := p.Start(0)
	in := Paper.Instance()
	in.Problem, in.X0, in.Y0 = p.Bilevel(), x0, y0
	in.Describe = fmt.Sprintf("Π(%d,%d) × SPD(%d), %s, α = %g, λ = %g, ε = %g", p.n, p.m, p.d, data.Name, c.Alpha, c.Lambda, c.Ridge)
	if len(p.srcLab) > 0 && len(p.tgtLab) > 0 {
		in.Accuracy = p.Accuracy
		in.Baseline = func() (string, float64, error) {
			acc, err := p.BaselineAccuracy(baselineLambda)
			return fmt.Sprintf("OT-SKH (λ = %g)", baselineLambda), acc, err
		}
	}
	return in, nil
}

// Load reads the problem's data from a numpy .npz file with arrays X (n×d,
// the labelled source), Y (m×d, the target) and, optionally, Xlabels (n)
// and Ylabels (m), positive integers, which Accuracy and the baseline need.
// The features are used as they are (no preprocessing).
func Load(path string) (*Data, error) {
	f := file{Data: Data{Name: "data from " + path}}
	err := problems.ReadTagged(path, &f)
	if err != nil {
		return nil, err
	}
	if f.SourceLabels, err = labels("Xlabels", f.Xlabels); err != nil {
		return nil, err
	}
	if f.TargetLabels, err = labels("Ylabels", f.Ylabels); err != nil {
		return nil, err
	}
	return &f.Data, nil
}

// file is the problem's .npz file: Data's samples and optionally their
// labels, as float64.
type file struct {
	Data
	Xlabels []float64 `npz:"Xlabels,optional" shape:"n"`
	Ylabels []float64 `npz:"Ylabels,optional" shape:"m"`
}

// labels returns the array name as positive integers (nil for nil).
func labels(name string, v []float64) ([]int, error) {
	if v == nil {
		return nil, nil
	}
	out := make([]int, len(v))
	for i, f := range v {
		if f != math.Trunc(f) || f < 1 || f > math.MaxInt32 {
			return nil, fmt.Errorf("%w: %s[%d] = %v is not a positive integer", ErrBadData, name, i, f)
		}
		out[i] = int(f)
	}
	return out, nil
}

// labelValues returns labels as float64 (nil for nil).
func labelValues(labels []int) []float64 {
	if labels == nil {
		return nil
	}
	v := make([]float64, len(labels))
	for i, l := range labels {
		v[i] = float64(l)
	}
	return v
}

// Save writes data to a .npz file that Load reads (arrays X, Y and, when
// present, Xlabels and Ylabels), for other implementations to run the same
// problem.
func Save(path string, data *Data) error {
	return problems.SaveTagged(path, &file{Data: *data, Xlabels: labelValues(data.SourceLabels), Ylabels: labelValues(data.TargetLabels)})
}

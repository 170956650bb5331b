package domainadapt

import (
	"flag"
	"fmt"
	"math"

	officecaltech "github.com/rhgd/rhgd/data/office-caltech10"
	"github.com/rhgd/rhgd/problems"
)

// Spec is the domain adaptation problem for the command line and the C
// ABI: a pair of Office-Caltech10 domains (embedded in the binary) or the
// data of a .npz file (see Load), with the paper's settings by default.
var Spec = problems.Spec{
	Name:    "domainadapt",
	Summary: "the paper's unsupervised domain adaptation (Sec. 4.4): a transport plan on Π(μ,ν) whose cost uses the metric M*, a weighted geometric mean on SPD(d)",
	Data:    "a .npz file with arrays X (n×d, the source), Y (m×d, the target) and optionally Xlabels (n) and Ylabels (m), positive integers that the accuracy and the baseline need; the features are used as they are; replaces -source, -target and -features",
	Flags: func(fs *flag.FlagSet) func(problems.Options) (*problems.Instance, error) {
		src := fs.String("source", "dslr", "source domain (labelled): amazon, caltech, dslr or webcam")
		tgt := fs.String("target", "webcam", "target domain (classified): amazon, caltech, dslr or webcam")
		feat := fs.String("features", "decaf6", "features: decaf6 (dslr and webcam only) or surf (all four domains)")
		alpha := fs.Float64("alpha", PaperAlpha, "α ∈ [0, 1], the weight of d²(M, XᵀX) in the lower objective")
		lambda := fs.Float64("lambda", PaperLambda, "λ ≥ 0, the entropic regularization of the upper objective")
		ridge := fs.Float64("ridge", PaperRidge, "ε > 0 in XᵀX + εI and X̂ᵀX̂ + εI")
		blam := fs.Float64("baseline-lambda", 0, "λ of the OT-SKH baseline on the squared Euclidean costs; 0 means the paper's (1e-3 for W→D, 5e-3 otherwise)")
		return func(o problems.Options) (*problems.Instance, error) {
			var data *Data
			var err error
			bl := *blam
			if o.Data != "" {
				if data, err = Load(o.Data); err != nil {
					return nil, err
				}
				if bl == 0 {
					bl = 5e-3
				}
			} else {
				s, err := officecaltech.ParseDomain(*src)
				if err != nil {
					return nil, fmt.Errorf("%w: -source: %w", ErrBadData, err)
				}
				t, err := officecaltech.ParseDomain(*tgt)
				if err != nil {
					return nil, fmt.Errorf("%w: -target: %w", ErrBadData, err)
				}
				f, err := officecaltech.ParseFeatures(*feat)
				if err != nil {
					return nil, fmt.Errorf("%w: -features: %w", ErrBadData, err)
				}
				if data, err = LoadPair(s, t, f); err != nil {
					return nil, err
				}
				if bl == 0 {
					bl = PaperBaselineLambda(s, t)
				}
			}
			if !(bl > 0) || math.IsInf(bl, 0) {
				return nil, fmt.Errorf("%w: -baseline-lambda %v must be positive", ErrBadData, bl)
			}
			c := Config{Alpha: *alpha, Lambda: *lambda, Ridge: *ridge}
			return NewInstance(data, c, bl)
		}
	},
}

// NewInstance returns the problem for data and c, ready to run: starting at
// the independent plan μνᵀ and M*(μνᵀ), with PaperSettings, the estimators
// with the authors' settings, the accuracy of a plan and metric when the data
// have labels, and the OT-SKH baseline with λ = baselineLambda.
func NewInstance(data *Data, c Config, baselineLambda float64) (*problems.Instance, error) {
	p, err := New(data, c)
	if err != nil {
		return nil, err
	}
	x0 := p.Start()
	y0 := make([]float64, p.d*p.d)
	if err := p.LowerSolution(y0, x0); err != nil {
		return nil, err
	}
	in := &problems.Instance{
		Problem: p.Problem(), X0: x0, Y0: y0, Settings: PaperSettings(),
		Estimators: map[string]string{},
		Describe: fmt.Sprintf("Π(%d,%d) × SPD(%d), %s, α = %g, λ = %g, ε = %g",
			p.n, p.m, p.d, data.Name, c.Alpha, c.Lambda, c.Ridge),
	}
	for _, name := range EstimatorNames {
		in.Estimators[name] = paperSpecs[name]
	}
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
	z, err := problems.OpenNPZ(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	x, xs, err := z.Array("X", -1, -1)
	if err != nil {
		return nil, err
	}
	n, d := xs[0], xs[1]
	y, ys, err := z.Array("Y", -1, d)
	if err != nil {
		return nil, err
	}
	data := &Data{N: n, M: ys[0], D: d, X: x, Y: y, Name: "data from " + path}
	labels := func(name string, k int) ([]int, error) {
		if !z.Has(name) {
			return nil, nil
		}
		v, _, err := z.Array(name, k)
		if err != nil {
			return nil, err
		}
		out := make([]int, k)
		for i, f := range v {
			if f != math.Trunc(f) || f < 1 || f > math.MaxInt32 {
				return nil, fmt.Errorf("%w: %s[%d] = %v is not a positive integer", ErrBadData, name, i, f)
			}
			out[i] = int(f)
		}
		return out, nil
	}
	if data.SourceLabels, err = labels("Xlabels", n); err != nil {
		return nil, err
	}
	if data.TargetLabels, err = labels("Ylabels", data.M); err != nil {
		return nil, err
	}
	return data, nil
}

// Save writes data to a .npz file that Load reads (arrays X, Y and, when
// present, Xlabels and Ylabels), for other implementations to run the same
// problem.
func Save(path string, data *Data) error {
	arrays := map[string][]float64{"X": data.X, "Y": data.Y}
	shapes := map[string][]int{"X": {data.N, data.D}, "Y": {data.M, data.D}}
	for name, labs := range map[string][]int{"Xlabels": data.SourceLabels, "Ylabels": data.TargetLabels} {
		if labs == nil {
			continue
		}
		v := make([]float64, len(labs))
		for i, l := range labs {
			v[i] = float64(l)
		}
		arrays[name], shapes[name] = v, []int{len(v)}
	}
	return problems.WriteNPZ(path, arrays, shapes)
}

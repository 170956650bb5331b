package minmax

import (
	"flag"
	"fmt"
	"maps"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// Defaults of the generated problem: St(50, 10) × SPD(10), A with
// condition number 100 and λ_{p+1}/λ_p = ½.
const (
	DefaultN, DefaultP             = 50, 10
	DefaultCond, DefaultGap        = 100, 0.5
	defaultStartSeed        uint64 = 7
)

// DefaultSettings returns the settings of the paper's synthetic
// experiment, which suit this problem (package documentation): η_x = η_y
// = ½, S = 20 ascent steps, K = 200 epochs, and the GDA estimator, which
// makes RHGD the paper's Algorithm 3.
func DefaultSettings() solver.Settings {
	return solver.Settings{EtaX: 0.5, EtaY: 0.5, InnerIters: 20, Epochs: 200, Estimator: solver.GDA{}}
}

// Estimators are the estimators that run on Problem, with their settings
// in solver.ParseEstimator's syntax: GDA (Algorithm 3) and the four
// hypergradient estimators with the paper's settings. The lower Hessian is
// the identity at Y*, so NS with γ = 1 is well inside its range there.
var Estimators = map[string]string{"gda": "gda", "hinv": "hinv", "cg": "cg:maxiter=50,tol=1e-10", "ns": "ns:gamma=1,terms=50", "ad": "ad"}

// Spec is the min-max problem for the command line and the C ABI: A
// generated from the seed, or loaded from a .npz file (see Load).
var Spec = problems.Spec{
	Name:    "minmax",
	Summary: "min over St(n,p) of max over SPD(p) of log det Y − ⟨Y, XᵀAX⟩ (Algorithm 3); known optimum: A's top-p eigenspace",
	Data:    "a .npz file with the array A (n×n, symmetric) and optionally X0 (n×p, which sets p) and Y0 (p×p), the start",
	Flags: func(fs *flag.FlagSet) func(problems.Options) (*problems.Instance, error) {
		n := fs.Int("n", DefaultN, "order of the generated A")
		p := fs.Int("p", DefaultP, "columns of X (a .npz file's X0 wins)")
		cond := fs.Float64("cond", DefaultCond, "condition number λ_1/λ_n of the generated A")
		gap := fs.Float64("gap", DefaultGap, "eigenvalue ratio λ_{p+1}/λ_p of the generated A, in (0, 1]")
		start := fs.Uint64("start-seed", defaultStartSeed, "seed of the random starting X (Y0 = I/λ_max(X0ᵀAX0)); a .npz file's X0, Y0 win")
		return func(o problems.Options) (*problems.Instance, error) {
			var data *Data
			var x0, y0 []float64
			var err error
			if o.Data != "" {
				data, x0, y0, err = Load(o.Data, *p)
			} else {
				data, err = Generate(*n, *p, *cond, *gap, o.Seed)
			}
			if err != nil {
				return nil, err
			}
			pr, err := New(data)
			if err != nil {
				return nil, err
			}
			notes := pr.Notes()
			sx, sy := pr.Start(*start)
			if x0 == nil {
				x0 = sx
			} else if err := problems.SnapInput(&notes, pr.St, "X0", x0); err != nil {
				return nil, fmt.Errorf("minmax: %s: %w", o.Data, err)
			}
			if y0 == nil {
				if err := pr.ScaledIdentity(sy, x0); err != nil {
					return nil, fmt.Errorf("%w: X0: %w", problems.ErrBadData, err)
				}
				y0 = sy
			} else if err := problems.SnapInput(&notes, pr.SPD, "Y0", y0); err != nil {
				return nil, fmt.Errorf("minmax: %s: %w", o.Data, err)
			}
			src := fmt.Sprintf("A generated from seed %d (cond %g, gap %g)", o.Seed, *cond, *gap)
			if o.Data != "" {
				src = "A from " + o.Data
			}
			fstar, _, _, _ := pr.Solution()
			return &problems.Instance{
				Problem: pr.Problem(), X0: x0, Y0: y0, Settings: DefaultSettings(), Estimators: maps.Clone(Estimators),
				Describe: fmt.Sprintf("St(%d,%d) × SPD(%d), %s; known optimum F* = %.12g", data.N, data.P, data.P, src, fstar),
				Notes:    notes,
			}, nil
		}
	},
}

// Load reads A (n×n) from a numpy .npz file, with optionally X0 (n×p, which
// then sets p) and Y0 (p×p); p is used when X0 is absent. X0 and Y0 are
// nil when absent and as they are in the file; Y0 without X0 is an
// error. Spec projects an X0 or Y0 within float32 rounding of its manifold
// onto it (problems.SnapInput) and rejects one clearly off.
func Load(path string, p int) (data *Data, x0, y0 []float64, err error) {
	z, err := problems.OpenNPZ(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer z.Close()
	a, as, err := z.Array("A", -1, -1)
	if err != nil {
		return nil, nil, nil, err
	}
	n := as[0]
	if as[1] != n {
		return nil, nil, nil, fmt.Errorf("%w: %s: A has shape %v, want a square matrix", problems.ErrBadData, path, as)
	}
	if z.Has("X0") {
		var xs []int
		if x0, xs, err = z.Array("X0", n, -1); err != nil {
			return nil, nil, nil, err
		}
		p = xs[1]
	}
	if z.Has("Y0") {
		if x0 == nil {
			return nil, nil, nil, fmt.Errorf("%w: %s: Y0 without X0", problems.ErrBadData, path)
		}
		if y0, _, err = z.Array("Y0", p, p); err != nil {
			return nil, nil, nil, err
		}
	}
	return &Data{N: n, P: p, A: a}, x0, y0, nil
}

// Save writes A and a starting point to a .npz file that Load reads
// (arrays A, X0 and Y0; a nil x0 or y0 is left out), so that other
// implementations can run the same problem.
func Save(path string, data *Data, x0, y0 []float64) error {
	arrays := map[string][]float64{"A": data.A}
	shapes := map[string][]int{"A": {data.N, data.N}, "X0": {data.N, data.P}, "Y0": {data.P, data.P}}
	if x0 != nil {
		arrays["X0"] = x0
	}
	if y0 != nil {
		arrays["Y0"] = y0
	}
	return problems.WriteNPZ(path, arrays, shapes)
}

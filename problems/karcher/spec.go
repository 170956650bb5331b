package karcher

import (
	"flag"
	"fmt"
	"maps"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// Defaults of the generated problem: 20 matrices of order 10 at geodesic
// distance 1 from their centre.
const (
	DefaultN, DefaultCount = 10, 20
	DefaultSpread          = 1.0
)

// DefaultSettings returns the settings of the paper's synthetic
// experiment, which suit this problem (package documentation): η_x = η_y
// = ½, S = 20 lower steps, K = 200 epochs; the estimator is left to the
// caller (Estimators).
func DefaultSettings() solver.Settings {
	return solver.Settings{EtaX: 0.5, EtaY: 0.5, InnerIters: 20, Epochs: 200}
}

// Estimators are the estimators that run on Problem, with the paper's
// settings in solver.ParseEstimator's syntax. The lower Hessian is the
// identity at y*(x), so NS with γ = 1 is well inside its range there.
var Estimators = map[string]string{"hinv": "hinv", "cg": "cg:maxiter=50,tol=1e-10", "ns": "ns:gamma=1,terms=50", "ad": "ad"}

// Spec is the compositional Karcher-mean problem for the command line and
// the C ABI: data generated from the seed, or loaded from a .npz file (see
// Load).
var Spec = problems.Spec{
	Name:    "karcher",
	Summary: "min over Sym(n) of ψ(C^½ exp(x) C^½), ψ the weighted Karcher-mean objective on SPD(n), as a compositional bilevel problem; known optimum: the Karcher mean",
	Data:    "a .npz file with arrays B (count×n×n, SPD) and C (n×n, SPD) and optionally w (count weights), x0 and y0 (n×n), the start",
	Flags: func(fs *flag.FlagSet) func(problems.Options) (*problems.Instance, error) {
		n := fs.Int("n", DefaultN, "order of the generated matrices")
		count := fs.Int("count", DefaultCount, "number of generated matrices B_i")
		spread := fs.Float64("spread", DefaultSpread, "geodesic distance of the generated B_i and C from their centre, in (0, 10]")
		return func(o problems.Options) (*problems.Instance, error) {
			var data *Data
			var x0, y0 []float64
			var err error
			if o.Data != "" {
				data, x0, y0, err = Load(o.Data)
			} else {
				data, err = Generate(*n, *count, *spread, o.Seed)
			}
			if err != nil {
				return nil, err
			}
			p, err := New(data)
			if err != nil {
				return nil, err
			}
			notes := p.Notes()
			sx, sy := p.Start()
			if x0 == nil {
				x0 = sx
			}
			if y0 == nil {
				if err := p.Phi(sy, x0); err != nil {
					return nil, fmt.Errorf("%w: x0: %w", problems.ErrBadData, err)
				}
				y0 = sy
			} else if err := problems.SnapInput(&notes, p.SPD, "y0", y0); err != nil {
				return nil, fmt.Errorf("karcher: %s: %w", o.Data, err)
			}
			src := fmt.Sprintf("generated from seed %d (spread %g)", o.Seed, *spread)
			if o.Data != "" {
				src = "from " + o.Data
			}
			fstar, _, _, err := p.Solution()
			if err != nil {
				return nil, err
			}
			return &problems.Instance{
				Problem: p.Problem(), X0: x0, Y0: y0, Settings: DefaultSettings(), Estimators: maps.Clone(Estimators),
				Describe: fmt.Sprintf("Sym(%d) → SPD(%d), %d matrices %s; known optimum F* = %.12g (the Karcher mean)", data.N, data.N, data.Count, src, fstar),
				Notes:    notes,
			}, nil
		}
	},
}

// Load reads the problem's data from a numpy .npz file with arrays B
// (count×n×n), C (n×n) and optionally w (count weights), x0 and y0 (n×n).
// It returns x0 and y0 as nil when absent and as they are in the file;
// the data are validated by New. Spec projects a y0 within float32
// rounding of SPD(n) onto it (problems.SnapInput) and rejects one clearly
// off; x0 is any n×n matrix (F depends on its symmetric part only).
func Load(path string) (data *Data, x0, y0 []float64, err error) {
	z, err := problems.OpenNPZ(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer z.Close()
	b, bs, err := z.Array("B", -1, -1, -1)
	if err != nil {
		return nil, nil, nil, err
	}
	k, n := bs[0], bs[1]
	if bs[2] != n {
		return nil, nil, nil, fmt.Errorf("%w: %s: B has shape %v, want count×n×n", problems.ErrBadData, path, bs)
	}
	c, _, err := z.Array("C", n, n)
	if err != nil {
		return nil, nil, nil, err
	}
	data = &Data{N: n, Count: k, B: b, C: c}
	if z.Has("w") {
		if data.W, _, err = z.Array("w", k); err != nil {
			return nil, nil, nil, err
		}
	}
	if z.Has("x0") {
		if x0, _, err = z.Array("x0", n, n); err != nil {
			return nil, nil, nil, err
		}
	}
	if z.Has("y0") {
		if y0, _, err = z.Array("y0", n, n); err != nil {
			return nil, nil, nil, err
		}
	}
	return data, x0, y0, nil
}

// Save writes data and a starting point to a .npz file that Load reads
// (arrays B, C, w, x0 and y0; w is data.W, or uniform weights when it is
// nil; a nil x0 or y0 is left out), so that other implementations can run
// the same problem.
func Save(path string, data *Data, x0, y0 []float64) error {
	w := data.W
	if w == nil {
		w = make([]float64, data.Count)
		for i := range w {
			w[i] = 1 / float64(data.Count)
		}
	}
	n := data.N
	arrays := map[string][]float64{"B": data.B, "C": data.C, "w": w}
	if x0 != nil {
		arrays["x0"] = x0
	}
	if y0 != nil {
		arrays["y0"] = y0
	}
	return problems.WriteNPZ(path, arrays, map[string][]int{"B": {data.Count, n, n}, "C": {n, n}, "x0": {n, n}, "y0": {n, n}})
}

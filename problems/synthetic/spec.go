package synthetic

import (
	"flag"
	"fmt"

	"github.com/rhgd/rhgd/problems"
)

// Spec is the synthetic problem for the command line and the C ABI: data
// generated from the seed with the paper's sizes by default, or loaded
// from a .npz file (see Load).
var Spec = problems.Spec{
	Name:    "synthetic",
	Summary: "the paper's synthetic problem (Sec. 4.1): max tr(M* XᵀY Wᵀ) over St(d,r), M* a geometric-mean SPD lower solution",
	Data:    "a .npz file with arrays X (n×d), Y (n×r) and optionally W0 (d×r), M0 (d×d) and nu (a scalar); W0 and M0 are the start",
	Flags: func(fs *flag.FlagSet) func(problems.Options) (*problems.Instance, error) {
		n := fs.Int("n", PaperN, "samples (rows of X and Y) of generated data")
		d := fs.Int("d", PaperD, "features (columns of X) of generated data")
		r := fs.Int("r", PaperR, "columns of Y and of W of generated data")
		nu := fs.Float64("nu", PaperNu, "ν, the ridge in B(W) = W YᵀY Wᵀ + νI (a .npz file's nu wins)")
		start := fs.Uint64("start-seed", 7, "seed of the random starting W (M starts at I); a .npz file's W0, M0 win")
		save := fs.String("save", "", "write the data and the start to this .npz file (arrays X, Y, W0, M0, nu) for other implementations")
		return func(o problems.Options) (*problems.Instance, error) {
			var data *Data
			var w0, m0 []float64
			var err error
			if o.Data != "" {
				data, w0, m0, err = Load(o.Data, *nu)
			} else {
				data, err = Generate(*n, *d, *r, *nu, o.Seed)
			}
			if err != nil {
				return nil, err
			}
			p, err := New(data)
			if err != nil {
				return nil, err
			}
			var notes []string
			sw, sm := p.Start(*start)
			if w0 == nil {
				w0 = sw
			} else if err := problems.SnapInput(&notes, p.St, "W0", w0); err != nil {
				return nil, fmt.Errorf("synthetic: %s: %w", o.Data, err)
			}
			if m0 == nil {
				m0 = sm
			} else if err := problems.SnapInput(&notes, p.SPD, "M0", m0); err != nil {
				return nil, fmt.Errorf("synthetic: %s: %w", o.Data, err)
			}
			if *save != "" {
				if err := Save(*save, data, w0, m0); err != nil {
					return nil, err
				}
			}
			src := fmt.Sprintf("generated from seed %d", o.Seed)
			if o.Data != "" {
				src = "from " + o.Data
			}
			return &problems.Instance{
				Problem: p.Problem(), X0: w0, Y0: m0, Settings: PaperSettings(),
				Estimators: map[string]string{"hinv": "hinv", "cg": paperSpecs["cg"], "ns": paperSpecs["ns"], "ad": "ad"},
				Describe:   fmt.Sprintf("St(%d,%d) × SPD(%d), n = %d, ν = %g, data %s", data.D, data.R, data.D, data.N, data.Nu, src),
				Notes:      notes,
			}, nil
		}
	},
}

// Load reads the problem's data from a numpy .npz file with arrays X
// (n×d), Y (n×r) and optionally W0 (d×r), M0 (d×d) and nu (a scalar; nu
// is used when it is absent). It returns W0 and M0 as nil when absent,
// and as they are in the file: Spec projects a W0 or M0 within float32
// rounding of its manifold onto it (problems.SnapInput) and rejects one
// clearly off; solver.Run rejects either unless it is a point.
func Load(path string, nu float64) (data *Data, w0, m0 []float64, err error) {
	z, err := problems.OpenNPZ(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer z.Close()
	x, xs, err := z.Array("X", -1, -1)
	if err != nil {
		return nil, nil, nil, err
	}
	n, d := xs[0], xs[1]
	y, ys, err := z.Array("Y", n, -1)
	if err != nil {
		return nil, nil, nil, err
	}
	r := ys[1]
	if z.Has("W0") {
		if w0, _, err = z.Array("W0", d, r); err != nil {
			return nil, nil, nil, err
		}
	}
	if z.Has("M0") {
		if m0, _, err = z.Array("M0", d, d); err != nil {
			return nil, nil, nil, err
		}
	}
	if z.Has("nu") {
		if nu, err = z.Scalar("nu"); err != nil {
			return nil, nil, nil, err
		}
	}
	return &Data{N: n, D: d, R: r, X: x, Y: y, Nu: nu}, w0, m0, nil
}

// Save writes data and a starting point to a .npz file that Load reads
// (arrays X, Y, W0, M0 and nu), so that other implementations can run
// the same problem.
func Save(path string, data *Data, w0, m0 []float64) error {
	return problems.WriteNPZ(path,
		map[string][]float64{"X": data.X, "Y": data.Y, "W0": w0, "M0": m0, "nu": {data.Nu}},
		map[string][]int{"X": {data.N, data.D}, "Y": {data.N, data.R}, "W0": {data.D, data.R}, "M0": {data.D, data.D}})
}

package karcher

import (
	"fmt"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// Params are the problem's parameters; Options.Data names a .npz file
// (Load) to use instead of data generated from Options.Seed. Each field's
// doc tag documents it (problems.Params).
type Params struct {
	problems.Options
	N      int     `rhgd:"n" doc:"order of the generated matrices"`
	Count  int     `rhgd:"count" doc:"number of generated matrices B_i"`
	Spread float64 `rhgd:"spread" doc:"geodesic distance of the generated B_i and C from their centre, in (0, 10]"`
}

// DefaultParams returns 20 matrices of order 10 at geodesic distance 1
// from their centre, from the rhgd command's seed.
func DefaultParams() Params {
	return Params{Options: problems.Options{Seed: problems.DefaultSeed}, N: 10, Count: 20, Spread: 1}
}

// Paper holds the settings of the paper's synthetic experiment, which suit
// this problem: η_x = η_y = ½, S = 20, K = 200, and its estimators. The
// lower Hessian is I at y*(x), so NS with γ = 1 is well inside its range.
var Paper = problems.Paper{Settings: solver.Settings{EtaX: 0.5, EtaY: 0.5, InnerIters: 20, Epochs: 200},
	Estimators: []string{"hinv", "cg:maxiter=50,tol=1e-10", "ns:gamma=1,terms=50", "ad"}}

// Spec is the compositional Karcher-mean problem for the command line and
// the C ABI.
var Spec = problems.Define(problems.Spec{Name: "karcher",
	Summary: "min over Sym(n) of ψ(C^½ exp(x) C^½), ψ the weighted Karcher-mean objective on SPD(n), as a compositional bilevel problem; known optimum: the Karcher mean",
	Data:    "a .npz file with arrays B (count×n×n, SPD) and C (n×n, SPD) and optionally w (count weights), x0 and y0 (n×n), the start",
}, DefaultParams, Build)

// Build returns the problem with the Paper's settings; Describe gives the
// known optimum.
func Build(p Params) (*problems.Instance, error) {
	gen := func() (*Data, error) { return Generate(p.N, p.Count, p.Spread, p.Seed) }
	data, st, src, err := problems.LoadOr(p.Options, fmt.Sprintf("generated from seed %d (spread %g)", p.Seed, p.Spread), Load, gen)
	if err != nil {
		return nil, err
	}
	pr, err := New(data)
	if err != nil {
		return nil, err
	}
	in := Paper.Instance()
	in.Notes = pr.Notes()
	if in.X0, in.Y0, err = start(pr, st, &in.Notes, p.Data); err != nil {
		return nil, err
	}
	fstar, _, _, err := pr.Solution()
	if err != nil {
		return nil, err
	}
	in.Problem = pr.Bilevel()
	in.Describe = fmt.Sprintf("Sym(%d) → SPD(%d), %d matrices %s; known optimum F* = %.12g (the Karcher mean)", data.N, data.N, data.Count, src, fstar)
	return in, nil
}

// start returns the data file's start, y0 projected onto SPD(n) when it is
// within float32 rounding of it (noted); x0 = 0 without one in the file,
// and y0 = φ(x0) without y0.
func start(pr *Problem, st problems.Start, notes *[]string, path string) (x0, y0 []float64, err error) {
	x0, y0 = pr.Start(0)
	if st.X != nil {
		x0 = st.X
	}
	if st.Y != nil {
		if err := problems.SnapInput(notes, pr.SPD, "y0", st.Y); err != nil {
			return nil, nil, fmt.Errorf("karcher: %s: %w", path, err)
		}
		return x0, st.Y, nil
	}
	if err := pr.Phi(y0, x0); err != nil {
		return nil, nil, fmt.Errorf("%w: x0: %w", problems.ErrBadData, err)
	}
	return x0, y0, nil
}

// arrays are the problem's .npz file: B (count×n×n), C (n×n) and
// optionally w (count weights), x0 and y0 (n×n), the start.
func arrays(d *Data, st *problems.Start) []problems.Array {
	return []problems.Array{{Name: "B", Shape: "count×n×n", Data: &d.B}, {Name: "C", Shape: "n×n", Data: &d.C},
		{Name: "w", Shape: "count", Data: &d.W, Optional: true},
		{Name: "x0", Shape: "n×n", Data: &st.X, Optional: true}, {Name: "y0", Shape: "n×n", Data: &st.Y, Optional: true}}
}

// Load reads the arrays from a .npz file as they are (New validates them;
// x0 is any n×n matrix, Build snaps a y0 within float32 rounding of SPD(n)).
func Load(path string) (*Data, problems.Start, error) {
	var d Data
	var st problems.Start
	dims, err := problems.ReadNPZ(path, arrays(&d, &st)...)
	if err != nil {
		return nil, problems.Start{}, err
	}
	d.N, d.Count = dims["n"], dims["count"]
	return &d, st, nil
}

// Save writes data (w: uniform weights when data.W is nil) and a start (a
// nil part is left out) to a .npz file that Load reads.
func Save(path string, data *Data, start problems.Start) error {
	d := *data
	if d.W == nil {
		d.W = make([]float64, d.Count)
		for i := range d.W {
			d.W[i] = 1 / float64(d.Count)
		}
	}
	return problems.SaveNPZ(path, problems.Dims{"n": d.N, "count": d.Count}, arrays(&d, &start)...)
}

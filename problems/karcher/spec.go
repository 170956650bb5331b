package karcher

import (
	"fmt"
	"slices"

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

// Build returns the problem with the Paper's settings, starting at
// StartAt; Describe gives the known optimum.
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
	if in.X0, in.Y0, err = pr.StartAt(st, p.Seed, &in.Notes, p.Data); err != nil {
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

// file is the problem's .npz file: Data's arrays and optionally the start
// x0 and y0 (n×n).
type file struct {
	Data
	X0 []float64 `npz:"x0,optional" shape:"n×n"`
	Y0 []float64 `npz:"y0,optional" shape:"n×n"`
}

// Load reads the arrays from a .npz file as they are (New validates them;
// x0 is any n×n matrix, Build snaps a y0 within float32 rounding of SPD(n)).
func Load(path string) (*Data, problems.Start, error) {
	var f file
	if err := problems.ReadTagged(path, &f); err != nil {
		return nil, problems.Start{}, err
	}
	return &f.Data, problems.Start{X: f.X0, Y: f.Y0}, nil
}

// Save writes data (w: uniform weights when data.W is nil) and a start (a
// nil part is left out) to a .npz file that Load reads.
func Save(path string, data *Data, start problems.Start) error {
	f := file{Data: *data, X0: start.X, Y0: start.Y}
	if f.W == nil {
		f.W = slices.Repeat([]float64{1 / float64(f.Count)}, f.Count)
	}
	return problems.SaveTagged(path, &f)
}

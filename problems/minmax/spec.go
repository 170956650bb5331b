package minmax

import (
	"fmt"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// Params are the problem's parameters; Options.Data names a .npz file
// (Load) to use instead of an A generated from Options.Seed. Each field's
// doc tag documents it (problems.Params).
type Params struct {
	problems.Options
	N         int     `rhgd:"n" doc:"order of the generated A"`
	P         int     `rhgd:"p" doc:"columns of X (a .npz file's X0 wins)"`
	Cond      float64 `rhgd:"cond" doc:"condition number λ_1/λ_n of the generated A"`
	Gap       float64 `rhgd:"gap" doc:"eigenvalue ratio λ_{p+1}/λ_p of the generated A, in (0, 1]"`
	StartSeed uint64  `rhgd:"start-seed" doc:"seed of the random starting X (Y0 = I/λ_max(X0ᵀAX0)); a .npz file's X0, Y0 win"`
}

// DefaultParams returns St(50, 10) × SPD(10), A with condition number 100
// and λ_{p+1}/λ_p = ½, from the rhgd command's seed.
func DefaultParams() Params {
	return Params{Options: problems.Options{Seed: problems.DefaultSeed}, N: 50, P: 10, Cond: 100, Gap: 0.5, StartSeed: 7}
}

// Paper holds the settings of the paper's synthetic experiment, which suit
// this problem (package documentation): η_x = η_y = ½, S = 20 ascent
// steps, K = 200 epochs, and the GDA estimator, which makes RHGD the
// paper's Algorithm 3; then the four hypergradient estimators with the
// paper's settings. The lower Hessian is the identity at Y*, so NS with
// γ = 1 is well inside its range there.
var Paper = problems.Paper{
	Settings:   solver.Settings{EtaX: 0.5, EtaY: 0.5, InnerIters: 20, Epochs: 200, Estimator: solver.GDA{}},
	Estimators: []string{"gda", "hinv", "cg:maxiter=50,tol=1e-10", "ns:gamma=1,terms=50", "ad"},
}

// Spec is the min-max problem for the command line and the C ABI.
var Spec = problems.Define(problems.Spec{
	Name:    "minmax",
	Summary: "min over St(n,p) of max over SPD(p) of log det Y − ⟨Y, XᵀAX⟩ (Algorithm 3); known optimum: A's top-p eigenspace",
	Data:    "a .npz file with the array A (n×n, symmetric) and optionally X0 (n×p, which sets p) and Y0 (p×p), the start",
}, DefaultParams, Build)

// Build returns the problem, A generated from p.Seed or loaded from
// p.Data, starting at StartAt (the file's start, or a random one from
// p.StartSeed); Describe gives the known optimum.
func Build(p Params) (*problems.Instance, error) {
	gen := func() (*Data, error) { return Generate(p.N, p.P, p.Cond, p.Gap, p.Seed) }
	load := func(path string) (*Data, problems.Start, error) { return Load(path, p.P) }
	gensrc := fmt.Sprintf("generated from seed %d (cond %g, gap %g)", p.Seed, p.Cond, p.Gap)
	data, st, src, err := problems.LoadOr(p.Options, gensrc, load, gen)
	if err != nil {
		return nil, err
	}
	pr, err := New(data)
	if err != nil {
		return nil, err
	}
	in := Paper.Instance()
	in.Notes = pr.Notes()
	if in.X0, in.Y0, err = pr.StartAt(st, p.StartSeed, &in.Notes, p.Data); err != nil {
		return nil, err
	}
	fstar, _, _, _ := pr.Solution()
	in.Problem = pr.Bilevel()
	in.Describe = fmt.Sprintf("St(%d,%d) × SPD(%d), A %s; known optimum F* = %.12g", data.N, data.P, data.P, src, fstar)
	return in, nil
}

// file is the problem's .npz file: A (n×n) and optionally the start X0
// (n×p) and Y0 (p×p).
type file struct {
	Data
	X0 []float64 `npz:"X0,optional" shape:"n×p"`
	Y0 []float64 `npz:"Y0,optional" shape:"p×p"`
}

// Load reads A (n×n) from a numpy .npz file, with optionally X0 (n×p, which
// then sets p) and Y0 (p×p); p is used when X0 is absent. X0 and Y0 are
// nil when absent and as they are in the file; Y0 without X0 is an
// error. Build projects an X0 or Y0 within float32 rounding of its
// manifold onto it (problems.SnapInput) and rejects one clearly off.
func Load(path string, p int) (*Data, problems.Start, error) {
	z, err := problems.OpenNPZ(path)
	if err != nil {
		return nil, problems.Start{}, err
	}
	defer z.Close()
	if z.Has("Y0") && !z.Has("X0") {
		return nil, problems.Start{}, fmt.Errorf("%w: %s: Y0 without X0", problems.ErrBadData, path)
	}
	var f file
	if err := z.ReadTagged(&f); err != nil {
		return nil, problems.Start{}, err
	}
	if f.X0 == nil {
		f.P = p
	}
	return &f.Data, problems.Start{X: f.X0, Y: f.Y0}, nil
}

// Save writes A and a starting point to a .npz file that Load reads
// (arrays A, X0 and Y0; a nil part of the start is left out), so that
// other implementations can run the same problem.
func Save(path string, data *Data, start problems.Start) error {
	return problems.SaveTagged(path, &file{Data: *data, X0: start.X, Y0: start.Y})
}

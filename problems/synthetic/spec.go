package synthetic

import (
	"fmt"

	"github.com/rhgd/rhgd/problems"
)

// Params are the synthetic problem's parameters; DefaultParams gives the
// paper's. Options.Data names a .npz file (Load) to use instead of data
// generated from Options.Seed. Each field's doc tag documents it, as the
// help of its flag and C parameter (problems.Params).
type Params struct {
	problems.Options
	N         int     `rhgd:"n" doc:"samples (rows of X and Y) of generated data"`
	D         int     `rhgd:"d" doc:"features (columns of X) of generated data"`
	R         int     `rhgd:"r" doc:"columns of Y and of W of generated data"`
	Nu        float64 `rhgd:"nu" doc:"ν, the ridge in B(W) = W YᵀY Wᵀ + νI (a .npz file's nu wins)"`
	StartSeed uint64  `rhgd:"start-seed" doc:"seed of the random starting W (M starts at I); a .npz file's W0, M0 win"`
	Save      string  `rhgd:"save" doc:"write the data and the start to this .npz file (arrays X, Y, W0, M0, nu) for other implementations"`
	// LowerFloat32Steps is SetLowerFloat32Steps's k (0: off).
	LowerFloat32Steps int `rhgd:"lower-float32-steps" doc:"opt-in mixed precision: run the first k lower steps of each epoch with float32 products, and HINV's eigendecomposition and congruences in float32 (M stays float64; k = S−1 keeps a float64 last step); 0 is off"`
}

// DefaultParams returns the paper's parameters, with the rhgd command's
// seed.
func DefaultParams() Params {
	return Params{Options: problems.Options{Seed: problems.DefaultSeed}, N: PaperN, D: PaperD, R: PaperR, Nu: PaperNu, StartSeed: 7}
}

// Spec is the synthetic problem for the command line and the C ABI.
var Spec = problems.Define(problems.Spec{
	Name:    "synthetic",
	Summary: "the paper's synthetic problem (Sec. 4.1): max tr(M* XᵀY Wᵀ) over St(d,r), M* a geometric-mean SPD lower solution",
	Data:    "a .npz file with arrays X (n×d), Y (n×r) and optionally W0 (d×r), M0 (d×d) and nu (a scalar); W0 and M0 are the start",
}, DefaultParams, Build)

// Build returns the problem with p's data, generated from p.Seed with p's
// sizes or loaded from p.Data, ready to run with the Paper's settings.
func Build(p Params) (*problems.Instance, error) {
	gen := func() (*Data, error) { return Generate(p.N, p.D, p.R, p.Nu, p.Seed) }
	load := func(path string) (*Data, problems.Start, error) { return Load(path, p.Nu) }
	data, st, src, err := problems.LoadOr(p.Options, fmt.Sprintf("generated from seed %d", p.Seed), load, gen)
	if err != nil {
		return nil, err
	}
	pr, err := New(data)
	if err != nil {
		return nil, err
	}
	in := Paper.Instance()
	if in.X0, in.Y0, err = pr.StartAt(st, p.StartSeed, &in.Notes, p.Data); err != nil {
		return nil, err
	}
	if p.Save != "" {
		if err := Save(p.Save, data, problems.Start{X: in.X0, Y: in.Y0}); err != nil {
			return nil, err
		}
	}
	if err := pr.SetLowerFloat32Steps(p.LowerFloat32Steps); err != nil {
		return nil, err
	}
	in.Problem = pr.Bilevel()
	in.Describe = fmt.Sprintf("St(%d,%d) × SPD(%d), n = %d, ν = %g, data %s", data.D, data.R, data.D, data.N, data.Nu, src)
	return in, nil
}

// file is the problem's .npz file: Data's arrays, optionally the start W0
// (d×r) and M0 (d×d), and nu, a scalar.
type file struct {
	Data
	W0 []float64 `npz:"W0,optional" shape:"d×r"`
	M0 []float64 `npz:"M0,optional" shape:"d×d"`
	Nu []float64 `npz:"nu,optional"`
}

// Load reads the problem's data from a numpy .npz file with arrays X
// (n×d), Y (n×r) and optionally W0 (d×r), M0 (d×d) and nu (a scalar; nu
// is used when it is absent). It
// returns W0 and M0 as the Start, nil when absent and as they are in the
// file: Build projects a W0 or M0 within float32 rounding of its manifold
// onto it (problems.SnapInput) and rejects one clearly off; solver.Run
// rejects either unless it is a point.
func Load(path string, nu float64) (*Data, problems.Start, error) {
	var f file
	if err := problems.ReadTagged(path, &f); err != nil {
		return nil, problems.Start{}, err
	}
	f.Data.Nu = nu
	if f.Nu != nil {
		f.Data.Nu = f.Nu[0]
	}
	return &f.Data, problems.Start{X: f.W0, Y: f.M0}, nil
}

// Save writes data and a starting point (W0, M0) to a .npz file that Load
// reads (arrays X, Y, W0, M0 and nu; a nil W0 or M0 is left out), so that
// other implementations can run the same problem.
func Save(path string, data *Data, start problems.Start) error {
	return problems.SaveTagged(path, &file{Data: *data, W0: start.X, M0: start.Y, Nu: []float64{data.Nu}})
}

package hyperrep

import (
	"fmt"

	"github.com/rhgd/rhgd/problems"
)

// Params are the problem's parameters; DefaultParams gives the paper's.
// The sizes and the noise apply to data generated from Options.Seed;
// Options.Data names a .npz file (Load) to use instead. Each field's doc
// tag documents it (problems.Params).
type Params struct {
	problems.Options
	N      int     `rhgd:"n" doc:"number of SPD matrices A_i of generated data"`
	D      int     `rhgd:"d" doc:"order d of the A_i of generated data"`
	K      int     `rhgd:"k" doc:"columns k of W, the order of the features WᵀA_iW, of generated data"`
	NTrain int     `rhgd:"ntrain" doc:"training samples (the first ones; the rest validate) of generated data"`
	Noise  float64 `rhgd:"noise" doc:"standard deviation of the label noise of generated data"`
	Lambda float64 `rhgd:"lambda" doc:"λ, the ridge of the lower problem"`
}

// DefaultParams returns the paper's sizes and λ, with the rhgd command's
// seed.
func DefaultParams() Params {
	s := PaperSizes
	return Params{Options: problems.Options{Seed: problems.DefaultSeed}, N: s.N, D: s.D, K: s.K, NTrain: s.NTrain, Noise: s.Noise, Lambda: PaperLambda}
}

// Spec is the shallow hyper-representation problem for the command line
// and the C ABI.
var Spec = problems.Define(problems.Spec{
	Name:    "hyperrep",
	Summary: "shallow hyper-representation (Sec. 4.2): W ∈ St(d,k) for ridge regression on vec(log(WᵀA_iW)) of SPD matrices",
	Data:    "a .npz file with arrays A (N×d×d, SPD), y (N), W0 (d×k, the start on St(d,k)), beta0 (k(k+1)/2) and n_train (a scalar: the first n_train samples train, the rest validate)",
}, DefaultParams, Build)

// Build returns the problem, with data generated from p.Seed or loaded
// from p.Data, ready to run with the Paper's settings, estimators and
// RSHGD's batch sizes.
func Build(p Params) (*problems.Instance, error) {
	var data *Data
	var err error
	src := fmt.Sprintf("generated from seed %d", p.Seed)
	if p.Data != "" {
		data, err = Load(p.Data)
		src = "from " + p.Data
	} else {
		data, err = GenerateSizes(Sizes{N: p.N, D: p.D, K: p.K, NTrain: p.NTrain, Noise: p.Noise}, p.Seed)
	}
	if err != nil {
		return nil, err
	}
	pr, err := New(data, p.Lambda)
	if err != nil {
		return nil, err
	}
	in := Paper.Instance()
	in.Problem = pr.Bilevel()
	in.X0, in.Y0 = pr.Start(0)
	in.Notes = pr.Notes()
	in.Describe = fmt.Sprintf("St(%d,%d) × R^%d, %d SPD matrices (%d train, %d validation), λ = %g, data %s",
		data.D, data.K, data.K*(data.K+1)/2, data.N, data.NTrain, data.N-data.NTrain, p.Lambda, src)
	return in, nil
}

package hyperrep

import (
	"flag"
	"fmt"
	"maps"

	"github.com/rhgd/rhgd/problems"
)

// Spec is the shallow hyper-representation problem for the command line
// and the C ABI: data generated from the seed with the paper's sizes by
// default, or loaded from a .npz file (see Load). Its Instance carries
// the paper's settings, its estimators' settings and RSHGD's batch sizes
// (StochasticBatches).
var Spec = problems.Spec{
	Name:    "hyperrep",
	Summary: "shallow hyper-representation (Sec. 4.2): W ∈ St(d,k) for ridge regression on vec(log(WᵀA_iW)) of SPD matrices",
	Data:    "a .npz file with arrays A (N×d×d, SPD), y (N), W0 (d×k, the start on St(d,k)), beta0 (k(k+1)/2) and n_train (a scalar: the first n_train samples train, the rest validate)",
	Flags: func(fs *flag.FlagSet) func(problems.Options) (*problems.Instance, error) {
		n := fs.Int("n", PaperSizes.N, "number of SPD matrices A_i of generated data")
		d := fs.Int("d", PaperSizes.D, "order d of the A_i of generated data")
		k := fs.Int("k", PaperSizes.K, "columns k of W, the order of the features WᵀA_iW, of generated data")
		ntr := fs.Int("ntrain", PaperSizes.NTrain, "training samples (the first ones; the rest validate) of generated data")
		noise := fs.Float64("noise", PaperSizes.Noise, "standard deviation of the label noise of generated data")
		lambda := fs.Float64("lambda", PaperLambda, "λ, the ridge of the lower problem")
		return func(o problems.Options) (*problems.Instance, error) {
			var data *Data
			var err error
			src := fmt.Sprintf("generated from seed %d", o.Seed)
			if o.Data != "" {
				data, err = Load(o.Data)
				src = "from " + o.Data
			} else {
				data, err = GenerateSizes(Sizes{N: *n, D: *d, K: *k, NTrain: *ntr, Noise: *noise}, o.Seed)
			}
			if err != nil {
				return nil, err
			}
			p, err := New(data, *lambda)
			if err != nil {
				return nil, err
			}
			w0, b0 := p.Start()
			batches := StochasticBatches
			return &problems.Instance{
				Problem: p.Problem(), X0: w0, Y0: b0, Settings: PaperSettings(),
				Estimators: maps.Clone(paperSpecs),
				Stochastic: &batches,
				Notes:      p.Notes(),
				Describe: fmt.Sprintf("St(%d,%d) × R^%d, %d SPD matrices (%d train, %d validation), λ = %g, data %s",
					data.D, data.K, data.K*(data.K+1)/2, data.N, data.NTrain, data.N-data.NTrain, *lambda, src),
			}, nil
		}
	},
}

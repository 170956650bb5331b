package spdnet

import (
	"flag"
	"fmt"
	"maps"

	"github.com/rhgd/rhgd/problems"
)

// Spec is the SPD-network problem for the command line and the C ABI: the
// embedded ETH-80 covariances, or the matrices of a .npz file (see Load),
// split at random from the seed, with the paper's network and settings by
// default. Its Instance reports the validation accuracy and the
// log-Euclidean 1-NN baseline on the same split.
var Spec = problems.Spec{
	Name:    "spdnet",
	Summary: "deep hyper-representation (Sec. 4.2): an SPD network vec(log(W2ᵀReEig(W1ᵀAW1)W2)) on ETH-80, (W1, W2) ∈ St(100,20) × St(20,5), logistic regression below",
	Data:    "a .npz file with arrays A (N×D×D, SPD) and labels (N, integers 1..C), split at random from -seed; replaces the embedded ETH-80 covariances",
	Flags: func(fs *flag.FlagSet) func(problems.Options) (*problems.Instance, error) {
		d1 := fs.Int("d1", PaperConfig.D1, "D1, the order of the first layer's output (W1 ∈ St(D, D1))")
		d2 := fs.Int("d2", PaperConfig.D2, "D2, the order of the second layer's output (W2 ∈ St(D1, D2))")
		lambda := fs.Float64("lambda", PaperConfig.Lambda, "λ > 0, the ridge of the lower problem")
		thr := fs.Float64("reeig", PaperConfig.Threshold, "ε of ReEig, max(ε, λ)")
		scale := fs.Float64("pixel-scale", PaperScale, "ETH-80: divide the pixels (0..255) by this before the covariances")
		eps := fs.Float64("cov-eps", PaperEps, "ETH-80: add this times I to each covariance")
		per := fs.Int("train", PaperTrainPerClass, "training matrices per class (the rest validate)")
		return func(o problems.Options) (*problems.Instance, error) {
			var data *Data
			var err error
			if o.Data != "" {
				data, err = Load(o.Data)
			} else {
				data, err = ETH80(*scale, *eps)
			}
			if err != nil {
				return nil, err
			}
			split, err := RandomSplit(data.Labels, data.Classes, *per, o.Seed)
			if err != nil {
				return nil, err
			}
			return NewInstance(data, split, Config{D1: *d1, D2: *d2, Lambda: *lambda, Threshold: *thr}, o.Seed)
		}
	},
}

// NewInstance returns the problem for data, split and cfg, ready to run
// from the authors' start (γ drawn from seed) with PaperSettings, the
// paper's estimators, RSHGD's StochasticBatches, the validation accuracy
// and the log-Euclidean 1-NN baseline.
func NewInstance(data *Data, split Split, cfg Config, seed uint64) (*problems.Instance, error) {
	p, err := New(data, split, cfg, seed)
	if err != nil {
		return nil, err
	}
	w0, g0 := p.Start()
	batches := StochasticBatches
	ntr, nval := p.Sizes()
	batches.Lower, batches.Upper = min(batches.Lower, ntr), min(batches.Upper, nval)
	batches.Cross, batches.Hess = min(batches.Cross, ntr), min(batches.Hess, ntr)
	return &problems.Instance{
		Problem: p.Problem(), X0: w0, Y0: g0, Settings: PaperSettings(),
		Estimators: maps.Clone(paperSpecs), Stochastic: &batches,
		Accuracy: p.Accuracy,
		Notes:    p.Notes(),
		Baseline: func() (string, float64, error) {
			acc, err := p.BaselineAccuracy()
			return "log-Euclidean 1-NN", acc, err
		},
		Describe: fmt.Sprintf("(St(%d,%d) × St(%d,%d)) × R^{%d×%d}, %s, %d train / %d validation, λ = %g, ReEig ε = %g",
			data.D, cfg.D1, cfg.D1, cfg.D2, cfg.D2*(cfg.D2+1)/2, data.Classes, data.Name, ntr, nval, cfg.Lambda, cfg.Threshold),
	}, nil
}

// Load reads labelled SPD matrices from a numpy .npz file: A (N×D×D,
// symmetric positive definite) and labels (N, integers 1..C; C is their
// largest value). Data.Validate checks them.
func Load(path string) (*Data, error) {
	z, err := problems.OpenNPZ(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	a, shape, err := z.Array("A", -1, -1, -1)
	if err != nil {
		return nil, err
	}
	if shape[1] != shape[2] {
		return nil, fmt.Errorf("spdnet: %w: A has shape %v, want N×D×D", problems.ErrBadData, shape)
	}
	lab, _, err := z.Array("labels", shape[0])
	if err != nil {
		return nil, err
	}
	d := &Data{N: shape[0], D: shape[1], A: a, Labels: make([]int, shape[0]), Name: "data from " + path}
	for i, l := range lab {
		if l != float64(int(l)) || l < 1 || l > 1<<20 {
			return nil, fmt.Errorf("spdnet: %w: labels[%d] = %v is not a positive integer", problems.ErrBadData, i, l)
		}
		d.Labels[i] = int(l)
		d.Classes = max(d.Classes, int(l))
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// Save writes data to a .npz file that Load reads (arrays A and labels),
// for other implementations to run the same problem.
func Save(path string, data *Data) error {
	lab := make([]float64, data.N)
	for i, l := range data.Labels {
		lab[i] = float64(l)
	}
	return problems.WriteNPZ(path, map[string][]float64{"A": data.A, "labels": lab},
		map[string][]int{"A": {data.N, data.D, data.D}, "labels": {data.N}})
}

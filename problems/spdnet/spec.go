package spdnet

import (
	"fmt"

	"github.com/rhgd/rhgd/problems"
)

// Params are the problem's parameters; DefaultParams gives the paper's.
// Options.Data names a .npz file (Load) to use instead of the embedded
// ETH-80 covariances; Options.Seed draws the split and the start. Each
// field's doc tag documents it (problems.Params).
type Params struct {
	problems.Options
	D1         int     `rhgd:"d1" doc:"D1, the order of the first layer's output (W1 ∈ St(D, D1))"`
	D2         int     `rhgd:"d2" doc:"D2, the order of the second layer's output (W2 ∈ St(D1, D2))"`
	Lambda     float64 `rhgd:"lambda" doc:"λ > 0, the ridge of the lower problem"`
	Threshold  float64 `rhgd:"reeig" doc:"ε of ReEig, max(ε, λ)"`
	PixelScale float64 `rhgd:"pixel-scale" doc:"ETH-80: divide the pixels (0..255) by this before the covariances"`
	CovEps     float64 `rhgd:"cov-eps" doc:"ETH-80: add this times I to each covariance"`
	Train      int     `rhgd:"train" doc:"training matrices per class (the rest validate)"`
}

// DefaultParams returns the paper's network and split, with the rhgd
// command's seed.
func DefaultParams() Params {
	c := PaperConfig
	return Params{Options: problems.Options{Seed: problems.DefaultSeed}, D1: c.D1, D2: c.D2, Lambda: c.Lambda, Threshold: c.Threshold,
		PixelScale: PaperScale, CovEps: PaperEps, Train: PaperTrainPerClass}
}

// Spec is the SPD-network problem for the command line and the C ABI.
// Its Instance reports the validation accuracy and the log-Euclidean 1-NN
// baseline on the same split.
var Spec = problems.Define(problems.Spec{
	Name:    "spdnet",
	Summary: "deep hyper-representation (Sec. 4.2): an SPD network vec(log(W2ᵀReEig(W1ᵀAW1)W2)) on ETH-80, (W1, W2) ∈ St(100,20) × St(20,5), logistic regression below",
	Data:    "a .npz file with arrays A (N×D×D, SPD) and labels (N, integers 1..C), split at random from -seed; replaces the embedded ETH-80 covariances",
}, DefaultParams, Build)

// Build returns the problem on p's data, split at random from p.Seed
// (NewInstance).
func Build(p Params) (*problems.Instance, error) {
	var data *Data
	var err error
	if p.Data != "" {
		data, err = Load(p.Data)
	} else {
		data, err = ETH80(p.PixelScale, p.CovEps)
	}
	if err != nil {
		return nil, err
	}
	split, err := RandomSplit(data.Labels, data.Classes, p.Train, p.Seed)
	if err != nil {
		return nil, err
	}
	return NewInstance(data, split, Config{D1: p.D1, D2: p.D2, Lambda: p.Lambda, Threshold: p.Threshold}, p.Seed)
}

// NewInstance returns the problem for data, split and cfg, ready to run
// from the authors' start (γ drawn from seed) with the Paper's
// settings, estimators and RSHGD batches, the validation accuracy
// and the log-Euclidean 1-NN baseline.
func NewInstance(data *Data, split Split, cfg Config, seed uint64) (*problems.Instance, error) {
	p, err := New(data, split, cfg, seed)
	if err != nil {
		return nil, err
	}
	in := Paper.Instance()
	in.X0, in.Y0 = p.Start(0)
	ntr, nval := p.Sizes()
	b := in.Stochastic
	b.Lower, b.Upper = min(b.Lower, ntr), min(b.Upper, nval)
	b.Cross, b.Hess = min(b.Cross, ntr), min(b.Hess, ntr)
	in.Problem, in.Accuracy, in.Notes = p.Bilevel(), p.Accuracy, p.Notes()
	in.Baseline = func() (string, float64, error) {
		acc, err := p.BaselineAccuracy()
		return "log-Euclidean 1-NN", acc, err
	}
	in.Describe = fmt.Sprintf("(St(%d,%d) × St(%d,%d)) × R^{%d×%d}, %s, %d train / %d validation, λ = %g, ReEig ε = %g",
		data.D, cfg.D1, cfg.D1, cfg.D2, cfg.D2*(cfg.D2+1)/2, data.Classes, data.Name, ntr, nval, cfg.Lambda, cfg.Threshold)
	return in, nil
}

// file is the problem's .npz file: Data's matrices and their labels, as
// float64.
type file struct {
	Data
	Labels []float64 `npz:"labels" shape:"N"`
}

// Load reads labelled SPD matrices from a numpy .npz file: A (N×D×D,
// symmetric positive definite) and labels (N, integers 1..C; C is their
// largest value). Data.Validate checks them.
func Load(path string) (*Data, error) {
	f := file{Data: Data{Name: "data from " + path}}
	if err := problems.ReadTagged(path, &f); err != nil {
		return nil, err
	}
	d := &f.Data
	d.Labels = make([]int, d.N)
	for i, l := range f.Labels {
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
	f := file{Data: *data, Labels: make([]float64, data.N)}
	for i, l := range data.Labels {
		f.Labels[i] = float64(l)
	}
	return problems.SaveTagged(path, &f)
}

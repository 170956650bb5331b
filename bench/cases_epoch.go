package bench

import (
	"math"
	"strings"

	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// epochCases are one RHGD epoch of the paper's synthetic problem (S = 20
// lower steps, the estimate, the upper step, with the paper's settings) at
// n = 2d, r = d/2.5, one per estimator. Each call starts from the same
// point, so every call does the same work. Its floor is the d×d
// eigendecomposition; the peers of HINV and AD are the authors' PyTorch
// formulation (bench/torch_synthetic.py) in float64 and float32. hinv32
// is HINV with the opt-in mixed-precision lower loop
// (synthetic.Problem.SetLowerFloat32Steps(S−1): every lower step but the
// last with float32 products), beside the same peers.
func epochCases(d int) []Case {
	var cs []Case
	s := synthetic.Paper.Settings
	for _, op := range append(synthetic.Paper.Names(), "hinv32") {
		name, f32 := strings.CutSuffix(op, "32")
		var peers []string
		if name == "hinv" || name == "ad" {
			peers = []string{"torch.epoch64", "torch.epoch32"}
		}
		params := map[string]any{"estimator": name, "inner": s.InnerIters, "eta_x": s.EtaX, "eta_y": s.EtaY}
		if f32 {
			params["lower_float32_steps"] = s.InnerIters - 1
		}
		cs = append(cs, Case{Group: "epoch", Op: op, Size: "d=" + itoa(d), N: float64(d), FlopCount: "≈S·30d³", Exponent: 3,
			Floor: "eig", FloorSize: sizeN(d), Peers: peers,
			Params: params,
			Prepare: func(dir string) (*Prepared, error) {
				f32Steps := 0
				if f32 {
					f32Steps = s.InnerIters - 1
				}
				e, err := newSyntheticEpoch(d, name, f32Steps)
				if err != nil {
					return nil, err
				}
				in := newInputs(dir)
				in.add("x", e.data.X, e.data.N, d)
				in.add("y", e.data.Y, e.data.N, e.r)
				in.add("w0", e.w, d, e.r)
				in.add("m0", e.m, d, d)
				in.add("nu", []float64{e.data.Nu}, 1, 0)
				prep := &Prepared{Files: in.files, Output: e.rh.X, Run: func() error {
					if err := e.rh.Reset(e.w, e.m); err != nil {
						return err
					}
					_, err := e.rh.Step()
					return err
				}}
				if f32 {
					prep.Agreement = func() float64 { return mixedAgreement(d, name, f32Steps) }
				}
				return prep, in.err
			}})
	}
	return cs
}

// syntheticEpoch is the paper's synthetic problem at d (n = 2d, r = d/2.5)
// with an RHGD on the estimator name and the paper's settings, and its
// start (w, m).
type syntheticEpoch struct {
	data *synthetic.Data
	p    *synthetic.Problem
	r    int
	rh   *solver.RHGD
	w, m []float64
}

func newSyntheticEpoch(d int, name string, f32Steps int) (*syntheticEpoch, error) {
	r := max(1, int(math.Round(float64(d)/2.5)))
	data, err := synthetic.Generate(2*d, d, r, synthetic.PaperNu, 42)
	if err != nil {
		return nil, err
	}
	p, err := synthetic.New(data)
	if err != nil {
		return nil, err
	}
	if err := p.SetLowerFloat32Steps(f32Steps); err != nil {
		return nil, err
	}
	s := synthetic.Paper.Settings
	if s.Estimator, err = synthetic.Paper.Estimator(name); err != nil {
		return nil, err
	}
	rh, err := solver.New(p.Bilevel(), &s)
	if err != nil {
		return nil, err
	}
	w, m := p.Start(7)
	return &syntheticEpoch{data: data, p: p, r: r, rh: rh, w: w, m: m}, nil
}

// mixedEpochs is how many epochs mixedAgreement runs each way: the three
// of TestMixedAgrees at d = 1000 (problems/synthetic).
const mixedEpochs = 3

// mixedAgreement is the relative difference of f after mixedEpochs epochs
// with f32Steps float32 lower steps per epoch from f after as many in
// float64, from the case's start: what issue 20 §3's target asks of an
// opt-in mixed-precision epoch (NaN if either run fails).
func mixedAgreement(d int, name string, f32Steps int) float64 {
	final := func(k int) float64 {
		e, err := newSyntheticEpoch(d, name, k)
		if err != nil {
			return math.NaN()
		}
		if err := e.rh.Reset(e.w, e.m); err != nil {
			return math.NaN()
		}
		for range mixedEpochs {
			if _, err := e.rh.Step(); err != nil {
				return math.NaN()
			}
		}
		f, err := e.p.F(&solver.Point{X: e.rh.X(), Y: e.rh.Y(), XID: solver.NewID(), YID: solver.NewID()})
		if err != nil {
			return math.NaN()
		}
		return f
	}
	f64, f32 := final(0), final(f32Steps)
	return math.Abs(f32-f64) / math.Abs(f64)
}

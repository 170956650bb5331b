package bench

import (
	"math"

	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// epochCases are one RHGD epoch of the paper's synthetic problem (S = 20
// lower steps, the estimate, the upper step, with the paper's settings) at
// n = 2d, r = d/2.5, one per estimator. Each call starts from the same
// point, so every call does the same work. Its floor is the d×d
// eigendecomposition; the peers of HINV and AD are the authors' PyTorch
// formulation (bench/torch_synthetic.py) in float64 and float32.
func epochCases(d int) []Case {
	var cs []Case
	s := synthetic.Paper.Settings
	for _, name := range synthetic.Paper.Names() {
		var peers []string
		if name == "hinv" || name == "ad" {
			peers = []string{"torch.epoch64", "torch.epoch32"}
		}
		cs = append(cs, Case{Group: "epoch", Op: name, Size: "d=" + itoa(d), N: float64(d), FlopCount: "≈S·30d³", Exponent: 3,
			Floor: "eig", FloorSize: sizeN(d), Peers: peers,
			Params: map[string]any{"estimator": name, "inner": s.InnerIters, "eta_x": s.EtaX, "eta_y": s.EtaY},
			Prepare: func(dir string) (*Prepared, error) {
				e, err := newSyntheticEpoch(d, name)
				if err != nil {
					return nil, err
				}
				in := newInputs(dir)
				in.add("x", e.data.X, e.data.N, d)
				in.add("y", e.data.Y, e.data.N, e.r)
				in.add("w0", e.w, d, e.r)
				in.add("m0", e.m, d, d)
				in.add("nu", []float64{e.data.Nu}, 1, 0)
				return &Prepared{Files: in.files, Output: e.rh.X, Run: func() error {
					if err := e.rh.Reset(e.w, e.m); err != nil {
						return err
					}
					_, err := e.rh.Step()
					return err
				}}, in.err
			}})
	}
	return cs
}

// syntheticEpoch is the paper's synthetic problem at d (n = 2d, r = d/2.5)
// with an RHGD on the estimator name and the paper's settings, and its
// start (w, m).
type syntheticEpoch struct {
	data *synthetic.Data
	r    int
	rh   *solver.RHGD
	w, m []float64
}

func newSyntheticEpoch(d int, name string) (*syntheticEpoch, error) {
	r := max(1, int(math.Round(float64(d)/2.5)))
	data, err := synthetic.Generate(2*d, d, r, synthetic.PaperNu, 42)
	if err != nil {
		return nil, err
	}
	p, err := synthetic.New(data)
	if err != nil {
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
	return &syntheticEpoch{data: data, r: r, rh: rh, w: w, m: m}, nil
}

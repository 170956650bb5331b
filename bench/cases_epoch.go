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
				r := max(1, int(math.Round(float64(d)/2.5)))
				data, err := synthetic.Generate(2*d, d, r, synthetic.PaperNu, 42)
				if err != nil {
					return nil, err
				}
				p, err := synthetic.New(data)
				if err != nil {
					return nil, err
				}
				if f32 {
					if err := p.SetLowerFloat32Steps(s.InnerIters - 1); err != nil {
						return nil, err
					}
				}
				s := s
				if s.Estimator, err = synthetic.Paper.Estimator(name); err != nil {
					return nil, err
				}
				rh, err := solver.New(p.Bilevel(), &s)
				if err != nil {
					return nil, err
				}
				w, m := p.Start(7)
				in := newInputs(dir)
				in.add("x", data.X, data.N, d)
				in.add("y", data.Y, data.N, r)
				in.add("w0", w, d, r)
				in.add("m0", m, d, d)
				in.add("nu", []float64{data.Nu}, 1, 0)
				return &Prepared{Files: in.files, Output: rh.X, Run: func() error {
					if err := rh.Reset(w, m); err != nil {
						return err
					}
					_, err := rh.Step()
					return err
				}}, in.err
			}})
	}
	return cs
}

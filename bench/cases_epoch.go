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
// eigendecomposition: each of the S lower steps takes one.
func epochCases(d int) []Case {
	var cs []Case
	for _, name := range synthetic.EstimatorNames {
		cs = append(cs, Case{Group: "epoch", Op: name, Size: "d=" + itoa(d), N: float64(d), FlopCount: "≈S·30d³", Exponent: 3,
			Floor: "eig", FloorSize: sizeN(d), // S lower steps, each an SPD exponential map
			Prepare: func(string) (*Prepared, error) {
				r := max(1, int(math.Round(float64(d)/2.5)))
				data, err := synthetic.Generate(2*d, d, r, synthetic.PaperNu, 42)
				if err != nil {
					return nil, err
				}
				p, err := synthetic.New(data)
				if err != nil {
					return nil, err
				}
				s := synthetic.PaperSettings()
				if s.Estimator, err = synthetic.PaperEstimator(name); err != nil {
					return nil, err
				}
				rh, err := solver.New(p.Problem(), &s)
				if err != nil {
					return nil, err
				}
				w, m := p.Start(7)
				return &Prepared{Run: func() error {
					if err := rh.Reset(w, m); err != nil {
						return err
					}
					_, err := rh.Step()
					return err
				}}, nil
			}})
	}
	return cs
}

package karcher_test

import (
	"context"
	"fmt"

	"github.com/rhgd/rhgd/problems/karcher"
	"github.com/rhgd/rhgd/solver"
)

// RHGD on the compositional reformulation, with solver.Compositional's
// oracles and finite differences for the second-order ones, finds the x
// whose image φ(x) = C^½ exp(x) C^½ is the Karcher mean of the B_i.
func Example() {
	data, err := karcher.Generate(4, 6, 1, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := karcher.New(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	x0, y0 := p.Start(0)
	s := karcher.Paper.Settings
	s.Estimator, s.GradTol = &solver.CG{}, 1e-10
	q, err := solver.Compositional(p.Compositional(), p.X, p.SPD)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := solver.New(q, &s)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := r.Run(context.Background(), x0, y0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fstar, _, mean, err := p.Solution()
	if err != nil {
		fmt.Println(err)
		return
	}
	phi := make([]float64, 16)
	if err := p.Phi(phi, res.X); err != nil {
		fmt.Println(err)
		return
	}
	d, err := p.SPD.Dist(phi, mean)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: f = %.9f, F* = %.9f, d(φ(x), mean) < 1e-8: %v\n", res.Status, res.F, fstar, d < 1e-8)
	// Output: GradientThreshold: f = 0.452905870, F* = 0.452905870, d(φ(x), mean) < 1e-8: true
}

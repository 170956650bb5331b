package minmax_test

import (
	"context"
	"fmt"

	"github.com/rhgd/rhgd/problems/minmax"
	"github.com/rhgd/rhgd/solver"
)

// Riemannian gradient descent–ascent (Algorithm 3) on the generated
// problem reaches the known optimum F* = −p − Σ_{i≤p} log λ_i(A), here
// −4 + 6·log(50)/18 from the generated spectrum.
func Example() {
	data, err := minmax.Generate(20, 4, 100, 0.5, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	pr, err := minmax.New(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	x0, y0 := pr.Start(7)
	s := minmax.Paper.Settings // GDA, η_x = η_y = ½, S = 20
	s.GradTol = 1e-10
	r, err := solver.New(solver.MinMax(pr.MinMax()), &s)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := r.Run(context.Background(), x0, y0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fstar, _, _, _ := pr.Solution()
	fmt.Printf("%v: f = %.9f, F* = %.9f\n", res.Status, res.F, fstar)
	// Output: GradientThreshold: f = -2.695992332, F* = -2.695992332
}

package hyperrep_test

import (
	"context"
	"fmt"

	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/solver"
)

// Example runs RHGD with the exact inverse Hessian on the paper's
// shallow hyper-representation problem (200 SPD matrices of order 50,
// W ∈ St(50, 10)) for five epochs of the paper's settings and prints the
// validation loss before and after (f at the returned W and the lower
// solution that goes with it), and the size of the last hypergradient
// (the last epoch's, at the point before its step).
func Example() {
	data, err := hyperrep.Generate(42)
	if err != nil {
		panic(err)
	}
	hp, err := hyperrep.New(data, hyperrep.PaperLambda)
	if err != nil {
		panic(err)
	}
	p := hp.Bilevel()
	w0, beta0 := hp.Start(0)
	f0, err := p.F(&solver.Point{X: w0, Y: beta0})
	if err != nil {
		panic(err)
	}
	est, err := hyperrep.Paper.Estimator("hinv")
	if err != nil {
		panic(err)
	}
	s := hyperrep.Paper.Settings
	s.Epochs, s.Estimator = 5, est
	res, err := solver.Minimize(context.Background(), p, w0, beta0, &s)
	if err != nil {
		panic(err)
	}
	fmt.Printf("f(W0, β0) = %.3f\n", f0)
	fmt.Printf("after %d epochs: f = %.3f, ‖hypergradient‖ = %.3f\n", res.Stats.Epochs, res.F, res.HyperGradNorm)
	// Output:
	// f(W0, β0) = 4.659
	// after 5 epochs: f = 1.558, ‖hypergradient‖ = 1.852
}

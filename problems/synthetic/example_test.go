package synthetic_test

import (
	"context"
	"fmt"

	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// The paper's synthetic problem run two ways from the same start: with
// the paper's settings for its 200 epochs, and with the adaptive settings
// (the closed-form lower solution, BB upper steps) to a small
// hypergradient.
func Example() {
	data, err := synthetic.Generate(synthetic.PaperN, synthetic.PaperD, synthetic.PaperR, synthetic.PaperNu, 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := synthetic.New(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	w0, m0 := p.Start(7)

	paper := synthetic.Paper.Settings // η_x = η_y = 0.5, S = 20, 200 epochs
	paper.Estimator = solver.HInv{}
	res, err := solver.Minimize(context.Background(), p.Bilevel(), w0, m0, &paper)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("paper:    %v after %d epochs, f = %.4f\n", res.Status, res.Stats.Epochs, res.F)

	fast := solver.AdaptiveSettings()
	fast.EtaX, fast.Estimator, fast.GradTol = 0.5, solver.HInv{}, 1e-8
	res, err = solver.Minimize(context.Background(), p.Bilevel(), w0, m0, &fast)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("adaptive: %v within 100 epochs: %v, f = %.4f\n", res.Status, res.Stats.Epochs <= 100, res.F)
	// Output:
	// paper:    IterationLimit after 200 epochs, f = -0.7514
	// adaptive: GradientThreshold within 100 epochs: true, f = -0.7662
}

// Build makes the ready-made problem from typed parameters, as rhgd run
// does from its flags and the C ABI from key=value pairs: the paper's by
// default, here on smaller data, with one of the paper's estimators.
func ExampleBuild() {
	p := synthetic.DefaultParams()
	p.N, p.D, p.R = 30, 8, 3
	in, err := synthetic.Build(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := in.Settings
	s.Epochs = 20
	if s.Estimator, err = synthetic.Paper.Estimator("cg"); err != nil {
		fmt.Println(err)
		return
	}
	res, err := solver.Minimize(context.Background(), in.Problem, in.X0, in.Y0, &s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(in.Describe)
	fmt.Printf("%v after %d epochs with %v\n", res.Status, res.Stats.Epochs, s.Estimator)
	// Output:
	// St(8,3) × SPD(8), n = 30, ν = 0.01, data generated from seed 42
	// IterationLimit after 20 epochs with cg:maxiter=50,tol=1e-10
}

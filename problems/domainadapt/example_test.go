package domainadapt_test

import (
	"context"
	"fmt"

	officecaltech "github.com/rhgd/rhgd/data/office-caltech10"
	"github.com/rhgd/rhgd/problems/domainadapt"
	"github.com/rhgd/rhgd/solver"
)

// Example adapts DSLR to Webcam (DeCAF6 features) for 10 epochs of RHGD
// with the paper's settings and compares with the OT-SKH baseline.
func Example() {
	data, err := domainadapt.LoadPair(officecaltech.DSLR, officecaltech.Webcam, officecaltech.DeCAF6)
	if err != nil {
		fmt.Println(err)
		return
	}
	in, err := domainadapt.NewInstance(data, domainadapt.PaperConfig(), 1e-4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(in.Describe)
	s := in.Settings
	s.Epochs = 10
	res, err := solver.Minimize(context.Background(), in.Problem, in.X0, in.Y0, &s)
	if err != nil {
		fmt.Println(err)
		return
	}
	acc, err := in.Accuracy(res.X, res.Y)
	if err != nil {
		fmt.Println(err)
		return
	}
	name, base, err := in.Baseline()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("RHGD, %d epochs: %.2f%%\n%s: %.2f%%\n", res.Stats.Epochs, acc, name, base)
	// Output:
	// Π(157,295) × SPD(128), Office-Caltech10 D→W, decaf6, α = 0.5, λ = 0, ε = 0.01
	// RHGD, 10 epochs: 91.86%
	// OT-SKH (λ = 0.0001): 93.90%
}

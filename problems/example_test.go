package problems_test

import (
	"fmt"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/catalog"
)

// A problem's parameters by name, as the C ABI and Python set them: the
// catalog's Spec makes the Params with the paper's defaults, SetParams
// sets some from key=value pairs, Fields lists them all, and Build makes
// the Instance.
func ExampleSetParams() {
	spec, err := catalog.Lookup("synthetic")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := spec.New()
	if err := problems.SetParams(p, "n=30", "d=8", "r=3", "start_seed=3"); err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range problems.Fields(p) {
		fmt.Printf("%s=%s\n", f.Key, f.Default)
	}
	in, err := spec.Build(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(in.Describe)
	fmt.Println(problems.SetParams(p, "m=3"))
	// Output:
	// d=8
	// lower_float32_steps=0
	// n=30
	// nu=0.01
	// r=3
	// save=
	// start_seed=3
	// St(8,3) × SPD(8), n = 30, ν = 0.01, data generated from seed 42
	// unknown parameter "m"; its parameters are d, lower_float32_steps, n, nu, r, save, start_seed
}

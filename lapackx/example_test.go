package lapackx_test

import (
	"errors"
	"fmt"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
)

// Functions of a symmetric matrix from one eigendecomposition, with bad
// input reported as an error that names its class.
func ExampleSymFunc() {
	sf := lapackx.NewSymFunc(2)
	a := []float64{2, 1, 1, 2} // eigenvalues 1 and 3
	e, l := make([]float64, 4), make([]float64, 4)
	if err := sf.Exp(e, a); err != nil {
		fmt.Println(err)
		return
	}
	if err := sf.Log(l, e); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("log(exp(A)) = [%.12f %.12f; %.12f %.12f]\n", l[0], l[1], l[2], l[3])

	err := sf.Log(l, []float64{1, 2, 2, 1}) // eigenvalues −1 and 3
	fmt.Println(errors.Is(err, numerr.ErrNotPosDef), err)
	// Output:
	// log(exp(A)) = [2.000000000000 1.000000000000; 1.000000000000 2.000000000000]
	// true lapackx: not positive definite: smallest eigenvalue -1, function needs positive ones
}

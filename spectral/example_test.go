package spectral_test

import (
	"fmt"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/spectral"
)

// Two 2×2 SPD matrices at once: their eigendecompositions, their
// logarithms and the backward map of the log layer for the upstream
// gradient G = I (whose result is Df(A)[I] = A⁻¹ for the logarithm).
func Example() {
	const n, count = 2, 2
	a := []float64{
		2, 0, 0, 8, // diag(2, 8)
		2, 1, 1, 2, // eigenvalues 1 and 3
	}
	b := spectral.NewBatch(n, count) // reuse it: no allocation after this
	w, v := make([]float64, count*n), make([]float64, count*n*n)
	if err := b.Eig(w, v, a, count); err != nil {
		panic(err)
	}
	fmt.Printf("eigenvalues %.4g\n", w)

	g := []float64{1, 0, 0, 1, 1, 0, 0, 1}
	logA, grad := make([]float64, count*n*n), make([]float64, count*n*n)
	if err := b.Map(logA, grad, a, g, count, lapackx.LogFunc); err != nil {
		panic(err)
	}
	fmt.Printf("log A₁ diagonal %.4f %.4f\n", logA[0], logA[3])
	fmt.Printf("grad₂ %.4f\n", grad[4:])
	// Output:
	// eigenvalues [2 8 1 3]
	// log A₁ diagonal 0.6931 2.0794
	// grad₂ [0.6667 -0.3333 -0.3333 0.6667]
}

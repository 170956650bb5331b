package lapackx

import (
	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// ReduceSym overwrites the lower triangle of the symmetric n×n row-major a,
// of which it reads the lower triangle only, with that of L⁻¹ A L⁻ᵀ, where l holds a lower triangular
// L in its lower triangle (as Impl.Dpotrf with blas.Lower leaves it). This
// is LAPACK's dsygst, the reduction of A v = λ L Lᵀ v to standard form, at
// n³ flops against the 2n³ of two triangular solves, which it does instead
// for small n (below sygstCutoff) and on the pure-Go backend. The upper triangle of a is left unspecified: pair
// it with EigSym.FactorizeLower.
func ReduceSym(a, l []float64, n int) {
	if len(a) != n*n || len(l) != n*n {
		panic(errShape)
	}
	if n == 0 {
		return
	}
	lp().reduceSym(a, l, n)
}

// reduceSymSolves is ReduceSym by two triangular solves.
func reduceSymSolves(a, l []float64, n int) {
	for i := 0; i < n; i++ { // the solves need A in full
		for j := i + 1; j < n; j++ {
			a[i*n+j] = a[j*n+i]
		}
	}
	impl := blas.Impl()
	impl.Dtrsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, n, 1, l, n, a, n)
	impl.Dtrsm(gblas.Right, gblas.Lower, gblas.Trans, gblas.NonUnit, n, n, 1, l, n, a, n)
}

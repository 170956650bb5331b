package lapackx

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/numerr"
)

// errCholesky is Cholesky's failure, made once so that the failing call
// allocates nothing either.
var errCholesky = fmt.Errorf("lapackx: %w (Cholesky factorization failed)", numerr.ErrNotPosDef)

// Cholesky sets dst to the lower Cholesky factor L of the n×n symmetric
// positive definite a (row-major; only its lower triangle is read), with
// A = LLᵀ, and zeros dst's strict upper triangle so that L can enter
// general products. dst and a may be the same slice (an in-place
// factorization) but must not otherwise overlap. It allocates nothing.
//
// When a is not positive definite, or its lower triangle holds a NaN or
// an infinity, it returns an error wrapping numerr.ErrNotPosDef, and dst
// holds a partial factorization.
// This is the one way the problems factor a matrix they were given or
// formed: copy, factor, check.
func Cholesky(dst, a []float64, n int) error {
	if len(dst) != n*n || len(a) != n*n {
		panic(errShape)
	}
	if n == 0 {
		return nil
	}
	copy(dst, a)
	if !(Impl{}).Dpotrf(gblas.Lower, n, dst, n) {
		return errCholesky
	}
	for i := 0; i < n; i++ {
		// OpenBLAS's dpotrf lets a NaN through; it reaches the diagonal
		// of every later row, so the diagonal tells.
		if d := dst[i*n+i]; !(d > 0 && d <= math.MaxFloat64) {
			return errCholesky
		}
		clear(dst[i*n+i+1 : (i+1)*n])
	}
	return nil
}

// CholSolve sets dst = A⁻¹b for the n-vector b, with l the lower Cholesky
// factor of A that Cholesky returns: the solve that goes with it, by
// LAPACK's dpotrs. dst may be b. It allocates nothing.
func CholSolve(dst, l, b []float64, n int) {
	if len(dst) != n || len(l) != n*n || len(b) != n {
		panic(errShape)
	}
	copy(dst, b)
	Impl{}.Dpotrs(gblas.Lower, n, 1, l, n, dst, 1)
}

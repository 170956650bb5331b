package lapackx

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/testlapack"
)

// dpotriTest checks Dpotri as gonum's testlapack.DpotriTest does (the
// same sizes, strides and matrices: A = U D Uᵀ with κ(A) = 1e4), but
// against the bound that inverting through Cholesky guarantees,
// max|A·A⁻¹ − I| ≤ c·n·κ(A)·u, with c = 4, instead of gonum's absolute
// 1e-12: n = 5 with OpenBLAS's Nehalem kernels gives 1.4e-12, inside
// n·κ·u = 5.6e-12. A wrong inverse is off by O(1).
func dpotriTest(t *testing.T, impl Impl) {
	const kappa, u = 1e4, 0x1p-53
	for _, uplo := range []gblas.Uplo{gblas.Upper, gblas.Lower} {
		rnd := rand.New(rand.NewPCG(1, 1))
		for _, n := range []int{0, 1, 2, 3, 4, 5, 10, 25, 31, 32, 33, 63, 64, 65, 127, 128, 129} {
			for _, lda := range []int{max(1, n), n + 11} {
				name := fmt.Sprintf("%c/n=%d,lda=%d", uplo, n, lda)
				d := make([]float64, n)
				testlapack.Dlatm1(d, 3, kappa, false, 2, rnd)
				a := make([]float64, n*lda)
				testlapack.Dlagsy(n, 0, d, a, lda, rnd, make([]float64, 2*n))
				orig := append([]float64(nil), a...)
				if !impl.Dpotrf(uplo, n, a, lda) {
					t.Fatalf("%s: Cholesky failed", name)
				}
				if !impl.Dpotri(uplo, n, a, lda) {
					t.Fatalf("%s: Dpotri failed", name)
				}
				// The other triangle is untouched; then mirror the result.
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						if outside := (uplo == gblas.Upper && j < i) || (uplo == gblas.Lower && j > i); outside && a[i*lda+j] != orig[i*lda+j] {
							t.Fatalf("%s: Dpotri wrote [%d,%d] outside its triangle", name, i, j)
						}
					}
				}
				for i := 0; i < n; i++ {
					for j := 0; j < i; j++ {
						if uplo == gblas.Upper {
							a[i*lda+j] = a[j*lda+i]
						} else {
							a[j*lda+i] = a[i*lda+j]
						}
					}
				}
				prod := make([]float64, n*max(1, n))
				blas64.Implementation().Dsymm(gblas.Left, uplo, n, n, 1, orig, lda, a, lda, 0, prod, max(1, n))
				var dist float64
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						e := prod[i*n+j]
						if i == j {
							e--
						}
						dist = math.Max(dist, math.Abs(e))
					}
				}
				if bound := 4 * float64(n) * kappa * u; !(dist <= bound) {
					t.Errorf("%s: max|A·A⁻¹ − I| = %.3g > 4nκu = %.3g", name, dist, bound)
				}
			}
		}
	}
}

package lapackx

import (
	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// sygstCutoff is the order from which ReduceSym calls dsygst rather than
// two triangular solves (BenchmarkReduceSym: at n=200 the solves take
// 0.65 ms against dsygst's 0.89 ms, at n=400 4.2 ms against 3.2 ms).
const sygstCutoff = 300

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
	if useNative() && n >= sygstCutoff {
		// Row-major lower triangles are column-major upper ones, and
		// L = Uᵀ with U the column-major upper factor: dsygst('U')
		// computes U⁻ᵀ A U⁻¹ = L⁻¹ A L⁻ᵀ.
		if info := cDsygst(1, 'U', n, a, n, l, n); info != 0 {
			panic(lapackErr("dsygst", info)) // only on invalid arguments
		}
		return
	}
	for i := 0; i < n; i++ { // the solves need A in full
		for j := i + 1; j < n; j++ {
			a[i*n+j] = a[j*n+i]
		}
	}
	impl := blas.Impl()
	impl.Dtrsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, n, 1, l, n, a, n)
	impl.Dtrsm(gblas.Right, gblas.Lower, gblas.Trans, gblas.NonUnit, n, n, 1, l, n, a, n)
}

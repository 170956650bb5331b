package lapackx

import (
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// InvLower sets li = L⁻¹ for the n×n lower triangular L (row-major; its
// strict upper triangle is not read). li's strict upper triangle is zero
// on return, so li can enter general products. Below invLowerCutoff it
// solves against the identity (OpenBLAS runs this left solve at n = 50 in
// 10 µs where dpotri takes 45 µs and gonum's dtrtri 18 µs,
// BenchmarkCholInverse); from there it calls LAPACK's blocked dtrtri,
// which does n³/3 flops where the solve does n³ (BenchmarkInvLower).
func InvLower(li, l []float64, n int) {
	if len(li) != n*n || len(l) != n*n {
		panic(errShape)
	}
	if n == 0 {
		return
	}
	if n >= invLowerCutoff {
		for i := 0; i < n; i++ {
			copy(li[i*n:i*n+i+1], l[i*n:i*n+i+1])
			clear(li[i*n+i+1 : (i+1)*n])
		}
		if lp().trtri(gblas.Lower, n, li, n) {
			return
		}
		// A zero pivot: the solve below gives the same Inf and NaN as before.
	}
	clear(li)
	for i := 0; i < n; i++ {
		li[i*n+i] = 1
	}
	blas.Impl().Dtrsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, n, 1, l, n, li, n)
}

// invLowerCutoff is the order from which InvLower calls dtrtri.
const invLowerCutoff = 100

// CholInverse sets dst = (L Lᵀ)⁻¹, exactly symmetric, for the n×n lower
// Cholesky factor L (row-major; strict upper triangle not read); work is
// n×n scratch. With OpenBLAS below cholInverseCutoff it solves against the
// identity and forms the Gram product L⁻ᵀL⁻¹; otherwise it calls dpotri.
// dst, work and l must not share memory.
func CholInverse(dst, work, l []float64, n int) {
	if len(dst) != n*n || len(work) != n*n {
		panic(errShape)
	}
	if n == 0 {
		return
	}
	lp().cholInverse(dst, work, l, n)
}

// cholInversePotri is CholInverse by b's dpotri.
func cholInversePotri(b backend, dst, l []float64, n int) {
	copy(dst, l)
	if !b.potri(gblas.Lower, n, dst, n) {
		// A zero pivot in L: the solve-and-Gram route would give Inf too.
		for i := range dst {
			dst[i] = math.Inf(1)
		}
		return
	}
	// dpotri wrote the lower triangle (column-major upper).
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dst[i*n+j] = dst[j*n+i]
		}
	}
}

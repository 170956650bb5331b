package lapackx

import (
	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// Congruences V M Vᵀ and Vᵀ M V with V orthogonal (the eigenvector rows of
// an EigSym) and M symmetric, at 3n³ flops instead of the 4n³ of two
// general products: split M = U + Uᵀ with U its upper triangle (diagonal
// halved), form P = V U or U V with one triangular product (n³), and finish
// with one symmetric rank-2k update (2n³) that writes only the upper
// triangle.
//
// m holds M in its upper triangle and is overwritten; p is n×n scratch; dst
// receives the upper triangle only. dst may be m (m is consumed before dst
// is written); otherwise none may alias another or v.

// congruenceVMVt sets the upper triangle of dst to V M Vᵀ.
func congruenceVMVt(dst, v, m, p []float64, n int) {
	if n == 0 {
		return // BLAS wants a leading dimension ≥ 1
	}
	halveDiag(m, n)
	copy(p, v)
	impl := blas.Impl()
	impl.Dtrmm(gblas.Right, gblas.Upper, gblas.NoTrans, gblas.NonUnit, n, n, 1, m, n, p, n)
	// P Vᵀ + V Pᵀ = V U Vᵀ + V Uᵀ Vᵀ.
	impl.Dsyr2k(gblas.Upper, gblas.NoTrans, n, n, 1, p, n, v, n, 0, dst, n)
}

// congruenceVtMV sets the upper triangle of dst to Vᵀ M V.
func congruenceVtMV(dst, v, m, p []float64, n int) {
	if n == 0 {
		return // BLAS wants a leading dimension ≥ 1
	}
	halveDiag(m, n)
	copy(p, v)
	impl := blas.Impl()
	impl.Dtrmm(gblas.Left, gblas.Upper, gblas.NoTrans, gblas.NonUnit, n, n, 1, m, n, p, n)
	// Vᵀ P + Pᵀ V = Vᵀ U V + Vᵀ Uᵀ V.
	impl.Dsyr2k(gblas.Upper, gblas.Trans, n, n, 1, v, n, p, n, 0, dst, n)
}

func halveDiag(m []float64, n int) {
	for i := 0; i < n; i++ {
		m[i*n+i] *= 0.5
	}
}

// Congruence sets dst = V M Vᵀ, or Vᵀ M V when trans is set, for n×n V
// and symmetric M, at 3n³ flops (a triangular product and a symmetric
// rank-2k update) against the 4n³ of two general products. m holds M in
// its upper triangle (the lower is not read) and is overwritten; p is n×n
// scratch. dst, exactly symmetric on return, may be m; otherwise none of
// dst, m, p and v may share memory.
func Congruence(dst, v, m, p []float64, n int, trans bool) {
	if len(dst) != n*n || len(v) != n*n || len(m) != n*n || len(p) != n*n {
		panic(errShape)
	}
	if n < congruenceGemmCutoff {
		congruenceGemm(dst, v, m, p, n, trans)
		return
	}
	if trans {
		congruenceVtMV(dst, v, m, p, n)
	} else {
		congruenceVMVt(dst, v, m, p, n)
	}
	mirrorUpper(dst, n)
}

// MirrorUpper copies the strict upper triangle of the n×n row-major a into
// its lower triangle, making a exactly symmetric.
func MirrorUpper(a []float64, n int) {
	if len(a) != n*n {
		panic(errShape)
	}
	mirrorUpper(a, n)
}

// congruenceGemmCutoff is the order below which Congruence uses two general
// products: OpenBLAS's triangular and rank-2k kernels carry more overhead
// than its GEMM at small sizes. BenchmarkCongruenceMethod, medians: n=50
// 13.7 µs against 22.4 µs, n=100 86 µs both ways, n=200 433 µs against
// 365 µs.
const congruenceGemmCutoff = 100

// gramUpper sets the upper triangle of the n×n dst to WᵀW for the k×n
// row-major w: a rank-k update, or below congruenceGemmCutoff a general
// product (both triangles, faster there; see BenchmarkCongruenceMethod).
func gramUpper(dst, w []float64, k, n int) {
	if n == 0 {
		return // BLAS wants a leading dimension ≥ 1
	}
	impl := blas.Impl()
	if n < congruenceGemmCutoff {
		impl.Dgemm(gblas.Trans, gblas.NoTrans, n, n, k, 1, w, n, w, n, 0, dst, n)
		return
	}
	impl.Dsyrk(gblas.Upper, gblas.Trans, n, k, 1, w, n, 0, dst, n)
}

// congruenceGemm sets dst = V M Vᵀ (or Vᵀ M V) with two general products,
// mirroring the upper triangle for exact symmetry. m holds M in its upper
// triangle; it is completed in place, and p is scratch. dst may be m.
func congruenceGemm(dst, v, m, p []float64, n int, trans bool) {
	if n == 0 {
		return // BLAS wants a leading dimension ≥ 1
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			m[i*n+j] = m[j*n+i]
		}
	}
	impl := blas.Impl()
	if trans {
		impl.Dgemm(gblas.Trans, gblas.NoTrans, n, n, n, 1, v, n, m, n, 0, p, n) // Vᵀ M
		impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, p, n, v, n, 0, dst, n)
	} else {
		impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, v, n, m, n, 0, p, n) // V M
		impl.Dgemm(gblas.NoTrans, gblas.Trans, n, n, n, 1, p, n, v, n, 0, dst, n)
	}
	mirrorUpper(dst, n)
}

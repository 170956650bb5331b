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

// ReduceSymRecursive is ReduceSym (the lower triangle of a becomes that of
// L⁻¹ A L⁻ᵀ; the upper triangle of a is left unspecified, l's is not read)
// by a recursive split into halves: with A and L in 2×2 blocks,
//
//	Â11 = L11⁻¹ A11 L11⁻ᵀ,  W = A21 L11⁻ᵀ − ½ L21 Â11,
//	Â22 = L22⁻¹ (A22 − L21 Wᵀ − W L21ᵀ) L22⁻ᵀ,  Â21 = L22⁻¹ (W − ½ L21 Â11),
//
// and two triangular solves at and below reduceRecBase. Forming L21 Â11
// once (into the free upper block A12) keeps the count at dsygst's n³
// flops, but in a few large gemm, trsm and syr2k calls, which thread well,
// where dsygst makes many small ones (panels of 64, unblocked diagonal
// blocks).
// BenchmarkReduceSymRecursive on the 2-core EPYC, medians, ReduceSym
// against this: n=200 (solves) 0.44 ms, 0.37 ms; n=500 3.5, 3.2; n=1000
// 19.4, 18.4; n=2000 130 to 172, 131; on one thread at n=2000 253, 210;
// on gonum n=500 27.3, 17.4 and n=1000 209, 135. With the cores shared
// with other work dsygst degrades most (n=2000: 650 ms against 215).
func ReduceSymRecursive(a, l []float64, n int) {
	if len(a) != n*n || len(l) != n*n {
		panic(errShape)
	}
	if n == 0 {
		return
	}
	reduceSymRec(a, n, l, n, n)
}

// reduceRecBase is the order at and below which ReduceSymRecursive solves
// its diagonal blocks by two triangular solves; 32 to 128 time the same.
const reduceRecBase = 64

// reduceSymRec is ReduceSymRecursive on the n×n blocks of a and l with
// leading dimensions lda and ldl.
func reduceSymRec(a []float64, lda int, l []float64, ldl, n int) {
	impl := blas.Impl()
	if n <= reduceRecBase {
		for i := 0; i < n; i++ { // the solves need the block in full
			for j := i + 1; j < n; j++ {
				a[i*lda+j] = a[j*lda+i]
			}
		}
		impl.Dtrsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, n, 1, l, ldl, a, lda)
		impl.Dtrsm(gblas.Right, gblas.Lower, gblas.Trans, gblas.NonUnit, n, n, 1, l, ldl, a, lda)
		return
	}
	n1 := (n/2 + 15) &^ 15 // a multiple of 16, for the kernels' tiles
	n2 := n - n1
	a12, a21, a22 := a[n1:], a[n1*lda:], a[n1*lda+n1:]
	l21, l22 := l[n1*ldl:], l[n1*ldl+n1:]
	reduceSymRec(a, lda, l, ldl, n1)
	// Yᵀ = Â11 L21ᵀ into the free upper block A12, with Â11 mirrored into
	// its own free upper triangle for the general product.
	for i := 0; i < n1; i++ {
		for j := i + 1; j < n1; j++ {
			a[i*lda+j] = a[j*lda+i]
		}
	}
	impl.Dgemm(gblas.NoTrans, gblas.Trans, n1, n2, n1, 1, a, lda, l21, ldl, 0, a12, lda)
	impl.Dtrsm(gblas.Right, gblas.Lower, gblas.Trans, gblas.NonUnit, n2, n1, 1, l, ldl, a21, lda)
	subHalfTrans(a21, lda, a12, lda, n2, n1) // W = A21 L11⁻ᵀ − ½Y
	impl.Dsyr2k(gblas.Lower, gblas.NoTrans, n2, n1, -1, l21, ldl, a21, lda, 1, a22, lda)
	subHalfTrans(a21, lda, a12, lda, n2, n1) // W − ½Y
	impl.Dtrsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n2, n1, 1, l22, ldl, a21, lda)
	reduceSymRec(a22, lda, l22, ldl, n2)
}

// subHalfTrans sets d −= ½ sᵀ for the m×k d and k×m s (row-major, leading
// dimensions ldd and lds), in tiles.
func subHalfTrans(d []float64, ldd int, s []float64, lds, m, k int) {
	const tile = 32
	for ib := 0; ib < m; ib += tile {
		for jb := 0; jb < k; jb += tile {
			for i := ib; i < min(ib+tile, m); i++ {
				row := d[i*ldd : i*ldd+k]
				for j := jb; j < min(jb+tile, k); j++ {
					row[j] -= 0.5 * s[j*lds+i]
				}
			}
		}
	}
}

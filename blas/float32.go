package blas

import (
	"sync"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Impl32 returns the float32 BLAS of the current backend, for opt-in
// mixed-precision paths (the synthetic problem's SetLowerFloat32Steps) that run a
// product in float32 at about twice the float64 rate and keep their
// iterates in float64: on the Native backend OpenBLAS's sgemm, ssyrk,
// strmm and strsm with the float64 calls' one-thread windows
// (Hybrid32), on the Gonum backend and in pure-Go builds gonum's
// float32 implementation. Only those four level-3 calls are routed to
// the native library; the rest are gonum's.
func Impl32() gblas.Float32 {
	if Current() == Native && haveNative {
		return native32()
	}
	return gonum.Implementation{}
}

// native32 is the native Hybrid32, boxed once so that Impl32 allocates
// nothing.
var native32 = sync.OnceValue(func() gblas.Float32 {
	return Hybrid32{Native: nativeImpl32(), Level3Cutoff: level3Cutoff}
})

// Hybrid32 is Hybrid's float32 counterpart: sgemm, ssyrk, strmm and strsm
// in the native library, small ones in Go, in the one-thread windows of
// their float64 classes.
type Hybrid32 struct {
	gonum.Implementation               // everything not overridden below
	Native               gblas.Float32 // large calls
	Level3Cutoff         int           // m·n·k below which calls stay in Go
}

var _ gblas.Float32 = Hybrid32{}

// Sgemm computes C = α op(A) op(B) + β C.
func (h Hybrid32) Sgemm(tA, tB gblas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m*n*k < h.Level3Cutoff {
		h.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if serial(m*n*k, gemmSerialLo, ThreadsFrom(CallGemm)) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Ssyrk computes C = α A Aᵀ + β C or C = α Aᵀ A + β C on one triangle of C.
func (h Hybrid32) Ssyrk(ul gblas.Uplo, tA gblas.Transpose, n, k int, alpha float32, a []float32, lda int, beta float32, c []float32, ldc int) {
	if n*n*k < h.Level3Cutoff {
		h.Implementation.Ssyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	if serial(n*n*k, serialLo, ThreadsFrom(CallSyrk)) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Ssyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
}

// Strmm computes B = α op(A) B or B = α B op(A) with A triangular.
func (h Hybrid32) Strmm(s gblas.Side, ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, m, n int, alpha float32, a []float32, lda int, b []float32, ldb int) {
	if m*n*side(s, m, n) < h.Level3Cutoff {
		h.Implementation.Strmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	if serial(m*n*side(s, m, n), serialLo, ThreadsFrom(CallTrmm)) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Strmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

// Strsm solves op(A) X = α B or X op(A) = α B with A triangular, in place.
func (h Hybrid32) Strsm(s gblas.Side, ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, m, n int, alpha float32, a []float32, lda int, b []float32, ldb int) {
	if m*n*side(s, m, n) < h.Level3Cutoff {
		h.Implementation.Strsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	if serial(m*n*side(s, m, n), serialLo, ThreadsFrom(CallTrsm)) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Strsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

package blas

import (
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Crossovers between pure Go and the native library. Below them the cgo
// crossing (about 60 ns) and the native library's set-up cost more than the
// arithmetic. Both come from BenchmarkHybridCrossover in this package (its
// doc has the table).
const (
	// level3Cutoff applies to m·n·k for Dgemm and the other level-3 calls:
	// native wins from n = 4 on (73 ns against Go's 146 ns).
	level3Cutoff = 32
	// level2Cutoff applies to m·n for Dgemv, Dsymv and the other level-2
	// calls. Below it Go wins or ties (n = 64: Go 429 ns, OpenBLAS on one
	// thread 428 ns with the window's switch, 337 ns without); above it
	// OpenBLAS runs on one thread up to serial2Hi.
	level2Cutoff = 128 * 128
	// serialLo and serialHi bound the m·n·k of the triangular, symmetric
	// and rank-k level-3 calls that run on one OpenBLAS thread: there its
	// threads cost more than they give (n = 50: trsm 12.2 → 9.2 µs, trmm
	// 7.6 → 4.4 µs, symm 17.5 → 7.1 µs), while above the window (n = 100
	// trsm 47 µs threaded against 60 µs) and below it (n = 20, where the
	// switch itself would cost a quarter of the call) they do not.
	// BenchmarkSerialWindow measures it.
	serialLo = 24 * 24 * 24
	serialHi = 72 * 72 * 72
	// serial2Hi bounds the m·n of the level-2 calls that run on one
	// OpenBLAS thread: a threaded dgemv wakes its threads from n = 96 on,
	// which costs more than the second core gives until n ≈ 384. On the
	// 2-core EPYC (BenchmarkHybridCrossover, ns, Go / threaded / one
	// thread through the window): n=96 913/4542/905, n=128 1597/6204/1472,
	// n=256 6417/8430/5613, n=512 29630/20765/28697.
	serial2Hi = 384 * 384
)

// serial reports whether a level-3 call of m·n·k multiply-adds belongs in
// the one-thread window.
func serial(mnk int) bool { return haveNative && mnk >= serialLo && mnk < serialHi }

// serial2 reports whether a native level-2 call on m·n entries belongs in
// the one-thread window.
func serial2(mn int) bool { return haveNative && mn < serial2Hi }

// Hybrid is a blas.Float64 that runs level-1 calls and small level-2 and
// level-3 calls in pure Go and larger ones in the native library. It is
// what Use(Native) installs.
type Hybrid struct {
	gonum.Implementation               // everything not overridden below
	Native               gblas.Float64 // large calls
	Level2Cutoff         int           // m·n below which level-2 calls stay in Go
	Level3Cutoff         int           // m·n·k below which level-3 calls stay in Go
}

// NewHybrid returns a Hybrid over the native library with the default
// crossovers. It panics in a pure-Go build.
func NewHybrid() Hybrid {
	return Hybrid{Native: nativeImpl(), Level2Cutoff: level2Cutoff, Level3Cutoff: level3Cutoff}
}

var _ gblas.Float64 = Hybrid{}

// Dgemm computes C = α op(A) op(B) + β C.
func (h Hybrid) Dgemm(tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m*n*k < h.Level3Cutoff {
		h.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	h.Native.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dsymm computes C = α A B + β C or C = α B A + β C with A symmetric.
func (h Hybrid) Dsymm(s gblas.Side, ul gblas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	k := m
	if s == gblas.Right {
		k = n
	}
	if m*n*k < h.Level3Cutoff {
		h.Implementation.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if serial(m * n * k) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dsyrk computes C = α A Aᵀ + β C or C = α Aᵀ A + β C on one triangle of C.
func (h Hybrid) Dsyrk(ul gblas.Uplo, tA gblas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if n*n*k < h.Level3Cutoff {
		h.Implementation.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	if serial(n * n * k) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
}

// Dsyr2k computes C = α (A Bᵀ + B Aᵀ) + β C or its transposed form on one
// triangle of C.
func (h Hybrid) Dsyr2k(ul gblas.Uplo, tA gblas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if n*n*k < h.Level3Cutoff {
		h.Implementation.Dsyr2k(ul, tA, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if serial(n * n * k) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dsyr2k(ul, tA, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dtrmm computes B = α op(A) B or B = α B op(A) with A triangular.
func (h Hybrid) Dtrmm(s gblas.Side, ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	k := m
	if s == gblas.Right {
		k = n
	}
	if m*n*k < h.Level3Cutoff {
		h.Implementation.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	if serial(m * n * k) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

// Dtrsm solves op(A) X = α B or X op(A) = α B with A triangular, in place.
func (h Hybrid) Dtrsm(s gblas.Side, ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	k := m
	if s == gblas.Right {
		k = n
	}
	if m*n*k < h.Level3Cutoff {
		h.Implementation.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	if serial(m * n * k) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

// Dgemv computes y = α op(A) x + β y.
func (h Hybrid) Dgemv(tA gblas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if m*n < h.Level2Cutoff {
		h.Implementation.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	if serial2(m * n) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
}

// Dsymv computes y = α A x + β y with A symmetric.
func (h Hybrid) Dsymv(ul gblas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if n*n < h.Level2Cutoff {
		h.Implementation.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	if serial2(n * n) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
}

// Dger computes A += α x yᵀ.
func (h Hybrid) Dger(m, n int, alpha float64, x []float64, incX int, y []float64, incY int, a []float64, lda int) {
	if m*n < h.Level2Cutoff {
		h.Implementation.Dger(m, n, alpha, x, incX, y, incY, a, lda)
		return
	}
	if serial2(m * n) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dger(m, n, alpha, x, incX, y, incY, a, lda)
}

// Dtrsv solves op(A) x = b with A triangular, in place.
func (h Hybrid) Dtrsv(ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, n int, a []float64, lda int, x []float64, incX int) {
	if n*n < h.Level2Cutoff {
		h.Implementation.Dtrsv(ul, tA, d, n, a, lda, x, incX)
		return
	}
	if serial2(n * n) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dtrsv(ul, tA, d, n, a, lda, x, incX)
}

// Dtrmv computes x = op(A) x with A triangular.
func (h Hybrid) Dtrmv(ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, n int, a []float64, lda int, x []float64, incX int) {
	if n*n < h.Level2Cutoff {
		h.Implementation.Dtrmv(ul, tA, d, n, a, lda, x, incX)
		return
	}
	if serial2(n * n) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dtrmv(ul, tA, d, n, a, lda, x, incX)
}

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
	// thread 428 ns with the window's switch, 337 ns without).
	level2Cutoff = 128 * 128
)

// The one-thread windows: which native calls run on all of OpenBLAS's
// threads and which on one. OpenBLAS spreads a call over its threads from
// sizes of its own choosing (a dgemm above 64³ multiply-adds, a dtrsm from
// m·n = 1024, dsymm and dsyr2k at every size), and each threaded call
// waits for all of its threads: on a quiet machine that costs microseconds
// a call, beside busy processes a thread that the kernel has descheduled
// costs a time slice (a threaded dgemm at n = 128 then takes 10 ms against
// 0.1 ms on one thread). Hybrid therefore runs a native call on one thread
// (SerialBegin, SerialEnd: 0.1 µs, BenchmarkSerialSwitch) unless its size
// reaches its call's bound in the table in use (ThreadsFrom, threadtable.go):
// a profile that `rhgd tune` measured on this machine, or the fallback
// derived from the 2-core EPYC's measurements (DefaultRule: threads at
// least 1.1× as fast as one on a quiet machine and 0.8× beside two busy
// processes, at that size and every larger one measured; on more threads
// the quiet column projected by Amdahl's law). The size is m·n·k for
// level-3 calls (k the inner or triangular order) and m·n for level-2
// calls. On the 2-core table, dgemm runs on all threads from 768³, dsymm
// and dtrsm from 640³, dsyrk from 768³, dsyr2k and dtrmm from 448³, dgemv
// from 3072², the other level-2 calls from 4096²; below n = 128 threads
// lose on a quiet machine too (a threaded dsymm at n = 16 takes 8 µs
// against 0.4 µs). SetThreads(1) (RHGD_THREADS=1) keeps every call on one
// thread; in Shared mode the windows restore the host's count after each
// call (Config.NoSharedWindows).
const (
	// gemmSerialLo: OpenBLAS runs a dgemm of at most 64³ multiply-adds on
	// one thread by itself (its GEMM_MULTITHREAD_THRESHOLD), so smaller
	// ones skip the switch.
	gemmSerialLo = 64*64*64 + 1
	// serialLo: dtrsm, dtrmm and dsyrk below 24³ stay on one thread by
	// themselves (OpenBLAS threads dtrsm and dtrmm from m·n = 1024, dsyrk
	// from n = 100), and the switch would cost 15% of a call there. dsymm
	// and dsyr2k are threaded at every size, so every native one of those
	// is in its window.
	serialLo = 24 * 24 * 24
)

// serial reports whether a native call of the given size belongs in the
// one-thread window [lo, hi) of its class.
func serial(size, lo, hi int) bool { return haveNative && size >= lo && size < hi }

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
	if serial(m*n*k, gemmSerialLo, ThreadsFrom(CallGemm)) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dsymm computes C = α A B + β C or C = α B A + β C with A symmetric.
func (h Hybrid) Dsymm(s gblas.Side, ul gblas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	k := side(s, m, n)
	if m*n*k < h.Level3Cutoff {
		h.Implementation.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if serial(m*n*k, 0, ThreadsFrom(CallSymm)) {
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
	if serial(n*n*k, serialLo, ThreadsFrom(CallSyrk)) {
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
	if serial(n*n*k, 0, ThreadsFrom(CallSyr2k)) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dsyr2k(ul, tA, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dtrmm computes B = α op(A) B or B = α B op(A) with A triangular.
func (h Hybrid) Dtrmm(s gblas.Side, ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	k := side(s, m, n)
	if m*n*k < h.Level3Cutoff {
		h.Implementation.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	if serial(m*n*k, serialLo, ThreadsFrom(CallTrmm)) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

// Dtrsm solves op(A) X = α B or X op(A) = α B with A triangular, in place.
func (h Hybrid) Dtrsm(s gblas.Side, ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	k := side(s, m, n)
	if m*n*k < h.Level3Cutoff {
		h.Implementation.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	if serial(m*n*k, serialLo, ThreadsFrom(CallTrsm)) {
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
	if serial(m*n, 0, ThreadsFrom(CallGemv)) {
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
	if serial(n*n, 0, ThreadsFrom(CallSymv)) {
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
	if serial(m*n, 0, ThreadsFrom(CallGer)) {
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
	if serial(n*n, 0, ThreadsFrom(CallTrmv)) {
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
	if serial(n*n, 0, ThreadsFrom(CallTrmv)) {
		SerialBegin()
		defer SerialEnd()
	}
	h.Native.Dtrmv(ul, tA, d, n, a, lda, x, incX)
}

// side returns the order of the square (symmetric or triangular) operand
// on side s of an m×n B: m on the left, n on the right.
func side(s gblas.Side, m, n int) int {
	if s == gblas.Right {
		return n
	}
	return m
}

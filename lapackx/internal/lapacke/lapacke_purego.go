//go:build !cgo || purego

// Keep in sync with lapacke_cgo.go. None of these is reached: useNative
// is false in this build.

package lapacke

import "sync/atomic"

// Available reports whether this build links LAPACKE.
const Available = false

func unavailable() int { panic("lapackx: no LAPACKE in a pure-Go build") }

// DsyevdBatch is unavailable in a pure-Go build.
func DsyevdBatch(n, count int, a, w, work []float64, iwork []int32, backup []float64) (info, index, fellback int) {
	return unavailable(), 0, 0
}

// DsyevdScratch is DsyevdOrQL's scratch length (unused in a pure-Go
// build).
func DsyevdScratch(n int) int { return n*n + n + 24 }

// DsyevdOrQL is unavailable in a pure-Go build.
func DsyevdOrQL(jobz, uplo byte, n int, a, w, work []float64, iwork []int32, backup []float64) (info int, fellback bool) {
	return unavailable(), false
}

// FailDsyevd is DsyevdOrQL's test hook; nothing reads it in a pure-Go
// build.
var FailDsyevd atomic.Bool

// Syevql is unavailable in a pure-Go build.
func Syevql(n int, a, w, e []float64, lower, base bool) int { return unavailable() }

// SyevqlBatch is unavailable in a pure-Go build.
func SyevqlBatch(n, count int, a, w, e []float64) (info, index int) { return unavailable(), 0 }

// Resid is unavailable in a pure-Go build.
func Resid(n, m int, a, v, w, r []float64) { unavailable() }

// SyevqlVectorized reports whether Syevql runs vectorized code: never in a
// pure-Go build.
var SyevqlVectorized = false

// Dsyevd is unavailable in a pure-Go build.
func Dsyevd(jobz, uplo byte, n int, a []float64, lda int, w, work []float64, iwork []int32) int {
	return unavailable()
}

// Ssyevd is unavailable in a pure-Go build.
func Ssyevd(jobz, uplo byte, n int, a []float32, lda int, w, work []float32, iwork []int32) int {
	return unavailable()
}

// Dpotrf is unavailable in a pure-Go build.
func Dpotrf(uplo byte, n int, a []float64, lda int) int { return unavailable() }

// Dpotrs is unavailable in a pure-Go build.
func Dpotrs(uplo byte, n, nrhs int, a []float64, lda int, b []float64, ldb int) int {
	return unavailable()
}

// Dsygst is unavailable in a pure-Go build.
func Dsygst(itype int, uplo byte, n int, a []float64, lda int, b []float64, ldb int) int {
	return unavailable()
}

// Dpotri is unavailable in a pure-Go build.
func Dpotri(uplo byte, n int, a []float64, lda int) int { return unavailable() }

// Dtrtri is unavailable in a pure-Go build.
func Dtrtri(uplo, diag byte, n int, a []float64, lda int) int { return unavailable() }

// Dgeqrf is unavailable in a pure-Go build.
func Dgeqrf(m, n int, a []float64, lda int, tau, work []float64, lwork int) int { return unavailable() }

// Dorgqr is unavailable in a pure-Go build.
func Dorgqr(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) int {
	return unavailable()
}

// Dgelqf is unavailable in a pure-Go build.
func Dgelqf(m, n int, a []float64, lda int, tau, work []float64, lwork int) int { return unavailable() }

// Dorglq is unavailable in a pure-Go build.
func Dorglq(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) int {
	return unavailable()
}

// Dgetrf is unavailable in a pure-Go build.
func Dgetrf(m, n int, a []float64, lda int, ipiv []int32) int { return unavailable() }

// Dgetrs is unavailable in a pure-Go build.
func Dgetrs(trans byte, n, nrhs int, a []float64, lda int, ipiv []int32, b []float64, ldb int) int {
	return unavailable()
}

// Dgees is unavailable in a pure-Go build.
func Dgees(n int, a []float64, lda int, wr, wi, vs []float64, ldvs int, work []float64, lwork int) int {
	return unavailable()
}

// Dtrsyl is unavailable in a pure-Go build.
func Dtrsyl(trana, tranb byte, isgn, m, n int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) (float64, int) {
	return 0, unavailable()
}

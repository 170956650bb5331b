package lapackx

import (
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Impl is gonum's lapack.Float64 (row-major) with the routines that map to
// LAPACK without transposition sent to the current backend, LAPACKE when
// the native backend is current:
//
//	Dpotrf, Dpotri   row-major lower (upper) = column-major upper (lower)
//	Dpotrs           column-major dpotrs for a single contiguous right-hand side
//	Dgeqrf, Dorgqr   row-major QR of A = column-major LQ of Aᵀ (dgelqf, dorglq)
//	Dgelqf, Dorglq   row-major LQ of A = column-major QR of Aᵀ (dgeqrf, dorgqr)
//
// Every other routine is gonum's, whose inner BLAS calls go through blas64:
// rhgd's backend after blas.Init, the program's choice otherwise.
// Arguments are checked in Go with gonum's panic messages before any C
// call. gonum's testlapack suites run against Impl in both builds.
type Impl struct{ gonum.Implementation }

var _ lapack.Float64 = Impl{}

// Gonum's panic messages (lapack/gonum/errors.go), kept in sync.
const (
	badUplo   = "lapack: bad Uplo"
	badLWork  = "lapack: insufficient declared workspace length"
	badLdA    = "lapack: bad leading dimension of A"
	badLdB    = "lapack: bad leading dimension of B"
	badLenTau = "lapack: bad length of tau"
	kGTM      = "lapack: k > m"
	kGTN      = "lapack: k > n"
	kLT0      = "lapack: k < 0"
	mGTN      = "lapack: m > n"
	mLT0      = "lapack: m < 0"
	nGTM      = "lapack: n > m"
	nLT0      = "lapack: n < 0"
	nrhsLT0   = "lapack: nrhs < 0"
	shortA    = "lapack: insufficient length of a"
	shortB    = "lapack: insufficient length of b"
	shortTau  = "lapack: insufficient length of tau"
	shortWork = "lapack: insufficient length of work"
)

// flip returns the column-major uplo character naming the same triangle of
// the row-major buffer.
func flip(ul gblas.Uplo) byte {
	switch ul {
	case gblas.Upper:
		return 'L'
	case gblas.Lower:
		return 'U'
	}
	panic(badUplo)
}

func checkSquare(ul gblas.Uplo, n int, a []float64, lda int) {
	switch {
	case ul != gblas.Upper && ul != gblas.Lower:
		panic(badUplo)
	case n < 0:
		panic(nLT0)
	case lda < max(1, n):
		panic(badLdA)
	case n > 0 && len(a) < (n-1)*lda+n:
		panic(shortA)
	}
}

// Dpotrf computes the Cholesky factorization of the symmetric positive
// definite a, returning false if it is not positive definite.
func (impl Impl) Dpotrf(ul gblas.Uplo, n int, a []float64, lda int) bool {
	checkSquare(ul, n, a, lda)
	if n == 0 {
		return true
	}
	return lp().potrf(ul, n, a, lda)
}

// Dpotri computes the inverse of a from its Cholesky factor, returning
// false if a factor has a zero diagonal.
func (impl Impl) Dpotri(ul gblas.Uplo, n int, a []float64, lda int) bool {
	checkSquare(ul, n, a, lda)
	if n == 0 {
		return true
	}
	return lp().potri(ul, n, a, lda)
}

// Dpotrs solves A X = B from the Cholesky factor of A. A row-major
// right-hand side is contiguous only as a single column, which LAPACK can
// take as it is; several columns go to gonum's two triangular solves, on
// the native BLAS.
func (impl Impl) Dpotrs(ul gblas.Uplo, n, nrhs int, a []float64, lda int, b []float64, ldb int) {
	if nrhs != 1 || ldb != 1 {
		impl.Implementation.Dpotrs(ul, n, nrhs, a, lda, b, ldb)
		return
	}
	checkSquare(ul, n, a, lda)
	switch {
	case nrhs < 0:
		panic(nrhsLT0)
	case ldb < max(1, nrhs):
		panic(badLdB)
	case len(b) < (n-1)*ldb+nrhs:
		panic(shortB)
	}
	if n == 0 {
		return
	}
	lp().potrs(ul, n, a, lda, b)
}

// checkFact validates the arguments of Dgeqrf (tau of length exactly
// min(m, n)) and Dgelqf (at least), as gonum does.
func checkFact(m, n int, a []float64, lda int, tau, work []float64, lwork, minWork int, exactTau bool) {
	switch {
	case m < 0:
		panic(mLT0)
	case n < 0:
		panic(nLT0)
	case lda < max(1, n):
		panic(badLdA)
	case lwork < max(1, minWork) && lwork != -1:
		panic(badLWork)
	case len(work) < max(1, lwork):
		panic(shortWork)
	}
	if lwork == -1 || min(m, n) == 0 {
		return
	}
	switch {
	case len(a) < (m-1)*lda+n:
		panic(shortA)
	case exactTau && len(tau) != min(m, n):
		panic(badLenTau)
	case len(tau) < min(m, n):
		panic(shortTau)
	}
}

// Dgeqrf computes the QR factorization of the row-major m×n a.
func (impl Impl) Dgeqrf(m, n int, a []float64, lda int, tau, work []float64, lwork int) {
	checkFact(m, n, a, lda, tau, work, lwork, n, true)
	if min(m, n) == 0 {
		work[0] = 1
		return
	}
	lp().geqrf(m, n, a, lda, tau, work, lwork)
}

// Dgelqf computes the LQ factorization of the row-major m×n a.
func (impl Impl) Dgelqf(m, n int, a []float64, lda int, tau, work []float64, lwork int) {
	checkFact(m, n, a, lda, tau, work, lwork, m, false)
	if min(m, n) == 0 {
		work[0] = 1
		return
	}
	lp().gelqf(m, n, a, lda, tau, work, lwork)
}

// checkGen validates the arguments of Dorgqr (rows ≥ cols) and Dorglq
// (cols ≥ rows): big ≥ small ≥ k.
func checkGen(m, n, k int, a []float64, lda int, tau, work []float64, lwork int, lq bool) {
	switch {
	case m < 0:
		panic(mLT0)
	case n < 0:
		panic(nLT0)
	case !lq && n > m:
		panic(nGTM)
	case lq && m > n:
		panic(mGTN)
	case k < 0:
		panic(kLT0)
	case !lq && k > n:
		panic(kGTN)
	case lq && k > m:
		panic(kGTM)
	case lda < max(1, n):
		panic(badLdA)
	case lwork < max(1, min(m, n)) && lwork != -1:
		panic(badLWork)
	case len(work) < max(1, lwork):
		panic(shortWork)
	}
	if lwork == -1 || min(m, n) == 0 {
		return
	}
	switch {
	case len(a) < (m-1)*lda+n:
		panic(shortA)
	case len(tau) < k:
		panic(shortTau)
	}
}

// Dorgqr forms the m×n Q with orthonormal columns from Dgeqrf's output.
func (impl Impl) Dorgqr(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) {
	checkGen(m, n, k, a, lda, tau, work, lwork, false)
	if n == 0 {
		work[0] = 1
		return
	}
	lp().orgqr(m, n, k, a, lda, tau, work, lwork)
}

// Dorglq forms the m×n Q with orthonormal rows from Dgelqf's output.
func (impl Impl) Dorglq(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) {
	checkGen(m, n, k, a, lda, tau, work, lwork, true)
	if m == 0 {
		work[0] = 1
		return
	}
	lp().orglq(m, n, k, a, lda, tau, work, lwork)
}

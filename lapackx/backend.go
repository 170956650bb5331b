package lapackx

import (
	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
)

// backend is one implementation of the LAPACK operations the matrix
// functions use: LAPACKE through cgo (nativeLapack, backend_native.go) or
// gonum's pure-Go LAPACK (gonumLapack, backend_gonum.go). Every method has
// the same row-major meaning in both, so the matrix functions never ask
// which one runs; lp is the only place that chooses. Arguments are
// checked by the callers.
type backend interface {
	// name is "openblas" or "gonum"; eigDriver names the routine behind eig.
	name() string
	eigDriver() string

	// eig computes the eigenvalues w (ascending) of the symmetric n×n a
	// whose lower (lower set) or upper triangle it reads, and with vecs
	// overwrites a with the eigenvectors, one per row.
	eig(vecs, lower bool, n int, a, w, work []float64, iwork []int32) error
	// eigGraded is eig with vectors on the upper triangle by a solver
	// that keeps a graded matrix's small eigenvalues to their relative
	// accuracy (EigSym.FactorizeGraded): Householder reduction from the
	// bottom and implicit QL or QR chosen by the grading, at every order.
	eigGraded(n int, a, w, work []float64) error
	// eigWork is the workspace eig needs for n×n matrices.
	eigWork(n int) (lwork, liwork int)
	// eigBatch is eig with vectors, lower triangle, on count n×n matrices
	// stored one after the other in a; it returns the index of the first
	// that fails with its error.
	eigBatch(n, count int, a, w, work []float64, iwork []int32) (int, error)

	// potrf, potri and potrs are Impl's Dpotrf, Dpotri and Dpotrs (a
	// single contiguous right-hand side for potrs); geqrf, gelqf, orgqr
	// and orglq are Impl's Dgeqrf, Dgelqf, Dorgqr and Dorglq.
	potrf(ul gblas.Uplo, n int, a []float64, lda int) bool
	potri(ul gblas.Uplo, n int, a []float64, lda int) bool
	potrs(ul gblas.Uplo, n int, a []float64, lda int, b []float64)
	// trtri is Impl's Dtrtri with a non-unit diagonal: it inverts the
	// triangle ul of a in place and reports a zero pivot as false.
	trtri(ul gblas.Uplo, n int, a []float64, lda int) bool
	geqrf(m, n int, a []float64, lda int, tau, work []float64, lwork int)
	gelqf(m, n int, a []float64, lda int, tau, work []float64, lwork int)
	orgqr(m, n, k int, a []float64, lda int, tau, work []float64, lwork int)
	orglq(m, n, k int, a []float64, lda int, tau, work []float64, lwork int)

	// getrf factors the n×n a in place so that, read row-major, it holds
	// Uᵀ (lower, with diagonal) and Lᵀ (strictly upper, unit diagonal) of
	// Aᵀ = P L U, with 1-based pivots in ipiv; gip is n ints of scratch. It
	// reports an exactly zero pivot.
	getrf(n int, a []float64, ipiv []int32, gip []int) (singular bool, err error)
	// getrs1 solves A x = b for one right-hand side from getrf's factors
	// and reports whether it could (false: use the triangular solves).
	getrs1(n int, lu []float64, ipiv []int32, b []float64) bool

	// resid sets the m×n r to the residuals A v_i − w_i v_i of the first m
	// rows of v against the symmetric n×n a, each entry as if computed in
	// twice the working precision and rounded once (refineSmallEig).
	resid(n, m int, a, v, w, r []float64)

	// reduceSym, cholInverse: see ReduceSym and CholInverse.
	reduceSym(a, l []float64, n int)
	cholInverse(dst, work, l []float64, n int)

	// sylvester solves A X + X B = scale·C into dst with s's Schur
	// workspaces (the Bartels–Stewart core of Sylvester.Solve) and returns
	// scale.
	sylvester(s *Sylvester, dst, a, b, c []float64) (scale float64, err error)
	// schurWork is the workspace the Schur factorization needs.
	schurWork(n int) int
}

// lp returns the LAPACK backend for rhgd's BLAS backend in use now
// (blas.Current): blas.Use and RHGD_BLAS switch both together. It is the
// only place that chooses.
func lp() backend {
	if lapacke.Available && blas.Current() == blas.Native {
		return nativeLapack{}
	}
	return gonumLapack{}
}

// backends lists the backends this build contains, for workspace sizes
// that must suit either.
func backends() []backend {
	if lapacke.Available {
		return []backend{gonumLapack{}, nativeLapack{}}
	}
	return []backend{gonumLapack{}}
}

// Backend names the implementation LAPACK calls use now: "openblas"
// (LAPACKE through cgo) or "gonum".
func Backend() string { return lp().name() }

package lapackx

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/numerr"
)

// EigSym computes the eigendecomposition A = Vᵀ diag(λ) V of a symmetric
// n×n matrix, with the eigenvalues λ in ascending order and the
// eigenvectors in the rows of V. The native backend runs rhgd's own
// Householder-and-QL solver with AVX2 inner loops (lapacke.Syevql) below
// eigQLCutoff, where LAPACK's reference Fortran is slowest, and LAPACK's
// divide-and-conquer dsyevd from there (faster than dsyevr, dsyev and
// dsteqr, see BenchmarkEigDriver), on one OpenBLAS thread below n = 500;
// the pure-Go backend calls gonum's Dsyev. FactorizeValues always calls
// dsyevd (dsytrd and dsterf) on the native backend. Where dsyevd reports
// failure, as some OpenBLAS builds' does on valid input, the native
// backend restores the input and solves it with the QL solver instead.
//
// An EigSym owns its workspace: Factorize allocates nothing. It is not safe
// for concurrent use; give each goroutine its own.
type EigSym struct {
	n     int
	w     []float64 // eigenvalues, ascending
	v     []float64 // n×n, row i is the eigenvector of w[i]
	work  []float64 // dsyevd, or gonum's Dsyev
	iwork []int32
	ok    bool // eigenvalues valid
	vecs  bool // eigenvectors valid
}

// NewEigSym returns a workspace for n×n matrices.
func NewEigSym(n int) *EigSym {
	if n < 0 {
		panic(errNegative)
	}
	lwork, liwork := 1, 1
	if n > 0 {
		for _, b := range backends() {
			lw, liw := b.eigWork(n)
			lwork, liwork = max(lwork, lw), max(liwork, liw)
		}
	}
	return &EigSym{
		n:     n,
		w:     make([]float64, n),
		v:     make([]float64, n*n),
		work:  make([]float64, lwork),
		iwork: make([]int32, liwork),
	}
}

// N returns the order of the matrices the workspace takes.
func (e *EigSym) N() int { return e.n }

// Factorize computes the eigendecomposition of the n×n row-major symmetric
// a, which it does not modify. It returns an error wrapping numerr.ErrNotFinite or
// numerr.ErrNotSymmetric for bad input and ErrLapack if the solver fails; then
// the workspace holds no factorization.
func (e *EigSym) Factorize(a []float64) error {
	e.ok, e.vecs = false, false
	if err := checkSym("EigSym", e.v, a, e.n); err != nil {
		return err
	}
	if err := e.factorizeV(false); err != nil {
		return err
	}
	e.ok, e.vecs = true, true
	return nil
}

// FactorizeGraded is Factorize for a matrix graded down its diagonal,
// A = D B D with D = diag(d), d ascending and B of moderate entries, such
// as diag(√λ) Ỹ diag(√λ) in the eigenbasis of a point (spd's
// Bures–Wasserstein logarithm): its small eigenvalues are determined to
// far better than u·‖A‖ by its entries, and a solver that reduces A to
// tridiagonal form from the bottom and runs QL or QR by the grading
// (syevql at every order on the native backend, gonum's Dsyev on the pure-Go one, both
// dsteqr's iteration) keeps them so, where dsyevd's divide and conquer,
// which Factorize uses from n = 32, errs by u·‖A‖ in each (and a
// positive definite A can come out indefinite). It costs syevql's time:
// less than dsyevd's up to n ≈ 150, more above (BenchmarkEigDriver).
func (e *EigSym) FactorizeGraded(a []float64) error {
	e.ok, e.vecs = false, false
	if err := checkSym("EigSym", e.v, a, e.n); err != nil {
		return err
	}
	if n := e.n; n > 0 {
		if err := lp().eigGraded(n, e.v, e.w, e.work); err != nil {
			return err
		}
	}
	e.ok, e.vecs = true, true
	return nil
}

// FactorizeLower computes the eigendecomposition of the symmetric matrix
// whose lower triangle a holds; the strict upper triangle is not read, as
// in LAPACK. Only the triangle read is checked for finite entries. It
// suits matrices that rhgd's own routines produce symmetric by
// construction (ReduceSym), where Factorize's full symmetry check would be
// wasted.
func (e *EigSym) FactorizeLower(a []float64) error {
	n := e.n
	if len(a) != n*n {
		panic(errShape)
	}
	e.ok, e.vecs = false, false
	for i := 0; i < n; i++ {
		for j, v := range a[i*n : i*n+i+1] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("lapackx: %w: EigSym: a[%d,%d] = %v", numerr.ErrNotFinite, i, j, v)
			}
		}
	}
	copy(e.v, a)
	if err := e.factorizeV(true); err != nil {
		return err
	}
	e.ok, e.vecs = true, true
	return nil
}

// FactorizeValues computes the eigenvalues of a only, which is about half
// the work; Vectors then panics until the next Factorize.
func (e *EigSym) FactorizeValues(a []float64) error {
	e.ok, e.vecs = false, false
	if err := checkSym("EigSym", e.v, a, e.n); err != nil {
		return err
	}
	if n := e.n; n > 0 {
		if err := lp().eig(false, false, n, e.v, e.w, e.work, e.iwork); err != nil {
			return err
		}
	}
	e.ok = true
	return nil
}

// factorizeV overwrites e.v, which holds A in its upper triangle (lower if
// lower is set), with the eigenvectors.
func (e *EigSym) factorizeV(lower bool) error {
	if e.n == 0 {
		return nil
	}
	return lp().eig(true, lower, e.n, e.v, e.w, e.work, e.iwork)
}

// Values returns the eigenvalues in ascending order. The slice is the
// workspace's own: it changes with the next Factorize.
func (e *EigSym) Values() []float64 { e.mustOK(); return e.w }

// Vectors returns the n×n row-major matrix whose row i is the unit
// eigenvector for Values()[i]. The slice is the workspace's own.
func (e *EigSym) Vectors() []float64 {
	if !e.vecs {
		panic("lapackx: EigSym eigenvectors used without a successful Factorize")
	}
	return e.v
}

func (e *EigSym) mustOK() {
	if !e.ok {
		panic("lapackx: EigSym used without a successful Factorize")
	}
}

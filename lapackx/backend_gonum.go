package lapackx

import (
	"fmt"
	"math"
	"strings"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/rhgd/rhgd/blas"
)

// gonumLapack is gonum's pure-Go LAPACK, which is row-major: the layout
// conversions the native backend gets for free from the column-major
// view are explicit transpositions here.
type gonumLapack struct{ impl gonum.Implementation }

func (gonumLapack) name() string      { return blas.Gonum.String() }
func (gonumLapack) eigDriver() string { return "gonum Dsyev" }

func (g gonumLapack) eigBatch(n, count int, a, w, work []float64, iwork []int32) (int, error) {
	for i := 0; i < count; i++ {
		if err := g.eig(true, true, n, a[i*n*n:(i+1)*n*n], w[i*n:(i+1)*n], work, iwork); err != nil {
			return i, err
		}
	}
	return 0, nil
}

func (gonumLapack) resid(n, m int, a, v, w, r []float64) { residGo(n, m, a, v, w, r) }

func (g gonumLapack) eig(vecs, lower bool, n int, a, w, work []float64, _ []int32) error {
	job, ul := lapack.EVNone, gblas.Upper
	if vecs {
		job = lapack.EVCompute
	}
	if lower {
		ul = gblas.Lower
	}
	e := condition(a, n, lower)
	if !g.impl.Dsyev(job, ul, n, a, n, w, work, len(work)) {
		return fmt.Errorf("%w: Dsyev did not converge", ErrLapack)
	}
	for i := range w {
		w[i] = math.Ldexp(w[i], -e)
	}
	if vecs {
		transposeSquare(a, n) // gonum returns eigenvectors in columns
	}
	return nil
}

// eigGraded is eig: gonum's Dsyev on the upper triangle is dsytrd from
// the last column with dsteqr, which keeps a graded matrix's small
// eigenvalues as syevql does.
func (g gonumLapack) eigGraded(n int, a, w, work []float64) error {
	return g.eig(true, false, n, a, w, work, nil)
}

// condition prepares the symmetric a (its lower or upper triangle) for
// gonum's Dsyev, which in v0.17 goes wrong on matrices with entries far
// below the largest: eigenvalues off by 10⁻¹⁰ absolute on a matrix of
// norm 10⁻⁶⁶, or by 10¹²¹ on one of norm 1 with entries near 10⁻²⁵⁸, and
// a panic in Dsterf ("insufficient length of a") on the values-only path
// (TestGonumDsyevTiny has the matrices). It scales a by 2^e so that its
// largest entry lies in [1, 2), exactly, and sets to zero the entries
// below 2⁻¹⁵⁰ of it: a perturbation of norm below n·2⁻¹⁵⁰·max|a|, far
// inside Dsyev's own backward error. It returns e; the eigenvalues of a
// are those of the result times 2^−e.
func condition(a []float64, n int, lower bool) int {
	tri := func(f func(k int)) {
		for i := 0; i < n; i++ {
			lo, hi := i, n // upper triangle of row i
			if lower {
				lo, hi = 0, i+1
			}
			for k := i*n + lo; k < i*n+hi; k++ {
				f(k)
			}
		}
	}
	var amax float64
	tri(func(k int) { amax = math.Max(amax, math.Abs(a[k])) })
	if amax == 0 || math.IsNaN(amax) || math.IsInf(amax, 0) {
		return 0
	}
	_, e := math.Frexp(amax) // amax ∈ [2^(e−1), 2^e)
	e = 1 - e
	tiny := math.Ldexp(1, -150)
	tri(func(k int) {
		v := math.Ldexp(a[k], e)
		if math.Abs(v) < tiny {
			v = 0
		}
		a[k] = v
	})
	return e
}

func (g gonumLapack) eigWork(n int) (lwork, liwork int) {
	var q [1]float64
	g.impl.Dsyev(lapack.EVCompute, gblas.Upper, n, nil, n, nil, q[:], -1)
	return int(q[0]), 0
}

func (g gonumLapack) potrf(ul gblas.Uplo, n int, a []float64, lda int) bool {
	return g.impl.Dpotrf(ul, n, a, lda)
}

func (g gonumLapack) potri(ul gblas.Uplo, n int, a []float64, lda int) bool {
	return g.impl.Dpotri(ul, n, a, lda)
}

func (g gonumLapack) trtri(ul gblas.Uplo, n int, a []float64, lda int) bool {
	return g.impl.Dtrtri(ul, gblas.NonUnit, n, a, lda)
}

func (g gonumLapack) potrs(ul gblas.Uplo, n int, a []float64, lda int, b []float64) {
	g.impl.Dpotrs(ul, n, 1, a, lda, b, 1)
}

func (g gonumLapack) geqrf(m, n int, a []float64, lda int, tau, work []float64, lwork int) {
	g.impl.Dgeqrf(m, n, a, lda, tau, work, lwork)
}

func (g gonumLapack) gelqf(m, n int, a []float64, lda int, tau, work []float64, lwork int) {
	g.impl.Dgelqf(m, n, a, lda, tau, work, lwork)
}

func (g gonumLapack) orgqr(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) {
	g.impl.Dorgqr(m, n, k, a, lda, tau, work, lwork)
}

func (g gonumLapack) orglq(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) {
	g.impl.Dorglq(m, n, k, a, lda, tau, work, lwork)
}

// getrf factorizes the transpose, as the native backend's column-major
// view does, so that both leave the same layout.
func (g gonumLapack) getrf(n int, a []float64, ipiv []int32, gip []int) (bool, error) {
	transposeSquare(a, n)
	ok := g.impl.Dgetrf(n, n, a, n, gip)
	transposeSquare(a, n)
	for i, p := range gip {
		ipiv[i] = int32(p + 1)
	}
	return !ok, nil
}

func (gonumLapack) getrs1(int, []float64, []int32, []float64) bool { return false }

func (gonumLapack) reduceSym(a, l []float64, n int) { reduceSymSolves(a, l, n) }

// cholInverse calls dpotri: gonum's beats the solve-and-Gram route at every
// size (24 µs against 37 µs at n = 50, BenchmarkCholInverse).
func (g gonumLapack) cholInverse(dst, _, l []float64, n int) { cholInversePotri(g, dst, l, n) }

// sylvester runs on the row-major matrices directly: Schur forms by
// Hessenberg–QR and a Go port of dtrsyl.
func (g gonumLapack) sylvester(s *Sylvester, dst, a, b, c []float64) (float64, error) {
	m, n := s.m, s.n
	if err := s.sa.factorizeRowMajor(g.impl, a); err != nil {
		return 0, err
	}
	if err := s.sb.factorizeRowMajor(g.impl, b); err != nil {
		return 0, err
	}
	impl := blas.Impl()
	za, zb := s.sa.z, s.sb.z
	impl.Dgemm(gblas.Trans, gblas.NoTrans, m, n, m, 1, za, m, c, n, 0, s.tmp, n)
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, m, n, n, 1, s.tmp, n, zb, n, 0, s.f, n)
	scale, err := trsylRowMajor(m, n, s.sa.t, s.sb.t, s.f)
	if err != nil {
		return 0, err
	}
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, m, n, m, 1, za, m, s.f, n, 0, s.tmp, n)
	impl.Dgemm(gblas.NoTrans, gblas.Trans, m, n, n, 1, s.tmp, n, zb, n, 0, dst, n)
	return scale, nil
}

func (g gonumLapack) schurWork(n int) int {
	var q [1]float64
	lwork := 0
	g.impl.Dgehrd(n, 0, n-1, nil, n, nil, q[:], -1)
	lwork = max(lwork, int(q[0]))
	g.impl.Dorghr(n, 0, n-1, nil, n, nil, q[:], -1)
	lwork = max(lwork, int(q[0]))
	g.impl.Dhseqr(lapack.EigenvaluesAndSchur, lapack.SchurOrig, n, 0, n-1, nil, n, nil, nil, nil, n, q[:], -1)
	return max(lwork, int(q[0]))
}

// factorizeRowMajor computes the real Schur form of the row-major m (which
// it does not modify) by Dgehrd, Dorghr and Dhseqr: T and Z row-major.
// gonum v0.17's Dhseqr panics ("bad leading dimension of Z", "ihiz out of
// range") in its fallback after a convergence failure of Dlahqr on small
// matrices; that failure is LAPACK's info > 0, so it is ErrLapack here
// (TestGonumDhseqrFailure has the matrices).
func (s *schur) factorizeRowMajor(impl gonum.Implementation, m []float64) (err error) {
	defer func() {
		if p := recover(); p != nil {
			msg, ok := p.(string)
			if !ok || !strings.HasPrefix(msg, "lapack: ") {
				panic(p)
			}
			err = fmt.Errorf("%w: Dhseqr did not converge (gonum panicked: %s)", ErrLapack, msg)
		}
	}()
	n := s.n
	copy(s.t, m)
	impl.Dgehrd(n, 0, n-1, s.t, n, s.tau, s.work, len(s.work))
	copy(s.z, s.t)
	impl.Dorghr(n, 0, n-1, s.z, n, s.tau, s.work, len(s.work))
	// Zero below the first subdiagonal: Dgehrd left reflectors there.
	for i := 2; i < n; i++ {
		clear(s.t[i*n : i*n+i-1])
	}
	if unconv := impl.Dhseqr(lapack.EigenvaluesAndSchur, lapack.SchurOrig, n, 0, n-1, s.t, n, s.wr, s.wi, s.z, n, s.work, len(s.work)); unconv > 0 {
		return fmt.Errorf("%w: Dhseqr left %d eigenvalues unconverged", ErrLapack, unconv)
	}
	return nil
}

package spd

import (
	"fmt"
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
)

// Retraction names a retraction of the SPD manifold.
type Retraction int

const (
	// SecondOrder is X + tU + t²/2 U X⁻¹ U.
	SecondOrder Retraction = iota
	// Exponential is the exponential map of the affine-invariant metric.
	Exponential
)

// TransportMethod names a vector transport.
type TransportMethod int

const (
	// Identity transports U unchanged: every tangent space is the same
	// space of symmetric matrices.
	Identity TransportMethod = iota
	// Parallel is the parallel transport along the geodesic, an isometry.
	Parallel
)

// DefaultTol is the default relative symmetry tolerance of CheckPoint and
// CheckTangent: max|x_ij − x_ji| ≤ Tol·max|x_ij|.
const DefaultTol = 1e-12

// SPD is the manifold of n×n symmetric positive definite matrices.
type SPD struct {
	n int
	// Retraction is the retraction Retract uses; the zero value is
	// SecondOrder.
	Retraction Retraction
	// TransportMethod is the vector transport Transport uses; the zero
	// value is Identity.
	TransportMethod TransportMethod
	// Tol is the relative symmetry tolerance of CheckPoint, CheckTangent
	// and of the checks of new points in the other operations, finite and
	// ≥ 0; zero means DefaultTol. A NaN, infinite or negative Tol is an
	// error wrapping numerr.ErrInvalid that names it, wherever a symmetry
	// check runs.
	Tol float64

	cx, cl []float64 // cached point and its Cholesky factor (lower)
	ci     []float64 // X⁻¹ of the cached point, computed on first use
	cok    bool
	ciok   bool

	eig            *lapackx.EigSym
	sf             *lapackx.SymFunc
	t1, t2, t3, t4 []float64

	metric Metric      // the metric, fixed by NewMetric
	geom   geometry    // its operations; nil for AffineInvariant
	mw     *metricWork // the log-Euclidean and Bures–Wasserstein metrics' caches
}

// New returns the manifold of n×n SPD matrices. It panics if n < 1.
func New(n int) *SPD {
	if n < 1 {
		panic("spd: n must be positive")
	}
	sq := func() []float64 { return make([]float64, n*n) }
	return &SPD{n: n, cx: sq(), cl: sq(), ci: sq(), eig: lapackx.NewEigSym(n), sf: lapackx.NewSymFunc(n),
		t1: sq(), t2: sq(), t3: sq(), t4: sq()}
}

// Clone returns an independent *SPD with the same settings.
func (s *SPD) Clone() any {
	c := NewMetric(s.n, s.metric)
	c.Retraction, c.TransportMethod, c.Tol = s.Retraction, s.TransportMethod, s.Tol
	return c
}

// Invalidate drops the cached factorizations.
func (s *SPD) Invalidate() {
	s.cok, s.ciok = false, false
	if s.mw != nil {
		s.mw.pts[0].ok, s.mw.pts[1].ok = false, false
	}
}

func (s *SPD) check(v ...[]float64) {
	for _, x := range v {
		if len(x) != s.n*s.n {
			panic("spd: dimension mismatch")
		}
	}
}

// Dims returns n and n.
func (s *SPD) Dims() (r, c int) { return s.n, s.n }

// Len returns n².
func (s *SPD) Len() int { return s.n * s.n }

// Dim returns n(n+1)/2.
func (s *SPD) Dim() int { return s.n * (s.n + 1) / 2 }

// CachedFactor returns the lower Cholesky factor L of x, x = LLᵀ
// (row-major, strict upper triangle zero), if x is the point the manifold
// factored last, and nil otherwise; it factors nothing. After a
// retraction that is its result, which the next step starts from, so a
// problem on SPD can reuse the factor of a lower iterate instead of
// factoring it again. The slice is the manifold's own: copy it before the
// manifold's next operation.
func (s *SPD) CachedFactor(x []float64) []float64 {
	s.check(x)
	if s.cok && floats.Equal(s.cx, x) {
		return s.cl
	}
	return nil
}

// chol returns the lower Cholesky factor of x, from the cache when x equals
// the cached point.
func (s *SPD) chol(x []float64) ([]float64, error) { return s.factor(x, true) }

// factor is chol, with the symmetry check of a new point only when check
// is set: points this package computed are exactly symmetric and finite.
func (s *SPD) factor(x []float64, check bool) ([]float64, error) {
	if s.cok && floats.Equal(s.cx, x) {
		return s.cl, nil
	}
	s.cok, s.ciok = false, false
	if check {
		if err := s.checkSymmetric("point", x); err != nil {
			return nil, err
		}
	}
	if err := lapackx.Cholesky(s.cl, x, s.n); err != nil {
		return nil, fmt.Errorf("spd: %w", err)
	}
	copy(s.cx, x)
	s.cok = true
	return s.cl, nil
}

// inverse returns X⁻¹ of the point x (full, exactly symmetric), cached.
// It overwrites s.t4.
func (s *SPD) inverse(x []float64) ([]float64, error) {
	l, err := s.chol(x)
	if err != nil {
		return nil, err
	}
	if s.ciok {
		return s.ci, nil
	}
	lapackx.CholInverse(s.ci, s.t4, l, s.n) // t4: scratch, free here
	s.ciok = true
	return s.ci, nil
}

// whiten sets dst = L⁻¹ V L⁻ᵀ.
func (s *SPD) whiten(dst, l, v []float64) {
	n := s.n
	copy(dst, v)
	impl := blas.Impl()
	impl.Dtrsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, n, 1, l, n, dst, n)
	impl.Dtrsm(gblas.Right, gblas.Lower, gblas.Trans, gblas.NonUnit, n, n, 1, l, n, dst, n)
}

// Whiten sets dst = L⁻¹ sym(U) L⁻ᵀ, with X = LLᵀ the Cholesky factor
// cached for X: coordinates in which the metric is Frobenius,
// ⟨U, V⟩_X = ⟨Whiten(U), Whiten(V)⟩_F (a solver.Whitener). One
// reduction (LAPACK's dsygst, n³ flops) against Inner's two general
// products (4n³) lets an iterative solver keep whitened copies of its
// iterates and take each inner product as a sum over entries. dst may be
// u. It returns an error if x is not positive definite.
// Under another metric, dst holds coordinates in the eigenbasis of X
// with the same property (logeuclid.go, bures.go).
func (s *SPD) Whiten(dst, x, u []float64) error {
	s.check(dst, x, u)
	if s.geom != nil {
		return s.geom.whiten(s, dst, x, u)
	}
	l, err := s.chol(x)
	if err != nil {
		return err
	}
	n := s.n
	lowerTiles(n, func(i, j0, j1 int) { // the lower triangle of sym(U); dst may be u
		for j := j0; j < j1; j++ {
			dst[i*n+j] = 0.5 * (u[i*n+j] + u[j*n+i])
		}
	})
	for i := 0; i < n; i++ {
		dst[i*n+i] = u[i*n+i]
	}
	lapackx.ReduceSym(dst, l, n)
	lowerTiles(n, func(i, j0, j1 int) {
		for j := j0; j < j1; j++ {
			dst[j*n+i] = dst[i*n+j]
		}
	})
	return nil
}

// lowerTiles calls f(i, j0, j1) for the strict lower triangle of an n×n
// matrix, row i's columns [j0, j1), in 32×32 tiles: a walk down a column
// of a large matrix would miss the TLB at every step.
func lowerTiles(n int, f func(i, j0, j1 int)) {
	const tile = 32
	for ib := 0; ib < n; ib += tile {
		for jb := 0; jb <= ib; jb += tile {
			for i := ib; i < min(ib+tile, n); i++ {
				if j1 := min(jb+tile, i); jb < j1 {
					f(i, jb, j1)
				}
			}
		}
	}
}

// Inner returns ⟨U, V⟩_X = tr(X⁻¹ U X⁻¹ V) for tangent vectors U and V
// (symmetric matrices). Off the tangent space it reads their symmetric
// parts, as every operation of this package does: it is the inner product
// tr(X⁻¹ sym(U) X⁻¹ sym(V)) of Project(U) and Project(V), so that
// Norm(X, U) ≥ 0 for every U (zero for a skew U). u and v may be the same
// slice: the result is the one a copy gives, since both run the same
// products and the second is skipped. X⁻¹ is cached per point; a call is
// two general products (one for a norm) and a trace, which OpenBLAS runs
// faster than the four triangular solves of ⟨L⁻¹UL⁻ᵀ, L⁻¹VL⁻ᵀ⟩ at every
// size (BenchmarkSPDInner).
// Under another metric (NewMetric) it is that metric's inner product.
func (s *SPD) Inner(x, u, v []float64) float64 {
	s.check(x, u, v)
	if s.geom != nil {
		return s.geom.inner(s, x, u, v)
	}
	xi, err := s.inverse(x)
	if err != nil {
		return math.NaN()
	}
	a := s.invSym(s.t1, xi, u)
	b := a
	if &u[0] != &v[0] {
		b = s.invSym(s.t2, xi, v)
	}
	return traceProduct(a, b, s.n)
}

// invSym sets and returns dst = X⁻¹ sym(V), given xi = X⁻¹. It
// overwrites s.t3.
func (s *SPD) invSym(dst, xi, v []float64) []float64 {
	n := s.n
	s.Project(s.t3, xi, v)
	blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, xi, n, s.t3, n, 0, dst, n)
	return dst
}

// traceProduct returns tr(A B) = Σ_ij a_ij b_ji, in tiles.
func traceProduct(a, b []float64, n int) float64 {
	const tile = 32
	var t float64
	for ib := 0; ib < n; ib += tile {
		for jb := 0; jb < n; jb += tile {
			for i := ib; i < min(ib+tile, n); i++ {
				row := a[i*n : (i+1)*n]
				for j := jb; j < min(jb+tile, n); j++ {
					t += row[j] * b[j*n+i]
				}
			}
		}
	}
	return t
}

// Norm returns ‖U‖_X = √⟨U, U⟩_X, the norm of sym(U) off the tangent
// space (see Inner).
func (s *SPD) Norm(x, u []float64) float64 { return math.Sqrt(s.Inner(x, u, u)) }

// symUpper sets the upper triangle (and diagonal) of dst to sym(v).
func (s *SPD) symUpper(dst, v []float64) {
	n := s.n
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			dst[i*n+j] = 0.5 * (v[i*n+j] + v[j*n+i])
		}
	}
}

// Project sets dst = sym(V). dst may be v.
func (s *SPD) Project(dst, x, v []float64) {
	s.check(dst, v)
	n := s.n
	for i := 0; i < n; i++ {
		dst[i*n+i] = v[i*n+i]
	}
	lowerTiles(n, func(i, j0, j1 int) {
		for j := j0; j < j1; j++ {
			a := 0.5 * (v[j*n+i] + v[i*n+j])
			dst[i*n+j], dst[j*n+i] = a, a
		}
	})
}

// EGradToRGrad sets dst = X sym(G) X. dst may be egrad.
// Under another metric it is that metric's gradient.
func (s *SPD) EGradToRGrad(dst, x, egrad []float64) {
	s.check(dst, x, egrad)
	if s.geom != nil {
		s.geom.egradToRGrad(s, dst, x, egrad)
		return
	}
	s.symUpper(s.t1, egrad)
	lapackx.Congruence(dst, x, s.t1, s.t2, s.n, false)
}

// EHessToRHess sets dst = X sym(H) X + sym(U sym(G) X) for the Euclidean
// gradient G and Hessian-vector product H = ∇²f[U].
// Under another metric it is that metric's Hessian.
func (s *SPD) EHessToRHess(dst, x, egrad, ehess, u []float64) {
	s.check(dst, x, egrad, ehess, u)
	if s.geom != nil {
		s.geom.ehessToRHess(s, dst, x, egrad, ehess, u)
		return
	}
	n := s.n
	s.symUpper(s.t1, ehess)
	lapackx.Congruence(s.t3, x, s.t1, s.t2, n, false)
	// sym(U S X) = ½(U (XS)ᵀ + (XS) Uᵀ) for symmetric U, S, X.
	s.symUpper(s.t1, egrad)
	lapackx.MirrorUpper(s.t1, n)
	impl := blas.Impl()
	s.symUpper(s.t4, u)
	lapackx.MirrorUpper(s.t4, n)
	if n < smallN {
		// T = U (S X) by two general products; sym(T) is the term.
		impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, s.t1, n, x, n, 0, s.t2, n)
		impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, s.t4, n, s.t2, n, 0, s.t1, n)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				s.t3[i*n+j] += 0.5 * (s.t1[i*n+j] + s.t1[j*n+i])
			}
		}
	} else {
		impl.Dsymm(gblas.Right, gblas.Upper, n, n, 1, s.t1, n, x, n, 0, s.t2, n) // X S
		impl.Dsyr2k(gblas.Upper, gblas.NoTrans, n, n, 0.5, s.t4, n, s.t2, n, 1, s.t3, n)
	}
	lapackx.MirrorUpper(s.t3, n)
	copy(dst, s.t3)
}

// smallN is the order below which this package prefers general products to
// OpenBLAS's symmetric and triangular kernels, which carry more overhead at
// small sizes (lapackx's BenchmarkCongruenceMethod: the same crossover).
const smallN = 100

// RandPoint sets dst to Qᵀ diag(e^z) Q with Q Haar-random orthogonal and z
// standard normal: a random point with condition number of order e^{2√(2 log n)}.
func (s *SPD) RandPoint(dst []float64, rnd *rand.Rand) {
	s.check(dst)
	n := s.n
	sym := s.t1
	for i := range sym {
		sym[i] = rnd.NormFloat64()
	}
	lapackx.Symmetrize(sym, n)
	if err := s.eig.Factorize(sym); err != nil {
		panic(err) // finite and symmetric by construction
	}
	// The eigenvectors of a GOE matrix are Haar distributed.
	q := s.eig.Vectors()
	w := s.t2
	for i := 0; i < n; i++ {
		c := math.Exp(0.5 * rnd.NormFloat64())
		for j := 0; j < n; j++ {
			w[i*n+j] = c * q[i*n+j]
		}
	}
	blas.Impl().Dsyrk(gblas.Upper, gblas.Trans, n, n, 1, w, n, 0, dst, n)
	lapackx.MirrorUpper(dst, n)
}

// RandTangent sets dst to a random symmetric matrix of unit norm at x.
func (s *SPD) RandTangent(dst, x []float64, rnd *rand.Rand) {
	s.check(dst, x)
	for i := range dst {
		dst[i] = rnd.NormFloat64()
	}
	s.Project(dst, x, dst)
	if nrm := s.Norm(x, dst); nrm > 0 {
		for i := range dst {
			dst[i] /= nrm
		}
	}
}

// tol returns Tol or its default; checkTol has accepted Tol.
func (s *SPD) tol() float64 {
	if s.Tol != 0 {
		return s.Tol
	}
	return DefaultTol
}

// checkTol rejects a NaN, infinite or negative Tol, which a `Tol > 0`
// default test would have turned into DefaultTol (NaN) or which would
// accept any asymmetry (+Inf).
func (s *SPD) checkTol() error {
	if !(s.Tol >= 0 && s.Tol <= math.MaxFloat64) {
		return fmt.Errorf("spd: %w: setting Tol = %v, want finite and ≥ 0 (0: DefaultTol)", numerr.ErrInvalid, s.Tol)
	}
	return nil
}

// checkSym reports a wrong length, a non-finite entry or an asymmetry
// beyond Tol.
// checkSymmetric is checkSym with a fast exit for the exactly symmetric
// matrices every operation here returns: one tiled pass of comparisons,
// and the full check (finite entries, tolerance) only when one differs.
// chol calls it on every new point, since Cholesky reads one triangle
// only and would factor a non-symmetric matrix without a word.
func (s *SPD) checkSymmetric(what string, v []float64) error {
	if err := s.checkTol(); err != nil {
		return err
	}
	n := s.n
	const tile = 16
	var z float64 // stays 0 unless an entry is ±Inf or NaN
	for ib := 0; ib < n; ib += tile {
		for jb := 0; jb <= ib; jb += tile {
			for i := ib; i < min(ib+tile, n); i++ {
				row := v[i*n : i*n+min(jb+tile, i+1)]
				for j := jb; j < len(row); j++ {
					z += row[j] * 0
					if row[j] != v[j*n+i] {
						return s.checkSym(what, v)
					}
				}
			}
		}
	}
	if z != 0 {
		return s.checkSym(what, v)
	}
	return nil
}

func (s *SPD) checkSym(what string, v []float64) error {
	if err := s.checkTol(); err != nil {
		return err
	}
	n := s.n
	if len(v) != n*n {
		return fmt.Errorf("spd: %s has length %d, want %d×%d", what, len(v), n, n)
	}
	var amax, dmax float64
	di, dj := 0, 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a := v[i*n+j]
			if math.IsNaN(a) || math.IsInf(a, 0) {
				return fmt.Errorf("spd: %w: %s[%d,%d] = %v", numerr.ErrNotFinite, what, i, j, a)
			}
			amax = math.Max(amax, math.Abs(a))
			if j < i {
				if d := math.Abs(a - v[j*n+i]); d > dmax {
					dmax, di, dj = d, i, j
				}
			}
		}
	}
	if dmax > s.tol()*amax {
		return fmt.Errorf("spd: %w: %s: |v[%d,%d] − v[%d,%d]| = %.3g > %.3g·max|v|", numerr.ErrNotSymmetric, what, di, dj, dj, di, dmax, s.tol())
	}
	return nil
}

// CheckPoint returns an error unless x is finite, symmetric within Tol and
// positive definite (its Cholesky factorization succeeds).
func (s *SPD) CheckPoint(x []float64) error {
	if err := s.checkSym("point", x); err != nil {
		return err
	}
	_, err := s.chol(x)
	return err
}

// CheckTangent returns an error unless u is finite and symmetric within
// Tol.
func (s *SPD) CheckTangent(x, u []float64) error { return s.checkSym("tangent", u) }

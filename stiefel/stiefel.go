package stiefel

import (
	"fmt"
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/manifold"
	"github.com/rhgd/rhgd/numerr"
)

// Retraction names a retraction of St(n, p).
type Retraction int

// The retractions; see the package documentation.
const (
	// QR is qf(X + tU), the Q factor whose R has a positive diagonal,
	// by CholeskyQR2 where QRMethod allows it, falling back to
	// Householder when X + tU is too ill-conditioned for it: Cholesky
	// fails, κ_∞(R₁) > 1e6, or ‖Q₁ᵀQ₁ − I‖_F > (1e6)²ε after the first
	// pass (the package documentation has the details).
	QR Retraction = iota
	Polar
	Cayley
	Exponential
)

// Errors: these two, which errors.Is also matches to numerr.ErrInvalid,
// and the shared numerr.ErrNotFinite.
var (
	// ErrNotOrthonormal signifies a point whose columns are not
	// orthonormal within Tol.
	ErrNotOrthonormal = numerr.New(numerr.ErrInvalid, "stiefel: columns not orthonormal")
	// ErrNotTangent signifies a vector U with XᵀU + UᵀX ≠ 0 beyond Tol.
	ErrNotTangent = numerr.New(numerr.ErrInvalid, "stiefel: not a tangent vector")
)

// DefaultTol is the default tolerance of CheckPoint and CheckTangent.
const DefaultTol = 1e-10

// Stiefel is St(n, p). Points and tangent vectors are row-major n×p
// []float64.
type Stiefel struct {
	manifold.Embedded // Norm, EGradToRGrad, Transport, RandTangent
	n, p              int
	// Retraction is the retraction Retract uses; the zero value is QR.
	Retraction Retraction
	// QRMethod is how the QR retraction computes its factor; the zero
	// value, QRAuto, picks the faster one for the shape.
	QRMethod QRMethod
	// Tol bounds ‖XᵀX − I‖_F in CheckPoint and ‖sym(XᵀU)‖_F/‖U‖_F in
	// CheckTangent, finite and ≥ 0; zero means DefaultTol. They return an
	// error wrapping numerr.ErrInvalid that names it when it is NaN,
	// infinite or negative.
	Tol float64

	qr   *lapackx.QR
	sf   *lapackx.SymFunc // p×p
	lu   *lapackx.LU      // 2p×2p (Cayley)
	ex2  *lapackx.Expm    // 2p×2p (exponential)
	ex1  *lapackx.Expm    // p×p (exponential)
	a, b []float64        // n×p
	tu   []float64        // n×p: the step tU of the exponential and Cayley maps
	ab   []float64        // n×2p
	pp   [3][]float64     // p×p
	p2   [3][]float64     // 2p×2p, 2p×p
	// qrFallbacks counts the QR retractions that CholeskyQR2's guard
	// passed to Householder, for the tests.
	qrFallbacks int
}

// New returns St(n, p) with the QR retraction. It panics unless
// 0 < p ≤ n.
func New(n, p int) *Stiefel {
	if p <= 0 || p > n {
		panic(fmt.Sprintf("stiefel: need 0 < p ≤ n, have n=%d p=%d", n, p))
	}
	s := &Stiefel{n: n, p: p,
		qr: lapackx.NewQR(n, p), sf: lapackx.NewSymFunc(p), lu: lapackx.NewLU(2 * p),
		ex2: lapackx.NewExpm(2 * p), ex1: lapackx.NewExpm(p),
		a: make([]float64, n*p), b: make([]float64, n*p), tu: make([]float64, n*p), ab: make([]float64, 2*n*p)}
	for i := range s.pp {
		s.pp[i] = make([]float64, p*p)
	}
	for i := range s.p2 {
		s.p2[i] = make([]float64, 4*p*p)
	}
	s.Init(s)
	return s
}

// Clone returns an independent *Stiefel with the same settings.
func (s *Stiefel) Clone() any {
	c := New(s.n, s.p)
	c.Retraction, c.QRMethod, c.Tol = s.Retraction, s.QRMethod, s.Tol
	return c
}

// check panics unless every slice of v has the length of a point.
func (s *Stiefel) check(v ...[]float64) {
	manifold.CheckLen("stiefel: dimension mismatch", s.n*s.p, v...)
}

// Dims returns n and p.
func (s *Stiefel) Dims() (r, c int) { return s.n, s.p }

// Len returns n·p.
func (s *Stiefel) Len() int { return s.n * s.p }

// Dim returns np − p(p+1)/2.
func (s *Stiefel) Dim() int { return s.n*s.p - s.p*(s.p+1)/2 }

// Inner returns tr(UᵀV).
func (s *Stiefel) Inner(x, u, v []float64) float64 {
	s.check(u, v)
	return manifold.FrobeniusInner(u, v)
}

// xtv sets dst (p×p) = sym(XᵀV).
func (s *Stiefel) xtv(dst, x, v []float64) {
	n, p := s.n, s.p
	blas.Impl().Dgemm(gblas.Trans, gblas.NoTrans, p, p, n, 1, x, p, v, p, 0, dst, p)
	lapackx.Symmetrize(dst, p)
}

// Project sets dst = V − X sym(XᵀV). dst may be v but not x.
func (s *Stiefel) Project(dst, x, v []float64) {
	s.check(dst, x, v)
	n, p := s.n, s.p
	s.xtv(s.pp[0], x, v)
	copy(dst, v)
	blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, -1, x, p, s.pp[0], p, 1, dst, p)
}

// EHessToRHess sets dst = P_X(∇²f[U] − U sym(Xᵀ∇f)).
func (s *Stiefel) EHessToRHess(dst, x, egrad, ehess, u []float64) {
	s.check(dst, x, egrad, ehess, u)
	n, p := s.n, s.p
	s.xtv(s.pp[1], x, egrad)
	copy(s.b, ehess)
	blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, -1, u, p, s.pp[1], p, 1, s.b, p)
	s.Project(dst, x, s.b)
}

// RandPoint sets dst to the Q factor of a Gaussian n×p matrix: a
// Haar-distributed point.
func (s *Stiefel) RandPoint(dst []float64, rnd *rand.Rand) {
	s.check(dst)
	for i := range s.a {
		s.a[i] = rnd.NormFloat64()
	}
	if err := s.qr.Factorize(s.a); err != nil {
		panic(err) // finite by construction
	}
	s.qr.QTo(dst)
}

// tol returns Tol or its default, or an error for a NaN, infinite or
// negative Tol: a `Tol > 0` default test would turn NaN into DefaultTol
// silently, and +Inf would accept any matrix.
func (s *Stiefel) tol() (float64, error) {
	switch {
	case !(s.Tol >= 0 && s.Tol <= math.MaxFloat64):
		return 0, fmt.Errorf("stiefel: %w: setting Tol = %v, want finite and ≥ 0 (0: DefaultTol)", numerr.ErrInvalid, s.Tol)
	case s.Tol == 0:
		return DefaultTol, nil
	}
	return s.Tol, nil
}

func finite(what string, v []float64, cols int) error {
	for i, a := range v {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return fmt.Errorf("stiefel: %w: %s[%d,%d] = %v", numerr.ErrNotFinite, what, i/cols, i%cols, a)
		}
	}
	return nil
}

// CheckPoint returns an error unless x has the right size, finite entries
// and ‖XᵀX − I‖_F ≤ Tol.
func (s *Stiefel) CheckPoint(x []float64) error {
	if len(x) != s.n*s.p {
		return fmt.Errorf("stiefel: point has length %d, want %d×%d", len(x), s.n, s.p)
	}
	tol, err := s.tol()
	if err != nil {
		return err
	}
	if err := finite("point", x, s.p); err != nil {
		return err
	}
	if d := s.defect(x); d > tol {
		return fmt.Errorf("%w: ‖XᵀX − I‖_F = %.3g > %.3g", ErrNotOrthonormal, d, tol)
	}
	return nil
}

// defect returns ‖XᵀX − I‖_F.
func (s *Stiefel) defect(x []float64) float64 {
	p := s.p
	g := s.pp[2]
	blas.Impl().Dgemm(gblas.Trans, gblas.NoTrans, p, p, s.n, 1, x, p, x, p, 0, g, p)
	for i := 0; i < p; i++ {
		g[i*p+i]--
	}
	return frob(g)
}

// CheckTangent returns an error unless u is finite and
// ‖sym(XᵀU)‖_F ≤ Tol·‖U‖_F.
func (s *Stiefel) CheckTangent(x, u []float64) error {
	if len(u) != s.n*s.p || len(x) != s.n*s.p {
		return fmt.Errorf("stiefel: tangent has length %d, want %d×%d", len(u), s.n, s.p)
	}
	tol, err := s.tol()
	if err != nil {
		return err
	}
	if err := finite("tangent", u, s.p); err != nil {
		return err
	}
	s.xtv(s.pp[2], x, u)
	if d, nu := frob(s.pp[2]), frob(u); d > tol*math.Max(nu, 1e-300) {
		return fmt.Errorf("%w: ‖sym(XᵀU)‖_F = %.3g with ‖U‖_F = %.3g", ErrNotTangent, d, nu)
	}
	return nil
}

// frob returns ‖a‖_F. The plain sum of squares is redone with scaling
// when it overflows or underflows, so that a tangent of 1e167 is not
// measured as +Inf (and then accepted by the tolerance tests).
func frob(a []float64) float64 {
	var s float64
	for _, v := range a {
		s += v * v
	}
	if !math.IsInf(s, 1) && !(s < 0x1p-968) {
		return math.Sqrt(s)
	}
	var scale float64
	for _, v := range a {
		scale = math.Max(scale, math.Abs(v))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return scale
	}
	s = 0
	for _, v := range a {
		s += (v / scale) * (v / scale)
	}
	return scale * math.Sqrt(s)
}

// Package grassmann is the Grassmann manifold Gr(n, p) of the
// p-dimensional subspaces of R^n, as the quotient St(n, p)/O(p) of the
// Stiefel manifold by the orthogonal group acting on the right (Edelman,
// Arias and Smith 1998; Absil, Mahony and Sepulchre 2004), with the
// geometry of pymanopt's Grassmann and Manopt's grassmannfactory. It is
// written on the small manifold interface (manifold.Embedded).
//
// A problem whose value depends on an orthonormal basis X only through
// its span, f(XO) = f(X) for every orthogonal O, has on Stiefel p(p−1)/2
// flat directions at every point (the vertical ones, XΩ with Ω skew): a
// lower level with that symmetry is never strongly convex there, and an
// upper level spends steps along them. On Gr they are gone.
//
// # Representation
//
// A point is an n×p matrix X with orthonormal columns (row-major, Len =
// np) standing for its column space; Dim = p(n − p). A tangent vector at
// the subspace is represented by its horizontal lift at X: an n×p U with
// XᵀU = 0. Everything below is computed on these representatives and is
// well defined on the quotient: the lift of the same tangent vector at XO
// is UO, and each formula commutes with that change (the tests check it).
//
// "The same point" therefore means the same column space. CheckPoint
// checks X's orthonormality only; Dist(X, XO) = 0 and Log(X, XO) = 0 for
// every orthogonal O; Log and Dist do not depend on the representative of
// their second argument, and Log(XO, Y) = Log(X, Y)·O. Two
// representatives of one point are not equal slices, so compare points
// by Dist, or by the projectors XXᵀ, never entry by entry. Only functions
// with f(XO) = f(X) are functions on Gr: for them Xᵀ∇f is symmetric,
// which the Hessian below needs. Transport(X, Y, U) = P_Y(U) is read as a
// lift at the representative Y given, so it depends on Y's representative
// (at YO the same slice stands for another tangent vector): it is the
// vector transport that goes with the retraction that produced Y, whose
// representative moves continuously from X, as the solver uses it.
//
// # Geometry
//
//	inner product  ⟨U, V⟩ = tr(UᵀV), the metric of the quotient
//	tangent space  {U : XᵀU = 0}, the horizontal space
//	projection     P_X(V) = V − X(XᵀV)
//	gradient       grad f = P_X(∇f)
//	Hessian        Hess f[U] = P_X(∇²f[U] − U(Xᵀ∇f))
//	exponential    Exp_X(U) = X V cos(Σ) Vᵀ + W sin(Σ) Vᵀ with U = WΣVᵀ,
//	               computed as X cos(√S) + U sinc(√S), S = UᵀU, then
//	               re-orthonormalized (polar factor)
//	logarithm      Log_X(Y) = W atan(Σ) Vᵀ with WΣVᵀ = (Y − X XᵀY)(XᵀY)⁻¹,
//	               computed as M g(MᵀM), g(s) = atan(√s)/√s, for that M
//	distance       d(X, Y) = ‖θ‖₂, θ the principal angles, from sin²θ
//	               the eigenvalues of BᵀB, B = Y − X XᵀY, and cos²θ
//	               those of AᵀA, A = XᵀY
//	transport      by projection onto the horizontal space at Y
//
// The metric is the Frobenius one restricted to the horizontal space, so
// the Riemannian gradient is the projected Euclidean one and the
// Levi-Civita connection is the projected derivative (a Riemannian
// submersion: Absil, Mahony and Sepulchre 2008, §5.3), which is why the
// package builds on manifold.Embedded and needs no solver.Connection. The
// Hessian's last term is that derivative applied to the projection
// (D P_X[U] ∇f = −(UXᵀ + XUᵀ)∇f, of which P_X keeps −U Xᵀ∇f); it is
// pymanopt's and Manopt's, with a final projection that keeps the result
// horizontal when U is horizontal only to rounding.
//
// The exponential and the logarithm are pymanopt's formulas (Edelman,
// Arias and Smith 1998, Thm 2.3; Absil, Mahony and Sepulchre 2004)
// with the singular value decompositions of U and M replaced by the
// symmetric eigendecompositions of the p×p Gram matrices, to which cos,
// sinc and atan(√s)/√s are applied as smooth functions of σ²: no division
// by a small singular value, and no SVD in lapackx. Log is undefined at
// the cut locus, where XᵀY is singular (a principal angle of π/2) and
// there are several shortest geodesics: it returns an error there. Dist
// is defined everywhere and computed from both the sines and the cosines
// of the principal angles: small angles to high relative accuracy
// (Dist(X, XO) is of the order of the rounding), and angles near π/2 to
// rounding when all are (orthogonal subspaces are √p·π/2 apart).
//
// # Retractions
//
// The Retraction field picks one; the zero value is QR, as on Stiefel:
//
//	QR           qf(X + tU), R's diagonal positive (stiefel's QR retraction)
//	Polar        (X + tU)(I + t²UᵀU)^{−½} (stiefel's polar retraction)
//	Exponential  Exp_X(tU)
//
// QR and Polar are Stiefel's retractions applied to the horizontal U
// (XᵀU = 0 is a Stiefel tangent), so they share its CholeskyQR2 and
// Householder paths and its errors. Both give the subspace span(X + tU),
// a retraction of second order on Gr; they differ in the representative
// only, Polar's agreeing with the exponential's to second order and QR's
// to first (which is what manifoldtest, comparing representatives, sees).
//
// A Grassmann owns scratch space: it is not safe for concurrent use;
// Clone gives another goroutine its own. Slices of the wrong length are
// programming errors and panic, as in gonum; points off the manifold and
// non-finite data are errors wrapping the numerr sentinels.
package grassmann

import (
	"fmt"
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/manifold"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/stiefel"
)

// ErrNotOrthonormal signifies a point whose columns are not orthonormal
// within DefaultTol; errors.Is also matches it to numerr.ErrInvalid.
var ErrNotOrthonormal = numerr.New(numerr.ErrInvalid, "grassmann: columns not orthonormal")

// DefaultTol bounds ‖XᵀX − I‖_F in CheckPoint, as stiefel's default does.
const DefaultTol = 1e-10

// Grassmann is Gr(n, p). Points and tangent vectors are row-major n×p
// []float64: orthonormal bases and horizontal lifts (the package
// documentation says what they stand for).
type Grassmann struct {
	manifold.Embedded // Norm, Transport, RandTangent, CheckTangent, EGradToRGrad
	n, p              int
	// Retraction is the retraction Retract uses; the zero value is QR.
	Retraction Retraction

	st   *stiefel.Stiefel // the total space: QR and polar retractions, RandPoint
	sf   *lapackx.SymFunc // p×p: Exp, Log, Dist, the polar factor
	lu   *lapackx.LU      // p×p: Log
	a, b []float64        // n×p
	pp   [3][]float64     // p×p
	t    float64          // the step the exponential's functions read
	// The spectral functions of Exp and Log, built once (UserFunc's
	// closures read g.t) so that calls allocate nothing.
	cosF, sincF, atanF lapackx.Func
}

// New returns Gr(n, p) with the QR retraction. It panics unless
// 0 < p < n (Gr(n, n) is a single point).
func New(n, p int) *Grassmann {
	if p <= 0 || p >= n {
		panic(fmt.Sprintf("grassmann: need 0 < p < n, have n=%d p=%d", n, p))
	}
	g := &Grassmann{n: n, p: p, st: stiefel.New(n, p), sf: lapackx.NewSymFunc(p), lu: lapackx.NewLU(p),
		a: make([]float64, n*p), b: make([]float64, n*p)}
	for i := range g.pp {
		g.pp[i] = make([]float64, p*p)
	}
	// Functions of s = σ² ≥ 0 (negative s is rounding of a zero σ²).
	g.cosF = lapackx.UserFunc(func(s float64) float64 { return math.Cos(g.t * math.Sqrt(math.Max(s, 0))) }, nil, false)
	g.sincF = lapackx.UserFunc(func(s float64) float64 {
		if a := g.t * math.Sqrt(math.Max(s, 0)); a != 0 {
			return g.t * math.Sin(a) / a
		}
		return g.t
	}, nil, false)
	g.atanF = lapackx.UserFunc(func(s float64) float64 {
		if r := math.Sqrt(math.Max(s, 0)); r != 0 {
			return math.Atan(r) / r
		}
		return 1
	}, nil, false)
	g.Init(g)
	return g
}

// Clone returns an independent *Grassmann with the same retraction.
func (g *Grassmann) Clone() any {
	c := New(g.n, g.p)
	c.Retraction = g.Retraction
	return c
}

// check panics unless every slice of v has the length of a point.
func (g *Grassmann) check(v ...[]float64) {
	manifold.CheckLen("grassmann: dimension mismatch", g.n*g.p, v...)
}

// Dims returns n and p, the shape of a representative.
func (g *Grassmann) Dims() (r, c int) { return g.n, g.p }

// Len returns n·p.
func (g *Grassmann) Len() int { return g.n * g.p }

// Dim returns p(n − p).
func (g *Grassmann) Dim() int { return g.p * (g.n - g.p) }

// Inner returns tr(UᵀV).
func (g *Grassmann) Inner(x, u, v []float64) float64 {
	g.check(u, v)
	return manifold.FrobeniusInner(u, v)
}

// Project sets dst = V − X(XᵀV), the horizontal part of V. dst may be v
// but not x.
func (g *Grassmann) Project(dst, x, v []float64) {
	g.check(dst, x, v)
	n, p := g.n, g.p
	xtv := g.pp[0]
	impl := blas.Impl()
	impl.Dgemm(gblas.Trans, gblas.NoTrans, p, p, n, 1, x, p, v, p, 0, xtv, p)
	copy(dst, v)
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, -1, x, p, xtv, p, 1, dst, p)
}

// EHessToRHess sets dst = P_X(ehess − U(Xᵀ egrad)). dst may be egrad,
// ehess or u.
func (g *Grassmann) EHessToRHess(dst, x, egrad, ehess, u []float64) {
	g.check(dst, x, egrad, ehess, u)
	n, p := g.n, g.p
	xtg := g.pp[1]
	impl := blas.Impl()
	impl.Dgemm(gblas.Trans, gblas.NoTrans, p, p, n, 1, x, p, egrad, p, 0, xtg, p)
	copy(g.b, ehess)
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, -1, u, p, xtg, p, 1, g.b, p)
	g.Project(dst, x, g.b)
}

// RandPoint sets dst to the Q factor of a Gaussian n×p matrix, whose span
// is uniform on Gr(n, p) (the image of the Haar measure on Stiefel).
func (g *Grassmann) RandPoint(dst []float64, rnd *rand.Rand) {
	g.check(dst)
	g.st.RandPoint(dst, rnd)
}

// CheckPoint returns an error unless x has length np, finite entries and
// ‖XᵀX − I‖_F ≤ DefaultTol. Any orthonormal basis of a subspace is a
// point: the check cannot, and need not, tell representatives apart.
func (g *Grassmann) CheckPoint(x []float64) error {
	if len(x) != g.n*g.p {
		return fmt.Errorf("grassmann: point has length %d, want %d×%d", len(x), g.n, g.p)
	}
	for i, a := range x {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return fmt.Errorf("grassmann: %w: point[%d,%d] = %v", numerr.ErrNotFinite, i/g.p, i%g.p, a)
		}
	}
	if d := g.defect(x); !(d <= DefaultTol) {
		return fmt.Errorf("%w: ‖XᵀX − I‖_F = %.3g > %.3g", ErrNotOrthonormal, d, DefaultTol)
	}
	return nil
}

// defect returns ‖XᵀX − I‖_F.
func (g *Grassmann) defect(x []float64) float64 {
	p := g.p
	gram := g.pp[2]
	blas.Impl().Dgemm(gblas.Trans, gblas.NoTrans, p, p, g.n, 1, x, p, x, p, 0, gram, p)
	var s float64
	for i, v := range gram {
		if i%(p+1) == 0 {
			v--
		}
		s += v * v
	}
	return math.Sqrt(s)
}

// gram sets the p×p dst = AᵀA for the n×p a, both triangles.
func (g *Grassmann) gram(dst, a []float64) {
	p := g.p
	blas.Impl().Dsyrk(gblas.Upper, gblas.Trans, p, g.n, 1, a, p, 0, dst, p)
	lapackx.MirrorUpper(dst, p)
}

// polar sets dst = A(AᵀA)^{−½}, the orthonormal factor of the n×p a
// nearest to it (Fan and Hoffman 1955). dst must not be a.
func (g *Grassmann) polar(dst, a []float64) error {
	n, p := g.n, g.p
	g.gram(g.pp[0], a)
	if err := g.sf.InvSqrt(g.pp[1], g.pp[0]); err != nil {
		return err
	}
	blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, 1, a, p, g.pp[1], p, 0, dst, p)
	return nil
}

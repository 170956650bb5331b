// Package simplex is the probability simplex Δ(n) = {x ∈ R^n : x > 0,
// Σx = 1} (its relative interior: the categorical distributions with no
// zero probability) with the Fisher information metric, the multinomial
// manifold of Manopt's and pymanopt's multinomialfactory with one column.
// It is written on the small manifold interface: its methods are its
// mathematics, and manifold.Defaults fills in the rest of solver.Manifold.
//
// # Geometry
//
//	inner product  ⟨u, v⟩_x = Σ u_i v_i / x_i
//	tangent space  {u : Σu = 0}; projection P_x(v) = v − (Σv) x
//	gradient       grad f = P_x(x ∘ ∇f) = x ∘ (∇f − λ), λ = Σ x_i ∇f_i
//	Hessian        Hess f[u] = P_x(x ∘ ∇²f[u] + ½ u ∘ (∇f − λ))
//	connection     ∇_u V = P_x(DV[u] − ½ u ∘ V ⊘ x)
//	retraction     R_x(u) = x ∘ exp(u ⊘ x) / Σ x ∘ exp(u ⊘ x), first order
//	exponential    Exp_x(u) = (cos θ √x + sin θ w)², θ = ‖u‖_x / 2,
//	               w = (u ⊘ √x) / ‖u‖_x
//	logarithm      Log_x(y) = (2θ / sin θ) (√(x ∘ y) − cos θ x),
//	               cos θ = Σ √(x_i y_i)
//	distance       d(x, y) = 2θ = 2 arccos Σ √(x_i y_i)
//	transport      by projection: the identity, every tangent space being
//	               {Σu = 0}
//
// On the positive orthant the Fisher metric has the Christoffel symbols
// Γ^i_ii = −1/(2x_i), and the simplex is a Riemannian submanifold of the
// orthant with that metric: hence the connection, and the Hessian as the
// connection's derivative of the gradient field (the multiplier λ's
// derivative is normal and drops out). The map x ↦ 2√x is an isometry onto
// the open positive part of the sphere of radius 2: hence the geodesics,
// the logarithm and the distance (the Fisher–Rao distance). The simplex is
// not complete: Exp is an error once the geodesic would reach the
// boundary, while Log and Dist are defined everywhere, the positive part
// of the sphere being geodesically convex. The retraction is a softmax,
// softmax(log x + u ⊘ x), computed with its largest exponent subtracted
// so that it does not overflow.
//
// Slices of the wrong length are programming errors and panic, as in
// gonum; a Simplex is not safe for concurrent use (Clone gives another
// goroutine its own).
package simplex

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rhgd/rhgd/manifold"
	"github.com/rhgd/rhgd/numerr"
)

// ErrNotPoint signifies a vector that is not a point of the simplex (an
// entry not positive, or a sum not one); errors.Is also matches it to
// numerr.ErrInvalid.
var ErrNotPoint = numerr.New(numerr.ErrInvalid, "simplex: not a point of the simplex")

// Simplex is Δ(n) with the Fisher metric. Points and tangent vectors are
// []float64 of length n.
type Simplex struct {
	manifold.Defaults // Norm, Transport, RandTangent, CheckTangent
	n                 int
}

// New returns Δ(n). It panics unless n ≥ 2.
func New(n int) *Simplex {
	if n < 2 {
		panic(fmt.Sprintf("simplex: need n ≥ 2, have %d", n))
	}
	s := &Simplex{n: n}
	s.Init(s)
	return s
}

// Clone returns an independent *Simplex.
func (s *Simplex) Clone() any { return New(s.n) }

// check panics unless every slice of v has the length of a point.
func (s *Simplex) check(v ...[]float64) { manifold.CheckLen("simplex: dimension mismatch", s.n, v...) }

// Len returns n.
func (s *Simplex) Len() int { return s.n }

// Dim returns n − 1.
func (s *Simplex) Dim() int { return s.n - 1 }

// Inner returns Σ u_i v_i / x_i.
func (s *Simplex) Inner(x, u, v []float64) float64 {
	s.check(x, u, v)
	return manifold.FisherInner(x, u, v)
}

// Project sets dst = v − (Σv) x, the projection orthogonal in the metric
// at x: ⟨x, w⟩_x = Σw vanishes for every tangent w. dst may be v.
func (s *Simplex) Project(dst, x, v []float64) {
	s.check(dst, x, v)
	var sum float64
	for _, a := range v {
		sum += a
	}
	for i, xi := range x {
		dst[i] = v[i] - sum*xi
	}
}

// EGradToRGrad sets dst = x ∘ (egrad − λ), λ = Σ x_i egrad_i: the
// metric's inverse x ∘ egrad, projected. dst may be egrad.
func (s *Simplex) EGradToRGrad(dst, x, egrad []float64) {
	s.check(dst, x, egrad)
	lam := dot(x, egrad)
	for i, xi := range x {
		dst[i] = xi * (egrad[i] - lam)
	}
}

// EHessToRHess sets dst = P_x(x ∘ ehess + ½ u ∘ (egrad − λ)), λ as in
// EGradToRGrad. dst may alias any argument.
func (s *Simplex) EHessToRHess(dst, x, egrad, ehess, u []float64) {
	s.check(dst, x, egrad, ehess, u)
	lam := dot(x, egrad)
	w := func(i int) float64 { return x[i]*ehess[i] + 0.5*u[i]*(egrad[i]-lam) }
	var sum float64
	for i := range x {
		sum += w(i)
	}
	for i, xi := range x {
		dst[i] = w(i) - sum*xi
	}
}

// ConnectionTerm sets dst = P_x(−½ u ∘ v ⊘ x), the Christoffel term of
// the Levi-Civita connection (solver.Connection). dst may alias u or v.
func (s *Simplex) ConnectionTerm(dst, x, u, v []float64) {
	s.check(dst, x, u, v)
	var sum float64
	for i, xi := range x {
		sum -= 0.5 * u[i] * v[i] / xi
	}
	for i, xi := range x {
		dst[i] = -0.5*u[i]*v[i]/xi - sum*xi
	}
}

// Retract sets dst = x ∘ exp(t u ⊘ x) normalized to sum one, each
// exponent less the largest so that none overflows. An exponent that is
// not finite, or an entry that underflows to zero, is an error. dst may
// be x or u.
func (s *Simplex) Retract(dst, x, u []float64, t float64) error {
	s.check(dst, x, u)
	top := math.Inf(-1)
	for i, xi := range x {
		a := t * u[i] / xi
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return fmt.Errorf("simplex: %w: retraction exponent t·u[%d]/x[%d] = %v", numerr.ErrNotFinite, i, i, a)
		}
		top = math.Max(top, a)
	}
	var z float64
	for i, xi := range x {
		dst[i] = xi * math.Exp(t*u[i]/xi-top)
		z += dst[i]
	}
	for i := range dst {
		if dst[i] /= z; dst[i] == 0 {
			return fmt.Errorf("simplex: %w: retraction entry %d is zero", numerr.ErrUnderflow, i)
		}
	}
	return nil
}

// Exp sets dst = Exp_x(t·u), the geodesic of the package documentation,
// or returns an error, leaving dst unspecified, when the geodesic reaches
// the boundary before t (the first zero of cos τ √x_i + sin τ w_i). dst
// may be x or u.
func (s *Simplex) Exp(dst, x, u []float64, t float64) error {
	s.check(dst, x, u)
	if err := positive("point", x); err != nil {
		return err
	}
	nu := math.Sqrt(s.Inner(x, u, u))
	if math.IsNaN(nu) || math.IsInf(nu, 0) || math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("simplex: %w: Exp with ‖u‖_x = %v, t = %v", numerr.ErrNotFinite, nu, t)
	}
	theta, sg := 0.5*math.Abs(t)*nu, math.Copysign(1, t)/nu
	if theta == 0 {
		copy(dst, x)
		return nil
	}
	for i, xi := range x {
		a := math.Sqrt(xi)
		if tau := math.Atan2(a, -sg*u[i]/a); theta >= tau {
			return fmt.Errorf("simplex: %w: the geodesic reaches the boundary (x[%d] = 0) at t = %.3g, before t = %.3g",
				numerr.ErrInvalid, i, math.Copysign(2*tau/nu, t), t)
		}
	}
	c, sn := math.Cos(theta), math.Sin(theta)
	for i, xi := range x {
		a := math.Sqrt(xi)
		b := c*a + sn*sg*u[i]/a
		dst[i] = b * b
	}
	return nil
}

// angle returns cos θ = Σ √(x_i y_i) and θ, the angle between √x and √y
// on the unit sphere, by atan2 of the sine ‖√y − cos θ √x‖ and the
// cosine, accurate where arccos loses half the digits (θ near 0).
func angle(x, y []float64) (cos, theta, sin float64) {
	for i, xi := range x {
		cos += math.Sqrt(xi * y[i])
	}
	for i, xi := range x {
		sin = math.Hypot(sin, math.Sqrt(y[i])-cos*math.Sqrt(xi))
	}
	return cos, math.Atan2(sin, cos), sin
}

// Log sets dst = Log_x(y) = (2θ / sin θ)(√(x ∘ y) − cos θ x), zero for
// y = x. It returns an error unless x is positive and y non-negative.
// dst may be x or y.
func (s *Simplex) Log(dst, x, y []float64) error {
	s.check(dst, x, y)
	if err := positive("point", x); err != nil {
		return err
	}
	if err := nonNegative(y); err != nil {
		return err
	}
	cos, theta, sin := angle(x, y)
	k := 0.0
	if sin > 0 {
		k = 2 * theta / sin
	}
	for i, xi := range x {
		dst[i] = k * (math.Sqrt(xi*y[i]) - cos*xi)
	}
	return nil
}

// Dist returns the Fisher–Rao distance 2θ, cos θ = Σ √(x_i y_i). It
// returns an error unless x is positive and y non-negative.
func (s *Simplex) Dist(x, y []float64) (float64, error) {
	s.check(x, y)
	if err := positive("point", x); err != nil {
		return math.NaN(), err
	}
	if err := nonNegative(y); err != nil {
		return math.NaN(), err
	}
	_, theta, _ := angle(x, y)
	return 2 * theta, nil
}

// Whiten sets dst = u ⊘ √x, the coordinates in which the Fisher metric is
// the dot product (solver.Whitener). It returns an error unless x is
// positive.
func (s *Simplex) Whiten(dst, x, u []float64) error {
	s.check(dst, x, u)
	if err := positive("point", x); err != nil {
		return err
	}
	for i, xi := range x {
		dst[i] = u[i] / math.Sqrt(xi)
	}
	return nil
}

// RandPoint sets dst to a point uniform on the simplex (Dirichlet(1)):
// standard exponential variates normalized to sum one.
func (s *Simplex) RandPoint(dst []float64, rnd *rand.Rand) {
	s.check(dst)
	var z float64
	for i := range dst {
		dst[i] = rnd.ExpFloat64()
		z += dst[i]
	}
	for i := range dst {
		dst[i] /= z
	}
}

// CheckPoint returns an error unless x has length n, finite positive
// entries, and |Σx − 1| ≤ manifold.DefaultTol (or 4n units of roundoff,
// the sum's own rounding, when n is large).
func (s *Simplex) CheckPoint(x []float64) error {
	if len(x) != s.n {
		return fmt.Errorf("simplex: point has length %d, want %d", len(x), s.n)
	}
	if err := positive("point", x); err != nil {
		return err
	}
	var sum float64
	for _, a := range x {
		sum += a
	}
	if tol := math.Max(manifold.DefaultTol, 4*float64(s.n)*0x1p-53); math.Abs(sum-1) > tol {
		return fmt.Errorf("%w: Σx − 1 = %.3g, beyond %.3g", ErrNotPoint, sum-1, tol)
	}
	return nil
}

// positive returns an error unless every entry of v is finite and
// positive.
func positive(what string, v []float64) error {
	for i, a := range v {
		switch {
		case math.IsNaN(a) || math.IsInf(a, 0):
			return fmt.Errorf("simplex: %w: %s[%d] = %v", numerr.ErrNotFinite, what, i, a)
		case a <= 0:
			return fmt.Errorf("%w: %s[%d] = %v is not positive", ErrNotPoint, what, i, a)
		}
	}
	return nil
}

// nonNegative returns an error unless every entry of y is finite and ≥ 0:
// Log and Dist reach the boundary too.
func nonNegative(y []float64) error {
	for i, a := range y {
		if !(a >= 0) || math.IsInf(a, 1) {
			return fmt.Errorf("%w: y[%d] = %v, want finite and ≥ 0", ErrNotPoint, i, a)
		}
	}
	return nil
}

func dot(a, b []float64) float64 {
	var d float64
	for i, v := range a {
		d += v * b[i]
	}
	return d
}

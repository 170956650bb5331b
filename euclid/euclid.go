// Package euclid is the Euclidean space R^{r×c} with the Frobenius inner
// product, as a manifold: the trivial reference for rhgd's manifold
// interface, and the home of the paper's Euclidean variables (regression
// weights, for example).
//
// # Misuse and bad data
//
// Slices of the wrong length are programming errors and panic, as in
// gonum. Data-dependent failures (a point that is not finite, a non-finite
// entry, a failed operation) are errors wrapping the numerr sentinels.
package euclid

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rhgd/rhgd/manifold"
	"github.com/rhgd/rhgd/numerr"
)

// Euclidean is R^{r×c}; points and tangent vectors are row-major []float64
// of length r·c. It has no state, so it is safe for concurrent use.
type Euclidean struct{ r, c int }

// New returns R^{r×c}. It panics if r or c is negative.
func New(r, c int) *Euclidean {
	if r < 0 || c < 0 {
		panic("euclid: negative dimension")
	}
	return &Euclidean{r, c}
}

// check panics unless every slice of v has the length of a point.
func (e *Euclidean) check(v ...[]float64) {
	manifold.CheckLen("euclid: dimension mismatch", e.r*e.c, v...)
}

// Dims returns r and c.
func (e *Euclidean) Dims() (r, c int) { return e.r, e.c }

// Len returns r·c.
func (e *Euclidean) Len() int { return e.r * e.c }

// Dim returns r·c.
func (e *Euclidean) Dim() int { return e.r * e.c }

// Inner returns the Frobenius inner product of u and v.
func (e *Euclidean) Inner(x, u, v []float64) float64 {
	e.check(u, v)
	return manifold.FrobeniusInner(u, v)
}

// Norm returns the Frobenius norm of u.
func (e *Euclidean) Norm(x, u []float64) float64 { return math.Sqrt(e.Inner(x, u, u)) }

// Project copies v: every vector is tangent.
func (e *Euclidean) Project(dst, x, v []float64) { e.check(dst, v); copy(dst, v) }

// EGradToRGrad copies egrad.
func (e *Euclidean) EGradToRGrad(dst, x, egrad []float64) { e.check(dst, egrad); copy(dst, egrad) }

// EHessToRHess copies ehess.
func (e *Euclidean) EHessToRHess(dst, x, egrad, ehess, u []float64) {
	e.check(dst, ehess)
	copy(dst, ehess)
}

// Retract sets dst = x + t·u, the exponential map. dst may be x.
func (e *Euclidean) Retract(dst, x, u []float64, t float64) error {
	e.check(dst, x, u)
	for i := range dst {
		dst[i] = x[i] + t*u[i]
	}
	return nil
}

// IsEuclideanSpace returns true: R^{r×c} is its own ambient space, with
// the identity gradient conversions and the retraction x + t·u (see
// solver.EuclideanSpace).
func (e *Euclidean) IsEuclideanSpace() bool { return true }

// Exp is Retract.
func (e *Euclidean) Exp(dst, x, u []float64, t float64) error { return e.Retract(dst, x, u, t) }

// Log sets dst = y − x.
func (e *Euclidean) Log(dst, x, y []float64) error {
	e.check(dst, x, y)
	for i := range dst {
		dst[i] = y[i] - x[i]
	}
	return nil
}

// Dist returns ‖y − x‖_F.
func (e *Euclidean) Dist(x, y []float64) (float64, error) {
	e.check(x, y)
	var s float64
	for i := range x {
		d := y[i] - x[i]
		s += d * d
	}
	return math.Sqrt(s), nil
}

// Transport copies u: parallel transport is the identity.
func (e *Euclidean) Transport(dst, x, y, u []float64) { e.check(dst, u); copy(dst, u) }

// RandPoint fills dst with standard normal entries.
func (e *Euclidean) RandPoint(dst []float64, rnd *rand.Rand) {
	e.check(dst)
	for i := range dst {
		dst[i] = rnd.NormFloat64()
	}
}

// RandTangent sets dst to a random unit vector.
func (e *Euclidean) RandTangent(dst, x []float64, rnd *rand.Rand) {
	e.RandPoint(dst, rnd)
	if n := e.Norm(x, dst); n > 0 {
		for i := range dst {
			dst[i] /= n
		}
	}
}

// CheckPoint reports a non-finite entry.
func (e *Euclidean) CheckPoint(x []float64) error { return e.finite("point", x) }

// CheckTangent reports a non-finite entry.
func (e *Euclidean) CheckTangent(x, u []float64) error { return e.finite("tangent vector", u) }

func (e *Euclidean) finite(what string, v []float64) error {
	if len(v) != e.r*e.c {
		return fmt.Errorf("euclid: %s has length %d, want %d×%d", what, len(v), e.r, e.c)
	}
	for i, a := range v {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return fmt.Errorf("euclid: %w: %s[%d,%d] = %v", numerr.ErrNotFinite, what, i/max(e.c, 1), i%max(e.c, 1), a)
		}
	}
	return nil
}

// Clone returns a copy (a *Euclidean).
func (e *Euclidean) Clone() any { c := *e; return &c }

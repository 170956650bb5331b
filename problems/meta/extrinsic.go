package meta

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

// Extrinsic is St(n, p) seen from its ambient space R^{n×p}, which turns
// RHGD into the paper's extrinsic baseline PHGD: "tangent vectors" are all
// n×p matrices, the metric is Euclidean, EGradToRGrad is the identity (the
// oracles then return Euclidean gradients and cross derivatives, so the
// hypergradient is the Euclidean one), vector transport is the identity,
// and the retraction is a Euclidean step followed by the projection onto
// the manifold, the polar factor of X + tU (the closest point of St(n, p)
// in the Frobenius norm).
//
// It is a solver.Manifold for the solver's sake, not a Riemannian
// manifold: its "gradient" is not tangent and its retraction's first-order
// term is the tangent projection of U, so the derivative checkers do not
// apply to it. Points are checked as Stiefel points. An Extrinsic owns
// scratch space (its Stiefel's); it is not safe for concurrent use.
type Extrinsic struct {
	st   *stiefel.Stiefel // with the polar retraction
	n, p int
}

var _ solver.Manifold = (*Extrinsic)(nil)

// NewExtrinsic returns the ambient view of St(n, p).
func NewExtrinsic(n, p int) *Extrinsic {
	st := stiefel.New(n, p)
	st.Retraction = stiefel.Polar
	return &Extrinsic{st: st, n: n, p: p}
}

// Len returns n·p.
func (e *Extrinsic) Len() int { return e.n * e.p }

// Dim returns n·p, the ambient dimension.
func (e *Extrinsic) Dim() int { return e.n * e.p }

// Inner returns tr(UᵀV).
func (e *Extrinsic) Inner(x, u, v []float64) float64 { e.check(x, u, v); return floats.Dot(u, v) }

// Norm returns ‖U‖_F.
func (e *Extrinsic) Norm(x, u []float64) float64 {
	e.check(x, u, u)
	return math.Sqrt(floats.Dot(u, u))
}

// Project sets dst = v: every matrix is a direction.
func (e *Extrinsic) Project(dst, x, v []float64) { e.check(x, dst, v); copy(dst, v) }

// EGradToRGrad sets dst = egrad: the Euclidean gradient.
func (e *Extrinsic) EGradToRGrad(dst, x, egrad []float64) { e.check(x, dst, egrad); copy(dst, egrad) }

// EHessToRHess sets dst = ehess.
func (e *Extrinsic) EHessToRHess(dst, x, egrad, ehess, u []float64) {
	e.check(x, dst, ehess)
	copy(dst, ehess)
}

// Retract sets dst to the polar factor of X + tU, the projection of the
// Euclidean step onto St(n, p).
func (e *Extrinsic) Retract(dst, x, u []float64, t float64) error {
	if err := e.st.Retract(dst, x, u, t); err != nil {
		return fmt.Errorf("meta: projection onto the Stiefel manifold: %w", err)
	}
	return nil
}

// Transport sets dst = u.
func (e *Extrinsic) Transport(dst, x, y, u []float64) { e.check(x, dst, u); copy(dst, u) }

// RandPoint sets dst to a random point of St(n, p).
func (e *Extrinsic) RandPoint(dst []float64, rnd *rand.Rand) { e.st.RandPoint(dst, rnd) }

// RandTangent sets dst to a random unit n×p matrix.
func (e *Extrinsic) RandTangent(dst, x []float64, rnd *rand.Rand) {
	e.check(x, dst, dst)
	for i := range dst {
		dst[i] = rnd.NormFloat64()
	}
	s := 1 / math.Sqrt(floats.Dot(dst, dst))
	for i := range dst {
		dst[i] *= s
	}
}

// CheckPoint checks x as a point of St(n, p).
func (e *Extrinsic) CheckPoint(x []float64) error { return e.st.CheckPoint(x) }

// SnapPoint accepts x as a point of St(n, p) as stiefel's SnapPoint does:
// within float32 rounding, re-orthonormalized with a note.
func (e *Extrinsic) SnapPoint(dst, x []float64) (string, error) { return e.st.SnapPoint(dst, x) }

// CheckTangent checks that u is finite: every matrix is a direction.
func (e *Extrinsic) CheckTangent(x, u []float64) error {
	e.check(x, u, u)
	for i, v := range u {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("meta: %w: direction entry %d is %v", numerr.ErrNotFinite, i, v)
		}
	}
	return nil
}

// Clone returns an independent Extrinsic.
func (e *Extrinsic) Clone() any { return NewExtrinsic(e.n, e.p) }

func (e *Extrinsic) check(x, u, v []float64) {
	if n := e.n * e.p; len(x) != n || len(u) != n || len(v) != n {
		panic("meta: Extrinsic: dimension mismatch")
	}
}

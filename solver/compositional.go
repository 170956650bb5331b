package solver

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/numerr"
)

// Compositional is the problem min_{x ∈ Mx} ψ(φ(x)) with φ: Mx → My,
// which the paper (Appendix: compositional optimization) solves as the
// bilevel problem
//
//	f(x, y) = ψ(y),   g(x, y) = ½ d²(φ(x), y),   so that y*(x) = φ(x),
//
// g being geodesically strongly convex in y where the squared distance is
// (everywhere on SPD and Euclidean space; within a curvature-dependent
// radius on positively curved manifolds).
type Compositional struct {
	// Psi returns ψ(y).
	Psi func(y []float64) float64
	// GradPsi sets dst ∈ T_y to the Riemannian gradient of ψ.
	GradPsi func(dst, y []float64)
	// Phi sets dst = φ(x), a point of My.
	Phi func(dst, x []float64) error
	// PhiAdjoint sets dst ∈ T_x to Dφ(x)†[w] for w ∈ T_{φ(x)}My, the
	// adjoint of φ's differential in the Riemannian metrics. For
	// x ∈ R^k it is (⟨∂_iφ(x), w⟩_{φ(x)})_i.
	PhiAdjoint func(dst, x, w []float64)
}

// ErrNoLog signifies a manifold without a closed-form logarithm where one
// is needed.
var ErrNoLog = numerr.New(numerr.ErrInvalid, "solver: the lower manifold has no Log")

// Problem returns the bilevel problem on mx × my (which must be a Logger):
//
//	f = ψ(y), grad_x f = 0, grad_y f = grad ψ(y),
//	g = ½‖Log_y φ(x)‖², grad_y g = −Log_y φ(x),
//	grad_x g = −Dφ(x)†[Log_{φ(x)} y]
//
// (the gradient of ½d²(·, q) at p is −Log_p q). HessGy and CrossGxy are
// left to finite differences (New fills them; see FillFD), which are
// exact to O(h²) on the manifolds here; the Hessian of ½d² is the identity
// at y = φ(x) and the covariant derivative of −Log_y φ(x) elsewhere. φ(x)
// is cached by the content of x. A failing φ or Log yields NaN, which the
// solver reports as divergence. The functions share scratch space: use the
// problem from one goroutine.
func (c Compositional) Problem(mx, my Manifold) (Problem, error) {
	lg, ok := AsLogger(my)
	if !ok {
		return Problem{}, ErrNoLog
	}
	if c.Psi == nil || c.GradPsi == nil || c.Phi == nil {
		return Problem{}, fmt.Errorf("%w: Compositional needs Psi, GradPsi and Phi", ErrMissing)
	}
	cx, px := make([]float64, mx.Len()), make([]float64, my.Len())
	cached := false
	var phiErr error
	phi := func(x []float64) []float64 {
		if cached && floats.Equal(cx, x) {
			return px
		}
		copy(cx, x)
		phiErr = c.Phi(px, x)
		cached = true
		return px
	}
	w := make([]float64, my.Len())
	logAt := func(dst, a, b []float64) bool { // dst = Log_a b
		if phiErr != nil || lg.Log(dst, a, b) != nil {
			nanFill(dst)
			return false
		}
		return true
	}
	p := Problem{
		F:      func(x, y []float64) float64 { return c.Psi(y) },
		GradFx: func(dst, x, y []float64) { clear(dst) },
		GradFy: func(dst, x, y []float64) { c.GradPsi(dst, y) },
		G: func(x, y []float64) float64 {
			logAt(w, y, phi(x))
			n := my.Norm(y, w)
			return 0.5 * n * n
		},
		GradGy: func(dst, x, y []float64) {
			logAt(dst, y, phi(x))
			floats.Scale(-1, dst)
		},
	}
	if c.PhiAdjoint != nil {
		p.GradGx = func(dst, x, y []float64) {
			if !logAt(w, phi(x), y) {
				nanFill(dst)
				return
			}
			c.PhiAdjoint(dst, x, w)
			floats.Scale(-1, dst)
		}
	}
	return p, nil
}

func nanFill(v []float64) {
	for i := range v {
		v[i] = math.NaN()
	}
}

// NewCompositional returns RHGD for min ψ(φ(x)) through c.Problem, with
// estimator est (nil: CG); c.PhiAdjoint is required (the cross
// derivative needs it).
func NewCompositional(c Compositional, mx, my Manifold, est Estimator, s *Settings) (*RHGD, error) {
	p, err := c.Problem(mx, my)
	if err != nil {
		return nil, err
	}
	return New(p, mx, my, est, s)
}

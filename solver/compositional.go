package solver

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/numerr"
)

// CompositionalProblem is the problem min_{x ∈ Mx} ψ(φ(x)) with φ: Mx → My,
// which the paper (Appendix: compositional optimization) solves as the
// bilevel problem
//
//	f(x, y) = ψ(y),   g(x, y) = ½ d²(φ(x), y),   so that y*(x) = φ(x),
//
// g being geodesically strongly convex in y where the squared distance is
// (everywhere on SPD and Euclidean space; within a curvature-dependent
// radius on positively curved manifolds).
type CompositionalProblem struct {
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
// is needed (numerr.ErrInvalid).
var ErrNoLog = numerr.New(numerr.ErrInvalid, "solver: the lower manifold has no Log")

// Compositional returns the bilevel problem on mx × my (which must have a
// logarithm, see AsLogger):
//
//	f = ψ(y), grad_x f = 0, grad_y f = grad ψ(y),
//	g = ½‖Log_y φ(x)‖², grad_y g = −Log_y φ(x),
//	grad_x g = −Dφ(x)†[Log_{φ(x)} y]
//
// (the gradient of ½d²(·, q) at p is −Log_p q). HessGy and CrossGxy are
// left to finite differences (New fills them; see FillFD), which are
// exact to O(h²) on the manifolds here; the Hessian of ½d² is the identity
// at y = φ(x) and the covariant derivative of −Log_y φ(x) elsewhere. φ(x)
// is kept per x (by the point's identity). A failing φ or Log is an error
// with its cause. The functions share scratch space: use the problem from
// one goroutine.
func Compositional(c CompositionalProblem, mx, my Manifold) (Problem, error) {
	if mx == nil || my == nil {
		return Problem{}, fmt.Errorf("%w: Compositional needs both manifolds", ErrBadSetting)
	}
	lg, ok := AsLogger(my)
	if !ok {
		return Problem{}, ErrNoLog
	}
	if c.Psi == nil || c.GradPsi == nil || c.Phi == nil {
		return Problem{}, fmt.Errorf("%w: Compositional needs Psi, GradPsi and Phi", ErrMissing)
	}
	px, phiMemo := make([]float64, my.Len()), Memo{On: OnX}
	phi := func(pt *Point) ([]float64, error) {
		if !phiMemo.Valid(pt) {
			phiMemo.Reset()
			if err := c.Phi(px, pt.X); err != nil {
				return nil, fmt.Errorf("φ(x): %w", err)
			}
			phiMemo.Store(pt)
		}
		return px, nil
	}
	w := make([]float64, my.Len())
	p := Problem{Mx: mx, My: my,
		F: func(pt *Point) (float64, error) { return c.Psi(pt.Y), nil },
		GradFx: func(dst []float64, pt *Point) error {
			clear(dst)
			return nil
		},
		GradFy: func(dst []float64, pt *Point) error {
			c.GradPsi(dst, pt.Y)
			return nil
		},
		G: func(pt *Point) (float64, error) {
			q, err := phi(pt)
			if err != nil {
				return 0, err
			}
			if err := lg.Log(w, pt.Y, q); err != nil {
				return 0, fmt.Errorf("Log_y φ(x): %w", err)
			}
			n := my.Norm(pt.Y, w)
			return 0.5 * n * n, nil
		},
		GradGy: func(dst []float64, pt *Point) error {
			q, err := phi(pt)
			if err != nil {
				return err
			}
			if err := lg.Log(dst, pt.Y, q); err != nil {
				return fmt.Errorf("Log_y φ(x): %w", err)
			}
			floats.Scale(-1, dst)
			return nil
		},
	}
	if c.PhiAdjoint != nil {
		p.GradGx = func(dst []float64, pt *Point) error {
			q, err := phi(pt)
			if err != nil {
				return err
			}
			if err := lg.Log(w, q, pt.Y); err != nil {
				return fmt.Errorf("Log_φ(x) y: %w", err)
			}
			c.PhiAdjoint(dst, pt.X, w)
			floats.Scale(-1, dst)
			return nil
		}
	}
	return p, nil
}

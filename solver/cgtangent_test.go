package solver_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/grassmann"
	"github.com/rhgd/rhgd/solver"
)

// TestCGNearVanishingGradFy: on Gr(4, 1), with grad_y f of size 4e-9 made
// from a Euclidean gradient of size 50, the projection leaves rounding of
// about 1e-14 outside the tangent space, a millionth of b itself. The
// Riemannian Hessian (projected at its end) is zero there, so CG used to
// chase that rounding past its convergence in the tangent space and stop
// on "residual grew"; it must solve to its tolerance and match the closed
// form.
//
// In coordinates rotated by a reflection Q (so that nothing is exact):
// g(x, y) = −½ yᵀAy − x cᵀy, A = Q diag(3, 2, 1, 0) Q: at y ≈ Qe₁ the
// Riemannian Hessian is diag(1, 2, 3) on Qe₂, Qe₃, Qe₄. f = −½ yᵀBy,
// B = Q diag(50, 10, 10, 10) Q: grad_y f ≈ 40δ Qe₂ at y = Q(1, δ, 0, 0)/‖·‖,
// so v = H⁻¹b ≈ 40δ Qe₂, and with c = Q(0, 1, 1, 0) the hypergradient
// −∂_x∂_y g[v] = cᵀv ≈ 40δ, to a relative O(δ).
func TestCGNearVanishingGradFy(t *testing.T) {
	const n, delta = 4, 1e-10
	w := []float64{0.3, -0.7, 0.55, 0.2}
	var ww float64
	for _, v := range w {
		ww += v * v
	}
	q := func(dst, v []float64) { // dst = (I − 2wwᵀ/wᵀw) v
		var d float64
		for i := range v {
			d += w[i] * v[i]
		}
		for i := range v {
			dst[i] = v[i] - 2*d/ww*w[i]
		}
	}
	// sym(d) returns Q diag(d) Q as a function v ↦ Q diag(d) Q v.
	tmp := make([]float64, n)
	sym := func(d []float64) func(dst, v []float64, s float64) {
		return func(dst, v []float64, s float64) {
			q(tmp, v)
			for i := range tmp {
				tmp[i] *= s * d[i]
			}
			q(dst, tmp)
		}
	}
	mulA, mulB := sym([]float64{3, 2, 1, 0}), sym([]float64{50, 10, 10, 10})
	c := make([]float64, n)
	q(c, []float64{0, 1, 1, 0})
	my := grassmann.New(n, 1)
	eg, eh := make([]float64, n), make([]float64, n)
	egradG := func(pt *solver.Point) {
		mulA(eg, pt.Y, -1)
		for i := range eg {
			eg[i] -= pt.X[0] * c[i]
		}
	}
	p := solver.Problem{
		Mx: euclid.New(1, 1), My: my,
		F: func(pt *solver.Point) (float64, error) {
			mulB(eh, pt.Y, -0.5)
			var s float64
			for i, v := range pt.Y {
				s += v * eh[i]
			}
			return s, nil
		},
		GradFx: func(dst []float64, _ *solver.Point) error { dst[0] = 0; return nil },
		GradFy: func(dst []float64, pt *solver.Point) error {
			mulB(eg, pt.Y, -1)
			my.EGradToRGrad(dst, pt.Y, eg)
			return nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			egradG(pt)
			my.EGradToRGrad(dst, pt.Y, eg)
			return nil
		},
		HessGy: func(dst []float64, pt *solver.Point, u []float64) error {
			egradG(pt)
			mulA(eh, u, -1)
			my.EHessToRHess(dst, pt.Y, eg, eh, u)
			return nil
		},
		CrossGxy: func(dst []float64, _ *solver.Point, v []float64) error {
			dst[0] = 0
			for i := range v {
				dst[0] -= c[i] * v[i]
			}
			return nil
		},
	}
	y := make([]float64, n)
	q(y, []float64{1, delta, 0, 0})
	nrm := math.Sqrt(y[0]*y[0] + y[1]*y[1] + y[2]*y[2] + y[3]*y[3])
	for i := range y {
		y[i] /= nrm
	}
	r, err := solver.New(p, &solver.Settings{Estimator: &solver.CG{}})
	require.NoError(t, err)
	hg, err := r.Estimate([]float64{0}, y)
	require.NoError(t, err)
	require.InDelta(t, 40*delta, hg[0], 1e-6*40*delta)
}

package spd_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

// TestMetricSlopes logs the Taylor slopes of each metric's gradient,
// Hessian and retraction at n = 6 for f(X) = tr(CX) + ½ tr(XKXK) (∇f =
// C + KXK, ∇²f[U] = KUK), as manifoldtest checks them, and requires what
// solver's checks require (gradient 2, Hessian 3 along the retraction,
// which needs it to be second order; the retraction against Exp is exact,
// being Exp).
func TestMetricSlopes(t *testing.T) {
	const n = 6
	for _, mt := range []spd.Metric{spd.AffineInvariant, spd.LogEuclidean, spd.BuresWasserstein} {
		m := spd.NewMetric(n, mt)
		m.Retraction = spd.Exponential
		rnd := rand.New(rand.NewPCG(21, 21))
		x, u, v := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		c, k := make([]float64, n*n), make([]float64, n*n)
		m.RandPoint(x, rnd)
		m.RandTangent(u, x, rnd)
		m.RandTangent(v, x, rnd)
		m.RandTangent(c, x, rnd)
		m.RandTangent(k, x, rnd)
		K, C := mat.NewDense(n, n, k), mat.NewDense(n, n, c)
		f := func(y []float64) float64 {
			var t, cy mat.Dense
			t.Product(mat.NewDense(n, n, y), K, mat.NewDense(n, n, y), K)
			cy.Mul(C, mat.NewDense(n, n, y))
			return mat.Trace(&cy) + 0.5*mat.Trace(&t)
		}
		eg := func(dst, y []float64) {
			var t mat.Dense
			t.Product(K, mat.NewDense(n, n, y), K)
			t.Add(&t, C)
			copy(dst, t.RawMatrix().Data)
		}
		grad := func(dst, y []float64) {
			g := make([]float64, n*n)
			eg(g, y)
			m.EGradToRGrad(dst, y, g)
		}
		hess := func(dst, y, w []float64) {
			g := make([]float64, n*n)
			eg(g, y)
			var h mat.Dense
			h.Product(K, mat.NewDense(n, n, w), K)
			m.EHessToRHess(dst, y, g, h.RawMatrix().Data, w)
		}
		for _, rep := range []solver.CheckReport{
			solver.CheckGradient(m, f, grad, x, u),
			solver.CheckHessian(m, f, grad, hess, x, u, v),
			solver.CheckRetraction(m, x, u, 2),
		} {
			t.Logf("%-17v %-21s slope %.3f (want %v), exact %v", mt, rep.Name, rep.Slope, rep.Want, rep.Exact)
			require.True(t, rep.OK, "%v: %v", mt, rep)
		}
	}
}

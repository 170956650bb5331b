package synthetic_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// TestMAMGram: GradGy with M A M as the Gram matrix (laᵀM)ᵀ(laᵀM), and
// HessGyInv with it and the reductions by L (hessGyInvReduce), agree with
// the general products to rounding, at an order above the cutoff, are
// exactly symmetric, and HessGy inverts HessGyInv.
func TestMAMGram(t *testing.T) {
	for _, d := range []int{8, 120} {
		sp, p, w, m := setup(t, 2*d, d, max(1, d*2/5))
		rnd := offIdentity(t, sp, m, 3)
		v := make([]float64, d*d)
		sp.SPD.RandTangent(v, m, rnd)

		grad := func(cutoff int) (g, h []float64) {
			defer synthetic.SetMAMGramCutoff(cutoff)()
			g, h = make([]float64, d*d), make([]float64, d*d)
			testkit.Must(t, p.GradGy(g, testkit.At(w, m)))
			testkit.Must(t, p.HessGyInv(h, testkit.At(w, m), v))
			return g, h
		}
		gOld, hOld := grad(math.MaxInt)
		gNew, hNew := grad(0)
		t.Logf("d = %d: GradGy %.2g, HessGyInv %.2g relative", d, testkit.Rel(gNew, gOld), testkit.Rel(hNew, hOld))
		require.Less(t, testkit.Rel(gNew, gOld), 1e-12, "GradGy at d = %d", d)
		require.Less(t, testkit.Rel(hNew, hOld), 1e-12, "HessGyInv at d = %d", d)
		back := make([]float64, d*d)
		testkit.Must(t, p.HessGy(back, testkit.At(w, m), hNew))
		require.Less(t, testkit.Rel(back, v), 1e-12, "H(H⁻¹V) at d = %d", d)
		for i := 0; i < d; i++ {
			for j := 0; j < i; j++ {
				require.Equal(t, gNew[i*d+j], gNew[j*d+i])
				require.Equal(t, hNew[i*d+j], hNew[j*d+i])
			}
		}
	}
}

// TestMAMGramOracles: with the Gram route at every order, GradGy passes the
// gradient and Hessian checks and HessGyInv inverts HessGy.
func TestMAMGramOracles(t *testing.T) {
	defer synthetic.SetMAMGramCutoff(0)()
	sp, p, w, m := setup(t, 30, 8, 3)
	rnd := offIdentity(t, sp, m, 1)
	um, um2 := make([]float64, 64), make([]float64, 64)
	sp.SPD.RandTangent(um, m, rnd)
	sp.SPD.RandTangent(um2, m, rnd)
	r := solver.CheckGradient(sp.SPD, func(y []float64) float64 { return value(t, p.G, w, y) }, inY(t, p.GradGy, w), m, um)
	require.True(t, r.OK, "grad_M g: %v", r)
	r = solver.CheckHessian(sp.SPD, func(y []float64) float64 { return value(t, p.G, w, y) },
		inY(t, p.GradGy, w), func(dst, y, v []float64) { testkit.Must(t, p.HessGy(dst, testkit.At(w, y), v)) }, m, um, um2)
	require.True(t, r.OK, "Hess_M g: %v", r)
	hi, back := make([]float64, 64), make([]float64, 64)
	require.NoError(t, p.HessGyInv(hi, testkit.At(w, m), um))
	testkit.Must(t, p.HessGy(back, testkit.At(w, m), hi))
	require.Less(t, testkit.Rel(back, um), 1e-12)
}

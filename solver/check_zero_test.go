package solver_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

// TestCheckGradientZeroGradient: f(X) = tr(XᵀX) is constant on St(5, 2),
// so its Riemannian gradient P_X(2X) vanishes, and computed it is rounding
// noise normal to the manifold. The check accepts it (a relative tangency
// would measure the noise), and still rejects a gradient whose normal
// part is not at rounding level, which the Taylor remainder cannot see
// (⟨X, U⟩ = 0 for a tangent U).
func TestCheckGradientZeroGradient(t *testing.T) {
	m := stiefel.New(5, 2)
	rnd := rand.New(rand.NewPCG(3, 3))
	x, u := make([]float64, 10), make([]float64, 10)
	m.RandPoint(x, rnd)
	m.RandTangent(u, x, rnd)
	f := func(x []float64) float64 {
		var s float64
		for _, v := range x {
			s += v * v
		}
		return s
	}
	egrad := make([]float64, 10)
	zero := func(dst, x []float64) {
		for i, v := range x {
			egrad[i] = 2 * v
		}
		m.Project(dst, x, egrad)
	}
	r := solver.CheckGradient(m, f, zero, x, u)
	require.True(t, r.OK, "%v", r)
	require.Zero(t, r.Residuals["tangency"])

	normal := func(dst, x []float64) {
		zero(dst, x)
		for i, v := range x {
			dst[i] += 1e-3 * v
		}
	}
	r = solver.CheckGradient(m, f, normal, x, u)
	require.False(t, r.OK, "%v", r)
	require.Greater(t, r.Residuals["tangency"], 0.5)
}

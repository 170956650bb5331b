package domainadapt_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/domainadapt"
	"github.com/rhgd/rhgd/solver"
)

// TestLowerSolveOracle: the problem's LowerSolve is the closed-form
// weighted geometric mean, where the lower gradient vanishes, and an
// adaptive run from it stays finite and lowers f.
func TestLowerSolveOracle(t *testing.T) {
	dp, p, g, m := setup(t, domainadapt.PaperConfig())
	ms, grad := make([]float64, len(m)), make([]float64, len(m))
	require.NoError(t, p.LowerSolve(ms, &solver.Point{X: g, Y: m}))
	require.NoError(t, p.GradGy(grad, &solver.Point{X: g, Y: ms}))
	require.Less(t, dp.SPD.Norm(ms, grad), 1e-10)
	s := solver.AdaptiveSettings()
	s.Epochs, s.EtaX, s.Estimator = 20, 0.5, solver.HInv{}
	res, err := solver.Minimize(nil, p, g, m, &s)
	require.NoError(t, err)
	f0, err := p.F(&solver.Point{X: g, Y: ms})
	require.NoError(t, err)
	require.Less(t, res.BestF, f0)
}

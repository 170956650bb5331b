package hyperrep_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/solver"
)

// TestLowerSolveAdaptive: LowerSolve is where the lower gradient vanishes
// (to 1e-12), it allocates nothing, and AdaptiveSettings lower f faster
// per epoch than the fixed steps.
func TestLowerSolveAdaptive(t *testing.T) {
	data, hp, p := setup(t, small, 4)
	w := testkit.RandPoint(hp.St, 8)
	beta, g := make([]float64, p.My.Len()), make([]float64, p.My.Len())
	pt := &solver.Point{X: w, Y: data.Beta0, XID: solver.NewID(), YID: solver.NewID()}
	require.NoError(t, p.LowerSolve(beta, pt))
	require.NoError(t, p.GradGy(g, testkit.At(w, beta)))
	require.Less(t, p.My.Norm(beta, g), 1e-12)
	if !race.Enabled {
		require.Zero(t, testing.AllocsPerRun(5, func() { testkit.Must(t, p.LowerSolve(beta, pt)) }))
	}
	run := func(s solver.Settings) float64 {
		s.EtaX, s.EtaY, s.InnerIters, s.Epochs, s.Estimator = 0.05, 0.05, 50, 30, solver.HInv{}
		res, err := solver.Minimize(context.Background(), p, data.W0, data.Beta0, &s)
		require.NoError(t, err)
		return res.F
	}
	fixed, adaptive := run(solver.Settings{}), run(solver.AdaptiveSettings())
	t.Logf("f after 30 epochs: fixed %.6g, adaptive %.6g", fixed, adaptive)
	require.Less(t, adaptive, fixed)
}

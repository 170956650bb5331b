package karcher_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/karcher"
	"github.com/rhgd/rhgd/solver"
)

// TestLowerSolveAdaptive: LowerSolve is φ(x), where g vanishes, and
// AdaptiveSettings reach the same ψ(φ(x)) as the fixed settings.
func TestLowerSolveAdaptive(t *testing.T) {
	_, p := setup(t, karcher.DefaultParams().N, karcher.DefaultParams().Count, karcher.DefaultParams().Spread)
	q := p.Bilevel()
	x0, y0 := p.Start(0)
	run := func(s solver.Settings) *solver.Result {
		s.Estimator, s.GradTol = solver.HInv{}, 1e-10
		r, err := solver.New(q, &s)
		require.NoError(t, err)
		res, err := r.Run(context.Background(), x0, y0)
		require.NoError(t, err)
		require.Equal(t, solver.GradientThreshold, res.Status)
		return res
	}
	ys := make([]float64, len(y0))
	require.NoError(t, q.LowerSolve(ys, &solver.Point{X: x0, Y: y0}))
	gv, err := q.G(&solver.Point{X: x0, Y: ys})
	require.NoError(t, err)
	require.Less(t, gv, 1e-28)
	fixed := run(karcher.Paper.Settings)
	a := karcher.Paper.Settings
	a.ApplyAdaptive()
	res := run(a)
	t.Logf("adaptive: %d epochs (fixed %d), f %.15g (fixed %.15g)", res.Stats.Epochs, fixed.Stats.Epochs, res.F, fixed.F)
	require.InDelta(t, fixed.F, res.F, 1e-12)
	require.LessOrEqual(t, res.Stats.Epochs, fixed.Stats.Epochs)
}

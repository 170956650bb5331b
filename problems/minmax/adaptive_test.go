package minmax_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/minmax"
	"github.com/rhgd/rhgd/solver"
)

// TestLowerSolveAdaptive: LowerSolve is a critical point of g, and
// AdaptiveSettings (which use it) reach the saddle's F* in fewer epochs
// than the fixed settings.
func TestLowerSolveAdaptive(t *testing.T) {
	data, pr := setup(t, minmax.DefaultParams().N, minmax.DefaultParams().P, minmax.DefaultParams().Cond, minmax.DefaultParams().Gap)
	tr := newTruth(t, data)
	p := pr.Bilevel()
	x0, y0 := pr.Start(7)
	ys, g := make([]float64, len(y0)), make([]float64, len(y0))
	require.NoError(t, p.LowerSolve(ys, &solver.Point{X: x0, Y: y0}))
	require.NoError(t, p.GradGy(g, &solver.Point{X: x0, Y: ys}))
	require.Less(t, pr.SPD.Norm(ys, g), 1e-12)
	require.Less(t, testkit.Rel(ys, tr.ystar(t, x0)), 1e-12)

	fixed := runTo(t, pr, solver.HInv{})
	s := minmax.Paper.Settings
	s.ApplyAdaptive()
	s.Estimator, s.GradTol = solver.HInv{}, 1e-10
	r, err := solver.New(p, &s)
	require.NoError(t, err)
	res, err := r.Run(context.Background(), x0, y0)
	require.NoError(t, err)
	require.Equal(t, solver.GradientThreshold, res.Status)
	ferr := tr.F(t, res.X) - tr.fstar
	t.Logf("adaptive: %d epochs (fixed %d), F − F* = %.2e", res.Stats.Epochs, fixed.Stats.Epochs, ferr)
	require.Less(t, ferr, 1e-12)
	require.GreaterOrEqual(t, ferr, -1e-12)
	require.LessOrEqual(t, res.Stats.Epochs, fixed.Stats.Epochs)
}

package solver_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// TestStepNeedsReset: Step (and Hypergradient) on an RHGD without a
// starting point fail with ErrNoStart, saying to call Reset: before its
// first Reset (where Step ran from a zero matrix and reported an unrelated
// error, a positive-definiteness one on SPD) and after a Reset that
// failed (where Step continued from the previous run's iterates). A
// successful Reset makes Step run again.
func TestStepNeedsReset(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(81)
	r, err := solver.New(on(p, mx, my), &solver.Settings{Estimator: solver.HInv{}})
	require.NoError(t, err)
	noStart := func(what string) {
		t.Helper()
		st, err := r.Step()
		require.ErrorIs(t, err, solver.ErrNoStart, what)
		require.ErrorIs(t, err, numerr.ErrInvalid, what)
		require.ErrorContains(t, err, "call Reset(x0, y0) first", what)
		require.Equal(t, solver.Failure, st, what)
		_, err = r.Hypergradient(true)
		require.ErrorIs(t, err, solver.ErrNoStart, what)
	}
	noStart("before Reset")
	require.NoError(t, r.Reset(x0, y0))
	_, err = r.Step()
	require.NoError(t, err)
	bad := append([]float64(nil), x0...)
	bad[0] = math.NaN()
	require.ErrorIs(t, r.Reset(bad, y0), solver.ErrBadStart)
	noStart("after a failed Reset")
	require.ErrorIs(t, r.Reset(x0, y0[:2]), solver.ErrBadStart)
	noStart("after a failed Reset of y0")
	require.NoError(t, r.Reset(x0, y0))
	_, err = r.Step()
	require.NoError(t, err)
}

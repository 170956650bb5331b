package solver_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
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

// TestResetSnapsFloat32Start: Reset accepts a starting point within
// float32 rounding of its manifold, as the loaders, the C ABI and Python
// do, by projecting it (SnapPoint), and says so in StartNotes; before,
// it rejected a float32-rounded point of St(4, 2) that those accept. The
// caller's slices are not modified, a point farther off is still an
// error, and a Reset from an exact point has no notes.
func TestResetSnapsFloat32Start(t *testing.T) {
	rnd := rand.New(rand.NewPCG(82, 82))
	a := make([]float64, 16)
	for i := range a {
		a[i] = rnd.NormFloat64()
	}
	e := crossProblem(a, 1, 1)
	e.F = e.G
	e.GradFx, e.GradFy = e.GradGx, e.GradGy
	p := solver.Euclidean(e)
	st := stiefel.New(4, 2)
	x, y := make([]float64, 8), make([]float64, 8)
	st.RandPoint(x, rnd)
	for i := range y {
		y[i] = 0.1 * rnd.NormFloat64() // where g's Hessian I + 2 y∘x is positive definite
	}
	x32 := make([]float64, len(x))
	for i, v := range x {
		x32[i] = float64(float32(v))
	}
	require.Error(t, st.CheckPoint(x32), "the float32 rounding must be off St(4, 2) to float64 tolerances")
	kept := slices.Clone(x32)

	r, err := solver.New(p, &solver.Settings{Estimator: &solver.CG{}, InnerIters: 2})
	require.NoError(t, err)
	require.NoError(t, r.Reset(x32, y))
	require.Equal(t, kept, x32, "x0 is not modified")
	require.NoError(t, st.CheckPoint(r.X()))
	for i := range x32 {
		require.InDelta(t, x32[i], r.X()[i], 1e-6)
	}
	require.Len(t, r.StartNotes(), 1)
	require.Contains(t, r.StartNotes()[0], "x0: ")
	require.Contains(t, r.StartNotes()[0], "re-orthonormalized")
	_, err = r.Step()
	require.NoError(t, err)
	_, err = r.LowerGradNorm(x32, y)
	require.NoError(t, err)

	// The same start snapped by SnapPoint, as the loaders and the C ABI
	// do, runs identically.
	snapped := slices.Clone(x32)
	_, err = solver.SnapPoint(st, snapped)
	require.NoError(t, err)
	want, err := solver.Minimize(context.Background(), p, snapped, y, &solver.Settings{Estimator: &solver.CG{}, InnerIters: 2, Epochs: 3})
	require.NoError(t, err)
	got, err := solver.Minimize(context.Background(), p, x32, y, &solver.Settings{Estimator: &solver.CG{}, InnerIters: 2, Epochs: 3})
	require.NoError(t, err)
	require.Equal(t, want.X, got.X)

	far := slices.Clone(x)
	far[0] += 1e-3
	require.ErrorIs(t, r.Reset(far, y), solver.ErrBadStart)
	require.NoError(t, r.Reset(x, y))
	require.Empty(t, r.StartNotes())
}

package solver_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/solver"
)

// TestRelGradTol: the run stops at the first epoch whose hypergradient
// norm is at most RelGradTol times the first epoch's, with status
// GradientThreshold; either tolerance stops it.
func TestRelGradTol(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(6)
	base := solver.Settings{Estimator: solver.HInv{}, EtaX: 0.3, EtaY: 0.3, InnerIters: 40, Epochs: 10000}
	for name, tc := range map[string]struct {
		rel, abs float64
	}{"relative": {1e-6, 0}, "absolute first": {1e-6, 1e-3}, "relative first": {1e-3, 1e-12}} {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{}
			s := base
			s.RelGradTol, s.GradTol, s.Recorder = tc.rel, tc.abs, rec
			res, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &s)
			require.NoError(t, err)
			require.Equal(t, solver.GradientThreshold, res.Status)
			n := len(rec.epochs)
			tol := max(tc.abs, tc.rel*rec.epochs[0].HyperGradNorm)
			require.LessOrEqual(t, rec.epochs[n-1].HyperGradNorm, tol)
			require.Greater(t, rec.epochs[n-2].HyperGradNorm, tol, "it stops at the first epoch below the tolerance")
		})
	}
}

// TestAdaptiveStops: AdaptiveSettings stop by themselves once the
// hypergradient has fallen to DefaultRelGradTol of its first value,
// instead of running out their epochs; ApplyAdaptive keeps the other
// settings.
func TestAdaptiveStops(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(6)
	rec := &recorder{}
	s := solver.Settings{Estimator: solver.HInv{}, EtaX: 0.3, EtaY: 0.3, Epochs: 1000, Recorder: rec}
	s.ApplyAdaptive()
	require.Equal(t, 0.3, s.EtaX)
	require.Equal(t, 1000, s.Epochs)
	require.Equal(t, solver.AdaptiveSettings().Lower, s.Lower)
	res, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &s)
	require.NoError(t, err)
	require.Equal(t, solver.GradientThreshold, res.Status)
	require.Less(t, res.Stats.Epochs, 1000)
	require.LessOrEqual(t, res.HyperGradNorm, solver.DefaultRelGradTol*rec.epochs[0].HyperGradNorm)
}

func TestRelGradTolValidated(t *testing.T) {
	_, p, _, _, _, _ := quadSetup(44)
	for _, v := range []float64{-1, math.NaN(), math.Inf(1)} {
		_, err := solver.New(p, &solver.Settings{RelGradTol: v})
		require.ErrorIs(t, err, solver.ErrBadSetting)
		require.ErrorContains(t, err, "Settings.RelGradTol")
	}
}

package spd_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/spd"
)

// TestMetricBadPoints: under each metric, the operations that take
// outside data return errors naming what is wrong for a point that is not
// symmetric, not finite or not positive definite, at it or towards it,
// and the methods without an error return give NaN.
func TestMetricBadPoints(t *testing.T) {
	const n = 3
	for _, mt := range []spd.Metric{spd.LogEuclidean, spd.BuresWasserstein} {
		m := spd.NewMetric(n, mt)
		x, y, u, skew, inf := badPoints(m)
		dst := make([]float64, 9)
		indef := []float64{1, 2, 0, 2, 1, 0, 0, 0, 1}
		for _, tc := range []struct {
			name string
			bad  []float64
			want error
		}{{"non-symmetric", skew, numerr.ErrNotSymmetric}, {"infinite", inf, numerr.ErrNotFinite}, {"indefinite", indef, numerr.ErrNotPosDef}} {
			for op, f := range map[string]func(p []float64) error{
				"Retract":    func(p []float64) error { return m.Retract(dst, p, u, 0.1) },
				"Exp":        func(p []float64) error { return m.Exp(dst, p, u, 0.1) },
				"Log at":     func(p []float64) error { return m.Log(dst, p, y) },
				"Log of":     func(p []float64) error { return m.Log(dst, x, p) },
				"Dist":       func(p []float64) error { _, err := m.Dist(p, y); return err },
				"Dist to":    func(p []float64) error { _, err := m.Dist(x, p); return err },
				"Whiten":     func(p []float64) error { return m.Whiten(dst, p, u) },
				"CheckPoint": func(p []float64) error { return m.CheckPoint(p) },
			} {
				require.ErrorIs(t, f(tc.bad), tc.want, "%v: %s: %s", mt, tc.name, op)
			}
			require.True(t, math.IsNaN(m.Inner(tc.bad, u, u)), "%v: Inner at %s", mt, tc.name)
			m.ConnectionTerm(dst, tc.bad, u, u)
			require.True(t, math.IsNaN(dst[0]), "%v: ConnectionTerm at %s", mt, tc.name)
			m.EHessToRHess(dst, tc.bad, u, u, u)
			require.True(t, math.IsNaN(dst[0]), "%v: EHessToRHess at %s", mt, tc.name)
		}
		nan := append([]float64(nil), u...)
		nan[4] = math.NaN()
		require.ErrorIs(t, m.Retract(dst, x, nan, 1), numerr.ErrNotFinite, "%v: NaN tangent", mt)
		require.NoError(t, m.Retract(dst, x, u, 0.1), "%v: a point still works after bad ones", mt)
	}
	require.PanicsWithValue(t, "spd: the Bures–Wasserstein metric has no closed-form parallel transport: use Identity", func() {
		m := spd.NewMetric(2, spd.BuresWasserstein)
		m.TransportMethod = spd.Parallel
		x := []float64{1, 0, 0, 1}
		m.Transport(make([]float64, 4), x, x, x)
	})
}

// TestMetricStepTooLarge: exponentials whose result is not a point in
// float64 are errors, never a returned matrix.
func TestMetricStepTooLarge(t *testing.T) {
	le := spd.NewMetric(2, spd.LogEuclidean)
	x, dst := []float64{1, 0, 0, 1}, make([]float64, 4)
	require.ErrorIs(t, le.Exp(dst, x, []float64{800, 0, 0, 0}, 1), numerr.ErrOverflow)
	require.ErrorIs(t, le.Exp(dst, x, []float64{-800, 0, 0, 0}, 1), numerr.ErrUnderflow)
	err := le.Exp(dst, x, []float64{20, 0, 0, -20}, 1) // condition e⁴⁰ > 2⁵²
	require.ErrorIs(t, err, numerr.ErrNotPosDef)
	require.ErrorContains(t, err, "step too large")
	require.NoError(t, le.Exp(dst, x, []float64{15, 0, 0, -15}, 1)) // e³⁰ < 2⁵²

	// (I + L) X (I + L) with L = L_X[U] = −I: singular.
	bw := spd.NewMetric(2, spd.BuresWasserstein)
	err = bw.Exp(dst, x, []float64{-2, 0, 0, -2}, 1)
	require.ErrorIs(t, err, numerr.ErrNotPosDef)
	require.ErrorContains(t, err, "step too large")
}

// TestMetricSnapPoint: a point symmetric only to float32 rounding is
// rejected by every metric's operations and snapped by SnapPoint, after
// which each metric retracts from it.
func TestMetricSnapPoint(t *testing.T) {
	const n = 30
	for _, mt := range []spd.Metric{spd.LogEuclidean, spd.BuresWasserstein} {
		m := spd.NewMetric(n, mt)
		rnd := rand.New(rand.NewPCG(4, 4))
		x, u, got, dst := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		m.RandPoint(x, rnd)
		m.RandTangent(u, x, rnd)
		x32 := f32test.Sym(x, n)
		require.ErrorIs(t, m.Retract(dst, x32, u, 0.1), numerr.ErrNotSymmetric, "%v", mt)
		note, err := m.SnapPoint(got, x32)
		require.NoError(t, err, "%v", mt)
		require.True(t, strings.Contains(note, "symmetrized"), "%v: note %q", mt, note)
		require.NoError(t, m.Retract(dst, got, u, 0.1), "%v", mt)
		require.NoError(t, m.CheckPoint(dst), "%v", mt)
	}
}

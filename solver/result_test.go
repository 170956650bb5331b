package solver_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/solver"
)

// roundTol is a bound on the difference between two evaluations of f at
// the same point of the small quadratic problems here: a few units of
// rounding of |f| (the same arithmetic gives equal values; the bound only
// allows a cache or a kernel to sum in another order).
func roundTol(f float64) float64 { return 64 * 0x1p-52 * max(1, math.Abs(f)) }

// requireFAtXY asserts the Result contract: F = f(X, Y) and BestF =
// f(BestX, BestY), evaluated afresh by the problem's own F.
func requireFAtXY(t *testing.T, p solver.Problem, res *solver.Result) {
	t.Helper()
	f := value(t, p.F, res.X, res.Y)
	require.InDelta(t, f, res.F, roundTol(f), "F is not f(X, Y)")
	bf := value(t, p.F, res.BestX, res.BestY)
	require.InDelta(t, bf, res.BestF, roundTol(bf), "BestF is not f(BestX, BestY)")
	require.LessOrEqual(t, res.BestF, res.F)
}

// TestResultFIsFAtXY: after a budget or cancellation, the run's F is the
// objective at the returned x, with the lower iterate that goes with it:
// the last epoch stepped x to x_K, and Run solved the lower problem there
// as an epoch would (issue 27: F was f(x_{K−1}, y_K) beside X = x_K).
func TestResultFIsFAtXY(t *testing.T) {
	e, p, mx, my, x0, y0 := quadSetup(31)
	const K, S, etaX, etaY = 7, 4, 0.1, 0.2

	t.Run("paper steps", func(t *testing.T) {
		rec := &cancelAt{at: -1}
		res, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0,
			&solver.Settings{Estimator: solver.HInv{}, Epochs: K, InnerIters: S, EtaX: etaX, EtaY: etaY, Recorder: rec})
		require.NoError(t, err)
		require.Equal(t, solver.IterationLimit, res.Status)
		require.Equal(t, K-1, rec.last.Epoch)
		requireFAtXY(t, p, res)
		// By hand: x_K = x_{K−1} − η_x ĝ(x_{K−1}) from the last record, and
		// y_{K+1} is S lower steps at x_K from y_K.
		last := rec.last
		for i := range res.X {
			assert.InDelta(t, last.X[i]-etaX*last.HyperGrad[i], res.X[i], 1e-14)
		}
		y := append([]float64(nil), last.Y...)
		g := make([]float64, len(y))
		for s := 0; s < S; s++ {
			must(t, p.GradGy(g, at(res.X, y)))
			for i := range y {
				y[i] -= etaY * g[i]
			}
		}
		assert.Less(t, relDiff(res.Y, y), 1e-13)
		// The final lower solve is counted, not recorded; the history
		// keeps f(x_k, y_{k+1}).
		assert.Equal(t, (K+1)*S, res.Stats.LowerGrads)
		assert.Equal(t, K, res.Stats.Epochs)
		assert.Equal(t, value(t, p.F, last.X, last.Y), last.F)
		assert.Equal(t, last.HyperGradNorm, res.HyperGradNorm)
	})

	t.Run("lower solve", func(t *testing.T) {
		q := p
		q.LowerSolve = func(dst []float64, pt *solver.Point) error {
			copy(dst, e.ystar(pt.X))
			return nil
		}
		s := solver.Settings{Estimator: solver.HInv{}, Epochs: K, EtaX: etaX}
		s.Lower.UseLowerSolve = true
		res, err := solver.Minimize(context.Background(), on(q, mx, my), x0, y0, &s)
		require.NoError(t, err)
		require.Equal(t, solver.IterationLimit, res.Status)
		requireFAtXY(t, q, res)
		// Y is y*(X) and F the value function F(X) = f(X, y*(X)).
		assert.Less(t, relDiff(res.Y, e.ystar(res.X)), 1e-13)
		truth := value(t, q.F, res.X, e.ystar(res.X))
		assert.InDelta(t, truth, res.F, 1e-13*max(1, math.Abs(truth)))
		assert.Equal(t, K+1, res.Stats.LowerSolves)
		// One gradient checks each solve's point, and one more measures
		// the check's scale (lowerExact).
		assert.Equal(t, K+2, res.Stats.LowerGrads)
	})

	t.Run("adaptive", func(t *testing.T) {
		s := solver.Settings{Estimator: &solver.CG{}, Epochs: K, RelGradTol: 0}
		s.ApplyAdaptive()
		s.RelGradTol = 0 // run out the epochs
		res, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &s)
		require.NoError(t, err)
		require.Equal(t, solver.IterationLimit, res.Status)
		requireFAtXY(t, p, res)
	})

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rec := &cancelAt{at: 3, cancel: cancel}
		res, err := solver.Minimize(ctx, on(p, mx, my), x0, y0,
			&solver.Settings{Estimator: solver.HInv{}, Epochs: K, InnerIters: S, EtaX: etaX, EtaY: etaY, Recorder: rec})
		require.NoError(t, err)
		require.Equal(t, solver.Cancelled, res.Status)
		require.Equal(t, 4, res.Stats.Epochs)
		requireFAtXY(t, p, res)
		assert.NotEqual(t, rec.last.X, res.X, "the last epoch moved x")
	})

	t.Run("before the first epoch", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := solver.Minimize(ctx, on(p, mx, my), x0, y0, &solver.Settings{Estimator: solver.HInv{}})
		require.NoError(t, err)
		require.Equal(t, solver.Cancelled, res.Status)
		assert.Equal(t, x0, res.X)
		assert.Equal(t, y0, res.Y)
		requireFAtXY(t, p, res)
		assert.Zero(t, res.Stats.LowerGrads)
	})

	t.Run("gradient threshold", func(t *testing.T) {
		rec := &cancelAt{at: -1}
		res, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0,
			&solver.Settings{Estimator: solver.HInv{}, EtaX: 0.3, EtaY: 0.3, InnerIters: 40, Epochs: 10000, GradTol: 1e-6, Recorder: rec})
		require.NoError(t, err)
		require.Equal(t, solver.GradientThreshold, res.Status)
		requireFAtXY(t, p, res)
		// x did not move in the last epoch: nothing more was solved.
		last := rec.last
		assert.Equal(t, last.X, res.X)
		assert.Equal(t, last.Y, res.Y)
		assert.Equal(t, last.F, res.F)
		assert.Equal(t, (last.Epoch+1)*40, res.Stats.LowerGrads)
		assert.LessOrEqual(t, res.HyperGradNorm, 1e-6)
	})

	t.Run("stochastic", func(t *testing.T) {
		// RSHGD is the same run loop: with minibatch lower steps and the
		// report on the whole sum, F is the full f at (X, Y).
		s, mx, my, x0, y0 := squadSetup(32)
		sp := on(s.problem(), mx, my)
		res, err := solver.Minimize(context.Background(), sp, x0, y0, withBatches(
			&solver.Settings{Estimator: &solver.CG{}, Epochs: K, InnerIters: S, EtaY: etaY, Seed: 5},
			solver.Batches{Lower: 4, Upper: 4, Cross: 4, Hess: 4}))
		require.NoError(t, err)
		require.Equal(t, solver.IterationLimit, res.Status)
		requireFAtXY(t, sp, res)
	})
}

// cancelAt is a Recorder that keeps a copy of the last epoch's record
// and cancels the run's context at epoch at (never for a negative at).
type cancelAt struct {
	at     int
	cancel func()
	last   solver.EpochStats
}

func (c *cancelAt) Record(s *solver.EpochStats) error {
	c.last = *s
	c.last.X = append([]float64(nil), s.X...)
	c.last.Y = append([]float64(nil), s.Y...)
	c.last.HyperGrad = append([]float64(nil), s.HyperGrad...)
	if s.Epoch == c.at {
		c.cancel()
	}
	return nil
}

// TestResultFailedRun: after an error, X and Y are the best iterates and
// F is BestF, f at them; a final lower solve that fails returns its error
// with the best iterates.
func TestResultFailedRun(t *testing.T) {
	e, p, mx, my, x0, y0 := quadSetup(33)

	t.Run("upper divergence", func(t *testing.T) {
		res, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &solver.Settings{Estimator: solver.HInv{}, EtaX: 50, Epochs: 300})
		require.True(t, solver.IsDiverged(err), "%v", err)
		require.Equal(t, solver.Diverged, res.Status)
		require.Less(t, res.BestF, math.Inf(1))
		assert.Equal(t, res.BestX, res.X)
		assert.Equal(t, res.BestY, res.Y)
		assert.Equal(t, res.BestF, res.F)
		requireFAtXY(t, p, res)
	})

	t.Run("final lower solve fails", func(t *testing.T) {
		const K = 5
		calls := 0
		refused := errors.New("lower solve refused")
		q := p
		q.LowerSolve = func(dst []float64, pt *solver.Point) error {
			if calls++; calls > K {
				return refused
			}
			copy(dst, e.ystar(pt.X))
			return nil
		}
		s := solver.Settings{Estimator: solver.HInv{}, Epochs: K}
		s.Lower.UseLowerSolve = true
		res, err := solver.Minimize(context.Background(), on(q, mx, my), x0, y0, &s)
		require.ErrorIs(t, err, refused)
		require.ErrorContains(t, err, "final lower solve")
		require.Equal(t, solver.Failure, res.Status)
		assert.Equal(t, K, res.Stats.Epochs)
		assert.Equal(t, res.BestX, res.X)
		assert.Equal(t, res.BestF, res.F)
		requireFAtXY(t, q, res)
	})
}

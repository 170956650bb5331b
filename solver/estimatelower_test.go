package solver_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/solver"
)

// TestEstimateLower: the hypergradient at a given x with the solver's
// lower solve from y0: with LowerSolve, y*(x) and the closed-form grad
// F(x); with the paper's steps, the S steps replayed by hand and
// Estimate at their end point. LowerGradNorm is ‖Ay − Bx‖.
func TestEstimateLower(t *testing.T) {
	e, p, mx, my, x, y0 := quadSetup(41)
	for i := range y0 {
		y0[i] = 0.5 * float64(i)
	}
	q := p
	q.LowerSolve = func(dst []float64, pt *solver.Point) error {
		copy(dst, e.ystar(pt.X))
		return nil
	}

	t.Run("lower solve", func(t *testing.T) {
		s := solver.Settings{Estimator: solver.HInv{}}
		s.Lower.UseLowerSolve = true
		r, err := solver.New(on(q, mx, my), &s)
		require.NoError(t, err)
		hg, y, err := r.EstimateLower(x, y0)
		require.NoError(t, err)
		ys := e.ystar(x)
		assert.Less(t, relDiff(y, ys), 1e-15)
		assert.Less(t, relDiff(hg, e.exactHyper(x, ys)), 1e-13)
		n, err := r.LowerGradNorm(x, y)
		require.NoError(t, err)
		assert.Less(t, n, 1e-14*floats.Norm(ys, 2))
	})

	t.Run("paper steps", func(t *testing.T) {
		const S, eta = 5, 0.2
		r, err := solver.New(on(q, mx, my), &solver.Settings{Estimator: &solver.CG{}, InnerIters: S, EtaY: eta})
		require.NoError(t, err) // LowerSolve is there but not asked for
		hg, y, err := r.EstimateLower(x, y0)
		require.NoError(t, err)
		want := append([]float64(nil), y0...)
		g := make([]float64, len(want))
		for range S {
			must(t, q.GradGy(g, at(x, want)))
			floats.AddScaled(want, -eta, g)
		}
		assert.Less(t, relDiff(y, want), 1e-14)
		direct, err := r.Estimate(x, y)
		require.NoError(t, err)
		assert.Equal(t, direct, hg)
		// ‖Ay − Bx‖ by hand.
		var res, bx mat.VecDense
		res.MulVec(e.A, vec(y))
		bx.MulVec(e.B, vec(x))
		res.SubVec(&res, &bx)
		n, err := r.LowerGradNorm(x, y)
		require.NoError(t, err)
		assert.InDelta(t, mat.Norm(&res, 2), n, 1e-14*n)
		// S steps of a contraction: y is closer to y*(x) than y0 was.
		n0, err := r.LowerGradNorm(x, y0)
		require.NoError(t, err)
		assert.Less(t, n, n0)
	})

	t.Run("bad points", func(t *testing.T) {
		r, err := solver.New(on(q, mx, my), &solver.Settings{Estimator: &solver.CG{}})
		require.NoError(t, err)
		_, _, err = r.EstimateLower(x, y0[:2])
		require.ErrorIs(t, err, solver.ErrBadStart)
		_, err = r.LowerGradNorm(x, []float64{math.NaN(), 0, 0, 0, 0, 0})
		require.ErrorIs(t, err, solver.ErrBadStart)
		require.ErrorContains(t, err, "y[0] = NaN")
	})
}

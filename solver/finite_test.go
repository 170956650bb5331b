package solver_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// TestOracleNotFinite: an oracle that returns NaN at a finite point stops
// the run as a Failure whose error names the oracle and the epoch and
// matches numerr.ErrNotFinite; it is not reported as a divergence of the
// iterates, and the result holds the best finite iterates.
func TestOracleNotFinite(t *testing.T) {
	e, p, mx, my, x0, y0 := quadSetup(3)
	p.LowerSolve = func(dst []float64, pt *solver.Point) error { copy(dst, e.ystar(pt.X)); return nil }
	hinv := &solver.Settings{Estimator: solver.HInv{}, InnerIters: 10}
	// Each oracle is poisoned from its (after+1)th call: after four
	// epochs of one call each, or of ten lower steps for GradGy.
	for _, c := range []struct {
		oracle string
		s      *solver.Settings
		poison func(q *solver.Problem)
		where  string
	}{
		{"GradGy", hinv, func(q *solver.Problem) { q.GradGy = nanGrad(q.GradGy, 40) }, "GradGy at epoch 4, lower step 0"},
		{"GradFx", hinv, func(q *solver.Problem) { q.GradFx = nanGrad(q.GradFx, 4) }, "hypergradient at epoch 4: GradFx"},
		{"GradFy", hinv, func(q *solver.Problem) { q.GradFy = nanGrad(q.GradFy, 4) }, "hypergradient at epoch 4: GradFy"},
		{"HessGyInv", hinv, func(q *solver.Problem) { q.HessGyInv = nanProd(q.HessGyInv, 4) }, "hypergradient at epoch 4: HessGyInv"},
		{"CrossGxy", hinv, func(q *solver.Problem) { q.CrossGxy = nanProd(q.CrossGxy, 4) }, "hypergradient at epoch 4: CrossGxy"},
		{"HessGy", &solver.Settings{Estimator: &solver.CG{}}, func(q *solver.Problem) { q.HessGy = nanProd(q.HessGy, 0) }, "hypergradient at epoch 0: HessGy"},
		{"F", hinv, func(q *solver.Problem) { q.F = infValue(q.F, 4) }, "F at epoch 4"},
		{"G", &solver.Settings{Estimator: solver.HInv{}, Lower: solver.LowerRule{BB: true}},
			func(q *solver.Problem) { q.G = infValue(q.G, 0) }, "G at epoch 0"},
		{"LowerSolve", &solver.Settings{Estimator: solver.HInv{}, Lower: solver.LowerRule{UseLowerSolve: true}},
			func(q *solver.Problem) { q.LowerSolve = nanGrad(q.LowerSolve, 4) }, "LowerSolve at epoch 4"},
	} {
		t.Run(c.oracle, func(t *testing.T) {
			q := p
			c.poison(&q)
			res, err := solver.Minimize(context.Background(), on(q, mx, my), x0, y0, c.s)
			require.ErrorIs(t, err, numerr.ErrNotFinite)
			require.ErrorContains(t, err, c.where)
			require.False(t, solver.IsDiverged(err), "%v", err)
			require.Equal(t, solver.Failure, res.Status)
			for _, v := range append(res.X, res.Y...) {
				require.False(t, math.IsNaN(v) || math.IsInf(v, 0))
			}
			require.Equal(t, res.BestX, res.X)
		})
	}
}

// nanGrad returns o, writing NaN into dst[1] from its (after+1)th call.
func nanGrad(o func([]float64, *solver.Point) error, after int) func([]float64, *solver.Point) error {
	calls := 0
	return func(dst []float64, pt *solver.Point) error {
		err := o(dst, pt)
		if calls++; calls > after {
			dst[1] = math.NaN()
		}
		return err
	}
}

// nanProd is nanGrad for a product oracle.
func nanProd(o func([]float64, *solver.Point, []float64) error, after int) func([]float64, *solver.Point, []float64) error {
	calls := 0
	return func(dst []float64, pt *solver.Point, v []float64) error {
		err := o(dst, pt, v)
		if calls++; calls > after {
			dst[1] = math.NaN()
		}
		return err
	}
}

// infValue is nanGrad for an objective: +Inf from its (after+1)th call.
func infValue(o func(*solver.Point) (float64, error), after int) func(*solver.Point) (float64, error) {
	calls := 0
	return func(pt *solver.Point) (float64, error) {
		v, err := o(pt)
		if calls++; calls > after {
			v = math.Inf(1)
		}
		return v, err
	}
}

package solver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/solver"
)

// TestEuclideanHessGyInvLowerSolve: EuclideanProblem has fields for
// HessGyInv and LowerSolve (before, they had to be set on the Problem
// Euclidean returned, which nothing said), and Euclidean passes them
// through: the problem has both oracles, they pass CheckProblem, and HINV
// with the exact lower solve runs as on the Problem they were set on.
func TestEuclideanHessGyInvLowerSolve(t *testing.T) {
	e, byHand, mx, my, x0, y0 := quadSetup(91)
	ep := e.euclidean()
	ep.Mx, ep.My = mx, my
	var chol mat.Cholesky
	require.True(t, chol.Factorize(mat.NewSymDense(e.q, e.A.RawMatrix().Data)))
	ep.HessGyInv = func(dst []float64, _ *solver.Point, v []float64) error {
		return chol.SolveVecTo(vec(dst), vec(v))
	}
	ep.LowerSolve = func(dst []float64, pt *solver.Point) error {
		copy(dst, e.ystar(pt.X))
		return nil
	}
	p := solver.Euclidean(ep)
	require.True(t, p.Available().Has(solver.OracleHessGyInv), "%v", p.Available())
	require.True(t, p.Available().Has(solver.OracleLowerSolve), "%v", p.Available())
	for _, r := range solver.CheckProblem(p, x0, y0, nil) {
		require.True(t, r.OK, "%v", r)
	}
	byHand = on(byHand, mx, my)
	byHand.LowerSolve = ep.LowerSolve
	s := solver.Settings{Estimator: solver.HInv{}, Epochs: 10}
	s.Lower.UseLowerSolve = true
	want, err := solver.Minimize(context.Background(), byHand, x0, y0, &s)
	require.NoError(t, err)
	got, err := solver.Minimize(context.Background(), p, x0, y0, &s)
	require.NoError(t, err)
	require.Equal(t, want.X, got.X)
	require.Equal(t, want.Stats.LowerSolves, got.Stats.LowerSolves)
}

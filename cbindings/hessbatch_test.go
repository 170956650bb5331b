//go:build cgo

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
)

// TestCallbackHessGyBatch: on R^2 × SPD(2) with Euclidean oracles, a
// problem given hess_gy_batch (each row computed as hess_gy computes it)
// gives the "hinv" hypergradient and whole "hinv" runs bitwise equal to
// the problem without it, with the same hess_vecs: the library converts
// each row as it converts a hess_gy result, and the derivation reads the
// same numbers in the same order. With it, the derivation makes one
// hess_gy_batch call of k = dim SPD(2) = 3 per point and no hess_gy call;
// rhgd_problem_check compares it with hess_gy, and rhgd_problem_oracle
// evaluates it on one direction as hess_gy. A caller built before the
// field (its size ends before it) gets hess_gy calls: the slot is not
// read.
func TestCallbackHessGyBatch(t *testing.T) {
	mx := testManifold(t, "euclid:r=2")
	my := testManifold(t, "spd:n=2")
	q0, q3 := ctest.NewSPD(), ctest.NewSPD()
	defer q0.Free()
	defer q3.Free()
	p0, rc := ctest.SPDProblem(q0, mx, my, 0)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p0)
	p3, rc := ctest.SPDProblem(q3, mx, my, 3)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p3)

	x, y := []float64{0.1, -0.2}, []float64{0.8, 0.3, 0.3, 0.9}
	ok := checkReports(t, p3, x, y)
	require.Contains(t, ok, "HessGyBatch")
	for name, good := range ok {
		assert.True(t, good, name)
	}
	v := []float64{0.3, -0.1, -0.1, 0.7}
	one, batched := make([]float64, 4), make([]float64, 4)
	require.Equal(t, okC, ctest.Oracle(p3, "hess_gy", x, y, v, one))
	require.Equal(t, okC, ctest.Oracle(p3, "hess_gy_batch", x, y, v, batched))
	assert.Equal(t, one, batched)

	hess0, batch0, _ := q3.HessCalls()
	hg := [2][]float64{make([]float64, 2), make([]float64, 2)}
	for i, p := range []int64{p0, p3} {
		s := testSolver(t, p, "hinv", "inner=5,eta_y=0.3")
		rc, msg := call(func() int { return ctest.SolverHypergradient(s, 2, x, 4, y, hg[i], nil, nil) })
		require.Equal(t, okC, rc, msg)
	}
	assert.Equal(t, hg[0], hg[1], "hypergradient")
	hess, batch, k := q3.HessCalls()
	assert.Equal(t, hess0, hess, "no hess_gy call")
	assert.Equal(t, batch0+1, batch, "one hess_gy_batch call at the point")
	assert.Equal(t, int64(3), k)

	const epochs = 20
	var xs [2][]float64
	var res [2]ctest.Result
	for i, p := range []int64{p0, p3} {
		s := testSolver(t, p, "hinv", "eta_x=0.5,eta_y=0.3,inner=10,epochs=20")
		rc, msg := call(func() int { return ctest.SolverRun(s, []float64{0, 0}, []float64{0.5, 0, 0, 0.5}, nil) })
		require.Equal(t, okC, rc, msg)
		xs[i] = make([]float64, 2)
		require.Equal(t, okC, ctest.SolverX(s, 2, xs[i]))
		res[i], _ = ctest.SolverResult(s)
	}
	assert.Equal(t, xs[0], xs[1], "iterates")
	assert.Equal(t, res[0].HessVecs, res[1].HessVecs)
	hess2, batch2, _ := q3.HessCalls()
	assert.Equal(t, hess, hess2, "no hess_gy call")
	assert.Equal(t, res[1].HessVecs/3, batch2-batch, "one hess_gy_batch call per point")
	assert.GreaterOrEqual(t, batch2-batch, int64(epochs))

	q4 := ctest.NewSPD()
	defer q4.Free()
	p4, rc := ctest.SPDProblem(q4, mx, my, 4)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p4)
	s := testSolver(t, p4, "hinv", "inner=5,eta_y=0.3")
	hg4 := make([]float64, 2)
	rc, msg := call(func() int { return ctest.SolverHypergradient(s, 2, x, 4, y, hg4, nil, nil) })
	require.Equal(t, okC, rc, msg)
	assert.Equal(t, hg[0], hg4)
	hess, batch, _ = q4.HessCalls()
	assert.Zero(t, batch, "the slot beyond the caller's size was read")
	assert.Equal(t, int64(3), hess)
}

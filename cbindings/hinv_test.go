//go:build cgo

package main

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
)

// checkReports runs rhgd_problem_check at (x, y) and returns each report's
// ok by name.
func checkReports(t *testing.T, p int64, x, y []float64) map[string]bool {
	t.Helper()
	_, s := ctest.ProblemCheck(p, x, y, "seed=2", 1<<20)
	var res struct {
		Reports []struct {
			Name string `json:"name"`
			OK   bool   `json:"ok"`
			Msg  string `json:"msg"`
		} `json:"reports"`
	}
	require.NoError(t, json.Unmarshal([]byte(s), &res), s)
	ok := map[string]bool{}
	for _, r := range res.Reports {
		ok[r.Name] = r.OK
		if !r.OK {
			t.Logf("%s: %s", r.Name, r.Msg)
		}
	}
	return ok
}

// TestCallbackHinvEuclidean: hess_gy_inv beside Euclidean oracles is the
// Riemannian inverse Hessian, taken as given. On SPD(2), where the two
// Hessians differ, g(x, Y) = ⟨Y, S(x)⟩ − log det Y with its closed-form
// Riemannian inverse: rhgd_problem_check finds it the inverse of the
// library's conversion of the Euclidean hess_gy (and finds the Euclidean
// inverse, planted, not to be); the hinv hypergradient at a given point
// agrees with CG's to CG's tolerance, and so do whole runs.
func TestCallbackHinvEuclidean(t *testing.T) {
	mx := testManifold(t, "euclid:r=2")
	my := testManifold(t, "spd:n=2")
	q := ctest.NewSPD()
	defer q.Free()

	// A point away from y*(x) = S(x)⁻¹, where the Euclidean and
	// Riemannian inverse Hessians differ.
	x, y := []float64{0.1, -0.2}, []float64{0.8, 0.3, 0.3, 0.9}
	p, rc := ctest.SPDProblem(q, mx, my, 1)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)
	ok := checkReports(t, p, x, y)
	require.Contains(t, ok, "HessGyInv")
	for name, good := range ok {
		assert.True(t, good, name)
	}
	wrong, rc := ctest.SPDProblem(q, mx, my, 2)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(wrong)
	assert.False(t, checkReports(t, wrong, x, y)["HessGyInv"], "the Euclidean inverse passed as the Riemannian one")

	// CG stops at ‖b − Hv‖ ≤ 1e-10‖b‖; H's condition number here is
	// below 10, so the two estimates agree to 1e-9 of their scale.
	hg := map[string][]float64{}
	for _, est := range []string{"hinv", "cg"} {
		s, rc := ctest.SolverNew(p, est, "")
		require.Equal(t, okC, rc, est)
		hg[est] = make([]float64, 2)
		rc, msg := call(func() int { return ctest.SolverHypergradient(s, 2, x, 4, y, hg[est], nil, nil) })
		require.Equal(t, okC, rc, "%s: %s", est, msg)
		ctest.SolverFree(s)
	}
	before := q.HinvCalls()
	assert.Positive(t, before, "hess_gy_inv calls")
	scale := math.Max(1, math.Hypot(hg["cg"][0], hg["cg"][1]))
	assert.InDeltaSlice(t, hg["cg"], hg["hinv"], 1e-9*scale)

	xs := map[string][]float64{}
	for _, est := range []string{"hinv", "cg"} {
		s, rc := ctest.SolverNew(p, est, "eta_x=0.5,eta_y=0.3,inner=20,epochs=500,grad_tol=1e-10")
		require.Equal(t, okC, rc, est)
		rc, msg := call(func() int { return ctest.SolverRun(s, []float64{0, 0}, []float64{0.5, 0, 0, 0.5}, nil) })
		require.Equal(t, okC, rc, "%s: %s", est, msg)
		res, _ := ctest.SolverResult(s)
		assert.Equal(t, int(ctest.Const(9)), res.Status, "%s: RHGD_STATUS_GRADIENT_THRESHOLD", est)
		xs[est] = make([]float64, 2)
		require.Equal(t, okC, ctest.SolverX(s, 2, xs[est]))
		ctest.SolverFree(s)
	}
	assert.Greater(t, q.HinvCalls(), before)
	assert.InDeltaSlice(t, xs["cg"], xs["hinv"], 1e-8)
}

// TestCallbackHinvBatches: with Euclidean oracles on a finite sum,
// hess_gy_inv gets RSHGD's minibatch B4 (batch_hess), as hess_gy would,
// with valid indices; on the full sums, hinv reaches the closed-form x*.
func TestCallbackHinvBatches(t *testing.T) {
	mx := testManifold(t, "euclid:r=2")
	my := testManifold(t, "euclid:r=2")
	f := ctest.NewFsum()
	defer f.Free()
	p, rc := ctest.FsumProblemHinv(f, mx, my)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)

	s := testSolver(t, p, "hinv", "epochs=30,inner=5,eta_x=0.5,eta_y=0.2,batch_lower=2,batch_upper=2,batch_cross=3,batch_hess=1,seed=3")
	require.Equal(t, okC, ctest.SolverRun(s, []float64{0, 0}, []float64{0, 0}, nil))
	calls, last := f.HinvBatches()
	assert.Equal(t, int64(30), calls, "one hess_gy_inv call with B4 per epoch")
	assert.Equal(t, int64(1), last, "|B4| = batch_hess")
	_, _, bad, _ := f.Calls()
	assert.Zero(t, bad, "bad batches")

	s2 := testSolver(t, p, "hinv", "epochs=500,eta_x=0.5,eta_y=0.2,inner=30,grad_tol=1e-11")
	require.Equal(t, okC, ctest.SolverRun(s2, []float64{0, 0}, []float64{0, 0}, nil))
	x := make([]float64, 2)
	require.Equal(t, okC, ctest.SolverX(s2, 2, x))
	assert.InDeltaSlice(t, ctest.FsumXStar(), x, 1e-8)
}

//go:build cgo

package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
)

// TestSolverHypergradientBuiltin: on the synthetic problem (St × SPD),
// rhgd_solver_hypergradient at a given (x, y) is RHGD.Estimate there,
// and with y NULL and lower_solve=true it is Estimate at the exact
// y*(x) that lower_solve gives from the start's y0, which it returns
// with ‖grad_y g‖ there; the solver's last run stays readable.
func TestSolverHypergradientBuiltin(t *testing.T) {
	const lx, ly = 24, 64
	p, rc := ctest.Builtin("synthetic", []string{"n=30", "d=8", "r=3"}, "", 5)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)
	s := testSolver(t, p, "hinv", "lower_solve=true,epochs=3")
	require.Equal(t, okC, ctest.SolverRun(s, nil, nil, nil))
	before, _ := ctest.SolverResult(s)

	x, y0 := make([]float64, lx), make([]float64, ly)
	require.Equal(t, okC, ctest.ProblemStart(p, x, y0))
	obj, err := lookup[*solverObj](&handles, s, "solver")
	require.NoError(t, err)
	my := obj.prob.p.My

	// y given: Estimate at (x, y0), and the y used is y0.
	hg, yOut := make([]float64, lx), make([]float64, ly)
	var n float64
	rc, msg := call(func() int { return ctest.SolverHypergradient(s, lx, x, ly, y0, hg, yOut, &n) })
	require.Equal(t, okC, rc, msg)
	want, err := obj.r.Estimate(x, y0)
	require.NoError(t, err)
	assert.Equal(t, want, hg)
	assert.Equal(t, y0, yOut)
	g := make([]float64, ly)
	require.Equal(t, okC, ctest.Oracle(p, "grad_gy", x, y0, nil, g))
	n0 := my.Norm(y0, g)
	assert.InDelta(t, n0, n, 1e-14*n0)

	// y NULL: the exact lower solution from y0, and Estimate there.
	ystar := make([]float64, ly)
	require.Equal(t, okC, ctest.Oracle(p, "lower_solve", x, y0, nil, ystar))
	rc, msg = call(func() int { return ctest.SolverHypergradient(s, lx, x, ly, nil, hg, yOut, &n) })
	require.Equal(t, okC, rc, msg)
	assert.Equal(t, ystar, yOut)
	want, err = obj.r.Estimate(x, ystar)
	require.NoError(t, err)
	assert.Equal(t, want, hg)
	require.Equal(t, okC, ctest.Oracle(p, "grad_gy", x, ystar, nil, g))
	assert.InDelta(t, my.Norm(ystar, g), n, 1e-14*n0)
	assert.Less(t, n, 1e-8*n0, "y*(x) solves the lower problem")
	// y_out and lower_grad_norm may be NULL.
	hg2 := make([]float64, lx)
	require.Equal(t, okC, ctest.SolverHypergradient(s, lx, x, ly, nil, hg2, nil, nil))
	assert.Equal(t, hg, hg2)

	after, rc := ctest.SolverResult(s)
	require.Equal(t, okC, rc)
	assert.Equal(t, before, after)
}

// TestSolverHypergradientQuad: on the quadratic callback problem
// (g = ½yᵀAy − yᵀBx, f = ½|y − c|² + ½λ|x|², A diagonal), the entry
// agrees with the closed form grad F(x) = λx + BᵀA⁻¹(y* − c) at y given
// as y* = A⁻¹Bx and, with y NULL, after many inner steps from the
// problem's start; a few steps give the iterate replayed by hand. Bad
// arguments are errors that write nothing.
func TestSolverHypergradientQuad(t *testing.T) {
	d := newQuadData(t)
	k, m, mx, my, a, b, c := d.k, d.m, d.mx, d.my, d.a, d.b, d.c
	q := d.quad(0)
	defer q.Free()

	B := mat.NewDense(m, k, b)
	x := []float64{0.3, -1, 2}
	var bx mat.VecDense
	bx.MulVec(B, mat.NewVecDense(k, x))
	ystar, r := make([]float64, m), make([]float64, m)
	for i := range ystar {
		ystar[i] = bx.AtVec(i) / a[i]
		r[i] = (ystar[i] - c[i]) / a[i]
	}
	var grad mat.VecDense
	grad.MulVec(B.T(), mat.NewVecDense(m, r))
	truth := make([]float64, k)
	for j := range truth {
		truth[j] = d.lambda*x[j] + grad.AtVec(j)
	}

	hg, yOut := make([]float64, k), make([]float64, m)
	var n float64
	for _, est := range []string{"hinv", "cg"} {
		p, rc := ctest.QuadProblem(q, mx, my, 1, 0, false) // no start yet
		require.Equal(t, okC, rc)
		s, rc := ctest.SolverNew(p, est, "inner=300,eta_y=0.2")
		require.Equal(t, okC, rc)
		rc, msg := call(func() int { return ctest.SolverHypergradient(s, 3, x, 4, ystar, hg, yOut, &n) })
		require.Equal(t, okC, rc, msg)
		assert.Less(t, relErr(hg, truth), 1e-13, est)
		assert.Less(t, n, 1e-14, est)

		wantCode(t, "y NULL without a start", einval, func() int { return ctest.SolverHypergradient(s, 3, x, 4, nil, hg, nil, nil) }, "no starting point")
		require.Equal(t, okC, ctest.ProblemSetStart(p, make([]float64, k), make([]float64, m)))
		// 300 steps of η_y = 0.2 on eigenvalues 1..4 contract the error by
		// 0.8^300 ≈ 1e-29.
		rc, msg = call(func() int { return ctest.SolverHypergradient(s, 3, x, 4, nil, hg, yOut, &n) })
		require.Equal(t, okC, rc, msg)
		assert.Less(t, relErr(yOut, ystar), 1e-14, est)
		assert.Less(t, relErr(hg, truth), 1e-13, est)
		assert.Less(t, n, 1e-14, est)
		ctest.SolverFree(s)
		ctest.ProblemFree(p)
	}

	// Three steps, replayed by hand from y0 = 0 at x; the output may be
	// the input's array (x and hypergrad, both of len_x).
	p, rc := ctest.QuadProblem(q, mx, my, 1, 0, false)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)
	require.Equal(t, okC, ctest.ProblemSetStart(p, make([]float64, k), make([]float64, m)))
	s := testSolver(t, p, "cg", "inner=3,eta_y=0.2")
	y := make([]float64, m)
	for range 3 {
		for i := range y {
			y[i] -= 0.2 * (a[i]*y[i] - bx.AtVec(i))
		}
	}
	inPlace := append([]float64(nil), x...)
	rc, msg := call(func() int { return ctest.SolverHypergradient(s, 3, inPlace, 4, nil, inPlace, yOut, &n) })
	require.Equal(t, okC, rc, msg)
	assert.Less(t, relErr(yOut, y), 1e-15)
	require.Equal(t, okC, ctest.SolverHypergradient(s, 3, x, 4, y, hg, nil, nil))
	assert.Equal(t, hg, inPlace, "the estimate at the steps' end point")
	res := make([]float64, m)
	for i := range res {
		res[i] = a[i]*y[i] - bx.AtVec(i)
	}
	assert.InDelta(t, mat.Norm(mat.NewVecDense(m, res), 2), n, 1e-15)

	// Errors write nothing.
	for i := range hg {
		hg[i] = 42
	}
	wantCode(t, "NULL x", einval, func() int { return ctest.SolverHypergradient(s, 3, nil, 4, nil, hg, nil, nil) }, "x or hypergrad is NULL")
	wantCode(t, "NULL hypergrad", einval, func() int { return ctest.SolverHypergradient(s, 3, x, 4, nil, nil, nil, nil) }, "x or hypergrad is NULL")
	wantCode(t, "len_x", einval, func() int { return ctest.SolverHypergradient(s, 2, x, 4, nil, hg, nil, nil) }, "len_x = 2", "3 and 4")
	wantCode(t, "len_y", einval, func() int { return ctest.SolverHypergradient(s, 3, x, 5, nil, hg, nil, nil) }, "len_y = 5")
	wantCode(t, "NaN x", einval, func() int {
		return ctest.SolverHypergradient(s, 3, []float64{1, math.NaN(), 0}, 4, nil, hg, nil, nil)
	}, "x: ", "NaN")
	wantCode(t, "Inf y", einval, func() int {
		return ctest.SolverHypergradient(s, 3, x, 4, []float64{1, 2, math.Inf(1), 3}, hg, nil, nil)
	}, "y: ", "+Inf")
	wantCode(t, "bad handle", ebadh, func() int { return ctest.SolverHypergradient(p, 3, x, 4, nil, hg, nil, nil) }, "solver")
	qf := d.quad(2) // grad_gy fails from its second call
	defer qf.Free()
	pf, _ := ctest.QuadProblem(qf, mx, my, 1, 0, false)
	defer ctest.ProblemFree(pf)
	require.Equal(t, okC, ctest.ProblemSetStart(pf, make([]float64, k), make([]float64, m)))
	sf := testSolver(t, pf, "cg", "inner=3")
	wantCode(t, "callback fails", ecallback, func() int { return ctest.SolverHypergradient(sf, 3, x, 4, nil, hg, nil, nil) }, "grad_gy")
	assert.Equal(t, []float64{42, 42, 42}, hg)
}

//go:build cgo

package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
)

// TestCallbackLowerSteps: the quadratic callback problem with a C
// lower_steps on R^4, given with either flag, runs as the same problem
// without it: the same iterates (to the rounding in which C's and Go's
// arithmetic may differ: each of the S·K steps rounds at most one
// operation per entry differently, and the contracting iterations do not
// amplify it), the same counts in the history, and one lower_steps call
// per epoch (and one for the final lower solve) in place of the lower
// steps' grad_gy calls, never with a batch.
func TestCallbackLowerSteps(t *testing.T) {
	d := newQuadData(t)
	k, m, mx, my := d.k, d.m, d.mx, d.my
	const inner, epochs = 20, 60
	settings := fmt.Sprintf("eta_x=0.5,eta_y=0.2,inner=%d,epochs=%d", inner, epochs)
	for _, cs := range []struct {
		full, flags int
		est         string
	}{{2, 1, "cg"}, {2, 0, "cg"}, {1, 0, "hinv"}, {0, 1, "ns:gamma=0.2,terms=60"}} {
		name := fmt.Sprintf("full=%d flags=%d %s", cs.full, cs.flags, cs.est)
		var xs, ys [2][]float64
		var hist [2][]float64
		var lowerGrads [2]int64
		var gradGys [2]int
		for mode := range 2 {
			q := d.quad(0)
			p, rc := ctest.QuadProblemSteps(q, mx, my, cs.full, cs.flags, mode)
			require.Equal(t, okC, rc, name)
			s, rc := ctest.SolverNew(p, cs.est, settings)
			require.Equal(t, okC, rc, name)
			rc, msg := call(func() int { return ctest.SolverRun(s, make([]float64, k), make([]float64, m), nil) })
			require.Equal(t, okC, rc, "%s: %s", name, msg)
			xs[mode], ys[mode] = make([]float64, k), make([]float64, m)
			require.Equal(t, okC, ctest.SolverX(s, int64(k), xs[mode]))
			require.Equal(t, okC, ctest.SolverY(s, int64(m), ys[mode]))
			rows, n, rc := ctest.SolverHistory(s, epochs)
			require.Equal(t, okC, rc)
			require.Equal(t, int64(epochs), n)
			hist[mode] = rows
			res, _ := ctest.SolverResult(s)
			lowerGrads[mode] = res.LowerGrads
			var steps, bad int
			gradGys[mode], steps, bad = q.StepsCalls()
			assert.Equal(t, mode*(epochs+1), steps, "%s: lower_steps calls", name)
			assert.Zero(t, bad, "%s: lower_steps calls with a batch", name)
			ctest.SolverFree(s)
			ctest.ProblemFree(p)
			q.Free()
		}
		tol := float64(inner*epochs) * 0x1p-52
		t.Logf("%s: relative differences x %.3g, y %.3g (bound %.3g)", name, relErr(xs[1], xs[0]), relErr(ys[1], ys[0]), tol)
		assert.LessOrEqual(t, relErr(xs[1], xs[0]), tol, "%s: x", name)
		assert.LessOrEqual(t, relErr(ys[1], ys[0]), tol, "%s: y", name)
		assert.Equal(t, lowerGrads[0], lowerGrads[1], name)
		assert.Equal(t, int64((epochs+1)*inner), lowerGrads[1], name)
		// The estimators' grad_gy calls (the Euclidean Hessian's
		// conversion, finite differences) stay; the lower steps' go.
		assert.Equal(t, (epochs+1)*inner, gradGys[0]-gradGys[1], "%s: grad_gy calls saved", name)
		cols := int(ctest.Const(15)) // RHGD_HISTORY_COLS
		for e := range epochs {
			r0, r1 := hist[0][e*cols:(e+1)*cols], hist[1][e*cols:(e+1)*cols]
			for _, col := range []int{0, 5, 6, 7, 8, 9, 11, 13} { // epoch and the counts
				assert.Equal(t, r0[col], r1[col], "%s: epoch %d, column %d", name, e, col)
			}
			for _, col := range []int{1, 2, 3} { // f, ‖hypergradient‖, ‖grad_y g‖
				assert.InDelta(t, r0[col], r1[col], tol*max(1, r0[col]), "%s: epoch %d, column %d", name, e, col)
			}
		}
	}
}

// TestCallbackLowerStepsRules: lower_steps is refused, naming it, where My
// is not a Euclidean space (SPD, Stiefel), and accepted on a product of
// euclid manifolds; the solver calls it for the paper's fixed steps and
// grad_gy instead under lower_bb, lower_tol, the adaptive preset and AD;
// its failure is RHGD_ECALLBACK naming it; and a caller built before
// lower_steps (rhgd_oracles.size short of it, a trap in its place) is
// unaffected: the trap is never called.
func TestCallbackLowerStepsRules(t *testing.T) {
	d := newQuadData(t)
	k, m, mx, my := d.k, d.m, d.mx, d.my
	q := d.quad(0)
	defer q.Free()
	for _, spec := range []string{"spd:n=2", "stiefel:n=4,p=1"} {
		my, rc := ctest.ManifoldNew(spec)
		require.Equal(t, okC, rc, spec)
		for _, flags := range []int{0, 1} {
			wantCode(t, spec, einval, func() int { _, rc := ctest.QuadProblemSteps(q, mx, my, 2, flags, 1); return rc },
				"lower_steps", "not a Euclidean space", spec)
		}
		ctest.ManifoldFree(my)
	}
	e2 := testManifold(t, "euclid:r=2")
	prod, rc := ctest.ManifoldProduct([]int64{e2, e2})
	require.Equal(t, okC, rc)
	defer ctest.ManifoldFree(prod)
	pp, rc := ctest.QuadProblemSteps(q, mx, prod, 2, 1, 1)
	require.Equal(t, okC, rc, "a product of euclid manifolds")
	ctest.ProblemFree(pp)

	for _, cs := range []struct {
		est, settings string
		fused         bool
	}{
		{"cg", "epochs=5,inner=4", true},
		{"cg", "epochs=5,inner=4,lower_bb=true", false},
		{"cg", "epochs=5,inner=4,lower_tol=0.1", false},
		{"cg", "epochs=5,inner=4,preset=adaptive", false},
		{"ad", "epochs=5,inner=4", false},
	} {
		q := d.quad(0)
		p, rc := ctest.QuadProblemSteps(q, mx, my, 2, 1, 1)
		require.Equal(t, okC, rc)
		s, rc := ctest.SolverNew(p, cs.est, cs.settings)
		require.Equal(t, okC, rc, cs.settings)
		require.Equal(t, okC, ctest.SolverRun(s, make([]float64, k), make([]float64, m), nil), cs.settings)
		gradGys, steps, _ := q.StepsCalls()
		if cs.fused {
			assert.Positive(t, steps, "%s %s", cs.est, cs.settings)
		} else {
			assert.Zero(t, steps, "%s %s", cs.est, cs.settings)
			assert.Positive(t, gradGys, "%s %s", cs.est, cs.settings)
		}
		ctest.SolverFree(s)
		ctest.ProblemFree(p)
		q.Free()
	}

	// lower_steps fails at its first call (the quad's 1st oracle call).
	qf := d.quad(1)
	defer qf.Free()
	p, rc := ctest.QuadProblemSteps(qf, mx, my, 2, 1, 1)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)
	s := testSolver(t, p, "cg", "epochs=5")
	wantCode(t, "failing lower_steps", ecallback, func() int {
		return ctest.SolverRun(s, make([]float64, k), make([]float64, m), nil)
	}, "lower_steps at epoch 0", "lower_steps returned 7")
	res, _ := ctest.SolverResult(s)
	assert.Equal(t, int(ctest.Const(14)), res.Status) // RHGD_STATUS_FAILURE

	// The layout before lower_steps.
	qo := d.quad(0)
	defer qo.Free()
	po, rc := ctest.QuadProblemSteps(qo, mx, my, 2, 1, 2)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(po)
	so := testSolver(t, po, "cg", "epochs=5")
	require.Equal(t, okC, ctest.SolverRun(so, make([]float64, k), make([]float64, m), nil))
	gradGys, steps, trapped := qo.StepsCalls()
	assert.Zero(t, trapped, "the library read lower_steps beyond oracles->size")
	assert.Zero(t, steps)
	assert.Positive(t, gradGys)
}

// TestCallbackLowerStepsVJP: with lower_steps_vjp, "ad" runs the fused
// loop and one vjp call per epoch, with either flag, and gives the run of
// AD's own reverse sweep to rounding, with the same counts of products;
// lower_steps_vjp without lower_steps is refused, naming both.
func TestCallbackLowerStepsVJP(t *testing.T) {
	d := newQuadData(t)
	k, m, mx, my := d.k, d.m, d.mx, d.my
	const inner, epochs = 10, 30
	settings := fmt.Sprintf("eta_x=0.5,eta_y=0.2,inner=%d,epochs=%d", inner, epochs)
	for _, flags := range []int{0, 1} {
		var xs [2][]float64
		var res [2]ctest.Result
		for i, mode := range []int{0, 3} {
			q := d.quad(0)
			p, rc := ctest.QuadProblemSteps(q, mx, my, 2, flags, mode)
			require.Equal(t, okC, rc)
			s, rc := ctest.SolverNew(p, "ad", settings)
			require.Equal(t, okC, rc)
			rc, msg := call(func() int { return ctest.SolverRun(s, make([]float64, k), make([]float64, m), nil) })
			require.Equal(t, okC, rc, msg)
			xs[i] = make([]float64, k)
			require.Equal(t, okC, ctest.SolverX(s, int64(k), xs[i]))
			res[i], _ = ctest.SolverResult(s)
			_, steps, bad := q.StepsCalls()
			if mode == 3 {
				assert.Equal(t, epochs, q.VJPCalls(), "flags %d: one vjp per epoch", flags)
				assert.Equal(t, epochs+1, steps, "flags %d: the loop fused", flags)
			}
			assert.Zero(t, bad)
			ctest.SolverFree(s)
			ctest.ProblemFree(p)
			q.Free()
		}
		assert.LessOrEqual(t, relErr(xs[1], xs[0]), 1e-12, "flags %d", flags)
		assert.Equal(t, res[0].HessVecs, res[1].HessVecs)
		assert.Equal(t, res[0].CrossVecs, res[1].CrossVecs)
	}
	q := d.quad(0)
	defer q.Free()
	wantCode(t, "vjp without lower_steps", einval, func() int {
		_, rc := ctest.QuadProblemSteps(q, mx, my, 2, 1, 4)
		return rc
	}, "lower_steps_vjp", "lower_steps")
}

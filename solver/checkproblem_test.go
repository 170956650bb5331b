package solver_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

// crossProblem is g(x, y) = ½‖y − A x‖²_F + ⅓ Σ_ij y_ij³ x_ij for x on
// St(4, 2) and y in R^{4×2}, with Euclidean ∇_y g = y − A x + y∘y∘x,
// ∇_x g = −Aᵀ(y − A x) + ⅓ y∘y∘y, and the cross derivatives
// D_x ∇_y g[u] = −A u + y∘y∘u and D_y ∇_x g[v] = −Aᵀ v + y∘y∘v: each
// depends on the point, and x moves on a curved manifold. scaleYX and
// scaleXY multiply the cross derivatives (1 is right).
func crossProblem(a []float64, scaleYX, scaleXY float64) solver.EuclideanProblem {
	const n, p = 4, 2
	mulA := func(dst, v []float64, trans bool) { // dst = A v or Aᵀ v (A n×n)
		for i := 0; i < n; i++ {
			for j := 0; j < p; j++ {
				var s float64
				for k := 0; k < n; k++ {
					aik := a[i*n+k]
					if trans {
						aik = a[k*n+i]
					}
					s += aik * v[k*p+j]
				}
				dst[i*p+j] = s
			}
		}
	}
	ax := make([]float64, n*p)
	return solver.EuclideanProblem{Mx: stiefel.New(n, p), My: euclid.New(n, p),
		G: func(pt *solver.Point) (float64, error) {
			mulA(ax, pt.X, false)
			var s float64
			for i, y := range pt.Y {
				d := y - ax[i]
				s += 0.5*d*d + y*y*y*pt.X[i]/3
			}
			return s, nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			mulA(ax, pt.X, false)
			for i, y := range pt.Y {
				dst[i] = y - ax[i] + y*y*pt.X[i]
			}
			return nil
		},
		GradGx: func(dst []float64, pt *solver.Point) error {
			mulA(ax, pt.X, false)
			for i, y := range pt.Y {
				ax[i] = y - ax[i]
			}
			mulA(dst, ax, true)
			for i, y := range pt.Y {
				dst[i] = -dst[i] + y*y*y/3
			}
			return nil
		},
		CrossGyx: func(dst []float64, pt *solver.Point, u []float64) error {
			mulA(dst, u, false)
			for i, y := range pt.Y {
				dst[i] = scaleYX * (-dst[i] + y*y*u[i])
			}
			return nil
		},
		CrossGxy: func(dst []float64, pt *solver.Point, v []float64) error {
			mulA(dst, v, true)
			for i, y := range pt.Y {
				dst[i] = scaleXY * (-dst[i] + y*y*v[i])
			}
			return nil
		},
	}
}

// TestCheckProblemCrossGyx: CheckProblem checks CrossGyx against central
// differences of GradGy along a retraction curve in x, and verifies
// CrossGxy through the adjointness when GradGx is absent. Before, CrossGyx
// was only compared with CrossGxy (and not at all without GradGx), so a
// CrossGyx 1% off passed whenever CrossGxy was absent, and a CrossGxy 1%
// off passed whenever GradGx was.
func TestCheckProblemCrossGyx(t *testing.T) {
	rnd := rand.New(rand.NewPCG(61, 61))
	a := make([]float64, 16)
	for i := range a {
		a[i] = rnd.NormFloat64()
	}
	st := stiefel.New(4, 2)
	x, y := make([]float64, 8), make([]float64, 8)
	st.RandPoint(x, rnd)
	for i := range y {
		y[i] = rnd.NormFloat64()
	}
	run := func(e solver.EuclideanProblem) map[string]solver.CheckReport {
		out := map[string]solver.CheckReport{}
		for _, r := range solver.CheckProblem(solver.Euclidean(e), x, y, &solver.ProblemCheck{Seed: 3}) {
			out[strings.SplitN(r.Name, ":", 2)[0]] = r
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		edit    func(e *solver.EuclideanProblem)
		sy, sx  float64
		failing string // the reports that must fail, space-separated
	}{
		{"all right", nil, 1, 1, ""},
		{"CrossGyx right, no CrossGxy", func(e *solver.EuclideanProblem) { e.CrossGxy = nil }, 1, 1, ""},
		{"CrossGyx ×1.01, no CrossGxy", func(e *solver.EuclideanProblem) { e.CrossGxy = nil }, 1.01, 1, "CrossGyx"},
		{"CrossGyx ×1.01, both gradients", nil, 1.01, 1, "CrossGyx CrossGxy"}, // adjointness fails in CrossGxy's
		// Differences of GradGy check CrossGxy on its own too.
		{"CrossGxy ×1.01, no GradGx", func(e *solver.EuclideanProblem) { e.GradGx = nil }, 1, 1.01, "CrossGyx CrossGxy"},
		{"CrossGxy right, no GradGx", func(e *solver.EuclideanProblem) { e.GradGx = nil }, 1, 1, ""},
	} {
		e := crossProblem(a, tc.sy, tc.sx)
		if tc.edit != nil {
			tc.edit(&e)
		}
		reps := run(e)
		if _, ok := reps["CrossGyx"]; !ok {
			t.Fatalf("%s: no CrossGyx report among %v", tc.name, reps)
		}
		for name, r := range reps {
			if want := !strings.Contains(" "+tc.failing+" ", " "+name+" "); r.OK != want {
				t.Errorf("%s: %v (want OK = %v)", tc.name, r, want)
			}
		}
		if tc.sy != 1 && tc.failing == "CrossGyx" && e.CrossGxy == nil {
			r := reps["CrossGyx"]
			if !(r.Slope < 1) {
				t.Errorf("%s: a constant 1%% error should flatten the slope: %v", tc.name, r)
			}
		}
	}
	// Neither gradient: the adjointness alone, which a 1% error fails.
	for _, s := range []float64{1, 1.01} {
		e := crossProblem(a, s, 1)
		e.GradGx, e.GradGy = nil, nil
		reps := run(e)
		r, ok := reps["cross derivatives"]
		if !ok || r.OK != (s == 1) {
			t.Errorf("adjointness alone, CrossGyx ×%v: %v (present %v)", s, r, ok)
		}
	}
}

// TestCheckProblemBadTol: a tolerance out of range is one failed report
// naming it (NaN failed every comparison, +Inf passed every one).
func TestCheckProblemBadTol(t *testing.T) {
	rnd := rand.New(rand.NewPCG(62, 62))
	a := make([]float64, 16)
	for i := range a {
		a[i] = rnd.NormFloat64()
	}
	p := solver.Euclidean(crossProblem(a, 1.01, 1))
	x, y := make([]float64, 8), make([]float64, 8)
	p.Mx.RandPoint(x, rnd)
	p.My.RandPoint(y, rnd)
	for _, tol := range []float64{math.NaN(), math.Inf(1), -1} {
		reps := solver.CheckProblem(p, x, y, &solver.ProblemCheck{Tol: tol})
		if len(reps) != 1 || reps[0].OK || !strings.Contains(reps[0].Msg, "ProblemCheck.Tol") {
			t.Errorf("Tol %v: %v", tol, reps)
		}
	}
}

// TestCheckProblemExact: on a quadratic lower objective the Hessian's
// Taylor remainder is at rounding level at every step; the report says
// so (Exact, "exact to rounding"), never "ok: slope NaN". An objective
// that is NaN everywhere has no finite remainder and fails its gradient
// checks, where it used to pass them as "exact".
func TestCheckProblemExact(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(5)
	p = on(p, mx, my)
	reps := solver.CheckProblem(p, x0, y0, nil)
	exact := 0
	for _, r := range reps {
		s := r.String()
		if !r.OK {
			t.Errorf("%v", r)
		}
		if strings.Contains(s, "NaN") {
			t.Errorf("an ok report with NaN: %s", s)
		}
		if strings.HasPrefix(r.Name, "HessGy: Hessian") {
			exact++
			if !r.Exact || !strings.Contains(s, "exact to rounding") {
				t.Errorf("a quadratic's Hessian check: %s (Exact %v)", s, r.Exact)
			}
		}
	}
	if exact != 1 {
		t.Fatalf("no Hessian report among %v", reps)
	}
	f := p.F
	p.F = func(pt *solver.Point) (float64, error) {
		v, err := f(pt)
		return v * math.NaN(), err
	}
	failed := map[string]bool{}
	for _, r := range solver.CheckProblem(p, x0, y0, nil) {
		if strings.HasPrefix(r.Name, "GradF") {
			failed[r.Name] = !r.OK && !r.Exact && strings.Contains(r.Msg, "not finite")
		}
	}
	if len(failed) != 2 || !failed["GradFx: gradient"] || !failed["GradFy: gradient"] {
		t.Errorf("NaN objective: gradient reports failed as not finite: %v", failed)
	}
}

// TestCheckProblemCrossGxyAlone: CrossGxy, which every estimator but HINV
// uses, is checked with GradGy alone (differences along x, against its
// adjointness), where before it went unchecked and unreported without
// GradGx or CrossGyx; and with no gradient and no CrossGyx, a report
// says that its check did not run, instead of nothing.
func TestCheckProblemCrossGxyAlone(t *testing.T) {
	rnd := rand.New(rand.NewPCG(63, 63))
	a := make([]float64, 16)
	for i := range a {
		a[i] = rnd.NormFloat64()
	}
	x, y := make([]float64, 8), make([]float64, 8)
	stiefel.New(4, 2).RandPoint(x, rnd)
	for i := range y {
		y[i] = rnd.NormFloat64()
	}
	report := func(e solver.EuclideanProblem) solver.CheckReport {
		t.Helper()
		var found []solver.CheckReport
		for _, r := range solver.CheckProblem(solver.Euclidean(e), x, y, &solver.ProblemCheck{Seed: 5}) {
			if strings.HasPrefix(r.Name, "CrossGxy") {
				found = append(found, r)
			}
		}
		require.Len(t, found, 1, "%v", found)
		return found[0]
	}
	for _, s := range []float64{1, 1.01, -1} {
		e := crossProblem(a, 1, s)
		e.GradGx, e.CrossGyx = nil, nil
		r := report(e)
		assert.Equal(t, s == 1, r.OK, "CrossGxy ×%v: %v", s, r)
		assert.Contains(t, r.Name, "differences of GradGy")
		if s == 1 {
			assert.InDelta(t, 2, r.Slope, 0.2, "%v", r)
		}
	}
	e := crossProblem(a, 1, 1)
	e.GradGx, e.CrossGyx, e.GradGy, e.HessGy = nil, nil, nil, nil
	r := report(e)
	assert.False(t, r.OK)
	assert.Contains(t, r.String(), "not run: it needs GradGx or GradGy")
}

// TestCheckProblemLowerSolve: CheckProblem checks that LowerSolve returns
// a stationary point of g(x, ·), from a warm start away from it and from
// the solution itself (where the warm start's gradient is rounding too);
// before, LowerSolve was not checked at all, and 2y* passed. Without
// GradGy the check reports that it did not run.
func TestCheckProblemLowerSolve(t *testing.T) {
	e, p, mx, my, x0, _ := quadSetup(64)
	p = on(p, mx, my)
	ystar := e.ystar(x0)
	away := make([]float64, len(ystar))
	for i := range away {
		away[i] = ystar[i] + 1
	}
	lowerSolve := func(scale float64) func([]float64, *solver.Point) error {
		return func(dst []float64, pt *solver.Point) error {
			for i, v := range e.ystar(pt.X) {
				dst[i] = scale * v
			}
			return nil
		}
	}
	report := func(p solver.Problem, y []float64) solver.CheckReport {
		t.Helper()
		var found []solver.CheckReport
		for _, r := range solver.CheckProblem(p, x0, y, nil) {
			if strings.HasPrefix(r.Name, "LowerSolve") {
				found = append(found, r)
			}
		}
		require.Len(t, found, 1, "%v", found)
		return found[0]
	}
	for _, c := range []struct {
		scale float64
		ok    bool
	}{{1, true}, {2, false}, {1 + 1e-4, false}} {
		p.LowerSolve = lowerSolve(c.scale)
		for _, y := range [][]float64{away, ystar} {
			r := report(p, y)
			assert.Equal(t, c.ok, r.OK, "LowerSolve = %v·y*: %v", c.scale, r)
		}
	}
	p.LowerSolve = lowerSolve(1)
	p.GradGy = nil
	r := report(p, away)
	assert.False(t, r.OK)
	assert.Contains(t, r.String(), "not run: it needs GradGy")
}

// TestCheckProblemBadPoint: a point of the wrong length, not finite or
// off its manifold, and a problem without its manifolds, give one failed
// report with the error Minimize returns, where CheckProblem panicked on
// a wrong-length x.
func TestCheckProblemBadPoint(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(65)
	p = on(p, mx, my)
	nan := append([]float64(nil), y0...)
	nan[1] = math.NaN()
	for _, c := range []struct {
		name string
		p    solver.Problem
		x, y []float64
		want string
	}{
		{"short x", p, x0[:2], y0, "x has length 2, want 4"},
		{"long y", p, x0, append(y0, 1), "y has length 7, want 6"},
		{"NaN in y", p, x0, nan, "y[1] = NaN"},
		{"no manifolds", on(p, nil, nil), x0, y0, "needs both manifolds"},
	} {
		var reps []solver.CheckReport
		require.NotPanics(t, func() { reps = solver.CheckProblem(c.p, c.x, c.y, nil) }, c.name)
		require.Len(t, reps, 1, c.name)
		assert.False(t, reps[0].OK, c.name)
		assert.Contains(t, reps[0].Msg, c.want, c.name)
	}
	q := solver.Euclidean(crossProblem(make([]float64, 16), 1, 1))
	off := make([]float64, 8)
	off[0] = 2 // not orthonormal
	reps := solver.CheckProblem(q, off, make([]float64, 8), nil)
	require.Len(t, reps, 1)
	assert.Contains(t, reps[0].Msg, "bad initial point: x")
}

// Package problemtest is the conformance suite every rhgd problem runs,
// and the one to run on a bilevel problem you write yourself: the
// counterpart of package manifoldtest (and of gonum's optimize/functions
// checks).
//
// Run calls solver.CheckProblem on every oracle the problem has, at a
// lower point away from the solution and at a critical one, which it
// finds itself when Config.YStar is nil: gradients by the Taylor slope of
// their objective along the retraction, Hessian and cross-derivative
// products by the slope of the gradient they differentiate (and CrossGxy
// through its adjoint, the difference of GradGy along x, when there is
// no GradGx), the inverse Hessian against the Hessian both ways,
// LowerSolve for a point where the lower gradient vanishes, and answers
// cached by point identity (Memo) against fresh ones. A check that
// cannot run (an oracle with nothing to check it against) fails, saying
// so.
// solver.CheckProblem stays the in-process check (it returns reports
// instead of failing a test).
//
// In your package's test file:
//
//	func TestConformance(t *testing.T) {
//		p, x, y := myProblem()
//		problemtest.Run(t, p, problemtest.Config{X: x, Y: y, EtaY: 0.1, Seed: 1})
//	}
package problemtest

import (
	"testing"

	"github.com/rhgd/rhgd/solver"
)

// Config says where to check a problem.
type Config struct {
	// X is the upper point and Y a lower point that is not critical.
	X, Y []float64
	// YStar is a critical point of g(X, ·); nil means: found from Y by
	// damped Newton steps when HessGyInv is present, by gradient steps of
	// size EtaY otherwise.
	YStar []float64
	EtaY  float64
	// SecondOrderY, Tol and Seed are passed to solver.CheckProblem.
	SecondOrderY bool
	Tol          float64
	Seed         uint64
}

// Run checks p at (X, Y) and at (X, y*) and fails t on every check that
// does not pass.
func Run(t *testing.T, p solver.Problem, c Config) {
	t.Helper()
	check := func(t *testing.T, y []float64, critical bool) {
		t.Helper()
		reps := solver.CheckProblem(p, c.X, y, &solver.ProblemCheck{Seed: c.Seed, Tol: c.Tol, SecondOrderY: c.SecondOrderY, Critical: critical})
		if len(reps) == 0 {
			t.Fatal("no oracle to check")
		}
		for _, r := range reps {
			if !r.OK {
				t.Error(r)
			} else {
				t.Log(r)
			}
		}
	}
	if p.Mx == nil || p.My == nil || p.GradGy == nil {
		t.Fatal("problemtest: the problem needs Mx, My and GradGy")
	}
	if len(c.X) != p.Mx.Len() || len(c.Y) != p.My.Len() {
		t.Fatalf("problemtest: X has length %d and Y %d, want %d and %d", len(c.X), len(c.Y), p.Mx.Len(), p.My.Len())
	}
	g := make([]float64, p.My.Len())
	if err := p.GradGy(g, &solver.Point{X: c.X, Y: c.Y}); err != nil {
		t.Fatal(err)
	}
	if n := p.My.Norm(c.Y, g); !(n > 1e-6) {
		t.Fatalf("Y is (nearly) critical: ‖grad_y g‖ = %.3g", n)
	}
	t.Run("noncritical", func(t *testing.T) { check(t, c.Y, false) })
	ystar := c.YStar
	if ystar == nil {
		ystar = solveLower(t, p, c.X, c.Y, c.EtaY)
	}
	t.Run("critical", func(t *testing.T) { check(t, ystar, true) })
}

// solveLower returns y* with ‖grad_y g(x, y*)‖ ≤ 1e−12·max(1, ‖grad_y g(x, y0)‖).
func solveLower(t *testing.T, p solver.Problem, x, y0 []float64, eta float64) []float64 {
	t.Helper()
	my := p.My
	y, next := append([]float64(nil), y0...), make([]float64, len(y0))
	g, s := make([]float64, len(y0)), make([]float64, len(y0))
	norm := func(y []float64) float64 {
		if err := p.GradGy(g, &solver.Point{X: x, Y: y}); err != nil {
			t.Fatal(err)
		}
		return my.Norm(y, g)
	}
	n := norm(y)
	tol := 1e-12 * max(1, n)
	for it := 0; it < 20000 && n > tol; it++ {
		step := eta
		if p.HessGyInv != nil {
			if err := p.HessGyInv(s, &solver.Point{X: x, Y: y}, g); err != nil {
				t.Fatal(err)
			}
			step = 1
		} else {
			if eta <= 0 {
				t.Fatal("problemtest: EtaY is needed without HessGyInv")
			}
			copy(s, g)
		}
		for k := 0; ; k++ { // halve a Newton step until the gradient falls; g follows the accepted point
			if err := my.Retract(next, y, s, -step); err == nil {
				if nn := norm(next); nn < n || p.HessGyInv == nil {
					copy(y, next)
					n = nn
					break
				}
			}
			if step /= 2; k == 40 {
				t.Fatalf("problemtest: no descent at ‖grad‖ = %.3g", n)
			}
		}
	}
	if n > tol {
		t.Fatalf("problemtest: lower solve stopped at ‖grad_y g‖ = %.3g", n)
	}
	return y
}

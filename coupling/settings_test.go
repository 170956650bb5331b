package coupling_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/numerr"
)

// TestBadSettings: every setting out of range is an error wrapping
// ErrBadSetting and numerr.ErrInvalid that names it, from CheckSettings,
// Retract and CheckPoint, and a panic with that error from Project. The
// first case is the probe that found the defect: a NaN Sinkhorn.Tol passed
// the `tol ≤ 0` default test, failed every `err ≤ tol` stopping test, and
// Retract returned a plan whose marginals were off by 0.2 with a nil error.
func TestBadSettings(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 21))
	a, b := marginals(rnd, 3, 4)
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name string
		set  func(c *coupling.Coupling)
		cg   bool // Project panics
	}{
		{"Sinkhorn.Tol", func(c *coupling.Coupling) { c.Sinkhorn = coupling.SinkhornSettings{MaxIter: 1, Tol: nan} }, false},
		{"Sinkhorn.Tol", func(c *coupling.Coupling) { c.Sinkhorn.Tol = inf }, false},
		{"Sinkhorn.Tol", func(c *coupling.Coupling) { c.Sinkhorn.Tol = -1e-13 }, false},
		{"Sinkhorn.MaxIter", func(c *coupling.Coupling) { c.Sinkhorn.MaxIter = -1 }, false},
		{"CG.Tol", func(c *coupling.Coupling) { c.CG.Tol = nan }, true},
		{"CG.Tol", func(c *coupling.Coupling) { c.CG.Tol = inf }, true},
		{"CG.Tol", func(c *coupling.Coupling) { c.CG.Tol = -1 }, true},
		{"CG.MaxIter", func(c *coupling.Coupling) { c.CG.MaxIter = -5 }, true},
		{"Tol", func(c *coupling.Coupling) { c.Tol = nan }, false},
		{"Tol", func(c *coupling.Coupling) { c.Tol = math.Inf(-1) }, false},
		{"Tol", func(c *coupling.Coupling) { c.Tol = -1e-10 }, false},
	} {
		c, err := coupling.New(a, b)
		if err != nil {
			t.Fatal(err)
		}
		x, u, y := make([]float64, 12), make([]float64, 12), make([]float64, 12)
		c.RandPoint(x, rnd)
		c.RandTangent(u, x, rnd)
		tc.set(c)
		named := func(what string, err error) {
			t.Helper()
			if !errors.Is(err, coupling.ErrBadSetting) || !errors.Is(err, numerr.ErrInvalid) || !strings.Contains(err.Error(), tc.name+" = ") {
				t.Errorf("%s: %s with %+v %+v Tol %v: %v, want ErrBadSetting naming %s", tc.name, what, c.Sinkhorn, c.CG, c.Tol, err, tc.name)
			}
		}
		named("CheckSettings", c.CheckSettings())
		named("Retract", c.Retract(y, x, u, 2))
		named("CheckPoint", c.CheckPoint(x))
		named("CheckTangent", c.CheckTangent(x, u))
		func() {
			defer func() {
				r := recover()
				if !tc.cg {
					if r != nil {
						t.Errorf("%s: Project panicked: %v", tc.name, r)
					}
					return
				}
				err, _ := r.(error)
				named("Project's panic", err)
			}()
			c.Project(y, x, u)
		}()
	}
	// Zero values take the defaults, and valid settings work.
	c, _ := coupling.New(a, b)
	x, u, y := make([]float64, 12), make([]float64, 12), make([]float64, 12)
	c.RandPoint(x, rnd)
	c.RandTangent(u, x, rnd)
	for _, s := range []coupling.SinkhornSettings{{}, {MaxIter: 500, Tol: 1e-12}} {
		c.Sinkhorn = s
		c.CG = coupling.CGSettings{MaxIter: 100, Tol: 1e-13}
		if err := c.CheckSettings(); err != nil {
			t.Fatal(err)
		}
		if err := c.Retract(y, x, u, 2); err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		if err := c.CheckPoint(y); err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
	}
}

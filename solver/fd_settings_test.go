package solver_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// TestFillFDBadStep: a NaN, infinite or negative step makes the filled
// oracles return an error naming it (a `h ≤ 0` default test let NaN
// through to NaN differences; a negative h became the default silently),
// and zero still means DefaultFDStep.
func TestFillFDBadStep(t *testing.T) {
	_, p, mx, my, x, _ := quadSetup(7)
	q := on(p, mx, my)
	q.HessGy, q.CrossGxy = nil, nil
	y := []float64{1, -1, 0.5, 0, 0.2, 2}
	v := []float64{0.3, 0.1, -0.2, 0.5, 1, -1}
	hv, cv := make([]float64, 6), make([]float64, 4)
	for _, h := range []float64{math.NaN(), math.Inf(1), -1e-5} {
		f := solver.FillFD(q, h)
		for name, err := range map[string]error{
			"HessGy":   f.HessGy(hv, at(x, y), v),
			"CrossGxy": f.CrossGxy(cv, at(x, y), v),
		} {
			if !errors.Is(err, solver.ErrBadSetting) || !errors.Is(err, numerr.ErrInvalid) || !strings.Contains(err.Error(), "FillFD step h = ") {
				t.Errorf("h = %v: %s returned %v, want ErrBadSetting naming h", h, name, err)
			}
		}
	}
	f := solver.FillFD(q, 0)
	must(t, f.HessGy(hv, at(x, y), v))
	exact := make([]float64, 6)
	must(t, p.HessGy(exact, at(x, y), v))
	for i := range hv {
		if math.Abs(hv[i]-exact[i]) > 1e-7*(1+math.Abs(exact[i])) {
			t.Fatalf("h = 0 (default): FD Hessian %v, exact %v", hv, exact)
		}
	}
}

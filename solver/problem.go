package solver

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/numerr"
)

// Problem is the bilevel problem
//
//	min_{x ∈ Mx} F(x) = f(x, y*(x)),   y*(x) = argmin_{y ∈ My} g(x, y),
//
// with g geodesically strongly convex in y, given by Riemannian oracles.
// Each field is a function writing its output into dst (output first, as in
// gonum's optimize); none may modify its other arguments or keep them. A nil
// field means "not available": Estimators say which they need, and the
// solver fills HessGy and CrossGxy by finite differences of gradients when
// they are missing (see Settings.FDStep).
type Problem struct {
	// F returns the upper objective f(x, y).
	F func(x, y []float64) float64
	// GradFx sets dst ∈ T_x to the Riemannian gradient of f in x.
	GradFx func(dst, x, y []float64)
	// GradFy sets dst ∈ T_y to the Riemannian gradient of f in y.
	GradFy func(dst, x, y []float64)

	// G returns the lower objective g(x, y); optional, for reporting.
	G func(x, y []float64) float64
	// GradGy sets dst ∈ T_y to the Riemannian gradient of g in y.
	GradGy func(dst, x, y []float64)
	// GradGx sets dst ∈ T_x to the Riemannian gradient of g in x; needed
	// only to fill CrossGxy by finite differences.
	GradGx func(dst, x, y []float64)
	// HessGy sets dst ∈ T_y to the Riemannian Hessian of g in y applied to
	// v ∈ T_y.
	HessGy func(dst, x, y, v []float64)
	// CrossGxy sets dst ∈ T_x to the cross derivative
	// G_xy g[v] = D_y grad_x g(x, y)[v] for v ∈ T_y.
	CrossGxy func(dst, x, y, v []float64)
	// CrossGyx sets dst ∈ T_y to G_yx g[u] = D_x grad_y g(x, y)[u] for
	// u ∈ T_x, the adjoint of CrossGxy; optional, for checks.
	CrossGyx func(dst, x, y, u []float64)
	// HessGyInv sets dst ∈ T_y to H_y g(x, y)⁻¹[v], for the HINV estimator.
	HessGyInv func(dst, x, y, v []float64) error
}

// Errors of problem set-up.
var (
	// ErrMissing signifies a problem without an oracle that the estimator
	// or the solver needs.
	ErrMissing = numerr.New(numerr.ErrInvalid, "solver: missing oracle")
	// ErrBadStart signifies an initial point of the wrong size, not finite
	// or not on its manifold.
	ErrBadStart = numerr.New(numerr.ErrInvalid, "solver: bad initial point")
)

// need returns an error wrapping ErrMissing naming every nil field listed.
func (p *Problem) need(names ...string) error {
	var missing []string
	for _, n := range names {
		absent := false
		switch n {
		case "F":
			absent = p.F == nil
		case "GradFx":
			absent = p.GradFx == nil
		case "GradFy":
			absent = p.GradFy == nil
		case "GradGy":
			absent = p.GradGy == nil
		case "GradGx":
			absent = p.GradGx == nil
		case "HessGy":
			absent = p.HessGy == nil
		case "CrossGxy":
			absent = p.CrossGxy == nil
		case "HessGyInv":
			absent = p.HessGyInv == nil
		}
		if absent {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %v", ErrMissing, missing)
	}
	return nil
}

// checkStart validates an initial point on m.
func checkStart(name string, m Manifold, x []float64) error {
	if len(x) != m.Len() {
		return fmt.Errorf("%w: %s has length %d, want %d", ErrBadStart, name, len(x), m.Len())
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d] = %v", ErrBadStart, name, i, v)
		}
	}
	if err := m.CheckPoint(x); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrBadStart, name, err)
	}
	return nil
}

package solver

import "math"

// DefaultFDStep is the default step of the finite differences that stand
// in for missing second-order oracles: ε^⅓ balances the O(h²) error of a
// central difference against its O(ε/h) rounding.
var DefaultFDStep = math.Cbrt(0x1p-52)

// fdFill sets p.HessGy and p.CrossGxy, where nil, to central finite
// differences of p.GradGy and p.GradGx along retraction curves c(t) =
// R_y(tv) of step h (relative to ‖v‖). With D the difference quotient
// (q(c(h)) − q(c(−h)))/2h, which is the ambient derivative along v to
// O(h²) for any retraction,
//
//	G_xy g[v] ≈ D grad_x g(x, ·), both terms in T_x: no transport;
//	H_y g[v]  ≈ P_y(D grad_y g(x, ·)) + Γ_y(v, grad_y g(x, y))
//
// when my is a Connection (SPD, the coupling manifold): the Levi-Civita
// connection itself, exact to O(h²). Otherwise the Hessian is the
// difference of gradients transported back to y by my.Transport, exact to
// O(h²) for submanifolds with the induced metric (Euclidean space,
// Stiefel), whose transport is the projection; for other metrics it would
// be off by a term linear in grad_y g, as Manopt's getHessianFD is away
// from critical points. A failed retraction yields NaN, which the solver
// reports.
func fdFill(p *Problem, mx, my Manifold, h float64) {
	if h <= 0 {
		h = DefaultFDStep
	}
	yp, ym := make([]float64, my.Len()), make([]float64, my.Len())
	gp, gm := make([]float64, my.Len()), make([]float64, my.Len())
	xp, xm := make([]float64, mx.Len()), make([]float64, mx.Len())
	// bracket sets yp, ym = R_y(±tv) with t = h/‖v‖ and returns t; it
	// returns 0 after setting dst when there is nothing to difference: zero
	// for v = 0, NaN for a failed retraction.
	bracket := func(dst, y, v []float64) float64 {
		nv := my.Norm(y, v)
		if nv == 0 {
			clear(dst)
			return 0
		}
		t := h / nv
		if my.Retract(yp, y, v, t) != nil || my.Retract(ym, y, v, -t) != nil {
			nanFill(dst)
			return 0
		}
		return t
	}
	conn, hasConn := my.(Connection)
	g0 := make([]float64, my.Len())
	if p.HessGy == nil && p.GradGy != nil {
		grad := p.GradGy
		p.HessGy = func(dst, x, y, v []float64) {
			t := bracket(dst, y, v)
			if t == 0 {
				return
			}
			grad(gp, x, yp)
			grad(gm, x, ym)
			if !hasConn {
				my.Transport(gp, yp, y, gp)
				my.Transport(gm, ym, y, gm)
			}
			for i := range dst {
				dst[i] = (gp[i] - gm[i]) / (2 * t)
			}
			my.Project(dst, y, dst)
			if hasConn {
				grad(g0, x, y)
				conn.ConnectionTerm(gp, y, v, g0)
				for i := range dst {
					dst[i] += gp[i]
				}
			}
		}
	}
	if p.CrossGxy == nil && p.GradGx != nil {
		grad := p.GradGx
		p.CrossGxy = func(dst, x, y, v []float64) {
			t := bracket(dst, y, v)
			if t == 0 {
				return
			}
			grad(xp, x, yp)
			grad(xm, x, ym)
			for i := range dst {
				dst[i] = (xp[i] - xm[i]) / (2 * t)
			}
		}
	}
}

// FillFD returns p with HessGy and CrossGxy, where nil, filled by central
// differences of GradGy and GradGx of relative step h (zero:
// DefaultFDStep), as New does; see there for their accuracy. The filled
// oracles share scratch space: use them from one goroutine.
func FillFD(p Problem, mx, my Manifold, h float64) Problem {
	fdFill(&p, mx, my, h)
	return p
}

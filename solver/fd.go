package solver

import (
	"fmt"
	"math"
	"strings"

	"github.com/rhgd/rhgd/numerr"
)

// DefaultFDStep is the default step of the finite differences that stand
// in for missing second-order oracles: ε^⅓ balances the O(h²) error of a
// central difference against its O(ε/h) rounding.
var DefaultFDStep = math.Cbrt(0x1p-52)

// FillFD returns p with HessGy and CrossGxy, where nil, filled by central
// differences of p.GradGy and p.GradGx along retraction curves c(t) =
// R_y(tv) of step h relative to ‖v‖ (zero: DefaultFDStep), as New does.
// With D the difference quotient (q(c(h)) − q(c(−h)))/2h, which is the
// ambient derivative along v to O(h²) for any retraction,
//
//	G_xy g[v] ≈ D grad_x g(x, ·), both terms in T_x: no transport;
//	H_y g[v]  ≈ P_y(D grad_y g(x, ·)) + Γ_y(v, grad_y g(x, y))
//
// when My is a Connection (SPD, the coupling manifold, a product): the
// Levi-Civita connection itself, exact to O(h²). Otherwise the Hessian is
// the difference of gradients transported back to y by My.Transport,
// exact to O(h²) for submanifolds with the induced metric (Euclidean
// space, Stiefel), whose transport is the projection; for other metrics it
// would be off by a term linear in grad_y g, as Manopt's getHessianFD is
// away from critical points.
//
// The perturbed points get fresh identities and keep x's and the batch's,
// so a problem's caches of x-only work stay valid; grad_y g at y itself
// (for Γ) is kept per point. A failed retraction or gradient is an error
// naming the difference and the gradient. The filled oracles share scratch space: use them
// from one goroutine. FillFD has no error result, so an h that is NaN,
// infinite or negative makes every filled oracle return an error wrapping
// ErrBadSetting that names it (New checks Settings.FDStep up front).
func FillFD(p Problem, h float64) Problem {
	if h == 0 {
		h = DefaultFDStep
	}
	fillH, fillC := p.fillable(OracleHessGy), p.fillable(OracleCrossGxy)
	if p.Mx == nil || p.My == nil || !fillH && !fillC {
		return p
	}
	mx, my := p.Mx, p.My
	fd := &fdState{my: my, h: h, pp: Point{Y: make([]float64, my.Len())}, pm: Point{Y: make([]float64, my.Len())}}
	if fillH {
		grad := p.GradGy
		gp, gm := make([]float64, my.Len()), make([]float64, my.Len())
		conn, hasConn := my.(Connection)
		g0, g0Memo := make([]float64, my.Len()), Memo{On: OnX | OnY | OnBatch}
		p.HessGy = func(dst []float64, pt *Point, v []float64) error {
			t, err := fd.bracket(dst, pt, v)
			if t == 0 || err != nil {
				return err
			}
			if err := grad(gp, &fd.pp); err != nil {
				return numerr.Errorf("finite-difference Hessian: %v: %w", OracleGradGy, err)
			}
			if err := grad(gm, &fd.pm); err != nil {
				return numerr.Errorf("finite-difference Hessian: %v: %w", OracleGradGy, err)
			}
			y := pt.Y
			if !hasConn {
				my.Transport(gp, fd.pp.Y, y, gp)
				my.Transport(gm, fd.pm.Y, y, gm)
			}
			for i := range dst {
				dst[i] = (gp[i] - gm[i]) / (2 * t)
			}
			my.Project(dst, y, dst)
			if hasConn {
				if !g0Memo.Valid(pt) {
					g0Memo.Reset()
					if err := grad(g0, pt); err != nil {
						return numerr.Errorf("finite-difference Hessian: %v: %w", OracleGradGy, err)
					}
					g0Memo.Store(pt)
				}
				conn.ConnectionTerm(gp, y, v, g0)
				for i := range dst {
					dst[i] += gp[i]
				}
			}
			return nil
		}
	}
	if fillC {
		grad := p.GradGx
		xp, xm := make([]float64, mx.Len()), make([]float64, mx.Len())
		p.CrossGxy = func(dst []float64, pt *Point, v []float64) error {
			t, err := fd.bracket(dst, pt, v)
			if t == 0 || err != nil {
				return err
			}
			if err := grad(xp, &fd.pp); err != nil {
				return numerr.Errorf("finite-difference cross derivative: %v: %w", OracleGradGx, err)
			}
			if err := grad(xm, &fd.pm); err != nil {
				return numerr.Errorf("finite-difference cross derivative: %v: %w", OracleGradGx, err)
			}
			for i := range dst {
				dst[i] = (xp[i] - xm[i]) / (2 * t)
			}
			return nil
		}
	}
	return p
}

// fdFills lists the oracles FillFD fills and the gradient whose
// differences stand in for each. FillFD reads it to decide what to fill,
// and a missing-oracle error reads it to say which gradient would have
// let rhgd fill the oracle.
var fdFills = [...]struct{ oracle, from Oracle }{
	{OracleHessGy, OracleGradGy},
	{OracleCrossGxy, OracleGradGx},
}

// fillable reports whether FillFD fills the oracle o of p: it is missing
// and the gradient it is a difference of is there.
func (p *Problem) fillable(o Oracle) bool {
	for _, f := range fdFills {
		if f.oracle == o {
			return !p.Has(o) && p.Has(f.from)
		}
	}
	return false
}

// fdHint returns, for each of the missing oracles that FillFD could
// fill, the gradient that would let it ("" when none): the cheapest fix
// of a missing-oracle error.
func fdHint(missing Oracles) error {
	var format strings.Builder
	var args []any
	for _, f := range fdFills {
		if missing.Has(f.oracle) {
			format.WriteString("; %v: give it, or give %v and rhgd fills %v by finite differences (FillFD)")
			args = append(args, f.oracle, f.from, f.oracle)
		}
	}
	return numerr.Errorf(format.String(), args...)
}

// fdState holds the perturbed points R_y(±tv) of the differences.
type fdState struct {
	my     Manifold
	h      float64
	pp, pm Point
}

// bracket sets fd.pp, fd.pm to (x, R_y(±tv)) with t = h/‖v‖, fresh
// identities and pt's x and batch, and returns t. It returns t = 0 after
// clearing dst when v = 0 (nothing to difference), and an error when a
// retraction fails.
func (fd *fdState) bracket(dst []float64, pt *Point, v []float64) (float64, error) {
	if !(fd.h > 0 && fd.h <= math.MaxFloat64) {
		// A `h ≤ 0` default test let NaN through: NaN differences, or
		// with a clean gradient a NaN Hessian, and no error.
		return 0, fmt.Errorf("%w: FillFD step h = %v, want finite and > 0 (0: DefaultFDStep)", ErrBadSetting, fd.h)
	}
	nv := fd.my.Norm(pt.Y, v)
	if nv == 0 {
		clear(dst)
		return 0, nil
	}
	if math.IsNaN(nv) || math.IsInf(nv, 0) {
		return 0, fmt.Errorf("finite difference: direction with norm %v", nv)
	}
	t := fd.h / nv
	if err := fd.perturb(&fd.pp, pt, v, t); err != nil {
		return 0, err
	}
	if err := fd.perturb(&fd.pm, pt, v, -t); err != nil {
		return 0, err
	}
	return t, nil
}

// perturb sets q to (x, R_y(s·v)) with pt's x and batch and a fresh y
// identity.
func (fd *fdState) perturb(q, pt *Point, v []float64, s float64) error {
	q.X, q.XID, q.Batch, q.BatchID = pt.X, pt.XID, pt.Batch, pt.BatchID
	q.YID = NewID()
	if err := fd.my.Retract(q.Y, pt.Y, v, s); err != nil {
		return fmt.Errorf("finite difference: retraction R_y(%.3g·v): %w", s, err)
	}
	return nil
}

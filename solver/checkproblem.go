package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// ProblemCheck tunes CheckProblem. The zero value works.
type ProblemCheck struct {
	// Seed seeds the random tangent directions.
	Seed uint64
	// Tol is the relative tolerance of the comparisons that are not
	// Taylor slopes: H(H⁻¹v) = v, the Hessian against its finite
	// difference, and the adjointness of the cross derivatives; finite and
	// ≥ 0, default 1e-6 (zero). Out of range, CheckProblem returns one
	// failed report naming it.
	Tol float64
	// SecondOrderY says My's retraction is of second order. Without it
	// and without an exponential map, the Taylor test of HessGy runs only
	// at a critical point of g (where any retraction will do), and
	// elsewhere the Hessian is checked against finite differences only.
	SecondOrderY bool
	// Critical says y is a critical point of g(x, ·).
	Critical bool
}

// CheckProblem checks every oracle of p that is present at (x, y), the
// counterpart for problems of what the manifold suite does for
// manifolds: each gradient by the Taylor slope of its objective (GradFx,
// GradFy; GradGy and GradGx when G is present), HessGy by its Taylor
// slope (see ProblemCheck.SecondOrderY), its symmetry and tangency, and
// against the finite differences of GradGy with the Levi-Civita
// connection (FillFD), CrossGxy against the central difference of GradGx
// along a retraction curve in y, CrossGyx against that of GradGy along a
// retraction curve in x (CheckCrossDerivative with the roles of x and y
// swapped: y stays fixed, so grad_y g stays in T_y and needs no
// transport), each by the t² slope of its error, and the adjointness
// ⟨G_xy[v], u⟩_x = ⟨v, G_yx[u]⟩_y in each of those reports (with neither
// gradient the adjointness has a report of its own). Without GradGx,
// CrossGxy is also checked on its own, through that adjointness with the
// central difference of GradGy along x (the slope of the scalar's
// error). HessGyInv is checked against HessGy both ways, HessGyBatch
// against HessGy row by row (three vectors); LowerSolve, from
// the warm start y, for a point of My where ‖grad_y g‖_F is at most Tol
// times the gradient's scale (the larger of its value at y and ‖y*‖_F
// times g's curvature there, measured by a difference of GradGy, so that
// the check also holds at a critical y); and evaluations by point
// identity (Memo caches) against fresh ones, whatever was evaluated in
// between. An oracle that returns an error fails its check, and a check
// that cannot run for want of another oracle (LowerSolve or CrossGxy
// without any gradient to measure them by) fails with a report saying
// "not run" and why: no present oracle passes unchecked. It returns one
// report per check; all must be OK.
//
// A problem without its manifolds, or a point of the wrong length, not
// finite or off its manifold, gives one failed report saying so (the
// error Minimize would return, ErrBadSetting or ErrBadStart).
func CheckProblem(p Problem, x, y []float64, o *ProblemCheck) []CheckReport {
	var opt ProblemCheck
	if o != nil {
		opt = *o
	}
	if !(opt.Tol >= 0 && opt.Tol <= math.MaxFloat64) {
		// NaN would fail every comparison and +Inf pass every one: a
		// `Tol == 0` default test let both through.
		return []CheckReport{{Name: "ProblemCheck settings", Slope: math.NaN(),
			Msg: fmt.Sprintf("%v: ProblemCheck.Tol = %v, want finite and ≥ 0 (0: default 1e-6)", ErrBadSetting, opt.Tol)}}
	}
	if opt.Tol == 0 {
		opt.Tol = 1e-6
	}
	// Outside data, as for Minimize: an error, not a panic deep inside an
	// oracle or a manifold operation.
	err := p.check()
	if err == nil {
		err = checkStart("x", p.Mx, x)
	}
	if err == nil {
		err = checkStart("y", p.My, y)
	}
	if err != nil {
		return []CheckReport{{Name: "ProblemCheck point", Slope: math.NaN(), Msg: err.Error()}}
	}
	c := &problemChecker{p: p, x: x, y: y, o: opt}
	rnd := rand.New(rand.NewPCG(opt.Seed, 0x9e37))
	mx, my := p.Mx, p.My
	c.ux, c.ux2, c.uy, c.uy2 = make([]float64, mx.Len()), make([]float64, mx.Len()), make([]float64, my.Len()), make([]float64, my.Len())
	mx.RandTangent(c.ux, x, rnd)
	mx.RandTangent(c.ux2, x, rnd)
	my.RandTangent(c.uy, y, rnd)
	my.RandTangent(c.uy2, y, rnd)

	if p.F != nil && p.GradFx != nil {
		c.add("GradFx", CheckGradient(mx, c.inX(p.F), c.gradX(p.GradFx), x, c.ux))
	}
	if p.F != nil && p.GradFy != nil {
		c.add("GradFy", CheckGradient(my, c.inY(p.F), c.gradY(p.GradFy), y, c.uy))
	}
	if p.G != nil && p.GradGy != nil {
		c.add("GradGy", CheckGradient(my, c.inY(p.G), c.gradY(p.GradGy), y, c.uy))
	}
	if p.G != nil && p.GradGx != nil {
		c.add("GradGx", CheckGradient(mx, c.inX(p.G), c.gradX(p.GradGx), x, c.ux))
	}
	if p.HessGy != nil && p.GradGy != nil {
		c.checkHess()
	}
	c.checkCross()
	if p.HessGyInv != nil && p.HessGy != nil {
		c.checkInverse()
	}
	if p.HessGyBatch != nil {
		c.checkBatch(rnd)
	}
	if p.LowerSolve != nil {
		c.checkLowerSolve(rnd)
	}
	c.checkCaches()
	return c.reports
}

// notRun appends a failed report for a check that could not run, saying
// why: a present oracle is never passed unchecked.
func (c *problemChecker) notRun(name, why string) {
	c.add(name, CheckReport{Slope: math.NaN(), Msg: "not run: " + why})
}

// problemChecker holds CheckProblem's state.
type problemChecker struct {
	p                Problem
	x, y             []float64
	o                ProblemCheck
	ux, ux2, uy, uy2 []float64
	reports          []CheckReport
	errs             []string // oracle errors since the last report
}

// call records an oracle's error.
func (c *problemChecker) call(name string, err error) {
	if err != nil {
		c.errs = append(c.errs, fmt.Sprintf("%s: %v", name, err))
	}
}

// add appends r under name, failing it on the oracle errors seen.
func (c *problemChecker) add(name string, r CheckReport) {
	if r.Name != "" {
		name += ": " + r.Name
	}
	r.Name = name
	if len(c.errs) > 0 {
		r.OK = false
		r.Msg = fmt.Sprintf("%s; oracle errors: %v", r.Msg, c.errs)
		c.errs = nil
	}
	c.reports = append(c.reports, r)
}

// result appends a report of relative errors against tol.
func (c *problemChecker) result(name string, residuals map[string]float64, tol float64) {
	r := CheckReport{Slope: math.NaN(), Residuals: residuals, OK: true}
	for k, v := range residuals {
		if !(v <= tol) {
			r.OK = false
			r.Msg += fmt.Sprintf("%s %.3g > %.3g; ", k, v, tol)
		}
	}
	c.add(name, r)
}

func (c *problemChecker) value(name string, f func(*Point) (float64, error), pt *Point) float64 {
	v, err := f(pt)
	c.call(name, err)
	return v
}

func (c *problemChecker) inX(f func(*Point) (float64, error)) func([]float64) float64 {
	return func(xx []float64) float64 { return c.value("objective", f, &Point{X: xx, Y: c.y}) }
}

func (c *problemChecker) inY(f func(*Point) (float64, error)) func([]float64) float64 {
	return func(yy []float64) float64 { return c.value("objective", f, &Point{X: c.x, Y: yy}) }
}

func (c *problemChecker) gradX(g func([]float64, *Point) error) func(dst, x []float64) {
	return func(dst, xx []float64) { c.call("gradient", g(dst, &Point{X: xx, Y: c.y})) }
}

func (c *problemChecker) gradY(g func([]float64, *Point) error) func(dst, y []float64) {
	return func(dst, yy []float64) { c.call("gradient", g(dst, &Point{X: c.x, Y: yy})) }
}

func (c *problemChecker) cross(f func([]float64, *Point, []float64) error) func(dst, x, y, v []float64) {
	return func(dst, xx, yy, v []float64) { c.call("cross derivative", f(dst, &Point{X: xx, Y: yy}, v)) }
}

// checkHess checks HessGy by its Taylor slope where that is valid, and
// against the connection-exact finite difference of GradGy.
func (c *problemChecker) checkHess() {
	p, my := c.p, c.p.My
	hess := func(dst, yy, v []float64) { c.call("HessGy", p.HessGy(dst, &Point{X: c.x, Y: yy}, v)) }
	_, hasExp := AsExper(my)
	if p.G != nil && (hasExp || c.o.SecondOrderY || c.o.Critical) {
		c.add("HessGy", CheckHessian(my, c.inY(p.G), c.gradY(p.GradGy), hess, c.y, c.uy, c.uy2))
	}
	exact, fd := make([]float64, my.Len()), make([]float64, my.Len())
	hess(exact, c.y, c.uy)
	q := FillFD(Problem{Mx: p.Mx, My: my, GradGy: p.GradGy}, 0)
	c.call("GradGy", q.HessGy(fd, &Point{X: c.x, Y: c.y}, c.uy))
	hv := make([]float64, my.Len())
	hess(hv, c.y, c.uy2)
	a, b := my.Inner(c.y, exact, c.uy2), my.Inner(c.y, c.uy, hv)
	c.result("HessGy: finite differences and symmetry", map[string]float64{
		"vs differences": diffNorm(fd, exact) / (frob(exact) + tiny),
		"symmetry":       math.Abs(a-b) / (my.Norm(c.y, exact) + my.Norm(c.y, hv) + tiny),
		"tangency":       tangency(my, c.y, exact, fd),
	}, c.o.Tol)
}

// checkCross checks CrossGxy against differences of GradGx in y and
// CrossGyx against differences of GradGy in x, each report with the
// adjointness of the two when both are present, or the adjointness alone
// when neither gradient is there to difference.
func (c *problemChecker) checkCross() {
	p, mx, my := c.p, c.p.Mx, c.p.My
	xy := p.CrossGxy != nil && p.GradGx != nil
	yx := p.CrossGyx != nil && p.GradGy != nil
	if xy {
		var adj func(dst, x, y, u []float64)
		if p.CrossGyx != nil {
			adj = c.cross(p.CrossGyx)
		}
		r := CheckCrossDerivative(mx, my, func(dst, xx, yy []float64) { c.call("GradGx", p.GradGx(dst, &Point{X: xx, Y: yy})) },
			c.cross(p.CrossGxy), adj, c.x, c.y, c.ux, c.uy)
		c.add("CrossGxy", r)
	}
	if yx {
		// Roles swapped: the "x" of CheckCrossDerivative is y, its
		// difference runs along R_x(±t·ux) with y fixed.
		swap := func(f func([]float64, *Point, []float64) error) func(dst, yy, xx, v []float64) {
			return func(dst, yy, xx, v []float64) { c.call("cross derivative", f(dst, &Point{X: xx, Y: yy}, v)) }
		}
		var adj func(dst, y, x, u []float64)
		if p.CrossGxy != nil {
			adj = swap(p.CrossGxy)
		}
		r := CheckCrossDerivative(my, mx, func(dst, yy, xx []float64) { c.call("GradGy", p.GradGy(dst, &Point{X: xx, Y: yy})) },
			swap(p.CrossGyx), adj, c.y, c.x, c.uy, c.ux)
		c.add("CrossGyx", r)
	}
	if p.CrossGxy != nil && p.GradGx == nil {
		// CrossGxy on its own, which every estimator but HINV uses:
		// ⟨G_xy[v], u⟩_x against ⟨v, D_x grad_y g[u]⟩_y, the latter by
		// central differences of GradGy along R_x(±t·u).
		if p.GradGy != nil {
			c.add("CrossGxy", c.crossByGradGy())
		} else if p.CrossGyx == nil {
			c.notRun("CrossGxy", "it needs GradGx or GradGy to be differenced, or CrossGyx for its adjointness")
		}
	}
	if !xy && !yx && p.CrossGxy != nil && p.CrossGyx != nil {
		a, b := make([]float64, mx.Len()), make([]float64, my.Len())
		c.cross(p.CrossGxy)(a, c.x, c.y, c.uy)
		c.cross(p.CrossGyx)(b, c.x, c.y, c.ux)
		l, r := mx.Inner(c.x, a, c.ux), my.Inner(c.y, c.uy, b)
		c.result("cross derivatives: adjointness", map[string]float64{
			"adjoint": math.Abs(l-r) / (mx.Norm(c.x, a)*mx.Norm(c.x, c.ux) + my.Norm(c.y, c.uy)*my.Norm(c.y, b) + tiny),
		}, c.o.Tol)
	}
}

// crossByGradGy checks CrossGxy against GradGy alone: the remainder
// E(t) = |⟨v, (grad_y g(R_x(tu), y) − grad_y g(R_x(−tu), y))/2t⟩_y −
// ⟨G_xy g[v], u⟩_x| must fall as t², since D_x grad_y g is the adjoint of
// G_xy g = D_y grad_x g (both are the mixed second derivative of g).
// y stays fixed, so grad_y g stays in T_y and needs no transport, as in
// the CrossGyx check. G_xy g[v] must also be tangent at x.
func (c *problemChecker) crossByGradGy() CheckReport {
	p, mx, my := c.p, c.p.Mx, c.p.My
	sx, sy := newScratch(mx, 4), newScratch(my, 3)
	want, xp, xm, buf := sx[0], sx[1], sx[2], sx[3]
	gp, gm, g0 := sy[0], sy[1], sy[2]
	c.call("CrossGxy", p.CrossGxy(want, &Point{X: c.x, Y: c.y}, c.uy))
	a := mx.Inner(c.x, want, c.ux)
	r := CheckReport{Name: "against differences of GradGy", Want: 2, AtLeast: true, Steps: checkSteps()[:13],
		Residuals: map[string]float64{"tangency": tangency(mx, c.x, want, buf)}}
	grad := func(dst, xx []float64) { c.call("GradGy", p.GradGy(dst, &Point{X: xx, Y: c.y})) }
	for _, t := range r.Steps {
		if mx.Retract(xp, c.x, c.ux, t) != nil || mx.Retract(xm, c.x, c.ux, -t) != nil {
			r.Errors = append(r.Errors, math.NaN())
			continue
		}
		grad(gp, xp)
		grad(gm, xm)
		for i := range gp {
			gp[i] = (gp[i] - gm[i]) / (2 * t)
		}
		r.Errors = append(r.Errors, math.Abs(my.Inner(c.y, c.uy, gp)-a))
	}
	// As in CheckCrossDerivative: the difference divides rounding of size
	// ε‖grad‖ by t, down to t = 1e−4.
	grad(g0, c.x)
	r.finish(1e3 * eps * (my.Norm(c.y, g0)*my.Norm(c.y, c.uy) + math.Abs(a) + tiny) / 1e-4)
	return r
}

// checkLowerSolve checks that LowerSolve, from the warm start y, returns
// a point y* of My at which grad_y g vanishes: ‖grad_y g(x, y*)‖_F at
// most Tol times the gradient's scale, the larger of ‖grad_y g(x, y)‖_F
// at the warm start and ‖y*‖_F times g's curvature near y* (gradScale,
// as the run measures it; at a critical y the warm start's gradient is
// rounding too).
func (c *problemChecker) checkLowerSolve(rnd *rand.Rand) {
	p, my := c.p, c.p.My
	if p.GradGy == nil {
		c.notRun("LowerSolve", "it needs GradGy to check that its point is stationary")
		return
	}
	n := my.Len()
	ys, g0, g1, u, yt, g := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	if err := p.LowerSolve(ys, &Point{X: c.x, Y: c.y}); err != nil {
		c.call("LowerSolve", err)
		c.notRun("LowerSolve", "LowerSolve failed")
		return
	}
	if err := my.CheckPoint(ys); err != nil {
		c.add("LowerSolve", CheckReport{Slope: math.NaN(), Msg: fmt.Sprintf("its point is not on My: %v", err)})
		return
	}
	c.call("GradGy", p.GradGy(g0, &Point{X: c.x, Y: c.y}))
	c.call("GradGy", p.GradGy(g1, &Point{X: c.x, Y: ys}))
	curv, err := gradScale(p.GradGy, my, &Point{X: c.x, Y: ys}, ys, g1, max(frob(ys), frob(c.y)), rnd, u, yt, g)
	c.call("GradGy", err)
	scale := max(frob(g0), curv*max(frob(ys), frob(c.y)))
	if !(scale > 0) {
		c.notRun("LowerSolve", "no scale to measure the gradient against (zero gradient at the warm start and near the solution)")
		return
	}
	c.result("LowerSolve: stationary point", map[string]float64{"‖grad_y g(x, y*)‖/scale": frob(g1) / scale}, c.o.Tol)
}

// checkBatch checks HessGyBatch on three tangent vectors against three
// HessGy calls, row by row.
func (c *problemChecker) checkBatch(rnd *rand.Rand) {
	p, my := c.p, c.p.My
	if p.HessGy == nil {
		c.notRun("HessGyBatch", "no HessGy to compare it with")
		return
	}
	const k = 3
	n := my.Len()
	pt := &Point{X: c.x, Y: c.y}
	v, got, want := make([]float64, k*n), make([]float64, k*n), make([]float64, n)
	copy(v, c.uy)
	copy(v[n:], c.uy2)
	my.RandTangent(v[2*n:], c.y, rnd)
	c.call("HessGyBatch", p.HessGyBatch(got, pt, v, k))
	var worst float64
	for i := range k {
		c.call("HessGy", p.HessGy(want, pt, v[i*n:(i+1)*n]))
		worst = math.Max(worst, diffNorm(got[i*n:(i+1)*n], want)/(frob(want)+tiny))
	}
	c.result("HessGyBatch", map[string]float64{"vs HessGy": worst}, c.o.Tol)
}

// checkInverse checks H(H⁻¹v) = v and H⁻¹(Hv) = v.
func (c *problemChecker) checkInverse() {
	p, my := c.p, c.p.My
	pt := &Point{X: c.x, Y: c.y}
	s, back := make([]float64, my.Len()), make([]float64, my.Len())
	c.call("HessGyInv", p.HessGyInv(s, pt, c.uy))
	c.call("HessGy", p.HessGy(back, pt, s))
	e1 := diffNorm(back, c.uy) / frob(c.uy)
	c.call("HessGy", p.HessGy(s, pt, c.uy))
	c.call("HessGyInv", p.HessGyInv(back, pt, s))
	e2 := diffNorm(back, c.uy) / frob(c.uy)
	c.result("HessGyInv", map[string]float64{"H(H⁻¹v) − v": e1, "H⁻¹(Hv) − v": e2}, c.o.Tol)
}

// checkCaches evaluates every oracle at four points, (x, y), (x', y),
// (x, y') and (x', y'), first with unknown identities (no cache can
// match), then with identities in an order where each point follows one
// that shares its x or its y identity, or neither: every evaluation must
// match the fresh one at its point. A cache keyed to too few parts of the
// point, or not reset when its buffer changes, shows here.
func (c *problemChecker) checkCaches() {
	p, mx, my := c.p, c.p.Mx, c.p.My
	x2, y2 := make([]float64, mx.Len()), make([]float64, my.Len())
	if mx.Retract(x2, c.x, c.ux, 0.3) != nil || my.Retract(y2, c.y, c.uy, 0.3) != nil {
		c.notRun("caches", "the retraction to a second point failed")
		return
	}
	idX, idY, idX2, idY2 := NewID(), NewID(), NewID(), NewID()
	eval := func(pt *Point) [][]float64 {
		var out [][]float64
		vec := func(name string, n int, f func([]float64) error) {
			dst := make([]float64, n)
			c.call(name, f(dst))
			out = append(out, dst)
		}
		if p.F != nil {
			out = append(out, []float64{c.value("F", p.F, pt)})
		}
		if p.G != nil {
			out = append(out, []float64{c.value("G", p.G, pt)})
		}
		for _, g := range []struct {
			name string
			f    func([]float64, *Point) error
			n    int
		}{{"GradFx", p.GradFx, mx.Len()}, {"GradFy", p.GradFy, my.Len()}, {"GradGy", p.GradGy, my.Len()}, {"GradGx", p.GradGx, mx.Len()}} {
			if g.f != nil {
				vec(g.name, g.n, func(dst []float64) error { return g.f(dst, pt) })
			}
		}
		for _, h := range []struct {
			name string
			f    func([]float64, *Point, []float64) error
			n    int
			v    []float64
		}{{"HessGy", p.HessGy, my.Len(), c.uy}, {"CrossGxy", p.CrossGxy, mx.Len(), c.uy}, {"CrossGyx", p.CrossGyx, my.Len(), c.ux}, {"HessGyInv", p.HessGyInv, my.Len(), c.uy}} {
			if h.f != nil {
				vec(h.name, h.n, func(dst []float64) error { return h.f(dst, pt, h.v) })
			}
		}
		return out
	}
	pts := []Point{{X: c.x, Y: c.y, XID: idX, YID: idY}, {X: x2, Y: c.y, XID: idX2, YID: idY},
		{X: c.x, Y: y2, XID: idX, YID: idY2}, {X: x2, Y: y2, XID: idX2, YID: idY2}}
	fresh := make([][][]float64, len(pts))
	for i, pt := range pts {
		fresh[i] = eval(&Point{X: pt.X, Y: pt.Y})
	}
	var worst float64
	for _, i := range []int{0, 1, 0, 2, 0, 3, 0, 1, 3, 2, 3, 1, 2, 0} {
		got := eval(&pts[i])
		for k := range got {
			worst = math.Max(worst, diffNorm(got[k], fresh[i][k])/(frob(fresh[i][k])+tiny))
		}
	}
	c.result("caches", map[string]float64{"against fresh evaluations": worst}, 1e-13)
}

package solver

import (
	"fmt"
	"math"
	"strings"
)

// CheckReport is the outcome of a numerical check.
type CheckReport struct {
	Name string
	// Slope is the least-squares slope of log E(t) against log t over the
	// steps where the Taylor remainder E(t) stands above rounding noise;
	// NaN when fewer than three do (see Exact).
	Slope float64
	// Exact says that the remainder stayed finite and at rounding level at
	// every step: the model is exact (a quadratic objective's Hessian, a
	// gradient linear in the other variable), and there is no slope.
	Exact bool
	// Want is the slope a correct implementation shows; with AtLeast a
	// steeper one passes too: a Taylor remainder can only fall faster than
	// expected when its next term vanishes too (a symmetric function along
	// a geodesic, a retraction of higher order than claimed), never when a
	// derivative is wrong.
	Want    float64
	AtLeast bool
	// Steps and Errors are the step sizes tried and the remainders E(t).
	Steps, Errors []float64
	// Fitted is the number of steps the slope was fitted on.
	Fitted int
	// Residuals holds the check's other measures by name (tangency,
	// symmetry, isometry, …), each a relative error.
	Residuals map[string]float64
	OK        bool
	Msg       string
}

// String returns the check's name, verdict, fitted slope, residuals and message.
func (r CheckReport) String() string {
	var b strings.Builder
	status := "ok"
	if !r.OK {
		status = "FAILED"
	}
	fmt.Fprintf(&b, "%s: %s", r.Name, status)
	switch {
	case r.Want == 0:
	case r.Exact:
		fmt.Fprintf(&b, ": exact to rounding at all %d steps (no slope; want %g)", len(r.Steps), r.Want)
	case math.IsNaN(r.Slope):
		fmt.Fprintf(&b, ": no slope (want %g, %d steps above rounding)", r.Want, r.Fitted)
	default:
		fmt.Fprintf(&b, ": slope %.3f (want %g, %d steps)", r.Slope, r.Want, r.Fitted)
	}
	for k, v := range r.Residuals {
		fmt.Fprintf(&b, ", %s %.2e", k, v)
	}
	if r.Msg != "" {
		fmt.Fprintf(&b, "; %s", r.Msg)
	}
	return b.String()
}

// Tolerances of the checks.
const (
	slopeTol    = 0.2  // |slope − want| allowed
	residualTol = 1e-8 // relative tangency, symmetry, isometry errors allowed
)

// checkSteps returns the step sizes 10^{−k/4}, k = 4 … 40: from 0.1 down to
// 1e−10.
func checkSteps() []float64 {
	t := make([]float64, 0, 37)
	for k := 4; k <= 40; k++ {
		t = append(t, math.Pow(10, -float64(k)/4))
	}
	return t
}

// fitSlope fits log E against log t over the fitWindow smallest steps whose
// E stands above floor, taken from the run of such steps that starts at the
// largest t with a finite E: there the Taylor remainder is closest to its
// leading term while rounding (below floor) has not yet taken over.
// Fitting the whole run instead would let a large higher-order term at big
// t hide a wrong leading one. Leading non-finite remainders (a curve that
// leaves the domain at the largest steps) are skipped.
func fitSlope(t, e []float64, floor float64) (slope float64, n int) {
	end := firstFinite(e) // then one past the last step of the run
	for end < len(t) && e[end] > floor && !math.IsInf(e[end], 0) {
		end++
	}
	start := max(firstFinite(e), end-fitWindow)
	var sx, sy, sxx, sxy float64
	for i := start; i < end; i++ {
		x, y := math.Log(t[i]), math.Log(e[i])
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
		n++
	}
	if n < 3 {
		return math.NaN(), n
	}
	fn := float64(n)
	return (fn*sxy - sx*sy) / (fn*sxx - sx*sx), n
}

// firstFinite returns the index of e's first finite entry, or len(e).
func firstFinite(e []float64) int {
	for i, v := range e {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			return i
		}
	}
	return len(e)
}

// fitWindow is the number of steps (1.5 decades of t) a slope is fitted on.
const fitWindow = 6

// finish fits the slope and sets OK: the slope must be within slopeTol of
// want, or the remainder finite and below floor at every step after the
// leading non-finite ones (Exact), and every residual below residualTol.
// A remainder that is never finite, or that is at rounding level at the
// largest step and then not, fails: only a finite remainder shows that
// the model is right.
func (r *CheckReport) finish(floor float64) {
	r.Slope, r.Fitted = fitSlope(r.Steps, r.Errors, floor)
	first := firstFinite(r.Errors)
	switch {
	case first == len(r.Errors):
		r.OK = false
		r.Msg = "remainder not finite at any step (NaN or Inf from the function, the model or the curve)"
	case r.Fitted == 0:
		r.OK = true
		for i := first; i < len(r.Errors); i++ {
			if e := r.Errors[i]; !(e <= floor) {
				r.OK = false
				r.Msg = fmt.Sprintf("remainder at rounding level at t = %.3g but %.3g at t = %.3g", r.Steps[first], e, r.Steps[i])
				break
			}
		}
		if r.OK {
			r.Exact = true
			r.Msg = "remainder at rounding level at every step: model exact"
			if first > 0 {
				r.Msg += fmt.Sprintf(" (not finite at the %d largest steps)", first)
			}
		}
	case math.IsNaN(r.Slope):
		r.OK = false
		r.Msg = "too few steps above rounding noise to fit a slope"
	case r.AtLeast:
		r.OK = r.Slope >= r.Want-slopeTol
	default:
		r.OK = math.Abs(r.Slope-r.Want) <= slopeTol
	}
	r.judgeResiduals()
}

// judgeResiduals fails the report for every residual above residualTol
// (or NaN), naming it in Msg.
func (r *CheckReport) judgeResiduals() {
	for k, v := range r.Residuals {
		if !(v <= residualTol) {
			r.OK = false
			r.Msg = strings.TrimPrefix(r.Msg+"; "+k+" too large", "; ")
		}
	}
}

// scratch is a set of buffers of one point's length.
type scratch [][]float64

func newScratch(m Manifold, k int) scratch {
	s := make(scratch, k)
	for i := range s {
		s[i] = make([]float64, m.Len())
	}
	return s
}

// tangency returns ‖u − P_x u‖_x / ‖u‖_x.
func tangency(m Manifold, x, u, buf []float64) float64 {
	m.Project(buf, x, u)
	for i := range buf {
		buf[i] = u[i] - buf[i]
	}
	nu := m.Norm(x, u)
	if nu == 0 {
		return 0
	}
	return m.Norm(x, buf) / nu
}

// CheckGradient checks that grad is the Riemannian gradient of f on m, at
// the point x along the tangent u: the remainder
// E(t) = |f(R_x(tu)) − f(x) − t⟨grad f(x), u⟩_x| must fall as t², and
// grad f(x) must be tangent.
func CheckGradient(m Manifold, f func(x []float64) float64, grad func(dst, x []float64), x, u []float64) CheckReport {
	s := newScratch(m, 3)
	g, y, buf := s[0], s[1], s[2]
	grad(g, x)
	fx := f(x)
	slope := m.Inner(x, g, u)
	r := CheckReport{Name: "gradient", Want: 2, AtLeast: true, Steps: checkSteps(), Residuals: map[string]float64{}}
	r.Residuals["tangency"] = tangency(m, x, g, buf)
	scale := math.Abs(fx)
	for _, t := range r.Steps {
		if err := m.Retract(y, x, u, t); err != nil {
			r.Errors = append(r.Errors, math.NaN())
			continue
		}
		fy := f(y)
		r.Errors = append(r.Errors, math.Abs(fy-fx-t*slope))
		scale = math.Max(scale, math.Max(math.Abs(fy), math.Abs(t*slope)))
	}
	floor := 1e3 * eps * (scale + tiny)
	if m.Norm(x, g)*m.Norm(x, u)*r.Steps[0] <= floor {
		// The gradient is zero to the precision of f (its first-order
		// change over the largest step is below f's rounding), so its
		// direction is rounding noise: a relative tangency would measure
		// that noise, as at a point where grad f vanishes exactly.
		r.Residuals["tangency"] = 0
	}
	r.finish(floor)
	return r
}

// CheckHessian checks that hess is the Riemannian Hessian of f on m at x:
// along the tangent u the remainder
// E(t) = |f(c(t)) − f(x) − t⟨g, u⟩ − t²/2 ⟨H[u], u⟩| must fall as t³, where
// c(t) is Exp_x(tu) if m has an exponential map and R_x(tu) otherwise, which
// must then be a second-order retraction (or x a critical point); H[u] must
// be tangent; and ⟨H[u], v⟩ = ⟨u, H[v]⟩ for a second tangent v.
func CheckHessian(m Manifold, f func(x []float64) float64, grad func(dst, x []float64), hess func(dst, x, u []float64), x, u, v []float64) CheckReport {
	s := newScratch(m, 5)
	g, hu, hv, y, buf := s[0], s[1], s[2], s[3], s[4]
	grad(g, x)
	hess(hu, x, u)
	hess(hv, x, v)
	fx := f(x)
	d1, d2 := m.Inner(x, g, u), m.Inner(x, hu, u)
	r := CheckReport{Name: "Hessian", Want: 3, AtLeast: true, Steps: checkSteps(), Residuals: map[string]float64{}}
	r.Residuals["tangency"] = tangency(m, x, hu, buf)
	huv, uhv := m.Inner(x, hu, v), m.Inner(x, u, hv)
	den := m.Norm(x, hu)*m.Norm(x, v) + m.Norm(x, u)*m.Norm(x, hv)
	if den > 0 {
		r.Residuals["symmetry"] = math.Abs(huv-uhv) / den
	}
	curve := m.Retract
	if ex, ok := AsExper(m); ok {
		curve = ex.Exp
	}
	// The rounding in f(y) is relative to the largest values f takes along
	// the curve, not to f(x), which may be zero (at a critical point).
	scale := math.Abs(fx)
	for _, t := range r.Steps {
		if err := curve(y, x, u, t); err != nil {
			r.Errors = append(r.Errors, math.NaN())
			continue
		}
		fy := f(y)
		r.Errors = append(r.Errors, math.Abs(fy-fx-t*d1-0.5*t*t*d2))
		scale = math.Max(scale, math.Max(math.Abs(fy), math.Abs(t*d1)))
	}
	r.finish(1e3 * eps * (scale + tiny))
	return r
}

// CheckRetraction checks that the retraction of m is of the given order
// (1 or 2) at x along u. With an exponential map (Exper) the distance
// ‖R_x(tu) − Exp_x(tu)‖ must fall as t^{order+1}. Without one, a
// first-order retraction must satisfy ‖R_x(tu) − x − tu‖ = O(t²), and a
// second-order one ‖P_x(R_x(tu) − x − tu)‖ = O(t³) (the second derivative
// of its curve is normal), which is the definition for Riemannian
// submanifolds of a Euclidean space. R_x(0) = x is checked too.
func CheckRetraction(m Manifold, x, u []float64, order int) CheckReport {
	s := newScratch(m, 4)
	y, z, d, buf := s[0], s[1], s[2], s[3]
	r := CheckReport{Name: fmt.Sprintf("retraction (order %d)", order), Want: float64(order + 1), AtLeast: true,
		Steps: checkSteps(), Residuals: map[string]float64{}}
	if err := m.Retract(y, x, u, 0); err != nil {
		r.Msg = err.Error()
		return r
	}
	r.Residuals["R(0) − x"] = diffNorm(y, x) / (frob(x) + tiny)
	ex, hasExp := AsExper(m)
	for _, t := range r.Steps {
		if err := m.Retract(y, x, u, t); err != nil {
			r.Errors = append(r.Errors, math.NaN())
			continue
		}
		switch {
		case hasExp:
			if err := ex.Exp(z, x, u, t); err != nil {
				r.Errors = append(r.Errors, math.NaN())
				continue
			}
			r.Errors = append(r.Errors, diffNorm(y, z))
		case order == 1:
			for i := range d {
				d[i] = y[i] - x[i] - t*u[i]
			}
			r.Errors = append(r.Errors, frob(d))
		default:
			for i := range d {
				d[i] = y[i] - x[i] - t*u[i]
			}
			m.Project(buf, x, d)
			r.Errors = append(r.Errors, frob(buf))
		}
	}
	r.finish(1e3 * eps * (frob(x) + tiny))
	return r
}

// CheckTransport checks that the vector transport of m from x to y maps
// tangents at x to tangents at y, linearly, and, when isometric is set,
// preserves inner products.
func CheckTransport(m Manifold, x, y, u, v []float64, isometric bool) CheckReport {
	s := newScratch(m, 5)
	tu, tv, w, tw, buf := s[0], s[1], s[2], s[3], s[4]
	r := CheckReport{Name: "transport", Residuals: map[string]float64{}}
	m.Transport(tu, x, y, u)
	m.Transport(tv, x, y, v)
	r.Residuals["tangency"] = math.Max(tangency(m, y, tu, buf), tangency(m, y, tv, buf))
	for i := range w {
		w[i] = 2*u[i] - 3*v[i]
	}
	m.Transport(tw, x, y, w)
	for i := range buf {
		buf[i] = tw[i] - (2*tu[i] - 3*tv[i])
	}
	r.Residuals["linearity"] = m.Norm(y, buf) / (m.Norm(y, tw) + tiny)
	if isometric {
		a, b := m.Inner(x, u, v), m.Inner(y, tu, tv)
		r.Residuals["isometry"] = math.Abs(a-b) / (m.Norm(x, u)*m.Norm(x, v) + tiny)
	}
	r.Slope = math.NaN()
	r.OK = true
	r.judgeResiduals()
	return r
}

// CheckExpLog checks Log_x(Exp_x(u)) = u and, where m has a distance,
// d(x, Exp_x(u)) = ‖u‖_x.
func CheckExpLog(m Manifold, x, u []float64) CheckReport {
	r := CheckReport{Name: "exp/log", Slope: math.NaN(), Residuals: map[string]float64{}}
	ex, ok1 := AsExper(m)
	lg, ok2 := AsLogger(m)
	if !ok1 || !ok2 {
		r.Msg = "manifold has no Exp or no Log"
		return r
	}
	s := newScratch(m, 2)
	y, w := s[0], s[1]
	if err := ex.Exp(y, x, u, 1); err != nil {
		r.Msg = err.Error()
		return r
	}
	if err := lg.Log(w, x, y); err != nil {
		r.Msg = err.Error()
		return r
	}
	nu := m.Norm(x, u)
	for i := range w {
		w[i] -= u[i]
	}
	r.Residuals["log(exp(u)) − u"] = m.Norm(x, w) / (nu + tiny)
	if ds, ok := AsDistancer(m); ok {
		d, err := ds.Dist(x, y)
		if err != nil {
			r.Msg = err.Error()
			return r
		}
		r.Residuals["dist − ‖u‖"] = math.Abs(d-nu) / (nu + tiny)
	}
	r.OK = true
	r.judgeResiduals()
	return r
}

// CheckCrossDerivative checks the cross derivative G_xy g(x, y)[v] =
// D_y grad_x g(x, y)[v] (a tangent at x, for v tangent at y) against the
// central difference (grad_x g(x, R_y(tv)) − grad_x g(x, R_y(−tv)))/2t,
// whose error must fall as t²; both gradients live at the same x, so no
// transport is involved. When crossYX (G_yx g[u], a tangent at y) is not
// nil it checks the adjoint identity ⟨G_xy[v], u⟩_x = ⟨v, G_yx[u]⟩_y.
func CheckCrossDerivative(mx, my Manifold, gradX func(dst, x, y []float64),
	crossXY func(dst, x, y, v []float64), crossYX func(dst, x, y, u []float64),
	x, y, u, v []float64) CheckReport {
	sx, sy := newScratch(mx, 4), newScratch(my, 3)
	want, gp, gm, d := sx[0], sx[1], sx[2], sx[3]
	yp, ym, gyx := sy[0], sy[1], sy[2]
	crossXY(want, x, y, v)
	// The central difference's rounding error grows like ε‖grad‖/t, so the
	// steps stop at 1e−4, where it is still far below the t² truncation.
	r := CheckReport{Name: "cross derivative", Want: 2, AtLeast: true, Steps: checkSteps()[:13], Residuals: map[string]float64{}}
	nw := mx.Norm(x, want)
	for _, t := range r.Steps {
		if err := my.Retract(yp, y, v, t); err != nil {
			r.Errors = append(r.Errors, math.NaN())
			continue
		}
		if err := my.Retract(ym, y, v, -t); err != nil {
			r.Errors = append(r.Errors, math.NaN())
			continue
		}
		gradX(gp, x, yp)
		gradX(gm, x, ym)
		for i := range d {
			d[i] = (gp[i]-gm[i])/(2*t) - want[i]
		}
		r.Errors = append(r.Errors, mx.Norm(x, d))
	}
	if crossYX != nil {
		crossYX(gyx, x, y, u)
		a, b := mx.Inner(x, want, u), my.Inner(y, v, gyx)
		r.Residuals["adjoint"] = math.Abs(a-b) / (nw*mx.Norm(x, u) + my.Norm(y, v)*my.Norm(y, gyx) + tiny)
	}
	// The central difference divides rounding of size ε‖grad‖ by t.
	gradX(gp, x, y)
	r.finish(1e3 * eps * (mx.Norm(x, gp) + nw + tiny) / 1e-4)
	return r
}

func diffNorm(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}

func frob(a []float64) float64 {
	var s float64
	for _, v := range a {
		s += v * v
	}
	return math.Sqrt(s)
}

const (
	eps  = 0x1p-52
	tiny = 1e-300
)

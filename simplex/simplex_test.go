package simplex_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/simplex"
	"github.com/rhgd/rhgd/solver"
)

const eps = 0x1p-52

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 7)) }

// randState returns a random point x and tangents u, v of Δ(n), and a
// random ambient vector g.
func randState(m *simplex.Simplex, seed uint64) (x, u, v, g []float64) {
	n, rnd := m.Len(), rng(seed)
	x, u, v, g = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	m.RandPoint(x, rnd)
	m.RandTangent(u, x, rnd)
	m.RandTangent(v, x, rnd)
	for i := range g {
		g[i] = rnd.NormFloat64()
	}
	return x, u, v, g
}

// TestTwoPoints: on Δ(2), x = (p, 1 − p), the Fisher metric is
// dp²/(p(1 − p)) = (2 dφ)² with p = sin²φ, so d(x, y) = 2|φ_x − φ_y|, and
// the geodesic from x along u = (a, −a) is p(t) = sin²(φ_x + t·a/(2√(p(1 −
// p)))) until p reaches 1 at φ = π/2, where Exp must stop.
func TestTwoPoints(t *testing.T) {
	m := simplex.New(2)
	phi := func(p float64) float64 { return math.Asin(math.Sqrt(p)) }
	for _, c := range []struct{ p, q float64 }{{0.5, 0.25}, {0.01, 0.99}, {0.3, 0.3 + 1e-9}, {1e-6, 0.5}} {
		x, y := []float64{c.p, 1 - c.p}, []float64{c.q, 1 - c.q}
		d, err := m.Dist(x, y)
		require.NoError(t, err)
		want := 2 * math.Abs(phi(c.p)-phi(c.q))
		assert.InDelta(t, want, d, 64*eps*(1+want), "d(%v, %v)", c.p, c.q)
	}
	p, a := 0.3, 0.2
	x, u, y := []float64{p, 1 - p}, []float64{a, -a}, make([]float64, 2)
	speed := a / math.Sqrt(p*(1-p)) // ‖u‖_x
	tEnd := (math.Pi/2 - phi(p)) * 2 / speed
	for _, s := range []float64{0.1, 1, 0.5 * tEnd, 0.999 * tEnd, -1} {
		require.NoError(t, m.Exp(y, x, u, s), "t = %v", s)
		want := math.Pow(math.Sin(phi(p)+s*speed/2), 2)
		assert.InDelta(t, want, y[0], 16*eps, "Exp at t = %v", s)
		assert.InDelta(t, 1-want, y[1], 16*eps, "Exp at t = %v", s)
	}
	err := m.Exp(y, x, u, 1.001*tEnd)
	require.ErrorIs(t, err, numerr.ErrInvalid, "Exp past the boundary")
	assert.Contains(t, err.Error(), "reaches the boundary (x[1] = 0)")
}

// TestGeodesicEquation: Exp's curve c(t) has zero covariant acceleration,
// P_c(c̈ − ½ ċ ∘ ċ ⊘ c) = 0 (the orthant's Christoffel symbols
// −1/(2x_i), then the projection), found from the curve alone by central
// differences: the residual falls as h², the differences' error. The
// retraction's curve, which is not a geodesic, keeps a residual of order
// one: the check can fail.
func TestGeodesicEquation(t *testing.T) {
	m := simplex.New(6)
	x, u, _, _ := randState(m, 1)
	residual := func(curve func(dst []float64, s float64) error, t0, h float64) float64 {
		n := m.Len()
		cm, c0, cp, acc := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		require.NoError(t, curve(cm, t0-h))
		require.NoError(t, curve(c0, t0))
		require.NoError(t, curve(cp, t0+h))
		for i := range acc {
			vel := (cp[i] - cm[i]) / (2 * h)
			acc[i] = (cp[i]-2*c0[i]+cm[i])/(h*h) - 0.5*vel*vel/c0[i]
		}
		m.Project(acc, c0, acc)
		return m.Norm(c0, acc)
	}
	exp := func(dst []float64, s float64) error { return m.Exp(dst, x, u, s) }
	retr := func(dst []float64, s float64) error { return m.Retract(dst, x, u, s) }
	t0 := 0.02 // well inside Exp's domain at this point
	r1, r2 := residual(exp, t0, 1e-2), residual(exp, t0, 1e-2/4)
	assert.InDelta(t, 2, math.Log(r1/r2)/math.Log(4), 0.1, "slope of the geodesic residual (%.3g, %.3g)", r1, r2)
	assert.Greater(t, residual(retr, t0, 1e-2/4), 1e3*r2, "the retraction's curve is not a geodesic")
}

// TestGradient: the Riemannian gradient is the tangent g with ⟨g, w⟩_x =
// Σ egrad_i w_i for every tangent w (the metric's definition), and the
// Hessian is Manopt's multinomialfactory ehess2rhess, written as there:
// the derivative of the gradient field plus the Koszul correction
// −½ u ∘ grad ⊘ x, projected.
func TestGradient(t *testing.T) {
	m := simplex.New(7)
	x, u, v, g := randState(m, 2)
	grad := make([]float64, m.Len())
	m.EGradToRGrad(grad, x, g)
	require.NoError(t, m.CheckTangent(x, grad))
	var euc, abs float64
	for i := range v {
		euc, abs = euc+g[i]*v[i], abs+math.Abs(g[i]*v[i])
	}
	assert.InDelta(t, euc, m.Inner(x, grad, v), 16*eps*abs*float64(m.Len()))

	h := make([]float64, m.Len())
	for i := range h {
		h[i] = math.Sin(float64(i)) // any ∇²f[u]
	}
	var lam, lamDot float64
	for i := range x {
		lam -= x[i] * g[i]
		lamDot -= u[i]*g[i] + x[i]*h[i]
	}
	manopt := make([]float64, m.Len())
	for i := range x {
		rgrad := x[i]*g[i] + lam*x[i]
		rgradDot := u[i]*g[i] + x[i]*h[i] + lamDot*x[i] + lam*u[i]
		manopt[i] = rgradDot - 0.5*u[i]*rgrad/x[i]
	}
	m.Project(manopt, x, manopt)
	got := make([]float64, m.Len())
	m.EHessToRHess(got, x, g, h, u)
	for i := range got {
		assert.InDelta(t, manopt[i], got[i], 1e-13*(1+math.Abs(manopt[i])), "entry %d", i)
	}
}

// TestRetraction: R_x(tu) is softmax(log x + t u ⊘ x), computed naively
// here where that does not overflow; where it would (t·u/x beyond 709),
// the shifted exponents give the point, the smallest entry as the closed
// form in logarithms says; where an entry underflows to zero the result
// is an error, not a point off the manifold.
func TestRetraction(t *testing.T) {
	m := simplex.New(5)
	x, u, _, _ := randState(m, 3)
	y, want := make([]float64, 5), make([]float64, 5)
	for _, s := range []float64{0, 0.01, 1, -2} {
		require.NoError(t, m.Retract(y, x, u, s))
		var z float64
		for i := range want {
			want[i] = math.Exp(math.Log(x[i]) + s*u[i]/x[i])
			z += want[i]
		}
		for i := range want {
			assert.InDelta(t, want[i]/z, y[i], 1e-14, "t = %v, entry %d", s, i)
		}
	}

	m2 := simplex.New(2)
	x2, u2, y2 := []float64{0.01, 0.99}, []float64{1, -1}, make([]float64, 2)
	s := 7.1 // exponents 710 and −7.17: x₁·e^710 overflows
	require.NoError(t, m2.Retract(y2, x2, u2, s))
	require.NoError(t, m2.CheckPoint(y2))
	logY2 := math.Log(0.99) - s/0.99 - (math.Log(0.01) + s/0.01) - math.Log1p(0.99/0.01*math.Exp(-s/0.99-s/0.01))
	assert.InEpsilon(t, math.Exp(logY2), y2[1], 1e-10)
	assert.Equal(t, 1.0, y2[0])

	err := m2.Retract(y2, x2, u2, 1000)
	require.ErrorIs(t, err, numerr.ErrUnderflow)
	err = m2.Retract(y2, x2, []float64{math.NaN(), 0}, 1)
	require.ErrorIs(t, err, numerr.ErrNotFinite)
}

// TestWhiten: the whitened coordinates' dot product is the metric, to the
// rounding of a sum of n products.
func TestWhiten(t *testing.T) {
	m := simplex.New(9)
	x, u, v, _ := randState(m, 4)
	cu, cv := make([]float64, 9), make([]float64, 9)
	require.NoError(t, m.Whiten(cu, x, u))
	require.NoError(t, m.Whiten(cv, x, v))
	var dot, abs float64
	for i := range cu {
		dot, abs = dot+cu[i]*cv[i], abs+math.Abs(cu[i]*cv[i])
	}
	assert.InDelta(t, m.Inner(x, u, v), dot, 4*9*eps*abs)
	x[3] = 0
	require.ErrorIs(t, m.Whiten(cu, x, u), simplex.ErrNotPoint)
}

// TestCheckPoint: random points pass; a wrong length, a non-finite, zero
// or negative entry, and a sum off by more than the tolerance fail with
// their sentinels; a sum off by rounding passes.
func TestCheckPoint(t *testing.T) {
	m := simplex.New(4)
	x, _, _, _ := randState(m, 5)
	require.NoError(t, m.CheckPoint(x))
	bad := func(i int, v float64) []float64 { b := slices.Clone(x); b[i] = v; return b }
	assert.Error(t, m.CheckPoint(x[:3]))
	assert.ErrorIs(t, m.CheckPoint(bad(1, math.Inf(1))), numerr.ErrNotFinite)
	assert.ErrorIs(t, m.CheckPoint(bad(2, 0)), simplex.ErrNotPoint)
	assert.ErrorIs(t, m.CheckPoint(bad(0, -x[0])), simplex.ErrNotPoint)
	err := m.CheckPoint(bad(3, x[3]+1e-8))
	assert.ErrorIs(t, err, simplex.ErrNotPoint)
	assert.ErrorIs(t, err, numerr.ErrInvalid)
	assert.NoError(t, m.CheckPoint(bad(3, x[3]+1e-13)))
	assert.Panics(t, func() { simplex.New(1) })
}

// TestExtraAllocs: the methods manifoldtest does not time allocate
// nothing either (the defaults' included).
func TestExtraAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	m := simplex.New(6)
	x, u, _, _ := randState(m, 6)
	w, rnd := make([]float64, 6), rng(1)
	for name, op := range map[string]func(){
		"Whiten":       func() { _ = m.Whiten(w, x, u) },
		"RandPoint":    func() { m.RandPoint(w, rnd) },
		"RandTangent":  func() { m.RandTangent(w, x, rnd) },
		"CheckPoint":   func() { _ = m.CheckPoint(x) },
		"CheckTangent": func() { _ = m.CheckTangent(x, u) },
	} {
		assert.Zero(t, testing.AllocsPerRun(5, op), name)
	}
}

// TestSolver runs the solver on a bilevel problem with the simplex as the
// lower manifold: g(x, y) = Σ y_i log y_i − ⟨x, y⟩, whose minimizer is
// y*(x) = softmax(x), and f(x, y) = ½‖y − p‖², so that min F = 0 at
// softmax(x) = p. CG runs on the whitened coordinates (solver.Whitener),
// and with HessGy left out the solver fills it by finite differences,
// which need the Fisher connection (solver.Connection).
func TestSolver(t *testing.T) {
	p := []float64{0.1, 0.2, 0.3, 0.4}
	n := len(p)
	my := simplex.New(n)
	egrad := func(dst []float64, pt *solver.Point) {
		for i, yi := range pt.Y {
			dst[i] = math.Log(yi) + 1 - pt.X[i]
		}
	}
	eg := make([]float64, n)
	prob := solver.Problem{
		Mx: euclid.New(n, 1), My: my,
		F: func(pt *solver.Point) (float64, error) {
			var f float64
			for i, yi := range pt.Y {
				f += 0.5 * (yi - p[i]) * (yi - p[i])
			}
			return f, nil
		},
		GradFx: func(dst []float64, _ *solver.Point) error { clear(dst); return nil },
		GradFy: func(dst []float64, pt *solver.Point) error {
			for i, yi := range pt.Y {
				eg[i] = yi - p[i]
			}
			my.EGradToRGrad(dst, pt.Y, eg)
			return nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			egrad(eg, pt)
			my.EGradToRGrad(dst, pt.Y, eg)
			return nil
		},
		GradGx: func(dst []float64, pt *solver.Point) error {
			for i, yi := range pt.Y {
				dst[i] = -yi
			}
			return nil
		},
		CrossGxy: func(dst []float64, _ *solver.Point, v []float64) error {
			for i, vi := range v {
				dst[i] = -vi
			}
			return nil
		},
	}
	eh := make([]float64, n)
	hess := func(dst []float64, pt *solver.Point, v []float64) error {
		egrad(eg, pt)
		for i, yi := range pt.Y {
			eh[i] = v[i] / yi
		}
		my.EHessToRHess(dst, pt.Y, eg, eh, v)
		return nil
	}
	for _, c := range []struct {
		name string
		hess func(dst []float64, pt *solver.Point, v []float64) error
	}{{"exact Hessian", hess}, {"finite-difference Hessian", nil}} {
		t.Run(c.name, func(t *testing.T) {
			pr := prob
			pr.HessGy = c.hess
			est, err := solver.ParseEstimator("cg:tol=1e-12")
			require.NoError(t, err)
			y0 := []float64{0.25, 0.25, 0.25, 0.25}
			res, err := solver.Minimize(context.Background(), pr, make([]float64, n), y0, &solver.Settings{
				Estimator: est, EtaX: 5, EtaY: 0.5, InnerIters: 20, Epochs: 2000, GradTol: 1e-10})
			require.NoError(t, err)
			assert.Equal(t, solver.GradientThreshold, res.Status)
			for i := range p {
				assert.InDelta(t, p[i], res.Y[i], 1e-8, "y[%d]", i)
			}
		})
	}
}

// Errors of Exp, Log and Dist at non-points are errors, not NaN.
func TestBadInput(t *testing.T) {
	m := simplex.New(3)
	x, u, _, _ := randState(m, 8)
	y, w := make([]float64, 3), make([]float64, 3)
	nx := []float64{-0.1, 0.6, 0.5}
	assert.ErrorIs(t, m.Exp(y, nx, u, 0.1), simplex.ErrNotPoint)
	assert.ErrorIs(t, m.Log(w, nx, x), simplex.ErrNotPoint)
	assert.ErrorIs(t, m.Log(w, x, nx), simplex.ErrNotPoint)
	_, err := m.Dist(x, []float64{math.NaN(), 0.5, 0.5})
	assert.ErrorIs(t, err, simplex.ErrNotPoint)
	assert.ErrorIs(t, m.Exp(y, x, []float64{math.Inf(1), 0, 0}, 0.1), numerr.ErrNotFinite)
	// A vertex is on the boundary, where Log and Dist still reach.
	d, err := m.Dist(x, []float64{1, 0, 0})
	require.NoError(t, err)
	assert.InDelta(t, 2*math.Acos(math.Sqrt(x[0])), d, 1e-14)
	assert.False(t, errors.Is(err, numerr.ErrNotFinite))
}

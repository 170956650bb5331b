//go:build cgo

package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/product"
	"github.com/rhgd/rhgd/solver"
)

// cman is a solver.Manifold whose every method goes through the C ABI
// (the toolkit's entry points), so that the solver's own checks
// (CheckGradient, CheckHessian, CheckTransport, CheckExpLog) test the
// entry points against the Taylor slopes and identities they guarantee.
// A failed call fails t.
type cman struct {
	t      *testing.T
	h      int64
	n, dim int
}

var (
	_ solver.Manifold  = (*cman)(nil)
	_ solver.Exper     = (*cman)(nil)
	_ solver.Logger    = (*cman)(nil)
	_ solver.Distancer = (*cman)(nil)
	_ solver.Partial   = (*cman)(nil)
)

func (c *cman) ok(what string, rc int) {
	c.t.Helper()
	if rc != okC {
		_, msg := ctest.LastError(4096)
		c.t.Errorf("%s: code %d: %s", what, rc, msg)
	}
}

func (c *cman) Len() int { return c.n }
func (c *cman) Dim() int { return c.dim }
func (c *cman) Inner(x, u, v []float64) float64 {
	r := []float64{0}
	c.ok("inner", ctest.Inner(c.h, x, u, v, r))
	return r[0]
}
func (c *cman) Norm(x, u []float64) float64 {
	r := []float64{0}
	c.ok("norm", ctest.Norm(c.h, x, u, r))
	return r[0]
}
func (c *cman) Project(dst, x, v []float64) { c.ok("project", ctest.Project(c.h, x, v, dst)) }
func (c *cman) EGradToRGrad(dst, x, egrad []float64) {
	c.ok("egrad2rgrad", ctest.EGrad2RGrad(c.h, x, egrad, dst))
}
func (c *cman) EHessToRHess(dst, x, egrad, ehess, u []float64) {
	c.ok("ehess2rhess", ctest.EHess2RHess(c.h, x, egrad, ehess, u, dst))
}
func (c *cman) Retract(dst, x, u []float64, t float64) error {
	c.ok("retract", ctest.Retract(c.h, x, u, t, dst))
	return nil
}
func (c *cman) Transport(dst, x, y, u []float64) {
	c.ok("transport", ctest.Transport(c.h, x, y, u, dst))
}
func (c *cman) RandPoint(dst []float64, rnd *rand.Rand) {
	c.ok("rand_point", ctest.RandPoint(c.h, rnd.Uint64(), dst))
}
func (c *cman) RandTangent(dst, x []float64, rnd *rand.Rand) {
	c.ok("rand_tangent", ctest.RandTangent(c.h, x, rnd.Uint64(), dst))
}
func (c *cman) CheckPoint(x []float64) error      { return codeErr(ctest.CheckPoint(c.h, x)) }
func (c *cman) CheckTangent(x, u []float64) error { return codeErr(ctest.CheckTangent(c.h, x, u)) }
func (c *cman) Clone() any                        { return c }
func (c *cman) Exp(dst, x, u []float64, t float64) error {
	c.ok("exp", ctest.Exp(c.h, x, u, t, dst))
	return nil
}
func (c *cman) Log(dst, x, y []float64) error {
	c.ok("log", ctest.Log(c.h, x, y, dst))
	return nil
}
func (c *cman) Dist(x, y []float64) (float64, error) {
	r := []float64{0}
	c.ok("dist", ctest.Dist(c.h, x, y, r))
	return r[0], nil
}
func (c *cman) Supports(m solver.Method) bool {
	ok, rc := ctest.Supports(c.h, map[solver.Method]string{solver.MethodExp: "exp", solver.MethodLog: "log",
		solver.MethodDist: "dist"}[m])
	c.ok("supports", rc)
	return ok
}

func codeErr(rc int) error {
	if rc == okC {
		return nil
	}
	return argf("code %d", rc)
}

// toolkitCase is a manifold made through the C ABI (h) and the same
// manifold made in Go (m).
type toolkitCase struct {
	name string
	h    int64
	m    solver.Manifold
	// exp, log, dist: which optional methods it has.
	exp, log, dist bool
	// second: its retraction is of second order (or it has exp), so the
	// Hessian's Taylor test holds at any point.
	second bool
	// isometric: its transport keeps inner products.
	isometric bool
}

func toolkitCases(t *testing.T) []toolkitCase {
	t.Helper()
	mk := func(spec string) int64 {
		h, rc := ctest.ManifoldNew(spec)
		require.Equal(t, okC, rc, spec)
		t.Cleanup(func() { ctest.ManifoldFree(h) })
		return h
	}
	goM := func(spec string) solver.Manifold {
		m, err := newManifold(spec)
		require.NoError(t, err)
		return m
	}
	a, b := []float64{0.2, 0.3, 0.5}, []float64{0.1, 0.4, 0.25, 0.25}
	ch, rc := ctest.ManifoldCoupling(3, 4, a, b, "")
	require.Equal(t, okC, rc)
	t.Cleanup(func() { ctest.ManifoldFree(ch) })
	gc, err := coupling.New(a, b)
	require.NoError(t, err)
	prod := func(specs ...string) (int64, solver.Manifold) {
		hs := make([]int64, len(specs))
		ms := make([]solver.Manifold, len(specs))
		for i, s := range specs {
			hs[i], ms[i] = mk(s), goM(s)
		}
		h, rc := ctest.ManifoldProduct(hs)
		require.Equal(t, okC, rc)
		t.Cleanup(func() { ctest.ManifoldFree(h) })
		return h, product.New(ms...)
	}
	ph1, pm1 := prod("spd:n=3", "stiefel:n=4,p=2")
	ph2, pm2 := prod("euclid:r=3", "spd:n=2,retr=exp")
	return []toolkitCase{
		{name: "spd", h: mk("spd:n=4"), m: goM("spd:n=4"), exp: true, log: true, dist: true, second: true},
		{name: "spd-parallel", h: mk("spd:n=3,transport=parallel"), m: goM("spd:n=3,transport=parallel"),
			exp: true, log: true, dist: true, second: true, isometric: true},
		{name: "spd-log-euclidean", h: mk("spd:n=3,metric=log-euclidean,transport=parallel"),
			m: goM("spd:n=3,metric=log-euclidean,transport=parallel"), exp: true, log: true, dist: true, second: true, isometric: true},
		{name: "spd-bures-wasserstein", h: mk("spd:n=3,metric=bures-wasserstein"), m: goM("spd:n=3,metric=bures-wasserstein"),
			exp: true, log: true, dist: true, second: true},
		{name: "stiefel", h: mk("stiefel:n=5,p=2"), m: goM("stiefel:n=5,p=2"), exp: true, second: true},
		{name: "euclid", h: mk("euclid:r=3,c=2"), m: goM("euclid:r=3,c=2"), exp: true, log: true, dist: true,
			second: true, isometric: true},
		{name: "coupling", h: ch, m: gc},
		{name: "product-spd-stiefel", h: ph1, m: pm1, exp: true, second: true},
		{name: "product-euclid-spd", h: ph2, m: pm2, exp: true, log: true, dist: true, second: true},
	}
}

// cubicFn is f(x) = ⟨c, x⟩ + ⅓ Σ w_i x_i³ + ½ (Σ x_i)², a smooth function
// whose Hessian couples every coordinate.
type cubicFn struct{ c, w []float64 }

func newCubicFn(n int, rnd *rand.Rand) cubicFn {
	f := cubicFn{make([]float64, n), make([]float64, n)}
	for i := range f.c {
		f.c[i], f.w[i] = rnd.NormFloat64(), rnd.NormFloat64()
	}
	return f
}

func (f cubicFn) F(x []float64) float64 {
	var s, sum float64
	for i, v := range x {
		s += f.c[i]*v + f.w[i]*v*v*v/3
		sum += v
	}
	return s + sum*sum/2
}

func (f cubicFn) EGrad(dst, x []float64) {
	sum := floats.Sum(x)
	for i, v := range x {
		dst[i] = f.c[i] + f.w[i]*v*v + sum
	}
}

func (f cubicFn) EHess(dst, x, u []float64) {
	sum := floats.Sum(u)
	for i, v := range x {
		dst[i] = 2*f.w[i]*v*u[i] + sum
	}
}

// TestToolkitAgreesWithGo: every entry point computes what the Go
// manifold's method computes, in place too.
func TestToolkitAgreesWithGo(t *testing.T) {
	for _, c := range toolkitCases(t) {
		t.Run(c.name, func(t *testing.T) {
			n := c.m.Len()
			vec := func() []float64 { return make([]float64, n) }
			x, y, u, v, eg, eh := vec(), vec(), vec(), vec(), vec(), vec()
			require.Equal(t, okC, ctest.RandPoint(c.h, 1, x))
			require.Equal(t, okC, ctest.RandPoint(c.h, 2, y))
			rnd := rand.New(rand.NewPCG(3, 4))
			c.m.RandTangent(u, x, rnd)
			c.m.RandTangent(v, x, rnd)
			f := newCubicFn(n, rnd)
			f.EGrad(eg, x)
			f.EHess(eh, x, u)
			close := func(what string, want, got []float64) {
				t.Helper()
				assert.LessOrEqual(t, floats.Distance(want, got, 2), 1e-13*(1+floats.Norm(want, 2)), what)
			}

			got := []float64{0}
			require.Equal(t, okC, ctest.Inner(c.h, x, u, v, got))
			assert.InDelta(t, c.m.Inner(x, u, v), got[0], 1e-14, "inner")
			require.Equal(t, okC, ctest.Norm(c.h, x, u, got))
			assert.InDelta(t, c.m.Norm(x, u), got[0], 1e-14, "norm")

			want, out := vec(), vec()
			c.m.EGradToRGrad(want, x, eg)
			require.Equal(t, okC, ctest.EGrad2RGrad(c.h, x, eg, out))
			close("egrad2rgrad", want, out)
			in := append([]float64(nil), eg...)
			require.Equal(t, okC, ctest.EGrad2RGrad(c.h, x, in, in))
			close("egrad2rgrad in place", want, in)

			c.m.EHessToRHess(want, x, eg, eh, u)
			require.Equal(t, okC, ctest.EHess2RHess(c.h, x, eg, eh, u, out))
			close("ehess2rhess", want, out)

			c.m.Transport(want, x, y, u)
			require.Equal(t, okC, ctest.Transport(c.h, x, y, u, out))
			close("transport", want, out)
			in = append([]float64(nil), u...)
			require.Equal(t, okC, ctest.Transport(c.h, x, y, in, in))
			close("transport in place", want, in)

			c.m.RandTangent(want, x, rand.New(rand.NewPCG(9, 0x5eed)))
			require.Equal(t, okC, ctest.RandTangent(c.h, x, 9, out))
			close("rand_tangent", want, out)
			assert.Equal(t, okC, ctest.CheckTangent(c.h, x, out))

			for _, m := range []struct {
				name string
				has  bool
			}{{"exp", c.exp}, {"log", c.log}, {"dist", c.dist}} {
				ok, rc := ctest.Supports(c.h, m.name)
				require.Equal(t, okC, rc)
				assert.Equal(t, m.has, ok, "supports(%s)", m.name)
			}
			if c.exp {
				ex, ok := solver.AsExper(c.m)
				require.True(t, ok)
				require.NoError(t, ex.Exp(want, x, u, 0.3))
				require.Equal(t, okC, ctest.Exp(c.h, x, u, 0.3, out))
				close("exp", want, out)
			}
			if c.log {
				lg, _ := solver.AsLogger(c.m)
				require.NoError(t, lg.Log(want, x, y))
				require.Equal(t, okC, ctest.Log(c.h, x, y, out))
				close("log", want, out)
			}
			if c.dist {
				ds, _ := solver.AsDistancer(c.m)
				d, err := ds.Dist(x, y)
				require.NoError(t, err)
				got := []float64{0}
				require.Equal(t, okC, ctest.Dist(c.h, x, y, got))
				assert.InDelta(t, d, got[0], 1e-13*(1+d), "dist")
			}
		})
	}
}

// TestToolkitIdentities: through the C ABI, the gradient and Hessian
// conversions pass the solver's Taylor tests (slopes 2 and 3), the
// transport lands in the tangent space linearly, Log inverts Exp and the
// distance of Exp_x(u) is ‖u‖, and Norm² = Inner.
func TestToolkitIdentities(t *testing.T) {
	for _, c := range toolkitCases(t) {
		t.Run(c.name, func(t *testing.T) {
			n, dim, rc := ctest.ManifoldLen(c.h)
			require.Equal(t, okC, rc)
			m := &cman{t: t, h: c.h, n: int(n), dim: int(dim)}
			rnd := rand.New(rand.NewPCG(5, 6))
			vec := func() []float64 { return make([]float64, n) }
			x, y, u, v := vec(), vec(), vec(), vec()
			m.RandPoint(x, rnd)
			m.RandTangent(u, x, rnd)
			m.RandTangent(v, x, rnd)
			assert.InDelta(t, 1, m.Norm(x, u), 1e-10, "rand_tangent is unit")
			nu := m.Norm(x, v)
			assert.InDelta(t, nu*nu, m.Inner(x, v, v), 1e-12, "norm² = inner")

			f := newCubicFn(int(n), rnd)
			grad := func(dst, p []float64) {
				eg := vec()
				f.EGrad(eg, p)
				m.EGradToRGrad(dst, p, eg)
			}
			hess := func(dst, p, d []float64) {
				eg, eh := vec(), vec()
				f.EGrad(eg, p)
				f.EHess(eh, p, d)
				m.EHessToRHess(dst, p, eg, eh, d)
			}
			// The gradient's definition: ⟨grad f(x), v⟩_x = Df(x)[v] =
			// ⟨egrad, v⟩ for every tangent v, and grad f(x) is tangent.
			eg, rg := vec(), vec()
			f.EGrad(eg, x)
			grad(rg, x)
			assert.InDelta(t, floats.Dot(eg, v), m.Inner(x, rg, v), 1e-12*(1+floats.Norm(eg, 2)), "⟨grad, v⟩ = Df[v]")
			assert.Zero(t, ctest.CheckTangent(c.h, x, rg), "grad tangent")
			if c.second {
				// The Taylor tests (slopes 2 and 3) along Exp or the
				// second-order retraction. Not on the coupling manifold:
				// there the gradient's remainder meets the Sinkhorn
				// retraction's accuracy before it shows a clean slope.
				rep := solver.CheckGradient(m, f.F, grad, x, u)
				assert.True(t, rep.OK, "%v", rep)
				rep = solver.CheckHessian(m, f.F, grad, hess, x, u, v)
				assert.True(t, rep.OK, "%v", rep)
			} else {
				// g(p) = ½‖p − x‖² is critical at x, where the Taylor test
				// holds for any retraction: the Weingarten term must cancel
				// the projected gradient's variation.
				x0 := append([]float64(nil), x...)
				g := func(p []float64) float64 { d := floats.Distance(p, x0, 2); return d * d / 2 }
				ggrad := func(dst, p []float64) {
					eg := vec()
					floats.SubTo(eg, p, x0)
					m.EGradToRGrad(dst, p, eg)
				}
				ghess := func(dst, p, d []float64) {
					eg := vec()
					floats.SubTo(eg, p, x0)
					m.EHessToRHess(dst, p, eg, d, d)
				}
				rep := solver.CheckHessian(m, g, ggrad, ghess, x, u, v)
				assert.True(t, rep.OK, "%v", rep)
				// And with the cubic, away from a critical point, the
				// Hessian is still tangent and symmetric.
				rep = solver.CheckHessian(m, f.F, grad, hess, x, u, v)
				assert.Less(t, rep.Residuals["tangency"], 1e-8)
				assert.Less(t, rep.Residuals["symmetry"], 1e-8)
			}
			require.NoError(t, m.Retract(y, x, u, 0.3))
			rep := solver.CheckTransport(m, x, y, u, v, c.isometric)
			assert.True(t, rep.OK, "%v", rep)
			if c.log {
				w := vec()
				floats.ScaleTo(w, 0.7, u)
				rep = solver.CheckExpLog(m, x, w)
				assert.True(t, rep.OK, "%v", rep)
			}
			if c.exp && c.dist {
				// d(x, Exp_x(t u)) = t‖u‖ for small t.
				e := vec()
				m.Exp(e, x, u, 0.2)
				d, _ := m.Dist(x, e)
				assert.InDelta(t, 0.2*m.Norm(x, u), d, 1e-10)
			}
		})
	}
}

// TestToolkitErrors: missing methods are "unsupported" errors naming the
// manifold (and a product's lacking factors), and bad input is
// RHGD_EINVAL naming the argument.
func TestToolkitErrors(t *testing.T) {
	cs := toolkitCases(t)
	byName := map[string]toolkitCase{}
	for _, c := range cs {
		byName[c.name] = c
	}
	cp, st, sp, pr := byName["coupling"], byName["stiefel"], byName["spd"], byName["product-spd-stiefel"]
	buf := func(c toolkitCase) []float64 { return make([]float64, c.m.Len()) }
	r := []float64{0} // scalar results
	x, out := buf(cp), buf(cp)
	require.Equal(t, okC, ctest.RandPoint(cp.h, 1, x))
	wantCode(t, "coupling exp", einval, func() int { return ctest.Exp(cp.h, x, out, 1, out) },
		"exp is unsupported", "coupling:m=3,n=4")
	wantCode(t, "coupling log", einval, func() int { return ctest.Log(cp.h, x, x, out) }, "log is unsupported")
	wantCode(t, "coupling dist", einval, func() int { return ctest.Dist(cp.h, x, x, r) },
		"dist is unsupported")
	xs := buf(st)
	require.Equal(t, okC, ctest.RandPoint(st.h, 1, xs))
	wantCode(t, "stiefel log", einval, func() int { return ctest.Log(st.h, xs, xs, buf(st)) },
		"log is unsupported", "stiefel:n=5,p=2")
	xp := buf(pr)
	require.Equal(t, okC, ctest.RandPoint(pr.h, 1, xp))
	wantCode(t, "product log", einval, func() int { return ctest.Log(pr.h, xp, xp, buf(pr)) },
		"log is unsupported", "factors lacking it: 1 (stiefel:n=4,p=2")
	wantCode(t, "supports bogus", einval, func() int { _, rc := ctest.Supports(sp.h, "retract"); return rc },
		`method "retract"`)

	// Bad points and vectors, by name.
	x, u, o := buf(sp), buf(sp), buf(sp)
	require.Equal(t, okC, ctest.RandPoint(sp.h, 1, x))
	require.Equal(t, okC, ctest.RandTangent(sp.h, x, 2, u))
	notSPD := append([]float64(nil), x...)
	notSPD[0] = -5
	nan := append([]float64(nil), u...)
	nan[3] = math.NaN()
	inf := append([]float64(nil), u...)
	inf[0] = math.Inf(-1)
	wantCode(t, "inner x", einval, func() int { return ctest.Inner(sp.h, notSPD, u, u, r) }, "x:")
	wantCode(t, "inner v", einval, func() int { return ctest.Inner(sp.h, x, u, nan, r) }, "v:", "NaN")
	wantCode(t, "inner out", einval, func() int { return ctest.Inner(sp.h, x, u, u, nil) }, "out is NULL")
	wantCode(t, "norm u", einval, func() int { return ctest.Norm(sp.h, x, inf, r) }, "u:", "-Inf")
	wantCode(t, "dist y", einval, func() int { return ctest.Dist(sp.h, x, notSPD, r) }, "y:")
	wantCode(t, "exp u NaN", einval, func() int { return ctest.Exp(sp.h, x, nan, 1, o) }, "u:")
	asym := append([]float64(nil), u...)
	asym[1] += 1
	wantCode(t, "exp u not tangent", einval, func() int { return ctest.Exp(sp.h, x, asym, 1, o) }, "u:", "symmetric")
	wantCode(t, "exp t", einval, func() int { return ctest.Exp(sp.h, x, u, math.NaN(), o) }, "t:")
	wantCode(t, "log y", einval, func() int { return ctest.Log(sp.h, x, notSPD, o) }, "y:")
	wantCode(t, "egrad2rgrad", einval, func() int { return ctest.EGrad2RGrad(sp.h, x, nan, o) }, "egrad:")
	wantCode(t, "ehess2rhess ehess", einval, func() int { return ctest.EHess2RHess(sp.h, x, u, nan, u, o) }, "ehess:")
	wantCode(t, "ehess2rhess u", einval, func() int { return ctest.EHess2RHess(sp.h, x, u, u, inf, o) }, "u:")
	wantCode(t, "ehess2rhess out", einval, func() int { return ctest.EHess2RHess(sp.h, x, u, u, u, nil) }, "out is NULL")
	wantCode(t, "transport y", einval, func() int { return ctest.Transport(sp.h, x, notSPD, u, o) }, "y:")
	wantCode(t, "transport u", einval, func() int { return ctest.Transport(sp.h, x, x, nan, o) }, "u:")
	wantCode(t, "rand_tangent x", einval, func() int { return ctest.RandTangent(sp.h, notSPD, 1, o) }, "x:")
	wantCode(t, "rand_tangent NULL", einval, func() int { return ctest.RandTangent(sp.h, x, 1, nil) }, "out is NULL")
	wantCode(t, "check_tangent u", einval, func() int { return ctest.CheckTangent(sp.h, x, asym) }, "u:")
	wantCode(t, "check_tangent x", einval, func() int { return ctest.CheckTangent(sp.h, notSPD, u) }, "x:")
	xs, us := buf(st), buf(st)
	require.Equal(t, okC, ctest.RandPoint(st.h, 1, xs))
	copy(us, xs) // X itself is normal at X
	wantCode(t, "stiefel check_tangent", einval, func() int { return ctest.CheckTangent(st.h, xs, us) }, "u:")
	wantCode(t, "bad handle", ebadh, func() int { return ctest.Norm(1<<40, x, u, r) })
}

// TestSylvesterLyapunov: the solutions have small residuals, and bad or
// singular equations are reported.
func TestSylvesterLyapunov(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	randn := func(k int) []float64 {
		a := make([]float64, k)
		for i := range a {
			a[i] = rnd.NormFloat64()
		}
		return a
	}
	const m, n = 5, 3
	a, b, c := randn(m*m), randn(n*n), randn(m*n)
	for i := 0; i < m; i++ {
		a[i*m+i] += 4 // A and −B apart: a well-conditioned equation
	}
	for i := 0; i < n; i++ {
		b[i*n+i] += 4
	}
	x := make([]float64, m*n)
	require.Equal(t, okC, ctest.Sylvester(m, n, a, b, c, x))
	res := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := -c[i*n+j]
			for k := 0; k < m; k++ {
				s += a[i*m+k] * x[k*n+j]
			}
			for k := 0; k < n; k++ {
				s += x[i*n+k] * b[k*n+j]
			}
			res[i*n+j] = s
		}
	}
	assert.Less(t, floats.Norm(res, 2), 1e-12*floats.Norm(c, 2), "Sylvester residual")
	// In place: x may be c.
	cc := append([]float64(nil), c...)
	require.Equal(t, okC, ctest.Sylvester(m, n, a, b, cc, cc))
	assert.Less(t, floats.Distance(cc, x, 2), 1e-13*floats.Norm(x, 2))

	// Lyapunov A X + X Aᵀ = C for a non-symmetric A.
	q := randn(m * m)
	xl := make([]float64, m*m)
	require.Equal(t, okC, ctest.Lyapunov(m, a, q, xl))
	resl := make([]float64, m*m)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			s := -q[i*m+j]
			for k := 0; k < m; k++ {
				s += a[i*m+k]*xl[k*m+j] + xl[i*m+k]*a[j*m+k]
			}
			resl[i*m+j] = s
		}
	}
	assert.Less(t, floats.Norm(resl, 2), 1e-12*floats.Norm(q, 2), "Lyapunov residual")

	// A = I, B = −I share an eigenvalue: singular.
	id := []float64{1, 0, 0, 1}
	wantCode(t, "singular", enumeric, func() int {
		return ctest.Sylvester(2, 2, id, []float64{-1, 0, 0, -1}, id, make([]float64, 4))
	}, "singular")
	nan := append([]float64(nil), b...)
	nan[4] = math.NaN()
	wantCode(t, "NaN b", einval, func() int { return ctest.Sylvester(m, n, a, nan, c, x) }, "b:", "[1,1]")
	wantCode(t, "NaN c", einval, func() int { return ctest.Lyapunov(n, b, nan, make([]float64, n*n)) }, "c:")
	wantCode(t, "size", einval, func() int { return ctest.Sylvester(0, n, a, b, c, x) }, "m = 0")
	wantCode(t, "lyapunov size", einval, func() int { return ctest.Lyapunov(-1, b, c, x) }, "n = -1")
	wantCode(t, "NULL b", einval, func() int { return ctest.Sylvester(m, n, a, nil, c, x) }, "b is NULL")
}

// TestFrechet: Df(A)[E] of exp, log and sqrt agrees with the central
// difference (f(A + hE) − f(A − hE))/2h, whose error falls as h² (the
// log-log slope between h and h/4 is 2), and with lapackx's.
func TestFrechet(t *testing.T) {
	const n = 4
	rnd := rand.New(rand.NewPCG(11, 12))
	a, e := make([]float64, n*n), make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			a[i*n+j], e[i*n+j] = rnd.NormFloat64()*0.3, rnd.NormFloat64()
			a[j*n+i], e[j*n+i] = a[i*n+j], e[i*n+j]
		}
		a[i*n+i] += 2 // SPD, for log and sqrt
	}
	for _, f := range []struct {
		name string
		fn   func(n int64, a, out []float64) int
	}{{"exp", ctest.Expsym}, {"log", ctest.Logsym}, {"sqrt", ctest.Sqrtsym}} {
		t.Run(f.name, func(t *testing.T) {
			d := make([]float64, n*n)
			require.Equal(t, okC, ctest.Frechet(f.name, n, a, e, d))
			fd := func(h float64) float64 {
				ap, am, fp, fm := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
				floats.AddScaledTo(ap, a, h, e)
				floats.AddScaledTo(am, a, -h, e)
				require.Equal(t, okC, f.fn(n, ap, fp))
				require.Equal(t, okC, f.fn(n, am, fm))
				floats.Sub(fp, fm)
				floats.Scale(1/(2*h), fp)
				return floats.Distance(fp, d, 2)
			}
			e1, e2 := fd(1e-2), fd(2.5e-3)
			assert.Less(t, e1, 1e-3*floats.Norm(d, 2))
			assert.InDelta(t, 2, math.Log(e1/e2)/math.Log(4), 0.2, "slope of the central difference's error")
			// In place, out = e.
			in := append([]float64(nil), e...)
			require.Equal(t, okC, ctest.Frechet(f.name, n, a, in, in))
			assert.Equal(t, d, in)
		})
	}
	asym := append([]float64(nil), e...)
	asym[1] += 1
	wantCode(t, "e not symmetric", einval, func() int { return ctest.Frechet("exp", n, a, asym, make([]float64, n*n)) },
		"e:")
	nan := append([]float64(nil), e...)
	nan[0] = math.NaN()
	wantCode(t, "e NaN", einval, func() int { return ctest.Frechet("exp", n, a, nan, make([]float64, n*n)) }, "e:")
	neg := append([]float64(nil), a...)
	for i := 0; i < n; i++ {
		neg[i*n+i] -= 10
	}
	wantCode(t, "log of non-SPD", einval, func() int { return ctest.Frechet("log", n, neg, e, make([]float64, n*n)) },
		"a:")
	wantCode(t, "a NaN", einval, func() int { return ctest.Frechet("sqrt", n, nan, e, make([]float64, n*n)) }, "a:")
}

// TestToolkitAllocs: steady-state calls allocate nothing (pooled
// workspaces, the manifold's own scratch space).
func TestToolkitAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	h, rc := ctest.ManifoldNew("spd:n=4")
	require.Equal(t, okC, rc)
	defer ctest.ManifoldFree(h)
	x, u, o := make([]float64, 16), make([]float64, 16), make([]float64, 16)
	require.Equal(t, okC, ctest.RandPoint(h, 1, x))
	require.Equal(t, okC, ctest.RandTangent(h, x, 2, u))
	a, b := []float64{3, 1, 1, 2}, []float64{2, 0, 1, 4}
	x2, r := make([]float64, 4), []float64{0}
	for name, op := range map[string]func() int{
		"inner":       func() int { return ctest.Inner(h, x, u, u, r) },
		"egrad2rgrad": func() int { return ctest.EGrad2RGrad(h, x, u, o) },
		"ehess2rhess": func() int { return ctest.EHess2RHess(h, x, u, u, u, o) },
		"exp":         func() int { return ctest.Exp(h, x, u, 0.1, o) },
		"transport":   func() int { return ctest.Transport(h, x, x, u, o) },
		"sylvester":   func() int { return ctest.Sylvester(2, 2, a, b, a, x2) },
		"lyapunov":    func() int { return ctest.Lyapunov(2, a, b, x2) },
		"frechet":     func() int { return ctest.Frechet("log", 2, a, a, x2) },
	} {
		require.Equal(t, okC, op(), name)
		assert.Zero(t, testing.AllocsPerRun(50, func() { op() }), name)
	}
}

// TestSnapPoint: rhgd_manifold_snap_point passes a point through (0), projects
// one within float32 rounding onto the manifold with a note (its length),
// and refuses one further off, naming x.
func TestSnapPoint(t *testing.T) {
	seen := 0
	for _, c := range toolkitCases(t) {
		if c.name != "stiefel" && c.name != "spd" {
			continue
		}
		seen++
		n := c.m.Len()
		x, out := make([]float64, n), make([]float64, n)
		require.Equal(t, okC, ctest.RandPoint(c.h, 3, x), c.name)
		rc, note := ctest.SnapPoint(c.h, x, out, 256)
		require.Equal(t, 0, rc, c.name)
		assert.Empty(t, note)
		assert.Equal(t, x, out, c.name)

		// float32 rounding: a point, no longer one to float64's tolerance.
		x32 := make([]float64, n)
		for i, v := range x {
			x32[i] = float64(float32(v))
		}
		x32[1] += 3e-8 // an asymmetry or a defect of orthonormality float32 can leave
		require.NotEqual(t, okC, ctest.CheckPoint(c.h, x32), c.name)
		rc, note = ctest.SnapPoint(c.h, x32, x32, 256) // in place
		require.Positive(t, rc, c.name)
		assert.Equal(t, len(note), rc)
		assert.Contains(t, note, "x: ", c.name)
		assert.Equal(t, okC, ctest.CheckPoint(c.h, x32), c.name)
		for i := range x {
			assert.InDelta(t, x[i], x32[i], 1e-6, c.name)
		}

		far := append([]float64(nil), x...)
		far[1] += 0.1
		rc, _ = ctest.SnapPoint(c.h, far, out, 0)
		assert.Equal(t, einval, rc, c.name)
		_, msg := ctest.LastError(4096)
		assert.Contains(t, msg, "x: ", c.name)
		wantCode(t, c.name+" snap NULL", einval, func() int { rc, _ := ctest.SnapPoint(c.h, nil, out, 0); return rc },
			"x is NULL")
	}
	require.Equal(t, 2, seen, "the stiefel and spd cases")
}

package coupling_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

var _ solver.Manifold = (*coupling.Coupling)(nil)

func marginals(rnd *rand.Rand, m, n int) (a, b []float64) {
	a, b = make([]float64, m), make([]float64, n)
	var sa, sb float64
	for i := range a {
		a[i] = 0.5 + rnd.Float64()
		sa += a[i]
	}
	for j := range b {
		b[j] = 0.5 + rnd.Float64()
		sb += b[j]
	}
	for j := range b {
		b[j] *= sa / sb
	}
	// Make the masses agree to the last bit.
	sb = 0
	for _, v := range b {
		sb += v
	}
	b[0] += sa - sb
	return a, b
}

func TestConformance(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 5))
	for _, mn := range [][2]int{{2, 2}, {3, 3}, {4, 7}, {20, 13}} {
		t.Run(fmt.Sprintf("m=%d,n=%d", mn[0], mn[1]), func(t *testing.T) {
			a, b := marginals(rnd, mn[0], mn[1])
			c, err := coupling.New(a, b)
			if err != nil {
				t.Fatal(err)
			}
			manifoldtest.Run(t, c, manifoldtest.Options{RetractionOrder: 1, Seed: uint64(mn[0]*100 + mn[1]),
				NotTangent: func(x []float64) []float64 { return append([]float64(nil), x...) },
				BadPoint: func(x []float64) []float64 {
					bad := append([]float64(nil), x...)
					bad[0] *= 1.01
					return bad
				}})
		})
	}
}

// elementwise is f(Γ) = Σ C∘Γ + ½ Σ D∘Γ² + ⅓ Σ W∘Γ³.
type elementwise struct{ C, D, W []float64 }

func (f elementwise) F(x []float64) float64 {
	var s float64
	for i, v := range x {
		s += f.C[i]*v + 0.5*f.D[i]*v*v + f.W[i]*v*v*v/3
	}
	return s
}
func (f elementwise) EGrad(dst, x []float64) {
	for i, v := range x {
		dst[i] = f.C[i] + f.D[i]*v + f.W[i]*v*v
	}
}
func (f elementwise) EHess(dst, x, u []float64) {
	for i, v := range x {
		dst[i] = (f.D[i] + 2*f.W[i]*v) * u[i]
	}
}

// TestHessianCovariantDifference checks the Riemannian Hessian away from
// critical points, where the first-order Sinkhorn retraction rules out the
// Taylor test: against the ambient covariant central difference
// P_Γ((grad f(R(tξ)) − grad f(R(−tξ)))/2t − ξ ∘ grad f(Γ) / 2Γ), whose error
// must fall as t².
func TestHessianCovariantDifference(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 9))
	m, n := 6, 5
	a, b := marginals(rnd, m, n)
	c, err := coupling.New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	vec := func() []float64 { return make([]float64, m*n) }
	rv := func() []float64 {
		v := vec()
		for i := range v {
			v[i] = rnd.NormFloat64()
		}
		return v
	}
	f := elementwise{rv(), rv(), rv()}
	x, xi := vec(), vec()
	c.RandPoint(x, rnd)
	c.RandTangent(xi, x, rnd)
	grad := func(dst, p []float64) {
		eg := vec()
		f.EGrad(eg, p)
		c.EGradToRGrad(dst, p, eg)
	}
	eg, eh, h := vec(), vec(), vec()
	f.EGrad(eg, x)
	f.EHess(eh, x, xi)
	c.EHessToRHess(h, x, eg, eh, xi)
	g0 := vec()
	grad(g0, x)
	var prev float64
	for k, step := range []float64{1e-2, 1e-3} {
		yp, ym, gp, gm, fd := vec(), vec(), vec(), vec(), vec()
		if err := c.Retract(yp, x, xi, step); err != nil {
			t.Fatal(err)
		}
		if err := c.Retract(ym, x, xi, -step); err != nil {
			t.Fatal(err)
		}
		grad(gp, yp)
		grad(gm, ym)
		for i := range fd {
			fd[i] = (gp[i]-gm[i])/(2*step) - xi[i]*g0[i]/(2*x[i])
		}
		c.Project(fd, x, fd)
		for i := range fd {
			fd[i] -= h[i]
		}
		e := c.Norm(x, fd) / c.Norm(x, h)
		t.Logf("t=%g: relative error %.3g", step, e)
		if k == 1 && !(e < prev/50) {
			t.Fatalf("error fell from %.3g to %.3g over a decade of t, want about 100×", prev, e)
		}
		prev = e
	}
	if prev > 1e-5 {
		t.Fatalf("covariant difference disagrees: %.3g", prev)
	}
}

func TestBadMarginals(t *testing.T) {
	for name, ab := range map[string][2][]float64{
		"negative": {{1, -1, 1}, {1}},
		"zero":     {{1, 0}, {1}},
		"nan":      {{math.NaN()}, {1}},
		"inf":      {{math.Inf(1)}, {1}},
		"mass":     {{1, 1}, {2.001}}, // beyond float32 rounding (TestNewFloat32Marginals)
		"empty":    {{}, {1}},
		"lopsided": {{1e-200, 1}, {1, 1e-200}}, // a plan's corner entry would be ~1e-400
	} {
		if _, err := coupling.New(ab[0], ab[1]); !errors.Is(err, coupling.ErrBadMarginal) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRetractionExtremes(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 11))
	a, b := marginals(rnd, 4, 4)
	c, _ := coupling.New(a, b)
	x, u, y := make([]float64, 16), make([]float64, 16), make([]float64, 16)
	c.RandPoint(x, rnd)
	// A pure rescaling U = (α1ᵀ + 1βᵀ) ∘ Γ with t·α of order 10³: Γ ∘ exp(tU ⊘ Γ)
	// overflows float64 by hundreds of orders of magnitude, yet balances back
	// to Γ exactly.
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			u[i*4+j] = (float64(i) - 1.5 + 0.3*float64(j)) * x[i*4+j]
		}
	}
	for _, step := range []float64{500, -800, 2000} {
		if err := c.Retract(y, x, u, step); err != nil {
			t.Fatalf("t=%g: %v", step, err)
		}
		for i := range y {
			if math.Abs(y[i]-x[i]) > 1e-12*x[i] {
				t.Fatalf("t=%g: entry %d is %v, want %v", step, i, y[i], x[i])
			}
		}
	}
	// A plan with entries near 1e−250, retracted along a tangent.
	ones := []float64{1, 1, 1, 1}
	c1, _ := coupling.New(ones, ones)
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			x[i*4+j] = 1.0 / 3
		}
		x[i*4+i] = 1e-250
	}
	if err := c1.CheckPoint(x); err != nil {
		t.Fatal(err)
	}
	c1.RandTangent(u, x, rnd)
	if err := c1.Retract(y, x, u, 0.5); err != nil {
		t.Fatal(err)
	}
	if err := c1.CheckPoint(y); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if r := y[i*4+i] / 1e-250; !(r > 1e-3 && r < 1e3) {
			t.Fatalf("tiny entry became %v", y[i*4+i])
		}
	}
	// A step whose exact result leaves the float64 range is an error, not
	// a clamped plan.
	c.RandPoint(x, rnd)
	c.RandTangent(u, x, rnd)
	if err := c.Retract(y, x, u, 1e4); !errors.Is(err, numerr.ErrUnderflow) {
		t.Fatalf("t=1e4: %v", err)
	}
	// NaN input.
	u[5] = math.NaN()
	if err := c.Retract(y, x, u, 1); !errors.Is(err, numerr.ErrNotFinite) {
		t.Fatalf("NaN step: %v", err)
	}
	// Not a plan: an Inf or a non-positive entry is named as such (both
	// were ErrUnderflow).
	c.RandTangent(u, x, rnd)
	for v, want := range map[float64]error{math.Inf(1): numerr.ErrNotFinite, -0.1: coupling.ErrNotPositive, 0: coupling.ErrNotPositive} {
		bad := append([]float64(nil), x...)
		bad[6] = v
		err := c.Retract(y, bad, u, 0.1)
		if !errors.Is(err, want) || errors.Is(err, numerr.ErrUnderflow) {
			t.Errorf("Γ entry %v: %v, want %v", v, err, want)
		}
	}
	// Too few iterations: an error, and still the best plan.
	c.RandTangent(u, x, rnd)
	c.Sinkhorn.MaxIter = 1
	c.Sinkhorn.Tol = 1e-15
	err := c.Retract(y, x, u, 3)
	if !errors.Is(err, coupling.ErrSinkhornNotConverged) {
		t.Fatalf("1 iteration: %v", err)
	}
	if e := c.LastMarginalError(); !(e > 0 && e < 1) {
		t.Fatalf("marginal error reported %v", e)
	}
	for _, v := range y {
		if !(v > 0) {
			t.Fatal("best plan not handed back")
		}
	}
}

func TestCGReport(t *testing.T) {
	rnd := rand.New(rand.NewPCG(12, 12))
	a, b := marginals(rnd, 30, 20)
	c, _ := coupling.New(a, b)
	x, z, p := make([]float64, 600), make([]float64, 600), make([]float64, 600)
	c.RandPoint(x, rnd)
	for i := range z {
		z[i] = rnd.NormFloat64()
	}
	c.Project(p, x, z)
	it, res := c.LastCG()
	if it == 0 || res > 1e-13 {
		t.Fatalf("CG: %d iterations, residual %.3g", it, res)
	}
	t.Logf("projection: %d CG iterations, residual %.2g", it, res)
}

// TestRandPointSettings: RandPoint returns a point whatever the
// retraction's Sinkhorn settings (it used to panic when they could not be
// met), and on marginals as uneven as New accepts.
func TestRandPointSettings(t *testing.T) {
	rnd := rand.New(rand.NewPCG(12, 12))
	for _, ab := range [][2][]float64{
		{{0.2, 0.3, 0.5}, {0.5, 0.5}},
		{{1e-140, 1}, {1, 1e-140}},
	} {
		c, err := coupling.New(ab[0], ab[1])
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, len(ab[0])*len(ab[1]))
		for _, s := range []coupling.SinkhornSettings{{MaxIter: 1}, {Tol: 1e-30}, {}} {
			c.Sinkhorn = s
			c.RandPoint(x, rnd)
			if err := c.CheckPoint(x); err != nil {
				t.Errorf("%v with %+v: %v", ab, s, err)
			}
		}
	}
}

// TestNewErrorOrder: with both marginals bad, New names a's first bad
// entry every time (the check used to range over a map, so it named a or
// b at random).
func TestNewErrorOrder(t *testing.T) {
	for i := 0; i < 50; i++ {
		_, err := coupling.New([]float64{1, -1}, []float64{0, 2})
		if !errors.Is(err, coupling.ErrBadMarginal) || !strings.Contains(err.Error(), "a[1] = -1") {
			t.Fatalf("try %d: %v, want ErrBadMarginal naming a[1] = -1", i, err)
		}
	}
}

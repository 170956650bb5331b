// Package manifoldtest is the conformance suite every rhgd manifold runs,
// and the one to run on a manifold you write yourself (in the style of
// gonum's testlapack and ManifoldsBase.jl's test_manifold).
//
// # What it checks
//
// Run checks, on random points of m:
//   - RandPoint and RandTangent give points and unit tangent vectors that
//     CheckPoint and CheckTangent accept, and 0 < Dim() ≤ Len();
//   - the metric is symmetric, bilinear and positive, and Norm² = Inner;
//   - Project is idempotent and lands in the tangent space;
//   - the retraction has R_x(0) = x and the order Options.RetractionOrder
//     (the log-log slope of its Taylor error);
//   - EGradToRGrad and EHessToRHess turn the Euclidean gradient and Hessian
//     of smooth test functions into Riemannian ones with the Taylor slopes
//     2 and 3 along the retraction (solver.CheckGradient, CheckHessian),
//     functions of the column space only on a quotient such as the
//     Grassmann manifold (Options.ColumnSpace);
//   - Transport maps tangent vectors to tangent vectors (and keeps norms
//     when Options.IsometricTransport);
//   - Exp and Log, when m has them, invert each other (on a manifold that
//     is not complete, such as the open simplex, along a tangent that
//     Exp's domain holds: see expStep);
//   - CheckPoint and CheckTangent reject NaN and Inf, and CheckPoint the
//     non-point of Options.BadPoint;
//   - a manifold that says it is a Euclidean space
//     (solver.IsEuclideanSpace) is one: identity gradient conversions and
//     projection, the Frobenius metric and the retraction x + t·u, to
//     rounding;
//   - a manifold that offers retractions by name
//     (solver.AsRetractionChooser) offers retractions: each name reads
//     back and gives a retraction of order 1 at least, an unknown name is
//     refused and changes nothing, and the list is the caller's copy;
//   - solver.Clone(m) computes what m computes;
//   - the hot-path methods allocate nothing (testing.AllocsPerRun).
//
// # Use
//
// In your package's test file:
//
//	func TestConformance(t *testing.T) {
//		manifoldtest.Run(t, mymanifold.New(5, 3), manifoldtest.Options{
//			RetractionOrder: 2, IsometricTransport: true, Seed: 1,
//		})
//	}
//
// A solver.Snapper has Snap besides, called with a point and its float32
// rounding; its own test then checks the projection it makes.
//
// Problems have their own suite, package problemtest.
package manifoldtest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/solver"
)

// Options tunes the suite to a manifold.
type Options struct {
	// RetractionOrder is 1 or 2. With 1 and no Exp, the Hessian's Taylor
	// test runs at a critical point, where any retraction will do.
	RetractionOrder int
	// IsometricTransport asks the transport check to test isometry.
	IsometricTransport bool
	// Seed seeds the random points and functions.
	Seed uint64
	// NotTangent returns an ambient vector that is not tangent at x, or nil
	// if every ambient vector is tangent (Euclidean space).
	NotTangent func(x []float64) []float64
	// BadPoint returns a finite array that is not a point, or nil.
	BadPoint func(x []float64) []float64
	// ColumnSpace says that the points of m are r×c matrices X with
	// orthonormal columns (r, c from its Dims method) standing for their
	// column spaces, as on the Grassmann manifold: only functions with
	// f(XO) = f(X) for orthogonal O are functions on m, and for any other
	// the quotient's Riemannian Hessian is not symmetric. The suite then
	// composes its test functions with X ↦ XXᵀ (see span).
	ColumnSpace bool
}

// cubic is f(X) = ⟨C, X⟩ + ½⟨X, D∘X⟩ + ⅓⟨W, X∘X∘X⟩ + ½ tr(XᵀKX), with K
// symmetric r×r: a smooth function with non-zero third derivatives and a
// term that couples the rows.
type cubic struct {
	r, c    int
	C, D, W []float64
	K       []float64
	tmp     []float64
}

func newCubic(r, c int, rnd *rand.Rand) *cubic {
	f := &cubic{r: r, c: c, C: randVec(rnd, r*c), D: randVec(rnd, r*c), W: randVec(rnd, r*c), K: randVec(rnd, r*r), tmp: make([]float64, r*c)}
	for i := 0; i < r; i++ {
		for j := 0; j < i; j++ {
			v := 0.5 * (f.K[i*r+j] + f.K[j*r+i])
			f.K[i*r+j], f.K[j*r+i] = v, v
		}
	}
	return f
}

func randVec(rnd *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rnd.NormFloat64()
	}
	return v
}

// kx sets f.tmp = K X.
func (f *cubic) kx(x []float64) []float64 {
	r, c := f.r, f.c
	for i := 0; i < r; i++ {
		row := f.tmp[i*c : (i+1)*c]
		clear(row)
		for k := 0; k < r; k++ {
			a := f.K[i*r+k]
			for j, v := range x[k*c : (k+1)*c] {
				row[j] += a * v
			}
		}
	}
	return f.tmp
}

func (f *cubic) F(x []float64) float64 {
	kx := f.kx(x)
	var s float64
	for i, v := range x {
		s += f.C[i]*v + 0.5*f.D[i]*v*v + f.W[i]*v*v*v/3 + 0.5*v*kx[i]
	}
	return s
}

func (f *cubic) EGrad(dst, x []float64) {
	kx := f.kx(x)
	for i, v := range x {
		dst[i] = f.C[i] + f.D[i]*v + f.W[i]*v*v + kx[i]
	}
}

func (f *cubic) EHess(dst, x, u []float64) {
	ku := f.kx(u)
	for i, v := range x {
		dst[i] = f.D[i]*u[i] + 2*f.W[i]*v*u[i] + ku[i]
	}
}

// quartic is f(X) = ¼ tr(M²) with M = XᵀAX + D, A (r×r) and D (c×c)
// symmetric: every entry couples with every other, and D keeps f from
// being constant on the orthogonal group. ∇f = A X M and
// ∇²f[U] = A U M + A X (UᵀAX + XᵀAU).
type quartic struct {
	r, c        int
	A, D        []float64
	ax, m, t, s []float64
}

func newQuartic(r, c int, rnd *rand.Rand) *quartic {
	q := &quartic{r: r, c: c, A: randVec(rnd, r*r), D: randVec(rnd, c*c), ax: make([]float64, r*c),
		m: make([]float64, c*c), t: make([]float64, r*c), s: make([]float64, c*c)}
	for _, a := range []struct {
		v []float64
		k int
	}{{q.A, r}, {q.D, c}} {
		for i := 0; i < a.k; i++ {
			for j := 0; j < i; j++ {
				v := 0.5 * (a.v[i*a.k+j] + a.v[j*a.k+i])
				a.v[i*a.k+j], a.v[j*a.k+i] = v, v
			}
		}
	}
	return q
}

// mul sets dst (ar×bc) = op(a) b with a stored ar×ac (or ac×ar if ta).
func mul(dst, a []float64, ar, ac int, ta bool, b []float64, bc int) {
	for i := 0; i < ar; i++ {
		for j := 0; j < bc; j++ {
			var s float64
			for k := 0; k < ac; k++ {
				aik := a[i*ac+k]
				if ta {
					aik = a[k*ar+i]
				}
				s += aik * b[k*bc+j]
			}
			dst[i*bc+j] = s
		}
	}
}

// setM sets q.ax = A X and q.m = Xᵀ A X + D.
func (q *quartic) setM(x []float64) {
	mul(q.ax, q.A, q.r, q.r, false, x, q.c)
	mul(q.m, x, q.c, q.r, true, q.ax, q.c)
	for i, d := range q.D {
		q.m[i] += d
	}
}

func (q *quartic) F(x []float64) float64 {
	q.setM(x)
	var s float64
	for _, v := range q.m {
		s += v * v
	}
	return 0.25 * s
}

func (q *quartic) EGrad(dst, x []float64) {
	q.setM(x)
	mul(dst, q.ax, q.r, q.c, false, q.m, q.c)
}

func (q *quartic) EHess(dst, x, u []float64) {
	q.setM(x)
	r, c := q.r, q.c
	mul(q.t, q.A, r, r, false, u, c) // A U
	mul(dst, q.t, r, c, false, q.m, c)
	// S = Uᵀ A X + Xᵀ A U = (AU)ᵀ X + Xᵀ (AU)
	mul(q.s, q.t, c, r, true, x, c)
	for i := 0; i < c; i++ {
		for j := 0; j < i; j++ {
			v := q.s[i*c+j] + q.s[j*c+i]
			q.s[i*c+j], q.s[j*c+i] = v, v
		}
		q.s[i*c+i] *= 2
	}
	mul(q.t, q.ax, r, c, false, q.s, c)
	for i := range dst {
		dst[i] += q.t[i]
	}
}

// halfSq is f(X) = ½‖X − X0‖², with a critical point at X0.
type halfSq struct{ x0 []float64 }

func (h halfSq) F(x []float64) float64 {
	d := floats.Distance(x, h.x0, 2)
	return 0.5 * d * d
}

func (h halfSq) EGrad(dst, x []float64) { floats.SubTo(dst, x, h.x0) }

func (h halfSq) EHess(dst, x, u []float64) { copy(dst, u) }

// span is f(X) = h(XXᵀ) for a test function h of r×r matrices: with X
// r×c it depends on the column space of X only, f(XO) = f(X) for
// orthogonal O (Options.ColumnSpace). With P = XXᵀ, G = ∇h(P) and
// H = ∇²h(P)[UXᵀ + XUᵀ], the chain rule gives ∇f = (G + Gᵀ)X and
// ∇²f[U] = (H + Hᵀ)X + (G + Gᵀ)U.
type span struct {
	h           testFunc
	r, c        int
	p, d, g, hd []float64 // r×r
	tmp         []float64 // r×c
}

func newSpan(h testFunc, r, c int) *span {
	return &span{h: h, r: r, c: c, p: make([]float64, r*r), d: make([]float64, r*r), g: make([]float64, r*r),
		hd: make([]float64, r*r), tmp: make([]float64, r*c)}
}

// outer sets the r×r dst = a bᵀ + b aᵀ for the r×c a and b.
func (s *span) outer(dst, a, b []float64) {
	r, c := s.r, s.c
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			var v float64
			for k := 0; k < c; k++ {
				v += a[i*c+k]*b[j*c+k] + b[i*c+k]*a[j*c+k]
			}
			dst[i*r+j] = v
		}
	}
}

// symSum sets the r×r m to m + mᵀ.
func symSum(m []float64, r int) {
	for i := 0; i < r; i++ {
		for j := 0; j <= i; j++ {
			v := m[i*r+j] + m[j*r+i]
			m[i*r+j], m[j*r+i] = v, v
		}
	}
}

// setP sets s.p = XXᵀ (outer gives 2XXᵀ).
func (s *span) setP(x []float64) {
	s.outer(s.p, x, x)
	floats.Scale(0.5, s.p)
}

func (s *span) F(x []float64) float64 {
	s.setP(x)
	return s.h.F(s.p)
}

func (s *span) EGrad(dst, x []float64) {
	s.setP(x)
	s.h.EGrad(s.g, s.p)
	symSum(s.g, s.r)
	mul(dst, s.g, s.r, s.r, false, x, s.c)
}

func (s *span) EHess(dst, x, u []float64) {
	s.setP(x)
	s.outer(s.d, u, x)
	s.h.EHess(s.hd, s.p, s.d)
	symSum(s.hd, s.r)
	mul(dst, s.hd, s.r, s.r, false, x, s.c)
	s.h.EGrad(s.g, s.p)
	symSum(s.g, s.r)
	mul(s.tmp, s.g, s.r, s.r, false, u, s.c)
	floats.Add(dst, s.tmp)
}

// testFunc is a smooth function with its Euclidean derivatives.
type testFunc interface {
	F(x []float64) float64
	EGrad(dst, x []float64)
	EHess(dst, x, u []float64)
}

// riemannian returns f's Riemannian gradient and Hessian on m, from its
// Euclidean ones.
func riemannian(m solver.Manifold, f testFunc) (grad func(dst, p []float64), hess func(dst, p, d []float64)) {
	n := m.Len()
	grad = func(dst, p []float64) {
		eg := make([]float64, n)
		f.EGrad(eg, p)
		m.EGradToRGrad(dst, p, eg)
	}
	hess = func(dst, p, d []float64) {
		eg, eh := make([]float64, n), make([]float64, n)
		f.EGrad(eg, p)
		f.EHess(eh, p, d)
		m.EHessToRHess(dst, p, eg, eh, d)
	}
	return grad, hess
}

// shape returns the matrix shape the test functions give a point: the
// manifold's own (Dims) where it has one, a column of Len entries
// otherwise (a product).
func shape(m solver.Manifold) (r, c int) {
	if d, ok := m.(interface{ Dims() (int, int) }); ok {
		return d.Dims()
	}
	return m.Len(), 1
}

// expStep returns the largest of t, t/2, t/4, … (down to t·2⁻⁴⁰) at which
// Exp_x(t·u) succeeds, or t when none does (the check then reports Exp's
// error). On a complete manifold it is t; on one that is not, such as the
// open simplex, whose geodesics reach the boundary, a fixed step would
// leave the domain at many random points. dst is scratch.
func expStep(ex solver.Exper, x, u []float64, t float64, dst []float64) float64 {
	for s := t; s >= t*0x1p-40; s /= 2 {
		if ex.Exp(dst, x, u, s) == nil {
			return s
		}
	}
	return t
}

// Run runs the suite on m, one subtest per property (t.Run), and fails
// t on each property that does not hold.
func Run(t *testing.T, m solver.Manifold, o Options) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(o.Seed, 0xc0ffee))
	r, c := shape(m)
	n := m.Len()
	vec := func() []float64 { return make([]float64, n) }
	x, u, v, w, y := vec(), vec(), vec(), vec(), vec()
	m.RandPoint(x, rnd)
	m.RandTangent(u, x, rnd)
	m.RandTangent(v, x, rnd)
	relTol := 1e-10

	t.Run("points", func(t *testing.T) {
		for k := 0; k < 5; k++ {
			p := vec()
			m.RandPoint(p, rnd)
			if err := m.CheckPoint(p); err != nil {
				t.Fatalf("RandPoint: %v", err)
			}
			m.RandTangent(w, p, rnd)
			if err := m.CheckTangent(p, w); err != nil {
				t.Fatalf("RandTangent: %v", err)
			}
			if nw := m.Norm(p, w); math.Abs(nw-1) > 1e-10 {
				t.Fatalf("RandTangent norm %v, want 1", nw)
			}
		}
		if m.Dim() <= 0 || m.Dim() > n {
			t.Errorf("Dim() = %d with %d coordinates", m.Dim(), n)
		}
	})

	t.Run("metric", func(t *testing.T) {
		a, b := m.Inner(x, u, v), m.Inner(x, v, u)
		if math.Abs(a-b) > relTol {
			t.Errorf("Inner not symmetric: %v vs %v", a, b)
		}
		for i := range w {
			w[i] = 2*u[i] - 0.5*v[i]
		}
		lin := m.Inner(x, w, v) - (2*m.Inner(x, u, v) - 0.5*m.Inner(x, v, v))
		if math.Abs(lin) > relTol*(1+math.Abs(m.Inner(x, w, v))) {
			t.Errorf("Inner not bilinear: residual %v", lin)
		}
		if nn := m.Norm(x, u); math.Abs(nn*nn-m.Inner(x, u, u)) > relTol {
			t.Errorf("Norm² = %v, Inner(u, u) = %v", nn*nn, m.Inner(x, u, u))
		}
		if m.Inner(x, u, u) <= 0 {
			t.Errorf("Inner(u, u) = %v not positive", m.Inner(x, u, u))
		}
	})

	t.Run("projection", func(t *testing.T) {
		amb := randVec(rnd, n)
		m.Project(w, x, amb)
		if err := m.CheckTangent(x, w); err != nil {
			t.Fatalf("projection not tangent: %v", err)
		}
		m.Project(y, x, w)
		if d := floats.Distance(y, w, 2) / (floats.Norm(w, 2) + 1e-300); d > relTol {
			t.Errorf("projection not idempotent: %v", d)
		}
		m.Project(y, x, u)
		if d := floats.Distance(y, u, 2) / floats.Norm(u, 2); d > relTol {
			t.Errorf("projection moves a tangent vector: %v", d)
		}
		// Orthogonal in the metric at x: the discarded part is normal.
		for i := range y {
			y[i] = amb[i] - w[i]
		}
		if d := m.Inner(x, y, v) / (m.Norm(x, amb)*m.Norm(x, v) + 1e-300); math.Abs(d) > relTol {
			t.Errorf("projection not orthogonal: ⟨v − Pv, u⟩/‖v‖‖u‖ = %v", d)
		}
		if o.NotTangent != nil {
			if err := m.CheckTangent(x, o.NotTangent(x)); err == nil {
				t.Errorf("CheckTangent accepted a non-tangent vector")
			}
		}
	})

	t.Run("retraction", func(t *testing.T) {
		for _, s := range []float64{0, 1e-3, 0.1, 1} {
			if err := m.Retract(y, x, u, s); err != nil {
				t.Fatalf("Retract t=%v: %v", s, err)
			}
			if err := m.CheckPoint(y); err != nil {
				t.Fatalf("Retract t=%v leaves the manifold: %v", s, err)
			}
		}
		rep := solver.CheckRetraction(m, x, u, o.RetractionOrder)
		if !rep.OK {
			t.Error(rep)
		}
	})

	type namedFunc struct {
		name string
		f    testFunc
	}
	funcs := []namedFunc{{"cubic", newCubic(r, c, rnd)}, {"quartic", newQuartic(r, c, rnd)}}
	if o.ColumnSpace {
		funcs = []namedFunc{{"cubic", newSpan(newCubic(r, r, rnd), r, c)}, {"quartic", newSpan(newQuartic(r, r, rnd), r, c)}}
	}
	for _, tf := range funcs {
		f := tf.f
		grad, hess := riemannian(m, f)
		t.Run("fd-hessian/"+tf.name, func(t *testing.T) {
			// The solver's difference-quotient Hessian (its fallback for a
			// missing oracle) against the exact one, at a point that is not
			// critical: this needs the manifold's connection to be right.
			p := solver.FillFD(solver.Problem{Mx: m, My: m, GradGy: func(dst []float64, pt *solver.Point) error {
				grad(dst, pt.Y)
				return nil
			}}, 0)
			exact, fd := vec(), vec()
			hess(exact, x, u)
			if err := p.HessGy(fd, &solver.Point{Y: x}, u); err != nil {
				t.Fatal(err)
			}
			if d := floats.Distance(fd, exact, 2) / floats.Norm(exact, 2); d > 1e-6 {
				t.Errorf("finite-difference Hessian off by %.2e relative", d)
			}
		})
		t.Run("gradient/"+tf.name, func(t *testing.T) {
			rep := solver.CheckGradient(m, f.F, grad, x, u)
			if !rep.OK {
				t.Error(rep)
			}
		})
		t.Run("hessian/"+tf.name, func(t *testing.T) {
			_, hasExp := solver.AsExper(m)
			if o.RetractionOrder >= 2 || hasExp {
				rep := solver.CheckHessian(m, f.F, grad, hess, x, u, v)
				if !rep.OK {
					t.Error(rep)
				}
				return
			}
			// First-order retraction: symmetry and tangency here; the
			// Taylor test runs at a critical point below.
			rep := solver.CheckHessian(m, f.F, grad, hess, x, u, v)
			for _, k := range []string{"tangency", "symmetry"} {
				if rep.Residuals[k] > 1e-8 {
					t.Errorf("Hessian %s %.2e", k, rep.Residuals[k])
				}
			}
		})
	}

	t.Run("hessian/critical-point", func(t *testing.T) {
		// g(p) = ½‖p − x‖² has a critical point at x, where the Taylor
		// test holds for any retraction; on column spaces,
		// ½‖ppᵀ − xxᵀ‖² has.
		var f testFunc = halfSq{append([]float64(nil), x...)}
		if o.ColumnSpace {
			pp := newSpan(nil, r, c)
			pp.setP(x)
			f = newSpan(halfSq{pp.p}, r, c)
		}
		g := f.F
		ggrad, ghess := riemannian(m, f)
		rep := solver.CheckHessian(m, g, ggrad, ghess, x, u, v)
		if !rep.OK {
			t.Error(rep)
		}
	})

	t.Run("transport", func(t *testing.T) {
		if err := m.Retract(y, x, u, 0.3); err != nil {
			t.Fatal(err)
		}
		rep := solver.CheckTransport(m, x, y, u, v, o.IsometricTransport)
		if !rep.OK {
			t.Error(rep)
		}
		m.Transport(w, x, x, u)
		if d := floats.Distance(w, u, 2) / floats.Norm(u, 2); d > 1e-8 {
			t.Errorf("transport from x to x moves u by %v", d)
		}
	})

	t.Run("exp-log", func(t *testing.T) {
		if _, ok := solver.AsLogger(m); !ok {
			t.Skip("no Log")
		}
		ex, _ := solver.AsExper(m)
		s := expStep(ex, x, u, 0.7, y)
		for i := range w {
			w[i] = s * u[i]
		}
		rep := solver.CheckExpLog(m, x, w)
		if !rep.OK {
			t.Error(rep)
		}
	})

	t.Run("bad-input", func(t *testing.T) {
		bad := append([]float64(nil), x...)
		bad[0] = math.NaN()
		if m.CheckPoint(bad) == nil {
			t.Error("CheckPoint accepted NaN")
		}
		bad = append([]float64(nil), u...)
		bad[n-1] = math.Inf(1)
		if m.CheckTangent(x, bad) == nil {
			t.Error("CheckTangent accepted Inf")
		}
		if o.BadPoint != nil {
			if err := m.CheckPoint(o.BadPoint(x)); err == nil {
				t.Error("CheckPoint accepted a non-point")
			}
		}
	})

	// A manifold that says it is a Euclidean space is held to it: the
	// solver then runs a problem's fused Euclidean lower steps
	// (Problem.LowerSteps) in place of its own retractions.
	t.Run("euclidean-space", func(t *testing.T) {
		if !solver.IsEuclideanSpace(m) {
			t.Skip("not a Euclidean space")
		}
		if m.Dim() != n {
			t.Errorf("Dim() = %d, want Len() = %d", m.Dim(), n)
		}
		amb, eh := randVec(rnd, n), randVec(rnd, n)
		for name, op := range map[string]func(){
			"Project":      func() { m.Project(w, x, amb) },
			"EGradToRGrad": func() { m.EGradToRGrad(w, x, amb) },
			"EHessToRHess": func() { m.EHessToRHess(w, x, eh, amb, u) },
		} {
			op()
			if !slices.Equal(w, amb) {
				t.Errorf("%s changes its vector: %v, want %v", name, w, amb)
			}
		}
		// Sums of n products: each within n·ε of the exact value, as any
		// order of the additions gives.
		var dot, abs, sq float64
		for i := range u {
			dot, abs, sq = dot+u[i]*amb[i], abs+math.Abs(u[i]*amb[i]), sq+u[i]*u[i]
		}
		if got := m.Inner(x, u, amb); math.Abs(got-dot) > 2*float64(n)*0x1p-52*abs {
			t.Errorf("Inner = %v, want the Frobenius product %v", got, dot)
		}
		if got := m.Norm(x, u); math.Abs(got-math.Sqrt(sq)) > 2*float64(n)*0x1p-52*math.Sqrt(sq) {
			t.Errorf("Norm = %v, want the Frobenius norm %v", got, math.Sqrt(sq))
		}
		for _, s := range []float64{0.3, -1.7} {
			if err := m.Retract(y, x, amb, s); err != nil {
				t.Fatalf("Retract t=%v: %v", s, err)
			}
			for i := range y {
				// x + t·u with one rounding of the product and one of the
				// sum (or one of a fused multiply-add).
				if want := x[i] + s*amb[i]; math.Abs(y[i]-want) > 2*0x1p-52*(math.Abs(x[i])+math.Abs(s*amb[i])) {
					t.Fatalf("Retract t=%v: entry %d = %v, want x + t·u = %v", s, i, y[i], want)
				}
			}
		}
	})

	t.Run("retractions", func(t *testing.T) {
		ch, ok := solver.AsRetractionChooser(m)
		if !ok {
			t.Skip("no choice of retraction")
		}
		names, orig := ch.Retractions(), ch.RetractionName()
		t.Cleanup(func() { _ = ch.SetRetraction(orig) }) // the later subtests run m's own
		if !slices.Contains(names, orig) {
			t.Errorf("RetractionName %q is not among Retractions %q", orig, names)
		}
		for _, name := range names {
			if err := ch.SetRetraction(name); err != nil {
				t.Errorf("SetRetraction(%q): %v", name, err)
				continue
			}
			if got := ch.RetractionName(); got != name {
				t.Errorf("SetRetraction(%q), then RetractionName %q", name, got)
			}
			if rep := solver.CheckRetraction(m, x, u, 1); !rep.OK {
				t.Errorf("%s: %v", name, rep)
			}
		}
		const bad = "no such retraction"
		if err := ch.SetRetraction(orig); err != nil {
			t.Fatal(err)
		}
		if ch.SetRetraction(bad) == nil {
			t.Errorf("SetRetraction accepted %q", bad)
		}
		if got := ch.RetractionName(); got != orig {
			t.Errorf("an unknown name changed the retraction from %q to %q", orig, got)
		}
		names[0] = bad
		if ch.Retractions()[0] == bad {
			t.Errorf("Retractions returns the manifold's own slice")
		}
	})

	t.Run("clone", func(t *testing.T) {
		cm := solver.Clone(m)
		a := m.Inner(x, u, v)
		if b := cm.Inner(x, u, v); math.Abs(a-b) > 1e-14*math.Abs(a) {
			t.Errorf("clone's Inner %v, original %v", b, a)
		}
		if err := cm.Retract(w, x, u, 0.5); err != nil {
			t.Fatal(err)
		}
		if err := m.Retract(y, x, u, 0.5); err != nil {
			t.Fatal(err)
		}
		if d := floats.Distance(w, y, 2); d > 1e-14*floats.Norm(y, 2) {
			t.Errorf("clone retracts differently: %v", d)
		}
	})

	t.Run("allocs", func(t *testing.T) {
		if race.Enabled {
			t.Skip("allocation counts under -race")
		}
		eg, eh := vec(), vec()
		f := newCubic(r, c, rnd)
		f.EGrad(eg, x)
		f.EHess(eh, x, u)
		if err := m.Retract(y, x, u, 0.3); err != nil {
			t.Fatal(err)
		}
		ops := map[string]func(){
			"Inner":        func() { m.Inner(x, u, v) },
			"Norm":         func() { m.Norm(x, u) },
			"Project":      func() { m.Project(w, x, eg) },
			"EGradToRGrad": func() { m.EGradToRGrad(w, x, eg) },
			"EHessToRHess": func() { m.EHessToRHess(w, x, eg, eh, u) },
			"Retract":      func() { _ = m.Retract(w, x, u, 0.3) },
			"Transport":    func() { m.Transport(w, x, y, u) },
		}
		if ex, ok := solver.AsExper(m); ok {
			s := expStep(ex, x, u, 0.3, w)
			ops["Exp"] = func() { _ = ex.Exp(w, x, u, s) }
		}
		if lg, ok := solver.AsLogger(m); ok {
			ops["Log"] = func() { _ = lg.Log(w, x, y) }
		}
		if ds, ok := solver.AsDistancer(m); ok {
			ops["Dist"] = func() { _, _ = ds.Dist(x, y) }
		}
		if cn, ok := m.(solver.Connection); ok {
			ops["ConnectionTerm"] = func() { cn.ConnectionTerm(w, x, u, v) }
		}
		for name, op := range ops {
			op()
			if a := testing.AllocsPerRun(5, op); a != 0 {
				t.Errorf("%s: %v allocations per call", name, a)
			}
		}
	})
}

package karcher_test

import (
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/karcher"
	"github.com/rhgd/rhgd/problemtest"
	"github.com/rhgd/rhgd/solver"
)

func setup(t testing.TB, n, count int, spread float64) (*karcher.Data, *karcher.Problem) {
	t.Helper()
	data, err := karcher.Generate(n, count, spread, 42)
	require.NoError(t, err)
	p, err := karcher.New(data)
	require.NoError(t, err)
	return data, p
}

// at is the point (x, y) with unknown identities: no cache can match it.

// randSym returns a random symmetric n×n matrix with entries of size s.
func randSym(rnd *rand.Rand, n int, s float64) []float64 {
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			v := s * rnd.NormFloat64()
			a[i*n+j], a[j*n+i] = v, v
		}
	}
	return a
}

// phiTruth returns C^½ exp(sym x) C^½ by gonum.
func phiTruth(t testing.TB, data *karcher.Data, x []float64) *mat.SymDense {
	n := data.N
	return congr(fn(t, sym(data.C, n), math.Sqrt), fn(t, sym(x, n), math.Exp))
}

// TestPhi: φ(x) = C^½ exp(sym x) C^½ against gonum, for a non-symmetric
// x; a non-finite x and an x whose exponential would overflow are errors.
func TestPhi(t *testing.T) {
	data, p := setup(t, 5, 3, 1)
	rnd := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 25)
	for i := range x {
		x[i] = 0.5 * rnd.NormFloat64()
	}
	got := make([]float64, 25)
	require.NoError(t, p.Phi(got, x))
	require.Less(t, relSym(mat.NewDense(5, 5, got), phiTruth(t, data, x)), 1e-13)
	require.NoError(t, p.SPD.CheckPoint(got))

	x[3] = math.NaN()
	require.ErrorIs(t, p.Phi(got, x), numerr.ErrNotFinite)
	x[3] = 0
	x[6] = 800 // an eigenvalue ≥ 400
	require.ErrorIs(t, p.Phi(got, x), numerr.ErrOverflow)
	x[6] = -800
	require.ErrorIs(t, p.Phi(got, x), numerr.ErrOverflow)
}

// TestPhiAdjoint: Dφ(x)†[w] is the Euclidean gradient at x of
// x' ↦ ⟨φ(x'), w⟩_{φ(x)} = tr(Y⁻¹ φ(x') Y⁻¹ w) with Y = φ(x) fixed: the
// Taylor remainder along non-symmetric directions falls as t², at a
// generic x and at one with a repeated eigenvalue (the divided
// differences' diagonal branch). Its result is symmetric.
func TestPhiAdjoint(t *testing.T) {
	const n = 4
	data, p := setup(t, n, 3, 1)
	rnd := rand.New(rand.NewPCG(2, 2))
	generic := randSym(rnd, n, 0.6)
	// Q diag(0.4, 0.4, −0.3, 1.1) Qᵀ.
	var q mat.Dense
	q.CloneFrom(fn(t, sym(randSym(rnd, n, 1), n), math.Exp))
	var qr mat.QR
	qr.Factorize(&q)
	var qq, rep mat.Dense
	qr.QTo(&qq)
	rep.Product(&qq, mat.NewDiagDense(n, []float64{0.4, 0.4, -0.3, 1.1}), qq.T())
	repeated := sym(rep.RawMatrix().Data, n)
	for name, x := range map[string][]float64{"generic": generic, "repeated eigenvalue": denseOf(repeated)} {
		y := phiTruth(t, data, x)
		var yi mat.Dense
		require.NoError(t, yi.Inverse(y))
		w := randSym(rnd, n, 1)
		var ywy mat.Dense
		ywy.Product(&yi, mat.NewDense(n, n, w), &yi)
		f := func(xx []float64) float64 {
			var h mat.Dense
			h.MulElem(phiTruth(t, data, xx), &ywy)
			return mat.Sum(&h)
		}
		adj := make([]float64, n*n)
		p.PhiAdjoint(adj, x, w)
		u := make([]float64, n*n)
		p.X.RandTangent(u, x, rnd)
		r := solver.CheckGradient(p.X, f, func(dst, _ []float64) { copy(dst, adj) }, x, u)
		require.True(t, r.OK, "%s: %v", name, r)
		require.Equal(t, denseOf(sym(adj, n)), adj, "%s: symmetric", name)
	}
	// A failing φ makes the adjoint NaN (its signature has no error).
	bad := make([]float64, n*n)
	bad[0] = math.Inf(1)
	adj := make([]float64, n*n)
	p.PhiAdjoint(adj, bad, randSym(rnd, n, 1))
	require.True(t, math.IsNaN(adj[0]))
}

func denseOf(s *mat.SymDense) []float64 {
	var d mat.Dense
	d.CloneFrom(s)
	return d.RawMatrix().Data
}

// TestPsi: ψ and grad ψ against gonum's ½ Σ w_i d²(Y, B_i) and
// −Σ w_i Log_Y B_i, with non-uniform weights (normalized by New).
func TestPsi(t *testing.T) {
	data, _ := setup(t, 5, 4, 1.5)
	data.W = []float64{1, 2, 3, 4}
	p, err := karcher.New(data)
	require.NoError(t, err)
	w := []float64{0.1, 0.2, 0.3, 0.4}
	rnd := rand.New(rand.NewPCG(3, 3))
	y := make([]float64, 25)
	p.SPD.RandPoint(y, rnd)
	bs := mats(data.B, 5)
	require.InDelta(t, psiTruth(t, sym(y, 5), bs, w), p.Psi(y), 1e-13*p.Psi(y))
	g := make([]float64, 25)
	p.GradPsi(g, y)
	require.Less(t, relSym(mat.NewDense(5, 5, g), gradTruth(t, sym(y, 5), bs, w)), 1e-12)
	// The error-returning twins, and their errors.
	f, err := p.F(testkit.At(nil, y))
	require.NoError(t, err)
	require.Equal(t, p.Psi(y), f)
	y[0] = -y[0]
	_, err = p.F(testkit.At(nil, y))
	require.ErrorIs(t, err, numerr.ErrNotPosDef)
	require.ErrorIs(t, p.GradFy(g, testkit.At(nil, y)), numerr.ErrNotPosDef)
	require.True(t, math.IsNaN(p.Psi(y)))
}

// TestConformance runs the problem suite on the bilevel form, at a y away
// from φ(x) and at y* = φ(x): the gradients of f and g (grad_x g through
// PhiAdjoint), the closed-form Hessian by its Taylor slope along the
// exponential map and against the finite differences of grad_y g, the
// cross derivatives against the difference of grad_x g and each other,
// the inverse Hessian, and the caches.
func TestConformance(t *testing.T) {
	const n = 4
	_, p := setup(t, n, 5, 1)
	x, y, ys := points(t, p, 4)
	problemtest.Run(t, p.Bilevel(), problemtest.Config{X: x, Y: y, YStar: ys, SecondOrderY: true, Seed: 1})
}

// points returns a symmetric x, y* = φ(x) and a y at distance 0.8 from it.
func points(t testing.TB, p *karcher.Problem, seed uint64) (x, y, ys []float64) {
	n, _ := p.Dims()
	rnd := rand.New(rand.NewPCG(seed, seed))
	x = randSym(rnd, n, 0.4)
	ys = make([]float64, n*n)
	require.NoError(t, p.Phi(ys, x))
	y = make([]float64, n*n)
	u := make([]float64, n*n)
	p.SPD.RandTangent(u, ys, rnd)
	require.NoError(t, p.SPD.Exp(y, ys, u, 0.8))
	return x, y, ys
}

// withoutSecondOrder returns p's bilevel form with only the oracles
// solver.Compositional provides, HessGy and CrossGxy filled by
// solver.FillFD as solver.New does.
func withoutSecondOrder(p *karcher.Problem) solver.Problem {
	q := p.Bilevel()
	q.HessGy, q.HessGyInv, q.CrossGxy = nil, nil, nil
	return solver.FillFD(q, solver.DefaultFDStep)
}

// TestFiniteDifferences: on the reformulation's first-order oracles alone,
// the finite-difference Hessian (with SPD's connection term) and cross
// derivative that solver.FillFD makes match the closed forms away from
// y*, where the connection term matters, and pass the suite's checks
// there: the Hessian's Taylor slope against g, the cross derivative's
// adjointness with the exact CrossGyx. (At y* g is exactly quadratic along
// geodesics, so the Taylor test of a Hessian sees the O(h²) error of the
// differences; the suite is therefore run at the noncritical point only.)
func TestFiniteDifferences(t *testing.T) {
	const n = 4
	_, p := setup(t, n, 5, 1)
	x, y, _ := points(t, p, 5)
	exact, fd := p.Bilevel(), withoutSecondOrder(p)
	rnd := rand.New(rand.NewPCG(6, 6))
	v := make([]float64, n*n)
	p.SPD.RandTangent(v, y, rnd)
	he, hf, ce, cf := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	require.NoError(t, exact.HessGy(he, testkit.At(x, y), v))
	require.NoError(t, fd.HessGy(hf, testkit.At(x, y), v))
	require.NoError(t, exact.CrossGxy(ce, testkit.At(x, y), v))
	require.NoError(t, fd.CrossGxy(cf, testkit.At(x, y), v))
	eh, ec := relSym(mat.NewDense(n, n, hf), mat.NewDense(n, n, he)), relSym(mat.NewDense(n, n, cf), mat.NewDense(n, n, ce))
	t.Logf("finite differences vs closed forms: Hessian %.2g, cross derivative %.2g", eh, ec)
	require.Less(t, eh, 1e-8)
	require.Less(t, ec, 1e-8)
	for _, r := range solver.CheckProblem(fd, x, y, &solver.ProblemCheck{Seed: 2, SecondOrderY: true}) {
		require.True(t, r.OK, "%v", r)
		t.Log(r)
	}
}

// TestHessianAtSolution: at y = φ(x) the lower Hessian and its inverse are
// the identity.
func TestHessianAtSolution(t *testing.T) {
	const n = 4
	_, p := setup(t, n, 5, 1)
	x, _, ys := points(t, p, 7)
	q := p.Bilevel()
	v, h := make([]float64, n*n), make([]float64, n*n)
	p.SPD.RandTangent(v, ys, rand.New(rand.NewPCG(7, 7)))
	require.NoError(t, q.HessGy(h, testkit.At(x, ys), v))
	require.Less(t, relSym(mat.NewDense(n, n, h), mat.NewDense(n, n, v)), 1e-12)
	require.NoError(t, q.HessGyInv(h, testkit.At(x, ys), v))
	require.Less(t, relSym(mat.NewDense(n, n, h), mat.NewDense(n, n, v)), 1e-12)
}

// TestCrossGyx: the exact G_yx g[u] = D_x grad_y g[u] against the central
// difference of grad_y g = −Log_y φ(x) in x (Taylor slope 2; the roles of
// x and y in solver.CheckCrossDerivative swapped).
func TestCrossGyx(t *testing.T) {
	const n = 4
	_, p := setup(t, n, 5, 1)
	q := p.Bilevel()
	rnd := rand.New(rand.NewPCG(5, 5))
	x := randSym(rnd, n, 0.4)
	y := make([]float64, n*n)
	p.SPD.RandPoint(y, rnd)
	ux, uy := make([]float64, n*n), make([]float64, n*n)
	p.X.RandTangent(ux, x, rnd)
	p.SPD.RandTangent(uy, y, rnd)
	r := solver.CheckCrossDerivative(p.SPD, p.X,
		func(dst, yy, xx []float64) { require.NoError(t, q.GradGy(dst, testkit.At(xx, yy))) },
		func(dst, yy, xx, u []float64) { require.NoError(t, q.CrossGyx(dst, testkit.At(xx, yy), u)) },
		nil, y, x, uy, ux)
	require.True(t, r.OK, "%v", r)
}

// TestHypergradient: at y = φ(x) the hypergradients of HINV, CG and NS,
// with the closed-form oracles and with finite differences, equal the
// chain rule Dφ(x)†[grad ψ(φ(x))], which is the gradient of F = ψ∘φ
// computed by gonum (Taylor slope 2); so does AD's through 40 lower steps
// of size ½ from y = φ(x) (its truncation error is (1 − ½)^40).
func TestHypergradient(t *testing.T) {
	const n = 4
	data, p := setup(t, n, 5, 1)
	rnd := rand.New(rand.NewPCG(6, 6))
	x := randSym(rnd, n, 0.4)
	ys := make([]float64, n*n)
	require.NoError(t, p.Phi(ys, x))
	gy, chain := make([]float64, n*n), make([]float64, n*n)
	p.GradPsi(gy, ys)
	p.PhiAdjoint(chain, x, gy)
	bs := mats(data.B, n)
	F := func(xx []float64) float64 { return psiTruth(t, phiTruth(t, data, xx), bs, data.W) }
	u := make([]float64, n*n)
	p.X.RandTangent(u, x, rnd)
	r := solver.CheckGradient(p.X, F, func(dst, _ []float64) { copy(dst, chain) }, x, u)
	require.True(t, r.OK, "chain rule: %v", r)
	want := mat.NewDense(n, n, chain)
	for variant, q := range map[string]solver.Problem{"exact": p.Bilevel(), "fd": withoutSecondOrder(p)} {
		for name, spec := range karcher.Paper.Specs() {
			if name == "hinv" && variant == "fd" {
				continue
			}
			est, err := solver.ParseEstimator(spec)
			require.NoError(t, err)
			rh, err := solver.New(q, &solver.Settings{Estimator: est, InnerIters: 40, EtaY: 0.5})
			require.NoError(t, err)
			var hg []float64
			if name == "ad" {
				require.NoError(t, rh.Reset(x, ys))
				hg, err = rh.Hypergradient(true)
			} else {
				hg, err = rh.Estimate(x, ys)
			}
			require.NoError(t, err)
			e := relSym(mat.NewDense(n, n, hg), want)
			t.Logf("%s %s: %.2g", variant, name, e)
			tol := 1e-12
			if variant == "fd" || name == "ad" {
				tol = 1e-7
			}
			require.Less(t, e, tol, "%s %s", variant, name)
		}
	}
}

// TestKarcherMean: the package's mean against closed forms (commuting B_i:
// the weighted geometric mean of the eigenvalues; two matrices: the
// geodesic point A #_t B = A^½(A^{−½}BA^{−½})^t A^½) and, for generated
// data, against the fixed-point iteration by gonum.
func TestKarcherMean(t *testing.T) {
	const n = 5
	rnd := rand.New(rand.NewPCG(7, 7))
	// Commuting: B_i = Q diag(d_i) Qᵀ.
	cm := commuting(t, rnd, n, 6)
	p, err := karcher.New(cm.data)
	require.NoError(t, err)
	m, err := p.KarcherMean(1e-13)
	require.NoError(t, err)
	require.Less(t, relSym(mat.NewDense(n, n, m), cm.mean), 1e-13, "commuting")
	// Two matrices, weights ⅓ and ⅔.
	a, b := make([]float64, n*n), make([]float64, n*n)
	p.SPD.RandPoint(a, rnd)
	p.SPD.RandPoint(b, rnd)
	two, err := karcher.New(&karcher.Data{N: n, Count: 2, B: append(append([]float64(nil), a...), b...), W: []float64{1, 2}, C: a})
	require.NoError(t, err)
	m, err = two.KarcherMean(1e-13)
	require.NoError(t, err)
	ha, hai := fn(t, sym(a, n), math.Sqrt), fn(t, sym(a, n), func(x float64) float64 { return 1 / math.Sqrt(x) })
	geo := congr(ha, fn(t, congr(hai, sym(b, n)), func(x float64) float64 { return math.Pow(x, 2.0/3) }))
	require.Less(t, relSym(mat.NewDense(n, n, m), geo), 1e-12, "two matrices")
	// Generated data against gonum's fixed point.
	data, p := setup(t, n, 8, 1)
	m, err = p.KarcherMean(1e-13)
	require.NoError(t, err)
	require.Less(t, relSym(mat.NewDense(n, n, m), meanTruth(t, mats(data.B, n), data.W)), 1e-12, "generated")
	_, err = p.KarcherMean(0)
	require.ErrorIs(t, err, numerr.ErrInvalid)
}

type commutingCase struct {
	data *karcher.Data
	mean *mat.SymDense
}

// commuting returns B_i = Q diag(d_i) Qᵀ with a common Q and random
// weights, their mean Q diag(Π_i d_i^{w_i}) Qᵀ, and C a random SPD matrix.
func commuting(t testing.TB, rnd *rand.Rand, n, count int) commutingCase {
	var q mat.Dense
	q.CloneFrom(sym(randSym(rnd, n, 1), n))
	var qr mat.QR
	qr.Factorize(&q)
	var qq mat.Dense
	qr.QTo(&qq)
	d := &karcher.Data{N: n, Count: count, W: make([]float64, count), C: denseOf(fn(t, sym(randSym(rnd, n, 0.5), n), math.Exp))}
	logm := make([]float64, n)
	var sum float64
	for i := range d.W {
		d.W[i] = 0.5 + rnd.Float64()
		sum += d.W[i]
	}
	for i := 0; i < count; i++ {
		diag := make([]float64, n)
		for j := range diag {
			diag[j] = math.Exp(rnd.NormFloat64())
			logm[j] += d.W[i] / sum * math.Log(diag[j])
		}
		var b mat.Dense
		b.Product(&qq, mat.NewDiagDense(n, diag), qq.T())
		d.B = append(d.B, denseOf(sym(b.RawMatrix().Data, n))...)
	}
	for j := range logm {
		logm[j] = math.Exp(logm[j])
	}
	var m mat.Dense
	m.Product(&qq, mat.NewDiagDense(n, logm), qq.T())
	return commutingCase{data: d, mean: sym(m.RawMatrix().Data, n)}
}

// TestRunReachesMean: RHGD with each estimator, the default settings and
// GradTol 1e−10, with the closed-form second-order oracles and (suffix
// /fd) with solver.Compositional's oracles alone and finite differences
// for the rest, reaches the known optimum: φ(x) the Karcher mean (gonum's
// fixed point for generated data, the closed form for commuting B_i),
// x = log(C^{−½} M C^{−½}) and F(x) − F* ≈ 0, with F* = ψ(M) by gonum.
func TestRunReachesMean(t *testing.T) {
	data, _ := setup(t, karcher.DefaultParams().N, karcher.DefaultParams().Count, karcher.DefaultParams().Spread)
	cm := commuting(t, rand.New(rand.NewPCG(8, 8)), 6, 5)
	cases := []struct {
		name string
		data *karcher.Data
		mean *mat.SymDense
	}{{"generated", data, meanTruth(t, mats(data.B, data.N), data.W)}, {"commuting", cm.data, cm.mean}}
	for _, c := range cases {
		n := c.data.N
		w := c.data.W
		var sum float64
		for _, v := range w {
			sum += v
		}
		wn := make([]float64, len(w))
		for i, v := range w {
			wn[i] = v / sum
		}
		bs := mats(c.data.B, n)
		fstar := psiTruth(t, c.mean, bs, wn)
		chi := fn(t, sym(c.data.C, n), func(x float64) float64 { return 1 / math.Sqrt(x) })
		xstar := fn(t, congr(chi, c.mean), math.Log)
		for _, name := range []string{"hinv", "cg", "ns", "ad", "cg/fd", "ns/fd", "ad/fd"} {
			p, err := karcher.New(c.data)
			require.NoError(t, err)
			x0, y0 := p.Start(0)
			s := karcher.Paper.Settings
			est, fd := strings.CutSuffix(name, "/fd")
			s.Estimator, err = karcher.Paper.Estimator(est)
			require.NoError(t, err)
			s.GradTol = 1e-10
			q := p.Bilevel()
			if fd { // the reformulation's own oracles, differences for the rest
				q.HessGy, q.HessGyInv, q.CrossGxy = nil, nil, nil
			}
			r, err := solver.New(q, &s)
			require.NoError(t, err)
			res, err := r.Run(context.Background(), x0, y0)
			require.NoError(t, err)
			require.Equal(t, solver.GradientThreshold, res.Status, "%s %s: %v after %d epochs", c.name, name, res.Status, res.Stats.Epochs)
			phi := phiTruth(t, c.data, res.X)
			ferr := psiTruth(t, phi, bs, wn) - fstar
			merr := math.Sqrt(dist2(t, phi, c.mean))
			xerr := relSym(sym(res.X, n), xstar)
			t.Logf("%-9s %-5s %3d epochs: F − F* = %.2e, d(φ(x), M) = %.2e, ‖x − x*‖/‖x*‖ = %.2e, d(y, M) = %.2e",
				c.name, name, res.Stats.Epochs, ferr, merr, xerr, math.Sqrt(dist2(t, sym(res.Y, n), c.mean)))
			require.GreaterOrEqual(t, ferr, -1e-13, "%s %s: F below the optimum", c.name, name)
			require.Less(t, ferr, 1e-12, "%s %s", c.name, name)
			require.Less(t, merr, 1e-9, "%s %s", c.name, name)
			require.Less(t, xerr, 1e-9, "%s %s", c.name, name)
			sol, xs, mean, err := p.Solution()
			require.NoError(t, err)
			require.InDelta(t, fstar, sol, 1e-13, c.name)
			require.Less(t, relSym(sym(xs, n), xstar), 1e-11, c.name)
			require.Less(t, relSym(mat.NewDense(n, n, mean), c.mean), 1e-12, c.name)
		}
	}
}

func TestBadData(t *testing.T) {
	for _, c := range []struct {
		n, k   int
		spread float64
	}{{0, 3, 1}, {3, 0, 1}, {3, 3, 0}, {3, 3, -1}, {3, 3, 11}, {3, 3, math.NaN()}} {
		_, err := karcher.Generate(c.n, c.k, c.spread, 1)
		require.ErrorIs(t, err, problems.ErrBadData, "%+v", c)
		require.ErrorIs(t, err, numerr.ErrInvalid, "%+v", c)
	}
	good, err := karcher.Generate(3, 2, 1, 1)
	require.NoError(t, err)
	bad := func(mod func(d *karcher.Data), why string) {
		t.Helper()
		d := &karcher.Data{N: 3, Count: 2, B: append([]float64(nil), good.B...), W: append([]float64(nil), good.W...), C: append([]float64(nil), good.C...)}
		mod(d)
		_, err := karcher.New(d)
		require.ErrorIs(t, err, problems.ErrBadData, why)
		require.ErrorIs(t, err, numerr.ErrInvalid, why)
	}
	_, err = karcher.New(nil)
	require.ErrorIs(t, err, problems.ErrBadData)
	bad(func(d *karcher.Data) { d.B = d.B[:9] }, "short B")
	bad(func(d *karcher.Data) { d.C = d.C[:4] }, "short C")
	bad(func(d *karcher.Data) { d.W = d.W[:1] }, "short W")
	bad(func(d *karcher.Data) { d.Count = 0 }, "count 0")
	bad(func(d *karcher.Data) { d.B[10] = math.NaN() }, "NaN in B")
	bad(func(d *karcher.Data) { d.C[1] = math.Inf(1) }, "Inf in C")
	bad(func(d *karcher.Data) { d.B[1] += 1e-3 }, "B not symmetric")
	bad(func(d *karcher.Data) { d.B[9], d.B[13], d.B[17] = -1, -1, -1 }, "B_1 not positive definite")
	bad(func(d *karcher.Data) { clear(d.C) }, "C zero")
	bad(func(d *karcher.Data) { d.W[0] = -1 }, "negative weight")
	bad(func(d *karcher.Data) { d.W[0] = math.NaN() }, "NaN weight")
	bad(func(d *karcher.Data) { clear(d.W) }, "zero weights")
	// Nil weights are uniform.
	d := &karcher.Data{N: 3, Count: 2, B: good.B, C: good.C}
	p, err := karcher.New(d)
	require.NoError(t, err)
	q, err := karcher.New(good)
	require.NoError(t, err)
	_, y := q.Start(0)
	require.Equal(t, q.Psi(y), p.Psi(y))
}

// TestNPZ: Save and Load round-trip the data and the start; malformed
// files are ErrBadData.
func TestNPZ(t *testing.T) {
	dir := t.TempDir()
	data, p := setup(t, 3, 4, 1)
	x0, y0 := p.Start(0)
	x0[0] = 0.1
	path := filepath.Join(dir, "k.npz")
	require.NoError(t, karcher.Save(path, data, problems.Start{X: x0, Y: y0}))
	got, st, err := karcher.Load(path)
	gx, gy := st.X, st.Y
	require.NoError(t, err)
	require.Equal(t, data, got)
	require.Equal(t, x0, gx)
	require.Equal(t, y0, gy)
	require.NoError(t, karcher.Save(path, &karcher.Data{N: 3, Count: 4, B: data.B, C: data.C}, problems.Start{}))
	got, st, err = karcher.Load(path)
	gx, gy = st.X, st.Y
	require.NoError(t, err)
	require.Equal(t, data, got, "nil weights saved as uniform ones")
	require.Nil(t, gx)
	require.Nil(t, gy)
	for name, c := range map[string]struct {
		arrays map[string][]float64
		shapes map[string][]int
	}{
		"noB":      {map[string][]float64{"C": data.C}, map[string][]int{"C": {3, 3}}},
		"noC":      {map[string][]float64{"B": data.B}, map[string][]int{"B": {4, 3, 3}}},
		"flatB":    {map[string][]float64{"B": data.B, "C": data.C}, map[string][]int{"B": {36}, "C": {3, 3}}},
		"nonsqB":   {map[string][]float64{"B": data.B, "C": data.C}, map[string][]int{"B": {4, 1, 9}, "C": {3, 3}}},
		"badC":     {map[string][]float64{"B": data.B, "C": data.C[:4]}, map[string][]int{"B": {4, 3, 3}, "C": {2, 2}}},
		"badW":     {map[string][]float64{"B": data.B, "C": data.C, "w": {1, 2}}, map[string][]int{"B": {4, 3, 3}, "C": {3, 3}}},
		"badX0":    {map[string][]float64{"B": data.B, "C": data.C, "x0": {1, 2}}, map[string][]int{"B": {4, 3, 3}, "C": {3, 3}}},
		"badY0":    {map[string][]float64{"B": data.B, "C": data.C, "y0": {1, 2}}, map[string][]int{"B": {4, 3, 3}, "C": {3, 3}}},
		"wrongAll": {map[string][]float64{"x": {1}}, nil},
	} {
		p := filepath.Join(dir, name+".npz")
		require.NoError(t, problems.WriteNPZ(p, c.arrays, c.shapes))
		_, _, err := karcher.Load(p)
		require.ErrorIs(t, err, problems.ErrBadData, name)
	}
	_, _, err = karcher.Load(filepath.Join(dir, "missing.npz"))
	require.ErrorIs(t, err, problems.ErrBadData)
}

// TestSpec builds the instance from flags (generated and loaded data) and
// runs a few epochs of every estimator it lists.
func TestSpec(t *testing.T) {
	in, err := testkit.Build(t, karcher.Spec, problems.Options{Seed: 5}, "-n", "4", "-count", "5")
	require.NoError(t, err)
	require.Contains(t, in.Describe, "known optimum F*")
	require.ElementsMatch(t, []string{"hinv", "cg", "ns", "ad"}, slices.Collect(maps.Keys(in.Estimators)))
	testkit.RunEach(t, in, 3)

	// Loaded data with x0 only: y0 = φ(x0).
	data, p := setup(t, 3, 4, 1)
	x0, _ := p.Start(0)
	x0[4] = 0.2
	path := filepath.Join(t.TempDir(), "k.npz")
	require.NoError(t, problems.WriteNPZ(path, map[string][]float64{"B": data.B, "C": data.C, "x0": x0}, map[string][]int{"B": {4, 3, 3}, "C": {3, 3}, "x0": {3, 3}}))
	in, err = testkit.Build(t, karcher.Spec, problems.Options{Data: path})
	require.NoError(t, err)
	want := make([]float64, 9)
	require.NoError(t, p.Phi(want, x0))
	require.Equal(t, want, in.Y0)
	// An x0 whose φ overflows is bad data.
	x0[4] = 1e4
	require.NoError(t, problems.WriteNPZ(path, map[string][]float64{"B": data.B, "C": data.C, "x0": x0}, map[string][]int{"B": {4, 3, 3}, "C": {3, 3}, "x0": {3, 3}}))
	_, err = testkit.Build(t, karcher.Spec, problems.Options{Data: path})
	require.ErrorIs(t, err, problems.ErrBadData)
}

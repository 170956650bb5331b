package minmax_test

import (
	"context"
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/minmax"
	"github.com/rhgd/rhgd/problemtest"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

func setup(t testing.TB, n, p int, cond, gap float64) (*minmax.Data, *minmax.Problem) {
	t.Helper()
	data, err := minmax.Generate(n, p, cond, gap, 42)
	require.NoError(t, err)
	pr, err := minmax.New(data)
	require.NoError(t, err)
	return data, pr
}

// at is the point (x, y) with unknown identities: no cache can match it.

// truth is what the tests compare against, computed without the package:
// A's eigendecomposition by lapackx.EigSym and matrix algebra by gonum.
type truth struct {
	n, p  int
	a     *mat.SymDense
	top   []float64  // the p largest eigenvalues, descending
	basis *mat.Dense // n×p, their eigenvectors
	fstar float64
}

func newTruth(t testing.TB, data *minmax.Data) *truth {
	n, p := data.N, data.P
	e := lapackx.NewEigSym(n)
	require.NoError(t, e.Factorize(data.A))
	lam, vec := e.Values(), e.Vectors()
	tr := &truth{n: n, p: p, a: mat.NewSymDense(n, append([]float64(nil), data.A...)), basis: mat.NewDense(n, p, nil), fstar: -float64(p)}
	for j := 0; j < p; j++ {
		k := n - 1 - j
		tr.top = append(tr.top, lam[k])
		tr.fstar -= math.Log(lam[k])
		for i := 0; i < n; i++ {
			tr.basis.Set(i, j, vec[k*n+i])
		}
	}
	return tr
}

// k returns XᵀAX.
func (tr *truth) k(x []float64) *mat.SymDense {
	xm := mat.NewDense(tr.n, tr.p, x)
	var ax, k mat.Dense
	ax.Mul(tr.a, xm)
	k.Mul(xm.T(), &ax)
	s := mat.NewSymDense(tr.p, nil)
	for i := 0; i < tr.p; i++ {
		for j := i; j < tr.p; j++ {
			s.SetSym(i, j, 0.5*(k.At(i, j)+k.At(j, i)))
		}
	}
	return s
}

// F returns F(X) = −p − log det(XᵀAX).
func (tr *truth) F(t testing.TB, x []float64) float64 {
	var c mat.Cholesky
	require.True(t, c.Factorize(tr.k(x)))
	return -float64(tr.p) - c.LogDet()
}

// sinAngles returns ‖(I − VVᵀ)X‖_F = (Σ sin²θ_i)^½ over the principal
// angles θ_i between span X and A's top-p eigenspace V.
func (tr *truth) sinAngles(x []float64) float64 {
	xm := mat.NewDense(tr.n, tr.p, x)
	var vx, r mat.Dense
	vx.Mul(tr.basis.T(), xm)
	r.Mul(tr.basis, &vx)
	r.Sub(xm, &r)
	return mat.Norm(&r, 2)
}

// ystar returns (XᵀAX)⁻¹.
func (tr *truth) ystar(t testing.TB, x []float64) []float64 {
	var inv mat.Dense
	require.NoError(t, inv.Inverse(tr.k(x)))
	return inv.RawMatrix().Data
}

// TestGenerate: A has the spectrum Generate says (checked by an
// independent eigendecomposition), with λ_1 = 1, λ_1/λ_n = cond and
// λ_{p+1}/λ_p = gap, and equal ratios elsewhere.
func TestGenerate(t *testing.T) {
	data, _ := setup(t, 20, 4, 50, 0.3)
	e := lapackx.NewEigSym(20)
	require.NoError(t, e.Factorize(data.A))
	lam := e.Values()
	for i := range lam {
		require.InDelta(t, data.Spectrum[19-i], lam[i], 1e-14, "λ_%d", i)
	}
	s := data.Spectrum
	require.InDelta(t, 1, s[0], 1e-15)
	require.InDelta(t, 50, s[0]/s[19], 1e-11)
	require.InDelta(t, 0.3, s[4]/s[3], 1e-15)
	for i := 1; i < 19; i++ {
		if i != 3 { // λ_5/λ_4 is the gap
			require.InDelta(t, s[1]/s[0], s[i+1]/s[i], 1e-14, "ratio %d", i)
		}
	}
}

// TestSolution: F* from the generated spectrum's closed form, and X*, Y*
// a saddle point: grad_X f and grad_Y f vanish there and f(X*, Y*) = F*.
func TestSolution(t *testing.T) {
	data, pr := setup(t, 12, 3, 20, 0.5)
	fstar, xs, ys, gap := pr.Solution()
	want := -3.0
	for _, l := range data.Spectrum[:3] {
		want -= math.Log(l)
	}
	require.InDelta(t, want, fstar, 1e-14)
	require.InDelta(t, data.Spectrum[2]-data.Spectrum[3], gap, 1e-15)
	require.NoError(t, pr.St.CheckPoint(xs))
	f, err := pr.F(testkit.At(xs, ys))
	require.NoError(t, err)
	require.InDelta(t, fstar, f, 1e-13)
	gx, gy := make([]float64, 36), make([]float64, 9)
	require.NoError(t, pr.GradFx(gx, testkit.At(xs, ys)))
	require.NoError(t, pr.GradFy(gy, testkit.At(xs, ys)))
	require.Less(t, pr.St.Norm(xs, gx), 1e-13)
	require.Less(t, pr.SPD.Norm(ys, gy), 1e-13)
	require.Less(t, newTruth(t, data).sinAngles(xs), 1e-13)
}

// TestConformance runs the problem suite on the bilevel form: every
// oracle against finite differences, at a Y away from Y*(X) and at Y*
// (found by Newton steps with HessGyInv), and the min-max form's
// gradients of f.
func TestConformance(t *testing.T) {
	_, pr := setup(t, 12, 3, 20, 0.5)
	x, y := pr.Start(3)
	rnd := rand.New(rand.NewPCG(5, 5))
	u := make([]float64, 9)
	pr.SPD.RandTangent(u, y, rnd)
	require.NoError(t, pr.SPD.Retract(y, y, u, 0.7))
	problemtest.Run(t, pr.Bilevel(), problemtest.Config{X: x, Y: y, SecondOrderY: true, Seed: 1})
	for _, r := range solver.CheckProblem(pr.MinMax(), x, y, &solver.ProblemCheck{Seed: 2}) {
		require.True(t, r.OK, "min-max form: %v", r)
	}
}

// TestHessianBounds: the lower Hessian's Rayleigh quotients lie in
// [λ_min(KY), λ_max(KY)] (the strong-convexity and smoothness moduli of the
// package documentation), are attained at U = Y^½ v vᵀ Y^½ for the extreme
// eigenvectors v of Y^½KY^½ (computed by gonum), and the Hessian is the
// identity at Y* = K⁻¹.
func TestHessianBounds(t *testing.T) {
	data, pr := setup(t, 10, 4, 30, 0.5)
	tr := newTruth(t, data)
	p := pr.Bilevel()
	x, _ := pr.Start(1)
	rnd := rand.New(rand.NewPCG(6, 6))
	y := make([]float64, 16)
	pr.SPD.RandPoint(y, rnd)
	// Y^½ and the eigenvalues z of Y^½ K Y^½ by gonum.
	var ey mat.EigenSym
	require.True(t, ey.Factorize(mat.NewSymDense(4, append([]float64(nil), y...)), true))
	var qy, sq mat.Dense
	ey.VectorsTo(&qy)
	d := mat.NewDiagDense(4, nil)
	for i, v := range ey.Values(nil) {
		d.SetDiag(i, math.Sqrt(v))
	}
	sq.Product(&qy, d, qy.T())
	var s mat.Dense
	s.Product(&sq, tr.k(x), &sq)
	var es mat.EigenSym
	require.True(t, es.Factorize(mat.NewSymDense(4, s.RawMatrix().Data), true))
	z := es.Values(nil)
	var vs mat.Dense
	es.VectorsTo(&vs)
	require.Greater(t, z[3]/z[0], 2.0, "a point with distinct moduli")
	hu := make([]float64, 16)
	quot := func(u []float64) float64 {
		require.NoError(t, p.HessGy(hu, testkit.At(x, y), u))
		return pr.SPD.Inner(y, hu, u) / pr.SPD.Inner(y, u, u)
	}
	u := make([]float64, 16)
	for k := 0; k < 50; k++ {
		pr.SPD.RandTangent(u, y, rnd)
		q := quot(u)
		require.GreaterOrEqual(t, q, z[0]*(1-1e-12))
		require.LessOrEqual(t, q, z[3]*(1+1e-12))
	}
	for _, c := range []int{0, 3} {
		var w, uu mat.Dense
		v := vs.ColView(c)
		w.Outer(1, v, v)
		uu.Product(&sq, &w, &sq)
		require.InDelta(t, z[c], quot(uu.RawMatrix().Data), 1e-12*z[3], "extreme %d", c)
	}
	ys := tr.ystar(t, x)
	pr.SPD.RandTangent(u, ys, rnd)
	require.NoError(t, p.HessGy(hu, testkit.At(x, ys), u))
	require.Less(t, testkit.Rel(hu, u), 1e-12)
}

// TestLowerRegion: the ascent in Y with the exponential map converges to
// Y* from Y0 = c·Y* for every c (here up to 50), and with the second-order
// retraction only for c < 1 + 2/η_y, running away above, as the package
// documentation derives.
func TestLowerRegion(t *testing.T) {
	data, pr := setup(t, 10, 4, 30, 0.5)
	p := pr.Bilevel()
	x, _ := pr.Start(1)
	ys := newTruth(t, data).ystar(t, x)
	const eta = 0.5
	run := func(c float64) float64 {
		y := make([]float64, 16)
		for i := range y {
			y[i] = c * ys[i]
		}
		g := make([]float64, 16)
		for s := 0; s < 300; s++ {
			require.NoError(t, p.GradGy(g, testkit.At(x, y)))
			if err := pr.SPD.Retract(y, y, g, -eta); err != nil {
				return math.Inf(1)
			}
			if d, err := pr.SPD.Dist(y, ys); err != nil || d > 1e3 {
				return math.Inf(1)
			}
		}
		d, err := pr.SPD.Dist(y, ys)
		require.NoError(t, err)
		return d
	}
	require.Equal(t, spd.Exponential, pr.SPD.Retraction)
	for _, c := range []float64{1e-3, 0.5, 2, 10, 50} {
		require.Less(t, run(c), 1e-12, "exponential map, c = %g", c)
	}
	pr.SPD.Retraction = spd.SecondOrder
	edge := 1 + 2/eta
	for _, c := range []float64{1e-3, 0.5, 2, 0.97 * edge} {
		require.Less(t, run(c), 1e-12, "second order, c = %g", c)
	}
	require.True(t, math.IsInf(run(1.03*edge), 1), "second order, c above 1 + 2/η")
}

// runTo runs est from Start with the default settings until the
// hypergradient norm falls to 1e−10.
func runTo(t *testing.T, pr *minmax.Problem, est solver.Estimator) *solver.Result {
	x0, y0 := pr.Start(7)
	s := minmax.Paper.Settings
	s.Estimator, s.GradTol = est, 1e-10
	r, err := solver.New(pr.Bilevel(), &s)
	require.NoError(t, err)
	res, err := r.Run(context.Background(), x0, y0)
	require.NoError(t, err)
	require.Equal(t, solver.GradientThreshold, res.Status, "%s: %v after %d epochs", est.Name(), res.Status, res.Stats.Epochs)
	return res
}

// TestRunReachesSaddle: RHGD with GDA (Algorithm 3) and with each
// hypergradient estimator reaches, at the default size and settings, the
// optimum value F* (from the independent eigendecomposition), A's top-p
// eigenspace and Y = (XᵀAX)⁻¹.
func TestRunReachesSaddle(t *testing.T) {
	data, pr := setup(t, minmax.DefaultParams().N, minmax.DefaultParams().P, minmax.DefaultParams().Cond, minmax.DefaultParams().Gap)
	tr := newTruth(t, data)
	want := append([]float64(nil), tr.top...)
	for i := range want {
		want[i] = 1 / want[i]
	}
	sort.Float64s(want)
	for _, name := range []string{"gda", "hinv", "cg", "ns", "ad"} {
		est, err := minmax.Paper.Estimator(name)
		require.NoError(t, err)
		res := runTo(t, pr, est)
		x, y := res.X, res.Y
		ferr := tr.F(t, x) - tr.fstar
		sin := tr.sinAngles(x)
		yerr := testkit.Rel(y, tr.ystar(t, x))
		var ey mat.EigenSym
		require.True(t, ey.Factorize(mat.NewSymDense(data.P, append([]float64(nil), y...)), false))
		eyErr := testkit.Rel(ey.Values(nil), want)
		t.Logf("%-4s %3d epochs: F − F* = %.2e, ‖sin θ‖ = %.2e, ‖Y − (XᵀAX)⁻¹‖/‖·‖ = %.2e, eig(Y) vs 1/λ_top %.2e, |f − F*| = %.2e",
			name, res.Stats.Epochs, ferr, sin, yerr, eyErr, math.Abs(res.F-tr.fstar))
		// F − F* ≈ Σ (1 − λ_j/λ_i) sin²θ: 1e−12 in F is 1e−6 in angle;
		// the run gets far below both.
		require.GreaterOrEqual(t, ferr, -1e-12, "%s: F below the optimum", name)
		require.Less(t, ferr, 1e-12, name)
		require.Less(t, sin, 1e-8, name)
		require.Less(t, yerr, 1e-10, name)
		require.Less(t, eyErr, 1e-10, name)
		require.Less(t, math.Abs(res.F-tr.fstar), 1e-12, name)
	}
}

// TestSecondOrderDiverges: with the second-order retraction in Y, the
// default run diverges in its second epoch, as the package documentation
// says (the reason New chooses the exponential map).
func TestSecondOrderDiverges(t *testing.T) {
	_, pr := setup(t, minmax.DefaultParams().N, minmax.DefaultParams().P, minmax.DefaultParams().Cond, minmax.DefaultParams().Gap)
	pr.SPD.Retraction = spd.SecondOrder
	x0, y0 := pr.Start(7)
	s := minmax.Paper.Settings
	res, err := solver.Minimize(context.Background(), pr.Bilevel(), x0, y0, &s)
	require.Error(t, err)
	require.Equal(t, solver.Diverged, res.Status)
	require.Equal(t, 1, res.Stats.Epochs, "one epoch completed")
}

// TestDanskin: at (X, Y*(X)) every estimator's hypergradient is the
// Riemannian gradient of the closed form F(X) = −p − log det(XᵀAX)
// (Taylor slope 2 along the QR retraction); away from Y*, GDA's
// grad_X f differs from the second-order estimators, which agree with
// each other (HINV, CG to 1e−12).
func TestDanskin(t *testing.T) {
	data, pr := setup(t, 12, 3, 20, 0.5)
	tr := newTruth(t, data)
	x, _ := pr.Start(9)
	ys := tr.ystar(t, x)
	u := make([]float64, 36)
	pr.St.RandTangent(u, x, rand.New(rand.NewPCG(8, 8)))
	estimate := func(name string, y []float64) []float64 {
		est, err := minmax.Paper.Estimator(name)
		require.NoError(t, err)
		r, err := solver.New(pr.Bilevel(), &solver.Settings{Estimator: est})
		require.NoError(t, err)
		hg, err := r.Estimate(x, y)
		require.NoError(t, err)
		return append([]float64(nil), hg...)
	}
	for _, name := range []string{"gda", "hinv", "cg", "ns", "ad"} {
		hg := estimate(name, ys)
		rep := solver.CheckGradient(pr.St, func(x []float64) float64 { return tr.F(t, x) }, func(dst, _ []float64) { copy(dst, hg) }, x, u)
		require.True(t, rep.OK, "%s: %v", name, rep)
	}
	y := append([]float64(nil), ys...)
	for i := range y {
		y[i] *= 1.3
	}
	gda, hinv, cg := estimate("gda", y), estimate("hinv", y), estimate("cg", y)
	require.Less(t, testkit.Rel(cg, hinv), 1e-12)
	require.Greater(t, testkit.Rel(gda, hinv), 1e-2)
}

// TestMinMaxForm: GDA on solver.MinMax of the min-max form (f and its
// gradients only) is the same run as GDA on the bilevel form.
func TestMinMaxForm(t *testing.T) {
	_, pr := setup(t, 12, 3, 20, 0.5)
	x0, y0 := pr.Start(7)
	s := minmax.Paper.Settings
	s.Epochs = 30
	s.Estimator = solver.GDA{}
	r, err := solver.New(solver.MinMax(pr.MinMax()), &s)
	require.NoError(t, err)
	a, err := r.Run(context.Background(), x0, y0)
	require.NoError(t, err)
	r, err = solver.New(pr.Bilevel(), &s)
	require.NoError(t, err)
	b, err := r.Run(context.Background(), x0, y0)
	require.NoError(t, err)
	require.Equal(t, a.X, b.X)
	require.Equal(t, a.Y, b.Y)
}

func TestBadData(t *testing.T) {
	for _, c := range []struct {
		n, p      int
		cond, gap float64
	}{{2, 1, 10, 0.5}, {5, 0, 10, 0.5}, {5, 5, 10, 0.5}, {5, 2, 10, 0}, {5, 2, 10, 1.5}, {5, 2, 1, 0.5}, {5, 2, math.Inf(1), 0.5}, {5, 2, math.NaN(), 0.5}} {
		_, err := minmax.Generate(c.n, c.p, c.cond, c.gap, 1)
		require.ErrorIs(t, err, problems.ErrBadData, "%+v", c)
		require.ErrorIs(t, err, numerr.ErrInvalid, "%+v", c)
	}
	good, err := minmax.Generate(5, 2, 10, 0.5, 1)
	require.NoError(t, err)
	bad := func(mod func(d *minmax.Data), why string) {
		t.Helper()
		d := &minmax.Data{N: good.N, P: good.P, A: append([]float64(nil), good.A...)}
		mod(d)
		_, err := minmax.New(d)
		require.ErrorIs(t, err, problems.ErrBadData, why)
		require.ErrorIs(t, err, numerr.ErrInvalid, why)
	}
	_, err = minmax.New(nil)
	require.ErrorIs(t, err, problems.ErrBadData)
	bad(func(d *minmax.Data) { d.A = d.A[:20] }, "short A")
	bad(func(d *minmax.Data) { d.P = 5 }, "p = n")
	bad(func(d *minmax.Data) { d.P = 0 }, "p = 0")
	bad(func(d *minmax.Data) { d.A[7] = math.NaN() }, "NaN")
	bad(func(d *minmax.Data) { d.A[7] = math.Inf(-1) }, "Inf")
	bad(func(d *minmax.Data) { d.A[1] += 1e-3 }, "not symmetric") // beyond float32 rounding (TestFloat32Data)
	bad(func(d *minmax.Data) {
		for i := 0; i < 5; i++ { // A − 2λ_max·e₀e₀ᵀ-like: negative diagonal entry
			d.A[i*5+i] -= 1.5
		}
	}, "not positive definite")
	// Positive semidefinite: rank-one A.
	bad(func(d *minmax.Data) {
		for i := 0; i < 5; i++ {
			for j := 0; j < 5; j++ {
				d.A[i*5+j] = 1
			}
		}
	}, "singular")
	// A point off St(n, p) for ScaledIdentity is an error.
	pr, err := minmax.New(good)
	require.NoError(t, err)
	require.Error(t, pr.ScaledIdentity(make([]float64, 4), make([]float64, 10)))
}

// TestNPZ: Save and Load round-trip A and the start; malformed files are
// ErrBadData.
func TestNPZ(t *testing.T) {
	dir := t.TempDir()
	data, pr := setup(t, 8, 3, 10, 0.5)
	x0, y0 := pr.Start(2)
	path := filepath.Join(dir, "mm.npz")
	require.NoError(t, minmax.Save(path, data, problems.Start{X: x0, Y: y0}))
	got, st, err := minmax.Load(path, 99)
	gx, gy := st.X, st.Y
	require.NoError(t, err)
	require.Equal(t, data.A, got.A)
	require.Equal(t, 3, got.P, "p comes from X0")
	require.Equal(t, x0, gx)
	require.Equal(t, y0, gy)
	require.NoError(t, minmax.Save(path, data, problems.Start{}))
	got, st, err = minmax.Load(path, 2)
	gx, gy = st.X, st.Y
	require.NoError(t, err)
	require.Equal(t, data.A, got.A)
	require.Equal(t, 2, got.P, "p from the argument without X0")
	require.Nil(t, gx)
	require.Nil(t, gy)

	for name, arrays := range map[string]map[string][]float64{
		"noA":       {"B": {1}},
		"nonsquare": {"A": make([]float64, 6)},
		"y0only":    {"A": data.A, "Y0": y0},
		"badX0":     {"A": data.A, "X0": make([]float64, 5)},
	} {
		shapes := map[string][]int{"A": {8, 8}, "Y0": {3, 3}, "X0": {5}}
		if name == "nonsquare" {
			shapes["A"] = []int{2, 3}
		}
		p := filepath.Join(dir, name+".npz")
		require.NoError(t, problems.WriteNPZ(p, arrays, shapes))
		_, _, err := minmax.Load(p, 3)
		require.ErrorIs(t, err, problems.ErrBadData, name)
	}
	_, _, err = minmax.Load(filepath.Join(dir, "missing.npz"), 3)
	require.ErrorIs(t, err, problems.ErrBadData)
}

// TestSpec builds the instance from flags (generated and loaded data) and
// runs a few epochs of every estimator it lists.
func TestSpec(t *testing.T) {
	in, err := testkit.Build(t, minmax.Spec, problems.Options{Seed: 5}, "-n", "12", "-p", "3")
	require.NoError(t, err)
	require.Contains(t, in.Describe, "known optimum F*")
	require.Equal(t, "gda", in.Settings.Estimator.Name())
	require.ElementsMatch(t, []string{"gda", "hinv", "cg", "ns", "ad"}, slices.Collect(maps.Keys(in.Estimators)))
	testkit.RunEach(t, in, 3)
	// Loaded data: Y0 defaults to the scaled identity for the file's X0.
	data, pr := setup(t, 8, 2, 10, 0.5)
	x0, _ := pr.Start(4)
	path := filepath.Join(t.TempDir(), "a.npz")
	require.NoError(t, problems.WriteNPZ(path, map[string][]float64{"A": data.A, "X0": x0}, map[string][]int{"A": {8, 8}, "X0": {8, 2}}))
	in, err = testkit.Build(t, minmax.Spec, problems.Options{Data: path})
	require.NoError(t, err)
	require.Equal(t, x0, in.X0)
	want := make([]float64, 4)
	require.NoError(t, pr.ScaledIdentity(want, x0))
	require.Equal(t, want, in.Y0)
	// An X0 off the manifold is bad data.
	x0[0] += 0.1
	require.NoError(t, problems.WriteNPZ(path, map[string][]float64{"A": data.A, "X0": x0}, map[string][]int{"A": {8, 8}, "X0": {8, 2}}))
	_, err = testkit.Build(t, minmax.Spec, problems.Options{Data: path})
	require.True(t, errors.Is(err, problems.ErrBadData), "%v", err)
}

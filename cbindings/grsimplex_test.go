//go:build cgo

package main

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	"github.com/rhgd/rhgd/internal/f32test"
	mspec "github.com/rhgd/rhgd/manifold/spec"
)

// The Grassmann manifold and the simplex through the C ABI: their specs,
// their points' checks, and callback problems on them run end to end to
// closed-form solutions.

// TestGrassmannSimplexSpecs: rhgd_manifold_new builds Gr(n, p) and Δ(n)
// from their specs, with their shapes, lengths, dimensions and specs; a
// point rounded to float32 is snapped with a note; points off the
// manifold are RHGD_EINVAL naming x; both have exp, log and dist, and
// their failures are codes with messages (Gr's log at orthogonal
// subspaces, Δ's exp beyond the boundary); bad specs name the key.
func TestGrassmannSimplexSpecs(t *testing.T) {
	for _, c := range []struct {
		spec, describe                  string
		rows, cols, length, dim, factor int64
	}{
		{"grassmann:n=5,p=2", "grassmann:n=5,p=2", 5, 2, 10, 6, 0},
		{"grassmann:n=5,p=2,retr=polar", "grassmann:n=5,p=2,retr=polar", 5, 2, 10, 6, 0},
		{"simplex:n=4", "simplex:n=4", 4, 1, 4, 3, 0},
	} {
		h, rc := ctest.ManifoldNew(c.spec)
		require.Equal(t, okC, rc, c.spec)
		r, cl, k, rc := ctest.ManifoldShape(h)
		require.Equal(t, okC, rc)
		assert.Equal(t, [3]int64{c.rows, c.cols, c.factor}, [3]int64{r, cl, k}, c.spec)
		n, dim, rc := ctest.ManifoldLen(h)
		require.Equal(t, okC, rc)
		assert.Equal(t, [2]int64{c.length, c.dim}, [2]int64{n, dim}, c.spec)
		_, desc := ctest.ManifoldDescribe(h, 256)
		assert.Equal(t, c.describe, desc)
		for _, method := range []string{"exp", "log", "dist"} {
			ok, rc := ctest.Supports(h, method)
			require.Equal(t, okC, rc)
			assert.True(t, ok, "%s supports %s", c.spec, method)
		}

		x := make([]float64, n)
		require.Equal(t, okC, ctest.RandPoint(h, 3, x))
		require.Equal(t, okC, ctest.CheckPoint(h, x), c.spec)
		x32 := f32test.Round(x)
		wantCode(t, c.spec+": float32 point", einval, func() int { return ctest.CheckPoint(h, x32) }, "x")
		out := make([]float64, n)
		rc, note := ctest.SnapPoint(h, x32, out, 512)
		require.Positive(t, rc, "%s: snap: %s", c.spec, note)
		assert.True(t, strings.HasPrefix(note, "x: "), note)
		require.Equal(t, okC, ctest.CheckPoint(h, out), c.spec)
		for i := range x {
			assert.InDelta(t, x[i], out[i], 1e-6, "%s: snapped[%d]", c.spec, i)
		}

		off := append([]float64(nil), x...)
		off[0] += 0.01
		wantCode(t, c.spec+": off", einval, func() int { return ctest.CheckPoint(h, off) }, "x")
		rc, msg := ctest.SnapPoint(h, off, out, 512)
		assert.Equal(t, einval, rc, "%s: snap of a point 0.01 off", c.spec)
		_, msg = ctest.LastError(512)
		assert.Contains(t, msg, "beyond float32 rounding", c.spec)
		off[0] = math.NaN()
		wantCode(t, c.spec+": NaN", einval, func() int { return ctest.CheckPoint(h, off) }, "x")
		require.Equal(t, okC, ctest.ManifoldFree(h))
	}

	// Gr(4, 2): span(e1, e2) and span(e3, e4) are orthogonal subspaces,
	// √2·π/2 apart, with no unique logarithm between them.
	g, _ := ctest.ManifoldNew("grassmann:n=4,p=2")
	defer ctest.ManifoldFree(g)
	a := []float64{1, 0, 0, 1, 0, 0, 0, 0}
	b := []float64{0, 0, 0, 0, 1, 0, 0, 1}
	res := make([]float64, 1)
	require.Equal(t, okC, ctest.Dist(g, a, b, res))
	assert.InDelta(t, math.Sqrt2*math.Pi/2, res[0], 1e-14)
	wantCode(t, "Gr log at the cut locus", enumeric, func() int { return ctest.Log(g, a, b, make([]float64, 8)) }, "principal angle")

	// Δ(2): from (0.5, 0.5) along (½, −½) the geodesic is p(t) =
	// sin²(π/4 + t/2) (x = (p, 1 − p), p = sin²φ, ‖u‖_x = 1, and φ moves
	// at half the speed) and reaches the boundary at t = π/2.
	s, _ := ctest.ManifoldNew("simplex:n=2")
	defer ctest.ManifoldFree(s)
	x, u, out := []float64{0.5, 0.5}, []float64{0.5, -0.5}, make([]float64, 2)
	require.Equal(t, okC, ctest.Exp(s, x, u, 0.5, out))
	assert.InDelta(t, math.Pow(math.Sin(math.Pi/4+0.25), 2), out[0], 1e-15)
	wantCode(t, "simplex exp beyond the boundary", einval, func() int { return ctest.Exp(s, x, u, 1.6, out) }, "boundary")

	for spec, want := range map[string]string{
		"grassmann:n=3,p=3": `p="3"`, "grassmann:n=4": "p is required", "grassmann:n=4,p=2,retr=cayley": "cayley",
		"simplex:n=1": `n="1"`, "simplex:n=3,p=2": `unknown setting "p"`,
	} {
		wantCode(t, spec, einval, func() int { _, rc := ctest.ManifoldNew(spec); return rc }, want)
	}
}

// orthogonal returns a random n×n orthogonal matrix (Q of a Gaussian
// matrix's QR).
func orthogonal(rnd *rand.Rand, n int) *mat.Dense {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, rnd.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

// problemChecks runs rhgd_problem_check at (x, y) and requires every
// report to pass.
func problemChecks(t *testing.T, p int64, x, y []float64) {
	t.Helper()
	ok := checkReports(t, p, x, y)
	require.NotEmpty(t, ok)
	for name, good := range ok {
		assert.True(t, good, name)
	}
}

// TestCallbackPCAGrassmann: PCA as a bilevel problem with C callbacks
// on Gr(6, 2) × R^(2×5) (ctest_pca: y*(X) = XᵀD, F(X) = −½ tr(XᵀDDᵀX)):
// rhgd_problem_check passes the hand-written oracles, and RHGD with CG
// reaches the span of the top two eigenvectors of DDᵀ, computed by
// gonum's symmetric eigendecomposition, with y = XᵀD, for each
// retraction.
func TestCallbackPCAGrassmann(t *testing.T) {
	const n, p, m = 6, 2, 5
	rnd := rand.New(rand.NewPCG(31, 1))
	// D = Q S Wᵀ with singular values 3, 2.4, 1.2, 0.8, 0.5: DDᵀ has the
	// eigenvalues 9, 5.76, 1.44, 0.64, 0.25, 0, a gap of 4.32 after the
	// second.
	q, w := orthogonal(rnd, n), orthogonal(rnd, m)
	sv := mat.NewDense(n, m, nil)
	for i, v := range []float64{3, 2.4, 1.2, 0.8, 0.5} {
		sv.Set(i, i, v)
	}
	var d mat.Dense
	d.Product(q, sv, w.T())
	var ddt mat.SymDense
	ddt.SymOuterK(1, &d)
	var eig mat.EigenSym
	require.True(t, eig.Factorize(&ddt, true))
	var vecs mat.Dense
	eig.VectorsTo(&vecs) // ascending eigenvalues: the top two are the last columns
	top := vecs.Slice(0, n, n-p, n)
	var want mat.Dense
	want.Mul(top, top.T()) // the projector onto the top eigenspace

	data := ctest.NewPCA(n, p, m, d.RawMatrix().Data)
	defer data.Free()
	for _, retr := range []string{"qr", "polar", "exp"} {
		mx, rc := ctest.ManifoldNew("grassmann:n=6,p=2,retr=" + retr)
		require.Equal(t, okC, rc)
		my, _ := ctest.ManifoldNew("euclid:r=2,c=5")
		pr, rc := ctest.PCAProblem(data, mx, my)
		require.Equal(t, okC, rc)
		x0, y0 := make([]float64, n*p), make([]float64, p*m)
		require.Equal(t, okC, ctest.RandPoint(mx, 7, x0))
		for i := range y0 {
			y0[i] = rnd.NormFloat64()
		}
		if retr == "qr" {
			problemChecks(t, pr, x0, y0)
		}
		s, rc := ctest.SolverNew(pr, "cg", "eta_x=0.1,eta_y=0.5,inner=20,epochs=300,grad_tol=1e-11")
		require.Equal(t, okC, rc)
		rc, msg := call(func() int { return ctest.SolverRun(s, x0, y0, nil) })
		require.Equal(t, okC, rc, "%s: %s", retr, msg)
		res, _ := ctest.SolverResult(s)
		assert.Equal(t, int(ctest.Const(9)), res.Status, "%s: RHGD_STATUS_GRADIENT_THRESHOLD", retr)
		t.Logf("%s: %d epochs, F = %.17g, ‖ĝ‖ = %.3g", retr, res.Epochs, res.F, res.HyperGradNorm)
		x, y := make([]float64, n*p), make([]float64, p*m)
		require.Equal(t, okC, ctest.SolverX(s, int64(n*p), x))
		require.Equal(t, okC, ctest.SolverY(s, int64(p*m), y))
		require.Equal(t, okC, ctest.CheckPoint(mx, x), retr)
		X := mat.NewDense(n, p, x)
		var got, diff mat.Dense
		got.Mul(X, X.T())
		diff.Sub(&got, &want)
		assert.Less(t, mat.Norm(&diff, 2), 1e-9, "%s: ‖XXᵀ − VVᵀ‖₂, V the top eigenvectors", retr)
		var ystar mat.Dense
		ystar.Mul(X.T(), &d)
		assert.InDeltaSlice(t, ystar.RawMatrix().Data, y, 1e-8, "%s: y = XᵀD", retr)
		assert.InDelta(t, -0.5*(9+5.76), res.F, 1e-9, "%s: F* = −½(λ₁ + λ₂)", retr)
		ctest.SolverFree(s)
		ctest.ProblemFree(pr)
		ctest.ManifoldFree(my)
		ctest.ManifoldFree(mx)
	}
}

// TestCallbackReweightSimplex: data reweighting with C callbacks on
// Δ(5) × R^3 (ctest_rw: y*(x) = Σ x_i a_i, F(x) = Σ x_i a_i·c + τ Σ x_i
// log x_i): rhgd_problem_check passes the oracles, and RHGD with CG
// reaches x* = softmax(−Ac/τ), y* = Σ x*_i a_i, from the uniform weights.
func TestCallbackReweightSimplex(t *testing.T) {
	const k, d, tau = 5, 3, 0.5
	rnd := rand.New(rand.NewPCG(32, 1))
	a, c := make([]float64, k*d), make([]float64, d)
	for i := range a {
		a[i] = rnd.NormFloat64()
	}
	for i := range c {
		c[i] = rnd.NormFloat64()
	}
	xs, ys := make([]float64, k), make([]float64, d)
	var z float64
	for i := range xs {
		var s float64
		for j := 0; j < d; j++ {
			s += a[i*d+j] * c[j]
		}
		xs[i] = math.Exp(-s / tau)
		z += xs[i]
	}
	for i := range xs {
		xs[i] /= z
		for j := 0; j < d; j++ {
			ys[j] += xs[i] * a[i*d+j]
		}
	}

	data := ctest.NewReweight(k, d, a, c, tau)
	defer data.Free()
	mx, rc := ctest.ManifoldNew("simplex:n=5")
	require.Equal(t, okC, rc)
	defer ctest.ManifoldFree(mx)
	my, _ := ctest.ManifoldNew("euclid:r=3")
	defer ctest.ManifoldFree(my)
	pr, rc := ctest.ReweightProblem(data, mx, my)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(pr)
	x0 := []float64{0.2, 0.2, 0.2, 0.2, 0.2}
	y0 := []float64{0, 0, 0}
	problemChecks(t, pr, []float64{0.1, 0.3, 0.2, 0.15, 0.25}, []float64{0.3, -0.2, 0.5})

	s, rc := ctest.SolverNew(pr, "cg", "eta_x=1,eta_y=0.5,inner=20,epochs=300,grad_tol=1e-12")
	require.Equal(t, okC, rc)
	defer ctest.SolverFree(s)
	rc, msg := call(func() int { return ctest.SolverRun(s, x0, y0, nil) })
	require.Equal(t, okC, rc, msg)
	res, _ := ctest.SolverResult(s)
	assert.Equal(t, int(ctest.Const(9)), res.Status, "RHGD_STATUS_GRADIENT_THRESHOLD")
	t.Logf("%d epochs, F = %.17g, ‖ĝ‖ = %.3g", res.Epochs, res.F, res.HyperGradNorm)
	x, y := make([]float64, k), make([]float64, d)
	require.Equal(t, okC, ctest.SolverX(s, k, x))
	require.Equal(t, okC, ctest.SolverY(s, d, y))
	for i := range xs {
		assert.InDelta(t, 1, x[i]/xs[i], 1e-9, "x[%d] = %v, x*[%d] = %v", i, x[i], i, xs[i])
	}
	assert.InDeltaSlice(t, ys, y, 1e-9)
}

// TestManifoldDocsGrassmannSimplex: the Python classes of the manifolds
// that manifold/spec's table adds after SPD and Stiefel, Grassmann and
// Simplex, exist, and Grassmann's docstring names each retraction and
// marks the default, as TestManifoldDocs holds SPD's and Stiefel's.
func TestManifoldDocsGrassmannSimplex(t *testing.T) {
	py, err := os.ReadFile("../python/rhgd/manifolds.py")
	require.NoError(t, err)
	for _, c := range []struct{ class, manifold string }{{"Grassmann", "grassmann"}, {"Simplex", "simplex"}} {
		_, d, ok := strings.Cut(string(py), "\nclass "+c.class+"(")
		require.True(t, ok, c.class)
		_, d, _ = strings.Cut(d, `"""`)
		d, _, _ = strings.Cut(d, `"""`)
		d = strings.Join(strings.Fields(d), " ")
		info, ok := mspec.Lookup(c.manifold)
		require.True(t, ok)
		for _, o := range info.Options {
			for _, name := range o.Names {
				require.Contains(t, d, "'"+name+"'", c.class)
			}
			if o.Type == "name" {
				require.Contains(t, d, "'"+o.Default+"' (default)", c.class)
			}
		}
	}
}

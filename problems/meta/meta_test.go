package meta_test

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/meta"
	"github.com/rhgd/rhgd/problemtest"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

var digitsData = sync.OnceValues(meta.Digits)

// tiny are tasks at which every check runs fast.
var tiny = meta.TaskSpec{Ways: 5, Shots: 2, Queries: 3}

// setup returns the problem on ntrain tasks of spec (and ntest test
// tasks) with P features.
func setup(t testing.TB, spec meta.TaskSpec, ntrain, ntest, p int, lambda float64, ext bool, seed uint64) (*meta.Data, *meta.Tasks, *meta.Problem, solver.Problem) {
	t.Helper()
	d, err := digitsData()
	require.NoError(t, err)
	ts, err := meta.MakeTasks(d, meta.BySample, spec, ntrain, ntest, seed)
	require.NoError(t, err)
	pr, err := meta.New(d, ts, meta.Config{P: p, Lambda: lambda, Extrinsic: ext}, seed)
	require.NoError(t, err)
	return d, ts, pr, pr.Bilevel()
}

// randomHeads returns heads with normal entries of standard deviation s.
func randomHeads(n int, s float64, seed uint64) []float64 {
	rnd := rand.New(rand.NewPCG(seed, 1))
	w := make([]float64, n)
	for i := range w {
		w[i] = s * rnd.NormFloat64()
	}
	return w
}

// refFeature returns the features φ_i = (tanh(Θᵀ(x_i − mean)), 1) of
// image i, computed with gonum.
func refFeature(d *meta.Data, ts *meta.Tasks, theta []float64, p int) func(i int) []float64 {
	T := mat.NewDense(d.Dim, p, theta)
	return func(i int) []float64 {
		x := mat.NewVecDense(d.Dim, nil)
		for j := 0; j < d.Dim; j++ {
			x.SetVec(j, d.X[i*d.Dim+j]-ts.Mean[j])
		}
		var h mat.VecDense
		h.MulVec(T.T(), x)
		out := make([]float64, p+1)
		for a := 0; a < p; a++ {
			out[a] = math.Tanh(h.AtVec(a))
		}
		out[p] = 1
		return out
	}
}

// refLosses returns f and g computed independently with gonum: features
// tanh((x − mean)ᵀΘ) with a bias, logits, log-sum-exp cross-entropies.
func refLosses(d *meta.Data, ts *meta.Tasks, theta, heads []float64, p int, lambda float64) (f, g float64) {
	q, c := p+1, ts.Spec.Ways
	feat := refFeature(d, ts, theta, p)
	ce := func(phi, w []float64, y int) float64 { return testkit.CrossEntropy(phi, w, c, y) }
	for t, task := range ts.Train {
		w := heads[t*q*c : (t+1)*q*c]
		for j, i := range task.Query {
			f += ce(feat(i), w, task.QryLabels[j]) / float64(len(task.Query)*len(ts.Train))
		}
		for j, i := range task.Support {
			g += ce(feat(i), w, task.SupLabels[j]) / float64(len(task.Support))
		}
		for _, x := range w {
			g += 0.5 * lambda * x * x
		}
	}
	return f, g
}

// TestObjectives: F and G against the independent computation.
func TestObjectives(t *testing.T) {
	d, ts, p, sp := setup(t, tiny, 6, 2, 7, 0.3, false, 3)
	theta, _ := p.Start(0)
	heads := randomHeads(p.Eu.Len(), 0.5, 1)
	wf, wg := refLosses(d, ts, theta, heads, 7, 0.3)
	f, err := sp.F(testkit.At(theta, heads))
	testkit.Must(t, err)
	g, err := sp.G(testkit.At(theta, heads))
	testkit.Must(t, err)
	require.InDelta(t, wf, f, 1e-13*wf)
	require.InDelta(t, wg, g, 1e-13*wg)
}

// TestConformance runs the problem suite at the start (zero heads) and at
// random heads, at small and default sizes of the tasks.
func TestConformance(t *testing.T) {
	for _, c := range []struct {
		name   string
		spec   meta.TaskSpec
		n, p   int
		scale  float64
		lambda float64
	}{
		{"tiny, random heads", tiny, 4, 5, 0.5, 0.5},
		{"default tasks, start", meta.TaskSpec{Ways: 5, Shots: 5, Queries: 15}, 6, 16, 0, meta.DefaultLambda},
		{"default tasks, random heads", meta.TaskSpec{Ways: 5, Shots: 5, Queries: 15}, 6, 16, 1, meta.DefaultLambda},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, p, sp := setup(t, c.spec, c.n, 2, c.p, c.lambda, false, 5)
			theta, heads := p.Start(0)
			if c.scale > 0 {
				heads = randomHeads(len(heads), c.scale, 2)
			}
			problemtest.Run(t, sp, problemtest.Config{X: theta, Y: heads, Seed: 3})
		})
	}
}

// TestLowerSolve: LowerSolve makes every head's gradient vanish, from zero
// and from random heads, to the same solution.
func TestLowerSolve(t *testing.T) {
	_, _, p, sp := setup(t, meta.TaskSpec{Ways: 5, Shots: 5, Queries: 5}, 8, 2, 16, meta.DefaultLambda, false, 9)
	theta, zero := p.Start(0)
	var sols [][]float64
	g := make([]float64, len(zero))
	for _, start := range [][]float64{zero, randomHeads(len(zero), 3, 4)} {
		w := make([]float64, len(zero))
		testkit.Must(t, sp.LowerSolve(w, testkit.At(theta, start)))
		testkit.Must(t, sp.GradGy(g, testkit.At(theta, w)))
		require.Less(t, math.Sqrt(floats.Dot(g, g)), 1e-10)
		sols = append(sols, w)
	}
	require.Less(t, testkit.Rel(sols[1], sols[0]), 1e-9)
}

// TestHypergradient: at W*(Θ) the HINV and CG hypergradients match the
// central difference of F(Θ) = f(Θ, W*(Θ)) along QR-retraction curves,
// W* from LowerSolve (checked in TestLowerSolve).
func TestHypergradient(t *testing.T) {
	_, _, p, sp := setup(t, meta.TaskSpec{Ways: 5, Shots: 5, Queries: 5}, 6, 2, 16, meta.DefaultLambda, false, 7)
	theta, zero := p.Start(0)
	testkit.HypergradientLower(t, sp, meta.Paper.Estimator, theta, zero, 1e-6)
}

// TestExtrinsic: PHGD's manifold. Its retraction is the polar factor of
// X + tU (checked against U_svd V_svdᵀ of an independent SVD, for a
// direction that is not tangent), its gradients are Euclidean (the
// Euclidean hypergradient's tangent projection is RHGD's, with HINV, at
// the same point), and one PHGD epoch moves Θ to polar(Θ − η_x ĝ_E).
func TestExtrinsic(t *testing.T) {
	spec := meta.TaskSpec{Ways: 5, Shots: 3, Queries: 3}
	_, _, pr, sr := setup(t, spec, 5, 2, 6, 0.2, false, 4)
	_, _, _, se := setup(t, spec, 5, 2, 6, 0.2, true, 4)
	theta, _ := pr.Start(0)
	heads := randomHeads(pr.Eu.Len(), 0.5, 6)
	ex := se.Mx
	require.NoError(t, ex.CheckPoint(theta))
	rnd := rand.New(rand.NewPCG(2, 2))
	u := make([]float64, len(theta))
	ex.RandTangent(u, theta, rnd)
	require.InDelta(t, 1, ex.Norm(theta, u), 1e-15)
	got := make([]float64, len(theta))
	require.NoError(t, ex.Retract(got, theta, u, 0.3))
	a := mat.NewDense(64, 6, nil)
	for i := range theta {
		a.RawMatrix().Data[i] = theta[i] + 0.3*u[i]
	}
	var svd mat.SVD
	require.True(t, svd.Factorize(a, mat.SVDThin))
	var uu, vv, want mat.Dense
	svd.UTo(&uu)
	svd.VTo(&vv)
	want.Mul(&uu, vv.T())
	require.Less(t, testkit.Rel(got, want.RawMatrix().Data), 1e-13, "polar factor")
	// Hypergradients.
	rr, err := solver.New(sr, &solver.Settings{Estimator: solver.HInv{}})
	require.NoError(t, err)
	re, err := solver.New(se, &solver.Settings{Estimator: solver.HInv{}})
	require.NoError(t, err)
	gr, err := rr.Estimate(theta, heads)
	require.NoError(t, err)
	ge, err := re.Estimate(theta, heads)
	require.NoError(t, err)
	proj := make([]float64, len(theta))
	pr.St.Project(proj, theta, ge)
	require.Less(t, testkit.Rel(proj, gr), 1e-13, "P(ĝ_E) = ĝ_R")
	require.Greater(t, testkit.Rel(ge, gr), 1e-3, "the Euclidean hypergradient has a normal part")
	// One PHGD epoch without lower steps.
	s := solver.Settings{EtaX: 0.7, EtaY: 0.1, InnerIters: 1, Epochs: 1, Estimator: solver.HInv{}, Lower: solver.LowerRule{UseLowerSolve: true}}
	r, err := solver.New(se, &s)
	require.NoError(t, err)
	require.NoError(t, r.Reset(theta, heads))
	_, err = r.Step()
	require.NoError(t, err)
	wstar := make([]float64, len(heads))
	testkit.Must(t, se.LowerSolve(wstar, testkit.At(theta, heads)))
	ge, err = re.Estimate(theta, wstar)
	require.NoError(t, err)
	want2 := make([]float64, len(theta))
	st := stiefel.New(64, 6)
	st.Retraction = stiefel.Polar
	require.NoError(t, st.Retract(want2, theta, ge, -0.7))
	require.Less(t, testkit.Rel(r.X(), want2), 1e-12, "Θ⁺ = polar(Θ − η ĝ_E)")
}

// TestNewErrors: bad configurations and tasks are errors.
func TestNewErrors(t *testing.T) {
	d, err := digitsData()
	require.NoError(t, err)
	ts, err := meta.MakeTasks(d, meta.BySample, tiny, 2, 2, 1)
	require.NoError(t, err)
	for name, c := range map[string]meta.Config{"P = 0": {Lambda: 1}, "P > 64": {P: 65, Lambda: 1}, "λ = 0": {P: 4}, "λ NaN": {P: 4, Lambda: math.NaN()}} {
		_, err := meta.New(d, ts, c, 1)
		require.ErrorIs(t, err, problems.ErrBadData, name)
	}
	bad := *ts
	bad.Train = append([]meta.Task(nil), ts.Train...)
	bad.Train[1].SupLabels = append([]int(nil), ts.Train[1].SupLabels...)
	bad.Train[1].SupLabels[0] = 7
	_, err = meta.New(d, &bad, meta.Config{P: 4, Lambda: 1}, 1)
	require.ErrorIs(t, err, problems.ErrBadData)
	bad.Train[1].SupLabels[0] = 0
	bad.Train[1].Support = append([]int(nil), ts.Train[1].Support...)
	bad.Train[1].Support[0] = 5000
	_, err = meta.New(d, &bad, meta.Config{P: 4, Lambda: 1}, 1)
	require.ErrorIs(t, err, problems.ErrBadData)
	_, err = meta.New(d, nil, meta.Config{P: 4, Lambda: 1}, 1)
	require.ErrorIs(t, err, problems.ErrBadData)
}

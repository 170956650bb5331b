package synthetic_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/problemtest"
	"github.com/rhgd/rhgd/solver"
)

func setup(t testing.TB, n, d, r int) (*synthetic.Problem, solver.Problem, []float64, []float64) {
	data, err := synthetic.Generate(n, d, r, 0.01, 42)
	require.NoError(t, err)
	sp, err := synthetic.New(data)
	require.NoError(t, err)
	w, m := sp.Start(7)
	return sp, sp.Bilevel(), w, m
}

// at is the point (x, y) with unknown identities: no cache can match it.

// must fails the test on an oracle error.

// value returns an objective at (x, y).
func value(t testing.TB, f func(*solver.Point) (float64, error), x, y []float64) float64 {
	v, err := f(testkit.At(x, y))
	testkit.Must(t, err)
	return v
}

// inX and inY turn an oracle into a function of x at a fixed y, or of y
// at a fixed x, for the derivative checkers.
func inX(t testing.TB, f func([]float64, *solver.Point) error, y []float64) func(dst, x []float64) {
	return func(dst, x []float64) { testkit.Must(t, f(dst, testkit.At(x, y))) }
}

func inY(t testing.TB, f func([]float64, *solver.Point) error, x []float64) func(dst, y []float64) {
	return func(dst, y []float64) { testkit.Must(t, f(dst, testkit.At(x, y))) }
}

// offIdentity moves m (the start's identity) along a random tangent, so
// that no term of the oracles is trivially zero, and returns the random
// source for more directions.
func offIdentity(t testing.TB, sp *synthetic.Problem, m []float64, seed uint64) *rand.Rand {
	rnd := rand.New(rand.NewPCG(seed, seed))
	u := make([]float64, len(m))
	sp.SPD.RandTangent(u, m, rnd)
	require.NoError(t, sp.SPD.Retract(m, m, u, 0.5))
	return rnd
}

// TestOracles runs every oracle through the derivative checkers.
func TestOracles(t *testing.T) {
	sp, p, w, m := setup(t, 30, 8, 3)
	rnd := offIdentity(t, sp, m, 1)
	uw, uw2 := make([]float64, 24), make([]float64, 24)
	sp.St.RandTangent(uw, w, rnd)
	sp.St.RandTangent(uw2, w, rnd)
	um, um2 := make([]float64, 64), make([]float64, 64)
	sp.SPD.RandTangent(um, m, rnd)
	sp.SPD.RandTangent(um2, m, rnd)
	check := func(name string, r solver.CheckReport) {
		t.Helper()
		require.True(t, r.OK, "%s: %v", name, r)
	}
	check("grad_W f", solver.CheckGradient(sp.St, func(x []float64) float64 { return value(t, p.F, x, m) }, inX(t, p.GradFx, m), w, uw))
	check("grad_M f", solver.CheckGradient(sp.SPD, func(y []float64) float64 { return value(t, p.F, w, y) }, inY(t, p.GradFy, w), m, um))
	check("grad_M g", solver.CheckGradient(sp.SPD, func(y []float64) float64 { return value(t, p.G, w, y) }, inY(t, p.GradGy, w), m, um))
	check("grad_W g", solver.CheckGradient(sp.St, func(x []float64) float64 { return value(t, p.G, x, m) }, inX(t, p.GradGx, m), w, uw))
	check("Hess_M g", solver.CheckHessian(sp.SPD, func(y []float64) float64 { return value(t, p.G, w, y) },
		inY(t, p.GradGy, w), func(dst, y, v []float64) { testkit.Must(t, p.HessGy(dst, testkit.At(w, y), v)) }, m, um, um2))
	check("cross", solver.CheckCrossDerivative(sp.St, sp.SPD, func(dst, x, y []float64) { testkit.Must(t, p.GradGx(dst, testkit.At(x, y))) },
		func(dst, x, y, v []float64) { testkit.Must(t, p.CrossGxy(dst, testkit.At(x, y), v)) },
		func(dst, x, y, u []float64) { testkit.Must(t, p.CrossGyx(dst, testkit.At(x, y), u)) }, w, m, uw, um))

	// H(H⁻¹ V) = V.
	hi, back := make([]float64, 64), make([]float64, 64)
	require.NoError(t, p.HessGyInv(hi, testkit.At(w, m), um))
	testkit.Must(t, p.HessGy(back, testkit.At(w, m), hi))
	require.Less(t, testkit.Rel(back, um), 1e-12)
}

// solveLower runs Newton's method on g(w, ·) (steps −H⁻¹ grad) until
// ‖grad‖ ≤ 1e−13: M*(w) to full precision.
func solveLower(t testing.TB, sp *synthetic.Problem, p solver.Problem, w, m0 []float64) []float64 {
	m := append([]float64(nil), m0...)
	g, s := make([]float64, len(m)), make([]float64, len(m))
	for it := 0; it < 100; it++ {
		testkit.Must(t, p.GradGy(g, testkit.At(w, m)))
		if sp.SPD.Norm(m, g) <= 1e-13 {
			return m
		}
		require.NoError(t, p.HessGyInv(s, testkit.At(w, m), g))
		require.NoError(t, sp.SPD.Exp(m, m, s, -1))
	}
	t.Fatalf("Newton did not converge")
	return nil
}

// TestHINVAgainstFiniteDifference: the HINV hypergradient at (W, M*(W))
// matches the central difference of F(W) = f(W, M*(W)) along QR-retraction
// curves to 1e−6 relative.
func TestHINVAgainstFiniteDifference(t *testing.T) {
	sp, p, w, m := setup(t, 100, 50, 20)
	mstar := solveLower(t, sp, p, w, m)
	r, err := solver.New(p, &solver.Settings{Estimator: solver.HInv{}})
	require.NoError(t, err)
	hg, err := r.Estimate(w, mstar)
	require.NoError(t, err)
	F := func(x []float64) float64 { return value(t, p.F, x, solveLower(t, sp, p, x, mstar)) }
	rnd := rand.New(rand.NewPCG(3, 3))
	u := make([]float64, len(w))
	for k := 0; k < 3; k++ {
		sp.St.RandTangent(u, w, rnd)
		const h = 1e-5
		wp, wm := make([]float64, len(w)), make([]float64, len(w))
		require.NoError(t, sp.St.Retract(wp, w, u, h))
		require.NoError(t, sp.St.Retract(wm, w, u, -h))
		fd := (F(wp) - F(wm)) / (2 * h)
		want := sp.St.Inner(w, hg, u)
		require.InDelta(t, want, fd, 1e-6*sp.St.Norm(w, hg), "direction %d", k)
	}
}

// TestEstimatorErrorsShrink: against HINV at y*, CG and NS errors fall as
// T grows and AD's as S grows, as Lemma 1 predicts.
func TestEstimatorErrorsShrink(t *testing.T) {
	sp, p, w, m := setup(t, 100, 50, 20)
	mstar := solveLower(t, sp, p, w, m)
	est := func(e solver.Estimator, y []float64) []float64 {
		r, err := solver.New(p, &solver.Settings{Estimator: e})
		require.NoError(t, err)
		hg, err := r.Estimate(w, y)
		require.NoError(t, err)
		return hg
	}
	want := est(solver.HInv{}, mstar)
	errOf := func(hg []float64) float64 { return testkit.Rel(hg, want) }
	var prev float64
	for _, T := range []int{2, 5, 10, 20, 50} {
		e := errOf(est(&solver.CG{MaxIter: T, Tol: 1e-16}, mstar))
		t.Logf("CG T=%d: %.3g", T, e)
		if prev > 0 {
			require.Less(t, e, prev)
		}
		prev = e
	}
	require.Less(t, prev, 1e-9)
	prev = 0
	for _, T := range []int{10, 40, 160} {
		e := errOf(est(&solver.Neumann{Terms: T}, mstar))
		t.Logf("NS T=%d: %.3g", T, e)
		if prev > 0 {
			require.Less(t, e, prev)
		}
		prev = e
	}
	// AD from a perturbed M with S lower steps of size η.
	prev = 0
	m0 := append([]float64(nil), mstar...)
	rnd := rand.New(rand.NewPCG(4, 4))
	u := make([]float64, len(m0))
	sp.SPD.RandTangent(u, m0, rnd)
	require.NoError(t, sp.SPD.Retract(m0, m0, u, 0.3))
	for _, S := range []int{5, 20, 80} {
		r, err := solver.New(p, &solver.Settings{Estimator: solver.AD{}, InnerIters: S, EtaY: 0.5, EtaX: 1e-300, Epochs: 1})
		require.NoError(t, err)
		_, err = r.Run(context.Background(), w, m0)
		require.NoError(t, err)
		require.NoError(t, r.Reset(w, m0)) // the run's one epoch again
		hg, err := r.Hypergradient(true)
		require.NoError(t, err)
		e := errOf(hg)
		t.Logf("AD S=%d: %.3g", S, e)
		if prev > 0 {
			require.Less(t, e, prev)
		}
		prev = e
	}
}

func TestBadData(t *testing.T) {
	_, err := synthetic.Generate(10, 20, 5, 0.01, 1)
	require.ErrorIs(t, err, synthetic.ErrBadData)
	data, err := synthetic.Generate(10, 5, 2, 0.01, 1)
	require.NoError(t, err)
	data.X[3] = math.NaN()
	_, err = synthetic.New(data)
	require.ErrorIs(t, err, synthetic.ErrBadData)
	data.X[3] = 0
	data.Nu = 0
	_, err = synthetic.New(data)
	require.ErrorIs(t, err, synthetic.ErrBadData)
	for _, nu := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		_, err = synthetic.Generate(10, 5, 2, nu, 1)
		require.ErrorIs(t, err, synthetic.ErrBadData, "ν = %v", nu)
	}
	_, err = synthetic.New(nil)
	require.ErrorIs(t, err, synthetic.ErrBadData)
	// A zero column of X makes XᵀX singular: g is not strongly convex.
	data, err = synthetic.Generate(10, 5, 2, 0.01, 1)
	require.NoError(t, err)
	for i := 0; i < 10; i++ {
		data.X[i*5+2] = 0
	}
	_, err = synthetic.New(data)
	require.ErrorIs(t, err, synthetic.ErrBadData)
	require.ErrorContains(t, err, "singular")
}

// TestFiniteDifferenceOracles: the difference quotients New falls back on
// match the exact Hessian and cross derivative at a point far from the
// lower solution, where a transport other than the parallel one would
// leave an error proportional to grad_M g (checked too, so that the test
// can tell the two apart).
func TestFiniteDifferenceOracles(t *testing.T) {
	sp, p, w, m := setup(t, 30, 8, 3)
	rnd := rand.New(rand.NewPCG(2, 2))
	u := make([]float64, 64)
	sp.SPD.RandTangent(u, m, rnd)
	require.NoError(t, sp.SPD.Retract(m, m, u, 0.8))
	v := make([]float64, 64)
	sp.SPD.RandTangent(v, m, rnd)
	gy := make([]float64, 64)
	testkit.Must(t, p.GradGy(gy, testkit.At(w, m)))
	require.Greater(t, sp.SPD.Norm(m, gy), 0.1, "the point must be far from critical")

	q := p
	q.HessGy, q.CrossGxy = nil, nil
	fd := solver.FillFD(q, 0)
	exactH, fdH := make([]float64, 64), make([]float64, 64)
	testkit.Must(t, p.HessGy(exactH, testkit.At(w, m), v))
	testkit.Must(t, fd.HessGy(fdH, testkit.At(w, m), v))
	require.Less(t, testkit.Rel(fdH, exactH), 1e-7)
	exactC, fdC := make([]float64, 24), make([]float64, 24)
	testkit.Must(t, p.CrossGxy(exactC, testkit.At(w, m), v))
	testkit.Must(t, fd.CrossGxy(fdC, testkit.At(w, m), v))
	require.Less(t, testkit.Rel(fdC, exactC), 1e-7)

	// The identity transport, used directly, misses the connection term.
	idH := make([]float64, 64)
	plain := struct{ solver.Manifold }{sp.SPD} // hides ConnectionTerm
	q.My = plain
	testkit.Must(t, solver.FillFD(q, 0).HessGy(idH, testkit.At(w, m), v))
	t.Logf("FD Hessian error: with the connection %.2g, identity %.2g", testkit.Rel(fdH, exactH), testkit.Rel(idH, exactH))
	require.Greater(t, testkit.Rel(idH, exactH), 1e-3)
}

// TestCachesInterleaved: the per-point caches (M⁻¹, its factors, T, P,
// B(W)), kept by the points' identities, give the same products whatever
// was evaluated in between, at another M or another W, as the same point
// with unknown identities (no cache) does.
func TestCachesInterleaved(t *testing.T) {
	sp, p, w, m := setup(t, 30, 8, 3)
	rnd := rand.New(rand.NewPCG(4, 4))
	u, m2, w2 := make([]float64, 64), make([]float64, 64), make([]float64, 24)
	sp.SPD.RandTangent(u, m, rnd)
	require.NoError(t, sp.SPD.Retract(m2, m, u, 0.5))
	uw := make([]float64, 24)
	sp.St.RandTangent(uw, w, rnd)
	require.NoError(t, sp.St.Retract(w2, w, uw, 0.5))
	v := make([]float64, 64)
	sp.SPD.RandTangent(v, m, rnd)
	idW, idW2, idM, idM2 := solver.NewID(), solver.NewID(), solver.NewID(), solver.NewID()
	wm := &solver.Point{X: w, Y: m, XID: idW, YID: idM}
	products := func(pt *solver.Point) [][]float64 {
		c, h, hi, gx := make([]float64, 24), make([]float64, 64), make([]float64, 64), make([]float64, 24)
		testkit.Must(t, p.CrossGxy(c, pt, v))
		testkit.Must(t, p.HessGy(h, pt, v))
		require.NoError(t, p.HessGyInv(hi, pt, v))
		testkit.Must(t, p.GradGx(gx, pt))
		return [][]float64{c, h, hi, gx}
	}
	first := products(wm)
	// G at another M moves the M⁻¹ cache while (w, m) stays the pair of
	// T and P.
	_, err := p.G(&solver.Point{X: w, Y: m2, XID: idW, YID: idM2})
	testkit.Must(t, err)
	again := products(wm)
	products(&solver.Point{X: w2, Y: m2, XID: idW2, YID: idM2})
	_, err = p.G(&solver.Point{X: w2, Y: m, XID: idW2, YID: idM})
	testkit.Must(t, err)
	third := products(wm)
	products(testkit.At(w2, m2)) // unknown identities overwrite every cache
	fourth := products(wm)
	fresh := products(testkit.At(w, m))
	for i := range first {
		require.Equal(t, first[i], again[i], "product %d after G at another M", i)
		require.Equal(t, first[i], third[i], "product %d after other points", i)
		require.Equal(t, first[i], fourth[i], "product %d after points of unknown identity", i)
		require.Equal(t, first[i], fresh[i], "product %d without caches", i)
	}
}

// TestConformance runs the problem suite: every oracle against finite
// differences, at a lower point away from M*(W) and at M*(W).
func TestConformance(t *testing.T) {
	sp, p, w, m := setup(t, 30, 8, 3)
	offIdentity(t, sp, m, 5)
	problemtest.Run(t, p, problemtest.Config{X: w, Y: m, Seed: 1})
}

// TestConcurrentSolvers: solvers on their own problems in separate
// goroutines (sharing the process's backend, its thread windows and the
// identity counter) give exactly what each gives alone. Under -race
// (make test) this also checks that the shared state is synchronized.
func TestConcurrentSolvers(t *testing.T) {
	const workers = 4
	run := func(name string) ([]float64, error) {
		data, err := synthetic.Generate(30, 8, 3, 0.01, 42)
		if err != nil {
			return nil, err
		}
		sp, err := synthetic.New(data)
		if err != nil {
			return nil, err
		}
		w, m := sp.Start(7)
		est, err := synthetic.Paper.Estimator(name)
		if err != nil {
			return nil, err
		}
		res, err := solver.Minimize(context.Background(), sp.Bilevel(), w, m, &solver.Settings{Estimator: est, EtaX: 0.5, EtaY: 0.5, Epochs: 15})
		if err != nil {
			return nil, err
		}
		return append(res.X, res.Y...), nil
	}
	want := map[string][]float64{}
	for _, name := range synthetic.Paper.Names() {
		x, err := run(name)
		require.NoError(t, err)
		want[name] = x
	}
	got, errs := make([][]float64, workers), make([]error, workers)
	done := make(chan int)
	for k := 0; k < workers; k++ {
		go func() {
			got[k], errs[k] = run(synthetic.Paper.Names()[k%len(synthetic.Paper.Names())])
			done <- k
		}()
	}
	for range workers {
		<-done
	}
	for k := range got {
		require.NoError(t, errs[k], "worker %d", k)
		require.Equal(t, want[synthetic.Paper.Names()[k%len(synthetic.Paper.Names())]], got[k], "worker %d", k)
	}
}

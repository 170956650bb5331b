package solver_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// firstOnly are the five oracles FirstOrder needs.
var firstOnly = solver.NewOracles(solver.OracleF, solver.OracleGradFx, solver.OracleGradFy, solver.OracleGradGy, solver.OracleGradGx)

// TestFirstOrderSpec: the spec parser knows "fo" and its settings, String
// gives the spec back, and bad settings are errors naming the setting.
func TestFirstOrderSpec(t *testing.T) {
	e, err := solver.ParseEstimator("fo:lambda=5,growth=2,power=0.5,zsteps=7,eta=0.3,ztol=0.1")
	require.NoError(t, err)
	require.Equal(t, &solver.FirstOrder{Lambda: 5, Growth: 2, Power: 0.5, ZSteps: 7, EtaZ: 0.3, ZTol: 0.1}, e)
	require.Equal(t, "fo:lambda=5,growth=2,power=0.5,zsteps=7,eta=0.3,ztol=0.1", e.(*solver.FirstOrder).String())
	back, err := solver.ParseEstimator(e.(*solver.FirstOrder).String())
	require.NoError(t, err)
	require.Equal(t, e, back)
	e, err = solver.ParseEstimator("firstorder")
	require.NoError(t, err)
	require.Equal(t, "fo:lambda=10", e.(*solver.FirstOrder).String()) // the adaptive λ
	e, err = solver.ParseEstimator("fo:power=0.5")
	require.NoError(t, err)
	require.Equal(t, "fo:lambda=10,growth=10,power=0.5", e.(*solver.FirstOrder).String())
	e, err = solver.ParseEstimator("fo:growth=-1")
	require.NoError(t, err)
	require.Equal(t, "fo:lambda=10,growth=-1", e.(*solver.FirstOrder).String())
	require.Equal(t, firstOnly, e.Needs())

	_, err = solver.ParseEstimator("fo:zsteps=x")
	require.ErrorIs(t, err, solver.ErrBadSetting)
	require.ErrorContains(t, err, "zsteps")
	_, err = solver.ParseEstimator("fo:lamda=3")
	require.ErrorContains(t, err, "lamda")
	s, mx, my, _, _ := squadSetup(1)
	for _, bad := range []struct {
		fo   solver.FirstOrder
		name string
	}{
		{solver.FirstOrder{Lambda: -1}, "Lambda"}, {solver.FirstOrder{Lambda: math.Inf(1)}, "Lambda"},
		{solver.FirstOrder{Power: -1}, "Power"}, {solver.FirstOrder{ZSteps: -1}, "ZSteps"},
		{solver.FirstOrder{EtaZ: math.NaN()}, "EtaZ"}, {solver.FirstOrder{Growth: math.NaN()}, "Growth"},
		{solver.FirstOrder{ZTol: -1}, "ZTol"},
	} {
		_, err := solver.New(on(s.problem(), mx, my), with(&bad.fo, nil))
		require.ErrorIs(t, err, solver.ErrBadSetting, bad.name)
		require.ErrorContains(t, err, bad.name)
	}
}

// TestFirstOrderBias: at the exact lower solution, with z run to the
// penalty problem's solution, the surrogate's error is O(1/λ) (F²SA's
// Lemma on L*_λ): on a quadratic problem it is Bᵀ A⁻¹ Q (Q + λA)⁻¹ (Qy* +
// c), so doubling λ halves it, to O(1/λ²).
func TestFirstOrderBias(t *testing.T) {
	s, mx, my, x, _ := squadSetup(2)
	q := s.mean
	p := q.problem()
	ys := q.ystar(x)
	want := q.exactHyper(x, ys)
	var errs []float64
	for _, lam := range []float64{100, 200, 400, 800} {
		hg := estimateAt(t, p, mx, my, &solver.FirstOrder{Lambda: lam, Growth: -1, ZSteps: 3000, EtaZ: 0.2}, x, ys, nil)
		errs = append(errs, relDiff(hg, want))
	}
	t.Logf("relative errors at λ = 100, 200, 400, 800: %.3g", errs)
	require.Less(t, errs[0], 0.1)
	for i := 1; i < len(errs); i++ {
		require.InDelta(t, 0.5, errs[i]/errs[i-1], 0.05, "λ doubled %d times", i)
	}
}

// hinvF runs HINV for many epochs: the reference value of f.
func hinvF(t *testing.T, p solver.Problem, x0, y0 []float64, s solver.Settings, epochs int) float64 {
	t.Helper()
	s.Estimator, s.Epochs = solver.HInv{}, epochs
	res, err := solver.Minimize(context.Background(), p, x0, y0, &s)
	require.NoError(t, err)
	return res.F
}

// reach records the first epoch from which f stays within tol·|ref| of
// ref, and sums FirstOrder's oracle counts.
type reach struct {
	ref, tol       float64
	first          int
	last           solver.EpochStats
	gradGx, gradFy int
}

func (r *reach) Record(s *solver.EpochStats) error {
	r.gradGx += s.Estimate.GradGx
	r.gradFy += s.Estimate.GradFy
	if math.Abs(s.F-r.ref) > r.tol*math.Abs(r.ref) {
		r.first = -1
	} else if r.first < 0 {
		r.first = s.Epoch
	}
	r.last = *s
	return nil
}

// TestFirstOrderSynthetic: on the synthetic problem (small size) the
// first-order estimator reaches HINV's final f to 1e−4 relative with
// gradients only.
func TestFirstOrderSynthetic(t *testing.T) {
	sp := smallSynthetic(t, 10, 42)
	w0, m0 := sp.Start(1)
	set := synthetic.Paper.Settings
	ref := hinvF(t, sp.Bilevel(), w0, m0, set, 1500)
	rec := &reach{ref: ref, tol: 1e-4, first: -1}
	set.Estimator, set.Recorder, set.Epochs = &solver.FirstOrder{}, rec, 400
	res, err := solver.Minimize(context.Background(), sp.Bilevel(), w0, m0, &set)
	require.NoError(t, err)
	t.Logf("HINV f %.10f; FO f %.10f (rel %.2g), within 1e-4 from epoch %d; %+v", ref, res.F, math.Abs(res.F-ref)/math.Abs(ref), rec.first, res.Stats)
	require.GreaterOrEqual(t, rec.first, 0, "f never stayed within 1e-4 of HINV's")
	require.Zero(t, res.Stats.HessVecs+res.Stats.CrossVecs)
	// With a Recorder fo estimates its bias (and its default λ adapts to
	// it): per epoch, grad_x g at y, at y' (one more lower step), at z, at
	// z before its last step and at the 2λ iterate z₂; grad_y f at the 21
	// points of z's loop (20 steps, and the gradient at the end for the
	// last step's ratio) and the 20 of z₂'s.
	require.Equal(t, 5*res.Stats.Epochs, rec.gradGx)
	require.Equal(t, 41*res.Stats.Epochs, rec.gradFy)
	// S = 20 lower steps, 21 + 20 z gradients and the bias's lower step
	// (2) per epoch, and the final lower solve's S steps at the returned x.
	require.Equal(t, 63*res.Stats.Epochs+set.InnerIters, res.Stats.LowerGrads)
	require.Equal(t, 40*res.Stats.Epochs, res.Stats.Iterations)
}

// TestFirstOrderHyperrep: on a small hyper-representation problem
// (Stiefel × Euclidean) the first-order estimator reaches HINV's f to
// 1e−4 relative. Its y must be accurate, since an error in y enters ĝ
// multiplied by λ: the paper's 50 lower steps of η_y = 0.05 on a ridge of
// strength 0.1 contract the error only by about 0.78 per epoch, so the
// run takes the problem's exact lower solution (Settings.Lower), and z
// steps of η_z = 1.
func TestFirstOrderHyperrep(t *testing.T) {
	hp := smallHyperrep(t, hyperrep.Sizes{N: 40, D: 8, K: 3, NTrain: 20, Noise: 1})
	w0, b0 := hp.Start(0)
	set := hyperrep.Paper.Settings
	ref := hinvF(t, hp.Bilevel(), w0, b0, set, 3000)
	rec := &reach{ref: ref, tol: 1e-4, first: -1}
	set.Estimator, set.Recorder, set.Epochs = &solver.FirstOrder{EtaZ: 1}, rec, 3000
	set.Lower.UseLowerSolve = true
	res, err := solver.Minimize(context.Background(), hp.Bilevel(), w0, b0, &set)
	require.NoError(t, err)
	t.Logf("HINV f %.10f; FO f %.10f (rel %.2g), within 1e-4 from epoch %d", ref, res.F, math.Abs(res.F-ref)/math.Abs(ref), rec.first)
	require.GreaterOrEqual(t, rec.first, 0, "f never stayed within 1e-4 of HINV's")
}

// counting wraps every oracle of p with a call counter.
func counting(p solver.Problem, calls map[solver.Oracle]int) solver.Problem {
	f, gfx, gfy, g, ggy, ggx := p.F, p.GradFx, p.GradFy, p.G, p.GradGy, p.GradGx
	p.F = func(pt *solver.Point) (float64, error) { calls[solver.OracleF]++; return f(pt) }
	p.G = func(pt *solver.Point) (float64, error) { calls[solver.OracleG]++; return g(pt) }
	grad := func(o solver.Oracle, fn func([]float64, *solver.Point) error) func([]float64, *solver.Point) error {
		return func(dst []float64, pt *solver.Point) error { calls[o]++; return fn(dst, pt) }
	}
	p.GradFx, p.GradFy, p.GradGy, p.GradGx = grad(solver.OracleGradFx, gfx), grad(solver.OracleGradFy, gfy), grad(solver.OracleGradGy, ggy), grad(solver.OracleGradGx, ggx)
	lin := func(o solver.Oracle, fn func([]float64, *solver.Point, []float64) error) func([]float64, *solver.Point, []float64) error {
		if fn == nil {
			return nil
		}
		return func(dst []float64, pt *solver.Point, v []float64) error { calls[o]++; return fn(dst, pt, v) }
	}
	p.HessGy, p.CrossGxy, p.CrossGyx, p.HessGyInv = lin(solver.OracleHessGy, p.HessGy), lin(solver.OracleCrossGxy, p.CrossGxy), lin(solver.OracleCrossGyx, p.CrossGyx), lin(solver.OracleHessGyInv, p.HessGyInv)
	if ls := p.LowerSolve; ls != nil {
		p.LowerSolve = func(dst []float64, pt *solver.Point) error { calls[solver.OracleLowerSolve]++; return ls(dst, pt) }
	}
	return p
}

// TestFirstOrderGradientsOnly: the estimator runs on a problem that has
// only F, GradFx, GradFy, GradGy and GradGx (as a C or Python callback
// problem may), calls nothing else on one that has every oracle, and
// gives the same run on both: nothing is filled by finite differences.
func TestFirstOrderGradientsOnly(t *testing.T) {
	sp := smallSynthetic(t, 10, 7)
	w0, m0 := sp.Start(2)
	set := synthetic.Paper.Settings
	set.Epochs, set.Estimator = 30, &solver.FirstOrder{}

	all := map[solver.Oracle]int{}
	full := counting(sp.Bilevel(), all)
	require.NotEqual(t, firstOnly, full.Available())
	rec := &reach{first: -1}
	set.Recorder = rec
	resFull, err := solver.Minimize(context.Background(), full, w0, m0, &set)
	require.NoError(t, err)
	for o, n := range all {
		require.True(t, firstOnly.Has(o), "%v called %d times", o, n)
	}
	gradGx, gradFy := rec.gradGx, rec.gradFy

	five := map[solver.Oracle]int{}
	bare := counting(sp.Bilevel(), five)
	bare.G, bare.HessGy, bare.CrossGxy, bare.CrossGyx, bare.HessGyInv, bare.LowerSolve = nil, nil, nil, nil, nil, nil
	require.Equal(t, firstOnly, bare.Available())
	resBare, err := solver.Minimize(context.Background(), bare, w0, m0, &set)
	require.NoError(t, err)
	require.Equal(t, all, five)
	require.Equal(t, resFull.X, resBare.X)
	require.Equal(t, resFull.F, resBare.F)
	require.Equal(t, resFull.Stats.LowerGrads, five[solver.OracleGradGy])
	require.Equal(t, gradGx, five[solver.OracleGradGx])
	require.Equal(t, gradFy, five[solver.OracleGradFy])
	require.Equal(t, gradGx, resFull.Stats.LowerXGrads)
	require.Equal(t, gradFy, resFull.Stats.UpperYGrads)
	require.Equal(t, resFull.Stats.UpperGrads, five[solver.OracleGradFx])

	// HINV needs more than these five: HessGyInv, or below its MaxDim
	// HessGy, which finite differences of GradGy fill as for CG.
	_, err = solver.New(bare, with(solver.HInv{MaxDim: 1}, &set))
	require.ErrorIs(t, err, solver.ErrMissing)
	_, err = solver.New(bare, with(solver.HInv{}, &set))
	require.NoError(t, err)

	// A spectrum estimate asked for needs Hessian products: it gets them
	// by finite differences of GradGy, and runs.
	set.Epochs, set.Lanczos, set.Recorder = 2, 5, nil
	res, err := solver.Minimize(context.Background(), bare, w0, m0, &set)
	require.NoError(t, err)
	require.Equal(t, 2, res.Stats.Epochs)
}

// TestFirstOrderStochastic: with minibatches, larger batches bring the
// true hypergradient's mean square over the last epochs lower, as for
// RSHGD's estimators (TestStochasticConverges). The noise of y and z
// enters ĝ multiplied by λ, so the schedule starts low (λ_0 = 1, c = 1,
// and the power 1/7 of a sampled run); with the 64 of 40 components drawn
// with replacement it comes within 2× of the full run's bias.
func TestFirstOrderStochastic(t *testing.T) {
	s, _, _, x0, _ := squadSetup(14)
	floor := func(size int) float64 {
		return noiseFloor(t, &solver.FirstOrder{Lambda: 1, Growth: 1, Power: 1.0 / 7}, size)
	}
	g0 := norm2(s.mean.exactHyper(x0, s.mean.ystar(x0)))
	full, small, large := floor(0), floor(4), floor(64)
	t.Logf("‖∇F(x0)‖² %.3g; mean ‖∇F‖² over the last 200 of 600 epochs: all %.3g (the O(1/λ) bias), |B|=4 %.3g, |B|=64 %.3g", g0*g0, full, small, large)
	require.Less(t, large, small/2)
	require.Less(t, large, 2*full)
	require.Less(t, large, 1e-2*g0*g0)
}

// TestFirstOrderEpochAllocs: a steady-state epoch allocates nothing, with
// and without minibatches.
func TestFirstOrderEpochAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	s, mx, my, x0, y0 := squadSetup(15)
	for _, b := range []solver.Batches{{}, {Lower: 4, Upper: 4, Cross: 4, Hess: 4, Report: 4}} {
		r, err := solver.New(on(s.problem(), mx, my), withBatches(&solver.Settings{Estimator: &solver.FirstOrder{}, InnerIters: 5}, b))
		require.NoError(t, err)
		require.Zero(t, stepAllocs(t, r, x0, y0, 20), "batches %+v", b)
	}
	sp := smallSynthetic(t, 10, 3)
	w0, m0 := sp.Start(1)
	set := synthetic.Paper.Settings
	set.Estimator = &solver.FirstOrder{}
	r, err := solver.New(sp.Bilevel(), &set)
	require.NoError(t, err)
	require.Zero(t, stepAllocs(t, r, w0, m0, 10), "synthetic")
}

// TestFirstOrderZTol: with the exact lower solution there is no lag of y
// for z's to cancel, and ZTol runs the z steps until λ times z's error is
// a fraction of the hypergradient: the run reaches HINV's f to 1e−4,
// with z step counts that vary, sooner than with ZSteps fixed steps (which
// on this problem do not reach it in 500 epochs).
func TestFirstOrderZTol(t *testing.T) {
	sp := smallSynthetic(t, 10, 42)
	w0, m0 := sp.Start(1)
	set := synthetic.Paper.Settings
	ref := hinvF(t, sp.Bilevel(), w0, m0, set, 1500)
	set.Lower.UseLowerSolve = true
	first := map[float64]int{}
	for _, ztol := range []float64{0, 0.1} {
		rec := &reach{ref: ref, tol: 1e-4, first: -1}
		set.Estimator, set.Recorder, set.Epochs = &solver.FirstOrder{ZTol: ztol}, rec, 500
		res, err := solver.Minimize(context.Background(), sp.Bilevel(), w0, m0, &set)
		require.NoError(t, err)
		t.Logf("ztol %g: within 1e-4 from epoch %d, %d z steps in %d epochs", ztol, rec.first, res.Stats.Iterations, res.Stats.Epochs)
		first[ztol] = rec.first
		if ztol > 0 {
			require.GreaterOrEqual(t, rec.first, 0, "ztol %g: f never stayed within 1e-4 of HINV's", ztol)
			require.NotZero(t, res.Stats.Iterations%res.Stats.Epochs, "z step counts vary")
		}
	}
	require.True(t, first[0] < 0 || first[0] > first[0.1], "fixed z steps reached at epoch %d, ZTol at %d", first[0], first[0.1])
}

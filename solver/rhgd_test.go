package solver_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

func quadSetup(seed uint64) (*quad, solver.Problem, solver.Manifold, solver.Manifold, []float64, []float64) {
	rnd := rand.New(rand.NewPCG(seed, seed))
	e := newQuad(rnd, 4, 6, 1, 3)
	p := e.withHINV(e.problem())
	x0, y0 := make([]float64, 4), make([]float64, 6)
	for i := range x0 {
		x0[i] = rnd.NormFloat64()
	}
	return e, p, euclid.New(4, 1), euclid.New(6, 1), x0, y0
}

func TestMissingOracles(t *testing.T) {
	_, p, mx, my, _, _ := quadSetup(1)
	q := p
	q.HessGyInv = nil
	// Without HessGyInv, HINV derives the inverse up to MaxDim, above
	// which it is missing.
	_, err := solver.New(on(q, mx, my), &solver.Settings{Estimator: solver.HInv{}})
	require.NoError(t, err)
	_, err = solver.New(on(q, mx, my), &solver.Settings{Estimator: solver.HInv{MaxDim: 5}})
	require.ErrorIs(t, err, solver.ErrMissing)
	require.Contains(t, err.Error(), "HessGyInv")
	q = p
	q.GradGy = nil
	_, err = solver.New(on(q, mx, my), &solver.Settings{Estimator: &solver.CG{}})
	require.ErrorIs(t, err, solver.ErrMissing)
	// Without HessGy and CrossGxy, finite differences of the gradients
	// stand in, and agree with the exact products to ~1e−9.
	q = p
	q.HessGy, q.CrossGxy = nil, nil
	x := []float64{0.3, -0.2, 0.5, 0.1}
	y := []float64{0.1, 0.4, -0.3, 0.2, 0.0, -0.1}
	exact := estimateAt(t, p, mx, my, &solver.CG{Tol: 1e-14}, x, y, nil)
	fd := estimateAt(t, q, mx, my, &solver.CG{Tol: 1e-14}, x, y, nil)
	require.Less(t, relDiff(fd, exact), 1e-8)
}

// TestMissingOracleHint: when an oracle that finite differences could
// fill is missing together with its gradient, the error names that
// gradient, and giving just that gradient makes New succeed.
func TestMissingOracleHint(t *testing.T) {
	_, p, mx, my, _, _ := quadSetup(1)
	for _, c := range []struct {
		missing, gradient string
		drop              func(*solver.Problem)
		give              func(q, p *solver.Problem)
	}{
		{"CrossGxy", "GradGx", func(q *solver.Problem) { q.CrossGxy, q.GradGx = nil, nil },
			func(q, p *solver.Problem) { q.GradGx = p.GradGx }},
		{"HessGy", "GradGy", func(q *solver.Problem) { q.HessGy, q.GradGy = nil, nil },
			func(q, p *solver.Problem) { q.GradGy = p.GradGy }},
	} {
		q := p
		c.drop(&q)
		_, err := solver.New(on(q, mx, my), &solver.Settings{Estimator: &solver.CG{}})
		require.ErrorIs(t, err, solver.ErrMissing, c.missing)
		require.ErrorContains(t, err, "give "+c.gradient+" and rhgd fills "+c.missing+" by finite differences", c.missing)
		c.give(&q, &p)
		_, err = solver.New(on(q, mx, my), &solver.Settings{Estimator: &solver.CG{}})
		require.NoError(t, err, "%s with %s", c.missing, c.gradient)
	}
	// HessGyInv has no finite-difference stand-in: no hint.
	q := p
	q.HessGyInv = nil
	_, err := solver.New(on(q, mx, my), &solver.Settings{Estimator: solver.HInv{MaxDim: 5}})
	require.ErrorIs(t, err, solver.ErrMissing)
	require.NotContains(t, err.Error(), "finite differences")
}

func TestBadStart(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(2)
	r, err := solver.New(on(p, mx, my), &solver.Settings{Estimator: solver.HInv{}})
	require.NoError(t, err)
	bad := append([]float64(nil), x0...)
	bad[1] = math.NaN()
	_, err = r.Run(context.Background(), bad, y0)
	require.ErrorIs(t, err, solver.ErrBadStart)
	_, err = r.Run(context.Background(), x0[:3], y0)
	require.ErrorIs(t, err, solver.ErrBadStart)
	// A point off its manifold.
	st := stiefel.New(4, 1)
	r2, err := solver.New(on(p, st, my), &solver.Settings{Estimator: solver.HInv{}})
	require.NoError(t, err)
	_, err = r2.Run(context.Background(), []float64{1, 1, 0, 0}, y0)
	require.ErrorIs(t, err, solver.ErrBadStart)
	require.ErrorIs(t, err, stiefel.ErrNotOrthonormal)
}

// TestDivergence: a lower step size that blows up stops the run as
// Diverged, with the best finite iterates returned, and an error that
// errors.Is matches to numerr.ErrDiverged, as every failure matches a
// numerr sentinel (it matched none: only IsDiverged knew it). (A NaN
// from an oracle is the oracle's failure: TestOracleNotFinite.)
func TestDivergence(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(3)
	// η_y = 2 on eigenvalues up to 3: |1 − 2·3| = 5 per step.
	res, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &solver.Settings{Estimator: &solver.CG{}, EtaY: 2, InnerIters: 20, Epochs: 50})
	require.True(t, solver.IsDiverged(err), "%v", err)
	require.ErrorIs(t, err, numerr.ErrDiverged)
	require.ErrorIs(t, err, solver.Diverged.Err())
	require.NotErrorIs(t, err, numerr.ErrNotFinite)
	require.Equal(t, solver.Diverged, res.Status)
	require.ErrorContains(t, err, "fixed lower steps of η_y = 2 are too long for this g: take a smaller Settings.EtaY, or the adaptive lower steps of AdaptiveSettings")
	for _, v := range res.Y {
		require.False(t, math.IsNaN(v) || math.IsInf(v, 0))
	}
	// A step so large that y overflows before the gradient's growth is
	// noticed: the gradient there is not finite, and that is the
	// iterates' divergence, not GradGy's failure.
	res, err = solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &solver.Settings{Estimator: &solver.CG{}, EtaY: 1e200, DivergeFactor: 1e300})
	require.True(t, solver.IsDiverged(err), "%v", err)
	require.ErrorIs(t, err, numerr.ErrDiverged)
	require.ErrorContains(t, err, "iterate not finite")
	require.Equal(t, solver.Diverged, res.Status)
}

func TestNeumannRejectsLargeStep(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(4)
	res, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &solver.Settings{Estimator: &solver.Neumann{Gamma: 1, Terms: 10}})
	require.ErrorIs(t, err, solver.ErrNeumannStep) // λ_max = 3: γ must be < 2/3
	require.Equal(t, solver.Failure, res.Status)
	require.Contains(t, err.Error(), "λ_max")
}

type failingManifold struct {
	solver.Manifold
	after int
	calls *int
}

func (f failingManifold) Retract(dst, x, u []float64, t float64) error {
	*f.calls++
	if *f.calls > f.after {
		return errors.New("retraction refused")
	}
	return f.Manifold.Retract(dst, x, u, t)
}

func TestRetractionFailure(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(5)
	calls := 0
	fx := failingManifold{mx, 3, &calls}
	res, err := solver.Minimize(context.Background(), on(p, fx, my), x0, y0, &solver.Settings{Estimator: solver.HInv{}, Epochs: 10})
	require.Error(t, err)
	require.Equal(t, solver.Failure, res.Status)
	require.Contains(t, err.Error(), "upper retraction")
	require.Equal(t, 4, res.Stats.Epochs)
}

type recorder struct {
	epochs []solver.EpochStats
	failAt int
}

func (r *recorder) Record(s *solver.EpochStats) error {
	r.epochs = append(r.epochs, *s)
	if r.failAt > 0 && s.Epoch == r.failAt {
		return errors.New("disk full")
	}
	return nil
}

func TestStoppingRules(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(6)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := solver.Minimize(ctx, on(p, mx, my), x0, y0, &solver.Settings{Estimator: solver.HInv{}})
	require.NoError(t, err)
	require.Equal(t, solver.Cancelled, res.Status)
	require.True(t, res.Status.Early())

	rec := &recorder{}
	res, err = solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &solver.Settings{Estimator: solver.HInv{}, Epochs: 7, Recorder: rec})
	require.NoError(t, err)
	require.Equal(t, solver.IterationLimit, res.Status)
	require.Len(t, rec.epochs, 7)
	for k, e := range rec.epochs {
		require.Equal(t, k, e.Epoch)
		require.Positive(t, e.HyperGradNorm)
		require.Equal(t, k+1, e.Stats.Epochs)
	}
	require.Equal(t, value(t, p.F, res.X, res.Y), res.F) // f at the returned point, after the final lower solve

	rec = &recorder{failAt: 2}
	res, err = solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &solver.Settings{Estimator: solver.HInv{}, Recorder: rec})
	require.ErrorContains(t, err, "disk full")
	require.Equal(t, solver.Failure, res.Status)

	res, err = solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &solver.Settings{Estimator: solver.HInv{}, Epochs: 1 << 30, Runtime: 20 * time.Millisecond})
	require.NoError(t, err)
	require.Equal(t, solver.RuntimeLimit, res.Status)
}

func TestReproducible(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(7)
	run := func() *solver.Result {
		res, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &solver.Settings{Estimator: &solver.Neumann{Terms: 20}, Epochs: 30, Seed: 9})
		require.NoError(t, err)
		return res
	}
	a, b := run(), run()
	require.Equal(t, a.X, b.X)
	require.Equal(t, a.Y, b.Y)
}

// TestRecordedStats: the first epoch's recorded lower gradient norm is
// that of grad_y g at y^{S−1}, replayed by hand, and its f is f(x_0, y^S).
func TestRecordedStats(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(8)
	const S, eta = 4, 0.1
	rec := &recorder{}
	_, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &solver.Settings{Estimator: &solver.CG{}, Epochs: 1, InnerIters: S, EtaY: eta, Recorder: rec})
	require.NoError(t, err)
	y := append([]float64(nil), y0...)
	g := make([]float64, len(y))
	var last float64
	for s := 0; s < S; s++ {
		must(t, p.GradGy(g, at(x0, y)))
		last = my.Norm(y, g)
		for i := range y {
			y[i] -= eta * g[i]
		}
	}
	require.Len(t, rec.epochs, 1)
	require.InDelta(t, last, rec.epochs[0].LowerGradNorm, 1e-14*last)
	require.InDelta(t, value(t, p.F, x0, y), rec.epochs[0].F, 1e-12)
	require.Equal(t, S, rec.epochs[0].Stats.LowerGrads)
	require.Positive(t, rec.epochs[0].Estimate.HessVecs)
	require.Equal(t, 1, rec.epochs[0].Estimate.CrossVecs)
}

// TestUpperDivergence: a far too large upper step makes f explode; the run
// stops as Diverged, with the best iterate, instead of reporting f = 1e196
// after its epoch limit.
func TestUpperDivergence(t *testing.T) {
	_, p, _, _, x0, y0 := quadSetup(9)
	res, err := solver.Minimize(context.Background(), p, x0, y0, &solver.Settings{Estimator: solver.HInv{}, EtaX: 50, Epochs: 300})
	require.True(t, solver.IsDiverged(err), "%v", err)
	require.ErrorIs(t, err, numerr.ErrDiverged)
	require.ErrorContains(t, err, "η_x = 50 is too long: take a smaller Settings.EtaX, or the BB upper steps of AdaptiveSettings")
	require.Equal(t, solver.Diverged, res.Status)
	require.Equal(t, res.BestX, res.X)
	require.Less(t, res.BestF, 1e3)
	for _, v := range res.X {
		require.Less(t, math.Abs(v), 1e6)
	}
}

package solver_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

func TestMemo(t *testing.T) {
	x, y := solver.NewID(), solver.NewID()
	m := solver.Memo{On: solver.OnX}
	pt := &solver.Point{XID: x, YID: y}
	require.False(t, m.Valid(pt), "the zero Memo holds nothing")
	m.Store(pt)
	require.True(t, m.Valid(pt))
	require.True(t, m.Valid(&solver.Point{XID: x, YID: solver.NewID()}), "depends on x only")
	require.False(t, m.Valid(&solver.Point{XID: solver.NewID(), YID: y}))
	m.Reset()
	require.False(t, m.Valid(pt))

	// Unknown identities never match, even after being stored.
	m.Store(&solver.Point{})
	require.False(t, m.Valid(&solver.Point{}))

	b := solver.Memo{On: solver.OnX | solver.OnY | solver.OnBatch}
	b.Store(pt)
	require.True(t, b.Valid(pt), "nil batch, identity 0: the whole set")
	require.False(t, b.Valid(&solver.Point{XID: x, YID: y, Batch: []int{1}}), "a batch without identity is unknown")
	bid := solver.NewID()
	b.Store(&solver.Point{XID: x, YID: y, Batch: []int{1}, BatchID: bid})
	require.True(t, b.Valid(&solver.Point{XID: x, YID: y, Batch: []int{1}, BatchID: bid}))
	require.False(t, b.Valid(pt))
	require.NotEqual(t, solver.NewID(), solver.NewID())
}

// countingQuad is the quadratic problem whose Euclidean ∇_y g counts its
// calls.
func countingQuad(seed uint64) (*quad, solver.EuclideanProblem, *int) {
	rnd := rand.New(rand.NewPCG(seed, seed))
	e := newQuad(rnd, 4, 6, 1, 3)
	calls := new(int)
	ep := e.euclidean()
	grad := ep.GradGy
	ep.GradGy = func(dst []float64, pt *solver.Point) error { *calls++; return grad(dst, pt) }
	return e, ep, calls
}

// TestEuclideanKeepsGradient: CG's Hessian products at one point evaluate
// the Euclidean ∇_y g once, not once per product (on a My that is not
// a EuclideanSpace, whose conversion needs it), or not at all (on one,
// where the conversion is the identity), and the result matches the
// exact hypergradient.
func TestEuclideanKeepsGradient(t *testing.T) {
	for _, c := range []struct {
		name  string
		flat  bool
		perPt int // ∇_y g evaluations per estimate
	}{{"Euclidean space", true, 0}, {"not said to be one", false, 1}} {
		e, ep, calls := countingQuad(40)
		if !c.flat {
			ep.My = hidden{ep.My}
		}
		x := []float64{0.3, -0.2, 0.5, 0.1}
		y := e.ystar(x)
		r, err := solver.New(solver.Euclidean(ep), &solver.Settings{Estimator: &solver.CG{Tol: 1e-14}})
		require.NoError(t, err)
		*calls = 0
		hg, err := r.Estimate(x, y)
		require.NoError(t, err, c.name)
		require.Equal(t, c.perPt, *calls, "%s: ∇_y g evaluations for all the Hessian products at the point", c.name)
		require.Less(t, relDiff(hg, e.exactHyper(x, y)), 1e-12, c.name)

		// Each lower step is a new point: one evaluation each, and the
		// estimate's products reuse the last (or need none).
		*calls = 0
		res, err := r.Run(context.Background(), x, y)
		require.NoError(t, err, c.name)
		require.Equal(t, res.Stats.LowerGrads+c.perPt*res.Stats.Epochs, *calls, c.name)
	}
}

// TestCompose: a Euclidean finite-sum problem whose Hessian and cross
// derivative come from finite differences, run by RSHGD, in either order
// of the wrappers: with full batches it is RHGD on the averaged problem
// with exact oracles, to the differences' accuracy.
func TestCompose(t *testing.T) {
	s, mx, my, x0, y0 := squadSetup(41)
	sp := s.problem()
	ep := solver.EuclideanProblem{Mx: mx, My: my, NF: sp.NF, NG: sp.NG, F: sp.F, GradFx: sp.GradFx,
		GradFy: sp.GradFy, G: sp.G, GradGx: sp.GradGx, GradGy: sp.GradGy} // no second-order oracles
	set := &solver.Settings{Epochs: 30, InnerIters: 5, EtaY: 0.2, Estimator: &solver.CG{Tol: 1e-12}}
	want, err := solver.Minimize(context.Background(), s.mean.problem(), x0, y0, set)
	require.NoError(t, err)
	for name, p := range map[string]solver.Problem{
		"fd(euclidean)": solver.FillFD(solver.Euclidean(ep), 0),
		"euclidean+new": solver.Euclidean(ep), // New fills
	} {
		got, err := solver.Minimize(context.Background(), p, x0, y0, withBatches(set, solver.Batches{}))
		require.NoError(t, err, name)
		require.Less(t, relDiff(got.X, want.X), 1e-7, name)
	}
	// Sampled batches run too, and the FD Hessian sees B4 (checked in
	// TestStochasticBatches); here: zero allocations per epoch.
	r, err := solver.New(solver.FillFD(solver.Euclidean(ep), 0), withBatches(with(&solver.Neumann{}, set), solver.Batches{Lower: 4, Upper: 4, Cross: 4, Hess: 4, Report: 4}))
	require.NoError(t, err)
	require.NoError(t, r.Reset(x0, y0))
	_, err = r.Step()
	require.NoError(t, err)
	if race.Enabled {
		return // allocation counts under -race
	}
	require.Zero(t, testing.AllocsPerRun(10, func() {
		if _, err := r.Step(); err != nil {
			t.Fatal(err)
		}
	}))
}

// TestEstimatorPerSolver: one CG value with warm starts given to two
// solvers keeps a warm start per solver: interleaved runs give what each
// gives alone.
func TestEstimatorPerSolver(t *testing.T) {
	_, p, _, _, x0, y0 := quadSetup(42)
	cg := &solver.CG{WarmStart: true, MaxIter: 3}
	alone := func(y []float64) []float64 {
		res, err := solver.Minimize(context.Background(), p, x0, y, &solver.Settings{Estimator: cg, Epochs: 5})
		require.NoError(t, err)
		return res.X
	}
	y1 := append([]float64(nil), y0...)
	y1[0] = 1
	wantA, wantB := alone(y0), alone(y1)
	a, err := solver.New(p, &solver.Settings{Estimator: cg, Epochs: 5})
	require.NoError(t, err)
	b, err := solver.New(p, &solver.Settings{Estimator: cg, Epochs: 5})
	require.NoError(t, err)
	require.NoError(t, a.Reset(x0, y0))
	require.NoError(t, b.Reset(x0, y1))
	for k := 0; k < 5; k++ {
		_, err := a.Step()
		require.NoError(t, err)
		_, err = b.Step()
		require.NoError(t, err)
	}
	require.Equal(t, wantA, a.X())
	require.Equal(t, wantB, b.X())
}

func TestParseEstimator(t *testing.T) {
	for spec, want := range map[string]solver.Estimator{
		"hinv":                      solver.HInv{},
		"cg":                        &solver.CG{},
		" CG:maxiter=7, tol=1e-9 ":  &solver.CG{MaxIter: 7, Tol: 1e-9},
		"cg:warm=true":              &solver.CG{WarmStart: true},
		"ns:gamma=0.5,terms=20":     &solver.Neumann{Gamma: 0.5, Terms: 20},
		"neumann:power=-1,gamma=.1": &solver.Neumann{Gamma: 0.1, PowerIters: -1},
		"ad":                        solver.AD{},
		"gda":                       solver.GDA{},
	} {
		got, err := solver.ParseEstimator(spec)
		require.NoError(t, err, spec)
		require.Equal(t, want, got, spec)
		// String gives a spec that parses back to the same settings.
		again, err := solver.ParseEstimator(fmt.Sprint(got))
		require.NoError(t, err, spec)
		if spec != "gda" {
			require.Equal(t, run1(t, got), run1(t, again), spec)
		}
	}
	for _, bad := range []string{"lbfgs", "cg:maxiter", "cg:maxiter=x", "cg:tolerance=1", "ns:gamma=abc", "cg:warm=maybe"} {
		_, err := solver.ParseEstimator(bad)
		require.ErrorIs(t, err, solver.ErrBadSetting, bad)
		require.ErrorIs(t, err, numerr.ErrInvalid, bad)
	}
	require.Equal(t, []string{"hinv", "cg", "ns", "ad", "gda"}, solver.EstimatorNames())
}

// run1 is one estimate with est on the quadratic problem, for comparing
// estimators' settings by their results.
func run1(t *testing.T, est solver.Estimator) []float64 {
	_, p, _, _, x0, y0 := quadSetup(43)
	return estimateAt(t, p, p.Mx, p.My, est, x0, y0, nil)
}

// TestSettingsValidated: every setting out of range is an error naming it.
func TestSettingsValidated(t *testing.T) {
	_, p, _, _, _, _ := quadSetup(44)
	nan := math.NaN()
	for name, s := range map[string]solver.Settings{
		"EtaX": {EtaX: -1}, "EtaY": {EtaY: nan}, "InnerIters": {InnerIters: -2}, "Epochs": {Epochs: -1},
		"GradTol": {GradTol: nan}, "Runtime": {Runtime: -1}, "DivergeFactor": {DivergeFactor: -3}, "FDStep": {FDStep: nan},
	} {
		_, err := solver.New(p, &s)
		require.ErrorIs(t, err, solver.ErrBadSetting, name)
		require.ErrorContains(t, err, "Settings."+name, name)
	}
	for name, est := range map[string]solver.Estimator{
		"CG MaxIter = -1": &solver.CG{MaxIter: -1}, "CG Tol = NaN": &solver.CG{Tol: nan}, "CG Tol = -1": &solver.CG{Tol: -1},
		"Neumann Gamma": &solver.Neumann{Gamma: -1}, "Neumann Terms": &solver.Neumann{Terms: -5},
	} {
		_, err := solver.New(p, &solver.Settings{Estimator: est})
		require.ErrorIs(t, err, solver.ErrBadSetting, name)
		require.ErrorContains(t, err, name)
		if strings.HasPrefix(name, "CG Tol") { // the message names the bad setting, not a good one
			require.NotContains(t, err.Error(), "MaxIter", name)
		}
	}
	q := p
	q.My = nil
	_, err := solver.New(q, nil)
	require.ErrorIs(t, err, solver.ErrBadSetting)
	_, err = solver.New(p, &solver.Settings{Batches: solver.Batches{Lower: 2}})
	require.ErrorIs(t, err, solver.ErrBadSetting, "batches on a problem without components")
}

// spdLower is g(x, y) = ½‖y − S(x)‖²_F on SPD(2) with S(x) = diag(1+x²,
// 1+x²) and f = tr(y): a lower problem on SPD for the error-path tests.
func spdLower() solver.Problem {
	return solver.Euclidean(solver.EuclideanProblem{
		Mx: euclid.New(1, 1), My: spd.New(2),
		F: func(pt *solver.Point) (float64, error) { return pt.Y[0] + pt.Y[3], nil },
		GradFx: func(dst []float64, _ *solver.Point) error {
			dst[0] = 0
			return nil
		},
		GradFy: func(dst []float64, _ *solver.Point) error {
			copy(dst, []float64{1, 0, 0, 1})
			return nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			s := 1 + pt.X[0]*pt.X[0]
			copy(dst, pt.Y)
			dst[0] -= s
			dst[3] -= s
			return nil
		},
		GradGx: func(dst []float64, pt *solver.Point) error {
			s := 1 + pt.X[0]*pt.X[0]
			dst[0] = -2 * pt.X[0] * ((pt.Y[0] - s) + (pt.Y[3] - s))
			return nil
		},
	})
}

// TestErrorsKeepCause: a failing manifold operation or oracle stops the
// run with an error that says where and why, and errors.Is finds the
// shared sentinel whichever layer raised it; the result holds the best
// iterate.
func TestErrorsKeepCause(t *testing.T) {
	x0, y0 := []float64{0.5}, []float64{1, 0, 0, 1}
	// The SPD exponential map overflows on a huge lower step.
	p := spdLower()
	p.My.(*spd.SPD).Retraction = spd.Exponential
	res, err := solver.Minimize(context.Background(), p, x0, []float64{1e3, 0, 0, 1}, &solver.Settings{EtaY: 1e5, InnerIters: 3})
	require.ErrorIs(t, err, numerr.ErrOverflow)
	require.ErrorContains(t, err, "lower retraction at epoch 0, step 0: spd:")
	require.Equal(t, solver.Failure, res.Status)

	// An oracle's own error, wrapped by the solver with the oracle's name.
	p = spdLower()
	grad := p.GradGy
	calls := 0
	p.GradGy = func(dst []float64, pt *solver.Point) error {
		if calls++; calls > 7 {
			return fmt.Errorf("model: %w: covariance lost definiteness", numerr.ErrNotPosDef)
		}
		return grad(dst, pt)
	}
	res, err = solver.Minimize(context.Background(), p, x0, y0, &solver.Settings{InnerIters: 3, Epochs: 10})
	require.ErrorIs(t, err, numerr.ErrNotPosDef)
	// Calls 1-3 are epoch 0's lower steps, 4-6 its estimate's (grad_y g
	// at y and at R_y(±hv) for CG's one finite-difference product), 7
	// and 8 epoch 1's first two steps.
	require.ErrorContains(t, err, "GradGy at epoch 1, lower step 1: model: not positive definite")
	require.Equal(t, 1, res.Stats.Epochs)
	require.Equal(t, res.BestX, res.X)

	// In the estimate: the failing Hessian product of the finite
	// differences names itself.
	p = spdLower()
	p.GradGy = func(dst []float64, pt *solver.Point) error {
		if pt.YID == 0 || !finite(pt.Y) {
			return errors.New("unexpected point")
		}
		if calls++; calls > 100 {
			return errors.New("disk gone")
		}
		return grad(dst, pt)
	}
	calls = 0
	_, err = solver.Minimize(context.Background(), p, x0, y0, &solver.Settings{InnerIters: 3, Epochs: 50})
	require.ErrorContains(t, err, "hypergradient at epoch")
	require.ErrorContains(t, err, "HessGy: finite-difference Hessian: GradGy: disk gone")
}

func finite(v []float64) bool {
	for _, a := range v {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return false
		}
	}
	return true
}

// TestCGNaNGradient: a NaN in grad_y f is an error, not grad_x f returned
// as the hypergradient.
func TestCGNaNGradient(t *testing.T) {
	_, p, _, _, x0, y0 := quadSetup(45)
	gfy := p.GradFy
	p.GradFy = func(dst []float64, pt *solver.Point) error {
		err := gfy(dst, pt)
		dst[1] = math.NaN()
		return err
	}
	for _, est := range []solver.Estimator{&solver.CG{}, &solver.Neumann{}} {
		r, err := solver.New(p, &solver.Settings{Estimator: est})
		require.NoError(t, err)
		_, err = r.Estimate(x0, y0)
		require.ErrorIs(t, err, numerr.ErrNotFinite, est.Name())
	}
}

// TestRecorderSeesIterates: epoch k's record holds x_k, y_{k+1} and the
// hypergradient, as the run's own views.
func TestRecorderSeesIterates(t *testing.T) {
	_, p, _, _, x0, y0 := quadSetup(46)
	var xs, hgs [][]float64
	rec := recorderFunc(func(s *solver.EpochStats) error {
		xs = append(xs, append([]float64(nil), s.X...))
		hgs = append(hgs, append([]float64(nil), s.HyperGrad...))
		require.InDelta(t, s.HyperGradNorm, norm2(s.HyperGrad), 1e-14)
		require.InDelta(t, s.F, value(t, p.F, s.X, s.Y), 1e-14)
		return nil
	})
	const eta = 0.3
	res, err := solver.Minimize(context.Background(), p, x0, y0, &solver.Settings{Epochs: 3, EtaX: eta, Recorder: rec})
	require.NoError(t, err)
	require.Equal(t, x0, xs[0])
	for k := 0; k+1 < len(xs); k++ { // Euclidean: x_{k+1} = x_k − η hg_k
		for i := range xs[k] {
			require.InDelta(t, xs[k][i]-eta*hgs[k][i], xs[k+1][i], 1e-15)
		}
	}
	require.Len(t, xs, res.Stats.Epochs)
}

type recorderFunc func(*solver.EpochStats) error

func (f recorderFunc) Record(s *solver.EpochStats) error { return f(s) }

// TestNonFiniteHessian: Hessian products that turn non-finite (as
// finite differences far outside their range do) make NS, CG and AD
// return an error, not a NaN hypergradient.
func TestNonFiniteHessian(t *testing.T) {
	_, p, _, _, x0, y0 := quadSetup(47)
	hess := p.HessGy
	calls := 0
	p.HessGy = func(dst []float64, pt *solver.Point, v []float64) error {
		err := hess(dst, pt, v)
		if calls++; calls > 12 {
			dst[0] = math.Inf(1)
		}
		return err
	}
	for _, est := range []solver.Estimator{&solver.Neumann{Gamma: 0.3, PowerIters: -1}, &solver.Neumann{}, &solver.CG{Tol: 1e-300, MaxIter: 40}} {
		calls = 0
		r, err := solver.New(p, &solver.Settings{Estimator: est})
		require.NoError(t, err)
		hg, err := r.Estimate(x0, y0)
		require.ErrorIs(t, err, numerr.ErrNotFinite, "%v gave %v", est, hg)
	}
	calls = 0
	res, err := solver.Minimize(context.Background(), p, x0, y0, &solver.Settings{Estimator: solver.AD{}, InnerIters: 5})
	require.Error(t, err)
	require.NotEqual(t, solver.IterationLimit, res.Status)
}

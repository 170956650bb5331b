package solver_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// dquad is the quadratic bilevel problem on R^p × R^q
//
//	f(x, y) = ½‖y − c‖² + ½λ‖x‖²,   g(x, y) = ½ Σ_i a_i y_i² − yᵀBx,
//
// written with plain loops, so that its oracles allocate nothing, with
// its Euclidean oracles (the Riemannian ones on R^n) and a LowerSteps
// made of the same gradient and the step y + t·u, t = −η, as
// euclid.Euclidean.Retract computes it: the fused loop gives bitwise the
// numbers of the solver's own steps. It counts its GradGy and LowerSteps
// calls, and gradNaN, when positive, makes the gradNaN-th evaluation of
// ∇_y g (from 1, by either oracle) return NaN.
type dquad struct {
	p, q    int
	lambda  float64
	a, b, c []float64 // a: q, b: q×p, c: q
	gy      []float64 // LowerSteps' gradient

	gradGys, lowerSteps, grads int
	gradNaN                    int
}

func newDquad(p, q int, seed uint64) *dquad {
	rnd := rand.New(rand.NewPCG(seed, 7))
	d := &dquad{p: p, q: q, lambda: 0.1, a: make([]float64, q), b: make([]float64, q*p), c: make([]float64, q),
		gy: make([]float64, q)}
	for i := range d.a {
		d.a[i] = 1 + 3*float64(i)/float64(max(q-1, 1)) // eigenvalues in [1, 4]
		d.c[i] = rnd.NormFloat64()
	}
	for i := range d.b {
		d.b[i] = rnd.NormFloat64() / math.Sqrt(float64(p))
	}
	return d
}

// grad sets dst = ∇_y g(x, y) = a∘y − Bx.
func (d *dquad) grad(dst, x, y []float64) {
	d.grads++
	for i := range dst {
		bx := 0.0
		for j, xj := range x {
			bx += d.b[i*d.p+j] * xj
		}
		dst[i] = d.a[i]*y[i] - bx
	}
	if d.grads == d.gradNaN {
		dst[0] = math.NaN()
	}
}

// frobNorm is ‖v‖_F, summed as the solver sums it.
func frobNorm(v []float64) float64 {
	var s float64
	for _, a := range v {
		s += a * a
	}
	return math.Sqrt(s)
}

func (d *dquad) steps(dst []float64, pt *solver.Point, n int, eta float64, norms []float64) error {
	d.lowerSteps++
	copy(dst, pt.Y)
	t := -eta
	for s := range n {
		d.grad(d.gy, pt.X, dst)
		norms[s] = frobNorm(d.gy)
		for i := range dst {
			dst[i] = dst[i] + t*d.gy[i]
		}
	}
	return nil
}

// problem returns the problem on R^p × R^q (withSteps: with LowerSteps).
func (d *dquad) problem(withSteps bool) solver.Problem {
	p := solver.Problem{Mx: euclid.New(d.p, 1), My: euclid.New(d.q, 1),
		F: func(pt *solver.Point) (float64, error) {
			var s, t float64
			for i, y := range pt.Y {
				s += (y - d.c[i]) * (y - d.c[i])
			}
			for _, x := range pt.X {
				t += x * x
			}
			return 0.5*s + 0.5*d.lambda*t, nil
		},
		G: func(pt *solver.Point) (float64, error) {
			var s float64
			for i, y := range pt.Y {
				bx := 0.0
				for j, xj := range pt.X {
					bx += d.b[i*d.p+j] * xj
				}
				s += 0.5*d.a[i]*y*y - y*bx
			}
			return s, nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error {
			for j, x := range pt.X {
				dst[j] = d.lambda * x
			}
			return nil
		},
		GradFy: func(dst []float64, pt *solver.Point) error {
			for i, y := range pt.Y {
				dst[i] = y - d.c[i]
			}
			return nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			d.gradGys++
			d.grad(dst, pt.X, pt.Y)
			return nil
		},
		GradGx: func(dst []float64, pt *solver.Point) error { // −Bᵀy
			for j := range dst {
				s := 0.0
				for i, y := range pt.Y {
					s -= d.b[i*d.p+j] * y
				}
				dst[j] = s
			}
			return nil
		},
		HessGy: func(dst []float64, _ *solver.Point, v []float64) error {
			for i := range dst {
				dst[i] = d.a[i] * v[i]
			}
			return nil
		},
		HessGyInv: func(dst []float64, _ *solver.Point, v []float64) error {
			for i := range dst {
				dst[i] = v[i] / d.a[i]
			}
			return nil
		},
		CrossGxy: func(dst []float64, _ *solver.Point, v []float64) error { // −Bᵀv
			for j := range dst {
				s := 0.0
				for i, vi := range v {
					s -= d.b[i*d.p+j] * vi
				}
				dst[j] = s
			}
			return nil
		},
	}
	if withSteps {
		p.LowerSteps = d.steps
	}
	return p
}

// epochRec keeps copies of what a Recorder sees, but for the times.
type epochRec struct{ rows []recRow }

type recRow struct {
	e      solver.EpochStats // without Elapsed and Stats
	counts [11]float64       // of Stats
}

func (r *epochRec) Record(e *solver.EpochStats) error {
	c := *e
	c.X, c.Y, c.HyperGrad = append([]float64(nil), e.X...), append([]float64(nil), e.Y...), append([]float64(nil), e.HyperGrad...)
	c.Elapsed, c.Stats = 0, solver.Stats{}
	r.rows = append(r.rows, recRow{c, counts(e.Stats)})
	return nil
}

// counts are a run's Stats without its times.
func counts(s solver.Stats) [11]float64 {
	return [11]float64{float64(s.Epochs), float64(s.UpperGrads), float64(s.LowerGrads), float64(s.LowerValues),
		float64(s.LowerSolves), float64(s.HessVecs), float64(s.CrossVecs), float64(s.Iterations),
		float64(s.RetractFailures), s.Residual, float64(s.LowerXGrads + 1000000*s.UpperYGrads)}
}

// sameRun requires two runs to be the same, bit for bit.
func sameRun(t *testing.T, want, got *solver.Result, msg string) {
	t.Helper()
	require.Equal(t, want.X, got.X, msg)
	require.Equal(t, want.Y, got.Y, msg)
	require.Equal(t, want.BestX, got.BestX, msg)
	require.Equal(t, want.BestY, got.BestY, msg)
	require.Equal(t, math.Float64bits(want.F), math.Float64bits(got.F), msg)
	require.Equal(t, math.Float64bits(want.BestF), math.Float64bits(got.BestF), msg)
	require.Equal(t, math.Float64bits(want.HyperGradNorm), math.Float64bits(got.HyperGradNorm), msg)
	require.Equal(t, want.Status, got.Status, msg)
	require.Equal(t, counts(want.Stats), counts(got.Stats), msg)
}

// TestLowerStepsSameRun: with Problem.LowerSteps on R^q, a run is the run
// of the solver's own steps, bit for bit (iterates, best iterates, f,
// statistics and, with a Recorder, every epoch's record, including the
// lower gradient norm), with each estimator that does not keep the path;
// the fused loop is taken (one call per epoch and one for the final lower
// solve, no GradGy calls), and EstimateLower agrees too.
func TestLowerStepsSameRun(t *testing.T) {
	x0, y0 := []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}
	for _, est := range []solver.Estimator{&solver.CG{}, &solver.Neumann{}, solver.HInv{}, &solver.FirstOrder{}} {
		for _, recorded := range []bool{false, true} {
			var runs [2]*solver.Result
			var recs [2]epochRec
			var probs [2]*dquad
			for k := range 2 {
				d := newDquad(3, 5, 1)
				s := &solver.Settings{Estimator: est, EtaX: 0.3, EtaY: 0.2, InnerIters: 7, Epochs: 25, Lanczos: 3}
				if recorded {
					s.Recorder = &recs[k]
				}
				res, err := solver.Minimize(context.Background(), d.problem(k == 1), x0, y0, s)
				require.NoError(t, err)
				runs[k], probs[k] = res, d
			}
			name := est.Name()
			if recorded {
				name += " with a Recorder"
			}
			sameRun(t, runs[0], runs[1], name)
			// Printed, so that NaNs (an unestimated error bound) compare
			// equal; %v prints each float's shortest exact form.
			require.Equal(t, fmt.Sprint(recs[0].rows), fmt.Sprint(recs[1].rows), name)
			if recorded {
				require.Len(t, recs[1].rows, 25)
				require.Positive(t, recs[1].rows[3].e.LowerGradNorm, name)
				require.Equal(t, 7, recs[1].rows[3].e.LowerSteps, name)
			}
			assert.Equal(t, 26, probs[1].lowerSteps, "%s: one LowerSteps call per epoch and the final lower solve", name)
			if _, fo := est.(*solver.FirstOrder); !fo { // its z steps call GradGy
				assert.Zero(t, probs[1].gradGys, "%s: GradGy calls beside LowerSteps", name)
				assert.Equal(t, 26*7, runs[1].Stats.LowerGrads, name)
			}
		}
	}

	var hgs, ys [2][]float64
	for k := range 2 {
		r, err := solver.New(newDquad(3, 5, 1).problem(k == 1), &solver.Settings{InnerIters: 9})
		require.NoError(t, err)
		hgs[k], ys[k], err = r.EstimateLower(x0, y0)
		require.NoError(t, err)
	}
	require.Equal(t, hgs[0], hgs[1])
	require.Equal(t, ys[0], ys[1])
}

// TestLowerStepsWholeFiniteSum: a finite-sum g (NG > 0) whose lower
// batches are not sampled is summed whole at every step, so the fused
// loop runs it too, with the same run; sampled lower batches keep the
// solver's own steps (TestLowerStepsFallback).
func TestLowerStepsWholeFiniteSum(t *testing.T) {
	x0, y0 := []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}
	var runs [2]*solver.Result
	var probs [2]*dquad
	for k := range 2 {
		d := newDquad(3, 5, 1)
		p := d.problem(k == 1)
		p.NF, p.NG = 2, 2 // the oracles sum whole whatever the batch: only who is called differs
		s := &solver.Settings{Estimator: &solver.CG{}, EtaX: 0.3, EtaY: 0.2, InnerIters: 7, Epochs: 10,
			Batches: solver.Batches{Upper: 1}}
		res, err := solver.Minimize(context.Background(), p, x0, y0, s)
		require.NoError(t, err)
		runs[k], probs[k] = res, d
	}
	sameRun(t, runs[0], runs[1], "finite sum, whole lower batches")
	assert.Equal(t, 11, probs[1].lowerSteps, "one LowerSteps call per epoch and the final lower solve")
	assert.Zero(t, probs[1].gradGys)
}

// runBoth runs the problem without and with LowerSteps under the same
// settings and returns the results and errors.
func runBoth(t *testing.T, s solver.Settings, setup func(*dquad)) (res [2]*solver.Result, errs [2]error, ds [2]*dquad) {
	t.Helper()
	x0, y0 := []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}
	for k := range 2 {
		d := newDquad(3, 5, 2)
		if setup != nil {
			setup(d)
		}
		st := s
		res[k], errs[k] = solver.Minimize(context.Background(), d.problem(k == 1), x0, y0, &st)
		ds[k] = d
	}
	return res, errs, ds
}

// TestLowerStepsDivergence: the fused loop reports what the solver's own
// steps report, at the same step: a gradient norm beyond DivergeFactor
// times its reference (a lower step too long for g), with the same best
// iterates, and a NaN gradient at a finite point (the oracle's own
// failure). A non-finite norm after norms too large to bound the iterates
// is a divergence. A LowerSteps error, or a non-finite entry in its result
// after finite steps, is a Failure naming it.
func TestLowerStepsDivergence(t *testing.T) {
	// η_y·max a = 0.75·4 = 3: the steps multiply that component by −2.
	res, errs, _ := runBoth(t, solver.Settings{EtaY: 0.75, InnerIters: 40, Epochs: 5}, nil)
	for k := range 2 {
		require.Error(t, errs[k])
		require.True(t, solver.IsDiverged(errs[k]), "%v", errs[k])
		require.Equal(t, solver.Diverged, res[k].Status)
	}
	require.Equal(t, errs[0].Error(), errs[1].Error())
	require.Contains(t, errs[1].Error(), "its reference value, at epoch 0")
	require.Equal(t, res[0].BestX, res[1].BestX)
	require.Equal(t, res[0].BestY, res[1].BestY)

	// Without the factor, the steps run until a norm is not finite, here
	// planted after norms that bound the iterates only by more than the
	// floats hold: an overflow of the iterates, a divergence.
	d := newDquad(3, 5, 2)
	p := d.problem(false)
	p.LowerSteps = func(dst []float64, pt *solver.Point, n int, eta float64, norms []float64) error {
		err := d.steps(dst, pt, n, eta, norms)
		norms[1], norms[2], norms[3] = 1e307, 1e308, math.Inf(1)
		return err
	}
	r, err := solver.Minimize(context.Background(), p, []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2},
		&solver.Settings{EtaY: 1, Epochs: 2, DivergeFactor: math.MaxFloat64})
	require.True(t, solver.IsDiverged(err), "%v", err)
	require.Equal(t, solver.Diverged, r.Status)
	require.ErrorContains(t, err, "iterate not finite at epoch 0, lower step 3")

	// A NaN gradient at the 5th evaluation, lower step 4 of epoch 0: the
	// oracle's own failure (the iterates are finite), not a divergence.
	res, errs, _ = runBoth(t, solver.Settings{InnerIters: 10, Epochs: 3}, func(d *dquad) { d.gradNaN = 5 })
	for k := range 2 {
		require.ErrorIs(t, errs[k], numerr.ErrNotFinite)
		require.False(t, solver.IsDiverged(errs[k]), "%v", errs[k])
		require.Equal(t, solver.Failure, res[k].Status)
		require.Contains(t, errs[k].Error(), "at epoch 0, lower step 4")
	}
	require.Contains(t, errs[1].Error(), "LowerSteps")

	// Its own error, and a NaN it writes after finite steps.
	boom := errors.New("boom")
	for _, c := range []struct {
		steps func(d *dquad) func([]float64, *solver.Point, int, float64, []float64) error
		want  error
	}{
		{func(*dquad) func([]float64, *solver.Point, int, float64, []float64) error {
			return func([]float64, *solver.Point, int, float64, []float64) error { return boom }
		}, boom},
		{func(d *dquad) func([]float64, *solver.Point, int, float64, []float64) error {
			return func(dst []float64, pt *solver.Point, n int, eta float64, norms []float64) error {
				err := d.steps(dst, pt, n, eta, norms)
				dst[2] = math.Inf(-1)
				return err
			}
		}, numerr.ErrNotFinite},
	} {
		d := newDquad(3, 5, 2)
		p := d.problem(false)
		p.LowerSteps = c.steps(d)
		res, err := solver.Minimize(context.Background(), p, []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}, &solver.Settings{Epochs: 3})
		require.ErrorIs(t, err, c.want)
		require.Equal(t, solver.Failure, res.Status)
		require.Contains(t, err.Error(), "LowerSteps at epoch 0")
	}
}

// hidden is a Euclidean space that does not say so: the solver must not
// run LowerSteps on it.
type hidden struct{ solver.Manifold }

// TestLowerStepsFallback: the solver takes its own steps, and never calls
// LowerSteps (here failing, so that a call would fail the run), wherever
// the fused loop is not the paper's fixed steps on a Euclidean My: BB
// or tolerance-ended lower loops, AD (which keeps the iterates), lower
// minibatches (g a finite sum, sampled or not), an exact lower solve,
// and a lower manifold that does not say it is a Euclidean space. The
// plain settings, by contrast, do call it.
func TestLowerStepsFallback(t *testing.T) {
	fail := func([]float64, *solver.Point, int, float64, []float64) error {
		return errors.New("LowerSteps called")
	}
	base := solver.Settings{Epochs: 4, InnerIters: 5}
	for _, c := range []struct {
		name string
		edit func(*solver.Problem, *solver.Settings)
	}{
		{"BB", func(_ *solver.Problem, s *solver.Settings) { s.Lower.BB = true }},
		{"tol", func(_ *solver.Problem, s *solver.Settings) { s.Lower.Tol = 0.1 }},
		{"adaptive", func(_ *solver.Problem, s *solver.Settings) { s.ApplyAdaptive() }},
		{"AD", func(_ *solver.Problem, s *solver.Settings) { s.Estimator = solver.AD{} }},
		{"minibatches", func(p *solver.Problem, s *solver.Settings) {
			p.NG = 2
			s.Batches = solver.Batches{Lower: 1}
		}},
		{"lower solve", func(p *solver.Problem, s *solver.Settings) {
			d := newDquad(3, 5, 3)
			p.LowerSolve = func(dst []float64, pt *solver.Point) error {
				d.grad(dst, pt.X, make([]float64, len(dst))) // −Bx
				for i := range dst {
					dst[i] /= -d.a[i] // y* = (Bx)/a, which the run checks
				}
				return nil
			}
			s.Lower.UseLowerSolve = true
		}},
		{"not a Euclidean space", func(p *solver.Problem, _ *solver.Settings) { p.My = hidden{p.My} }},
	} {
		d := newDquad(3, 5, 3)
		p, s := d.problem(false), base
		p.LowerSteps = fail
		c.edit(&p, &s)
		_, err := solver.Minimize(context.Background(), p, []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}, &s)
		require.NoError(t, err, c.name)
	}
	d := newDquad(3, 5, 3)
	p, s := d.problem(false), base
	p.LowerSteps = fail
	_, err := solver.Minimize(context.Background(), p, []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}, &s)
	require.ErrorContains(t, err, "LowerSteps called")
}

// TestLowerStepsEpochAllocs: an epoch with the fused lower loop allocates
// nothing, with and without a Recorder.
func TestLowerStepsEpochAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	for _, rec := range []solver.Recorder{nil, nopRecorder{}} {
		d := newDquad(3, 5, 4)
		r, err := solver.New(d.problem(true), &solver.Settings{Estimator: &solver.CG{}, InnerIters: 5, Recorder: rec})
		require.NoError(t, err)
		require.Zero(t, stepAllocs(t, r, []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}, 20))
		require.Positive(t, d.lowerSteps)
		require.Zero(t, d.gradGys)
	}
}

type nopRecorder struct{}

func (nopRecorder) Record(*solver.EpochStats) error { return nil }

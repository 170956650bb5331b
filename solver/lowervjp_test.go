package solver_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// vjp is dquad's Problem.LowerStepsVJP, by its own reverse sweep over the
// unrolled steps y_{s+1} = (1 − ηa)∘y_s + ηBx, which it counts: dx =
// η Σ_s Bᵀμ_s (−η G_xy[μ_s], G_xy[v] = −Bᵀv), μ_{s−1} = (1 − ηa)∘μ_s.
// The steps' map is affine in y_0, so the points between do not enter.
func (d *dquad) vjp(calls *int) func(dx, dy []float64, pt *solver.Point, n int, eta float64, lam []float64) error {
	return func(dx, dy []float64, pt *solver.Point, n int, eta float64, lam []float64) error {
		*calls++
		copy(dy, lam)
		clear(dx)
		for range n {
			for j := range dx {
				s := 0.0
				for i, m := range dy {
					s += d.b[i*d.p+j] * m
				}
				dx[j] += eta * s
			}
			for i := range dy {
				dy[i] -= eta * d.a[i] * dy[i]
			}
		}
		return nil
	}
}

// TestLowerStepsVJPSameRun: AD with Problem.LowerStepsVJP (one call per
// estimate, the loop fused) is AD's reverse sweep over the kept path to
// rounding, with the same counts of products, in runs, with a Recorder's
// error bound, and in EstimateLower and Estimate.
func TestLowerStepsVJPSameRun(t *testing.T) {
	x0, y0 := []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}
	var runs [2]*solver.Result
	var recs [2]epochRec
	calls := 0
	var d1 *dquad
	for k := range 2 {
		d := newDquad(3, 5, 1)
		p := d.problem(k == 1)
		if k == 1 {
			p.LowerStepsVJP, d1 = d.vjp(&calls), d
		}
		s := &solver.Settings{Estimator: solver.AD{}, EtaX: 0.3, EtaY: 0.2, InnerIters: 7, Epochs: 25, Recorder: &recs[k]}
		res, err := solver.Minimize(context.Background(), p, x0, y0, s)
		require.NoError(t, err)
		runs[k] = res
	}
	a, b := runs[0], runs[1]
	assert.InDeltaSlice(t, a.X, b.X, 1e-13)
	assert.InDeltaSlice(t, a.Y, b.Y, 1e-13)
	assert.InDelta(t, a.F, b.F, 1e-13)
	assert.Equal(t, a.Stats.HessVecs, b.Stats.HessVecs)
	assert.Equal(t, a.Stats.CrossVecs, b.Stats.CrossVecs)
	assert.Equal(t, a.Stats.Iterations, b.Stats.Iterations)
	assert.Equal(t, a.Stats.LowerGrads, b.Stats.LowerGrads)
	assert.Equal(t, 25, calls, "one LowerStepsVJP call per estimate")
	assert.Equal(t, 26, d1.lowerSteps, "the loop fused: one LowerSteps call per epoch and the final lower solve")
	assert.Zero(t, d1.gradGys)
	for e := range recs[0].rows {
		ra, rb := recs[0].rows[e].e, recs[1].rows[e].e
		assert.InDelta(t, ra.HyperGradErrBound, rb.HyperGradErrBound, 1e-12*math.Abs(ra.HyperGradErrBound)+1e-300, "epoch %d", e)
		assert.InDelta(t, ra.HyperGradNorm, rb.HyperGradNorm, 1e-13, "epoch %d", e)
	}

	for _, lower := range []bool{true, false} {
		var hgs [2][]float64
		for k := range 2 {
			d := newDquad(3, 5, 1)
			p := d.problem(k == 1)
			if k == 1 {
				p.LowerStepsVJP = d.vjp(new(int))
			}
			r, err := solver.New(p, &solver.Settings{Estimator: solver.AD{}, InnerIters: 9})
			require.NoError(t, err)
			if lower {
				hgs[k], _, err = r.EstimateLower(x0, y0)
			} else {
				hgs[k], err = r.Estimate(x0, y0)
			}
			require.NoError(t, err)
		}
		assert.InDeltaSlice(t, hgs[0], hgs[1], 1e-13, "lower steps: %v", lower)
	}
}

// TestLowerStepsVJPUnused: where the solver takes its own steps (sampled
// Hessian batches, BB steps, no LowerSteps) AD keeps its path and never
// calls LowerStepsVJP.
func TestLowerStepsVJPUnused(t *testing.T) {
	fail := func(_, _ []float64, _ *solver.Point, _ int, _ float64, _ []float64) error {
		return errors.New("LowerStepsVJP called")
	}
	for _, c := range []struct {
		name string
		edit func(*solver.Problem, *solver.Settings)
	}{
		{"no LowerSteps", func(p *solver.Problem, _ *solver.Settings) { p.LowerSteps = nil }},
		{"Hessian batches", func(p *solver.Problem, s *solver.Settings) {
			p.NF, p.NG = 2, 2
			s.Batches = solver.Batches{Hess: 1}
		}},
		{"not a Euclidean space", func(p *solver.Problem, _ *solver.Settings) { p.My = hidden{p.My} }},
	} {
		d := newDquad(3, 5, 3)
		p, s := d.problem(true), solver.Settings{Estimator: solver.AD{}, Epochs: 3, InnerIters: 4}
		p.LowerStepsVJP = fail
		c.edit(&p, &s)
		_, err := solver.Minimize(context.Background(), p, []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}, &s)
		require.NoError(t, err, c.name)
	}
}

// TestLowerStepsVJPErrors: an error of LowerStepsVJP stops the run naming
// it, and a NaN it returns from finite arguments is the oracle's failure
// (numerr.ErrNotFinite), not a divergence.
func TestLowerStepsVJPErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		fn   func(dx, dy []float64, pt *solver.Point, n int, eta float64, lam []float64) error
		want error
	}{
		{"error", func(_, _ []float64, _ *solver.Point, _ int, _ float64, _ []float64) error {
			return errors.New("boom")
		}, nil},
		{"NaN", func(dx, _ []float64, _ *solver.Point, _ int, _ float64, _ []float64) error {
			dx[1] = math.NaN()
			return nil
		}, numerr.ErrNotFinite},
	} {
		d := newDquad(3, 5, 3)
		p := d.problem(true)
		p.LowerStepsVJP = c.fn
		_, err := solver.Minimize(context.Background(), p, []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2},
			&solver.Settings{Estimator: solver.AD{}, Epochs: 3, InnerIters: 4})
		require.ErrorContains(t, err, "LowerStepsVJP", c.name)
		if c.want != nil {
			require.ErrorIs(t, err, c.want, c.name)
			require.False(t, solver.IsDiverged(err), c.name)
		}
	}
}

// TestLowerStepsVJPEpochAllocs: an AD epoch by LowerSteps and
// LowerStepsVJP allocates nothing, with and without a Recorder.
func TestLowerStepsVJPEpochAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	for _, rec := range []solver.Recorder{nil, nopRecorder{}} {
		d := newDquad(3, 5, 4)
		calls := 0
		p := d.problem(true)
		p.LowerStepsVJP = d.vjp(&calls)
		r, err := solver.New(p, &solver.Settings{Estimator: solver.AD{}, InnerIters: 5, Recorder: rec})
		require.NoError(t, err)
		require.Zero(t, stepAllocs(t, r, []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}, 20))
		require.Positive(t, calls)
	}
}

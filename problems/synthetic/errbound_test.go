package synthetic_test

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// truthRecorder compares each epoch's error bound with the true error
// ‖ĝ − grad F(x_k)‖, grad F from HINV at the exact lower solution
// y*(x_k) (the closed form LowerSolve).
type truthRecorder struct {
	p              solver.Problem
	ref            *solver.RHGD
	ystar, diff    []float64
	held, within   int
	epochs         int
	worst, loosest float64
}

func (r *truthRecorder) Record(e *solver.EpochStats) error {
	if err := r.p.LowerSolve(r.ystar, &solver.Point{X: e.X, Y: e.Y}); err != nil {
		return err
	}
	truth, err := r.ref.Estimate(e.X, r.ystar)
	if err != nil {
		return err
	}
	for i := range r.diff {
		r.diff[i] = e.HyperGrad[i] - truth[i]
	}
	errNorm := r.p.Mx.Norm(e.X, r.diff)
	r.epochs++
	b := e.HyperGradErrBound
	if b >= errNorm {
		r.held++
	}
	if b <= 100*errNorm {
		r.within++
	}
	r.worst = min(r.worst, b/errNorm)
	r.loosest = max(r.loosest, b/errNorm)
	return nil
}

// TestErrorBound: along runs of every estimator on the synthetic problem,
// the a-posteriori bound EpochStats.HyperGradErrBound is at least the
// true hypergradient error on every epoch, and within 100× of it on most
// (the log says how often). It runs at n, d, r = 40, 12, 4; with
// RHGD_ERRBOUND_PAPER=1 at the paper's 100, 50, 20.
func TestErrorBound(t *testing.T) {
	p := synthetic.DefaultParams()
	if os.Getenv("RHGD_ERRBOUND_PAPER") == "" {
		p.N, p.D, p.R = 40, 12, 4
	}
	in, err := synthetic.Build(p)
	require.NoError(t, err)
	pr := in.Problem
	var held, within, total int
	for _, spec := range []string{"hinv", "cg:maxiter=50,tol=1e-10", "cg:maxiter=5,tol=1e-10", "ns:gamma=1,terms=20", "ad"} {
		for _, inner := range []int{3, 10} {
			est, err := solver.ParseEstimator(spec)
			require.NoError(t, err)
			ref, err := solver.New(pr, &solver.Settings{Estimator: solver.HInv{}})
			require.NoError(t, err)
			rec := &truthRecorder{p: pr, ref: ref, ystar: make([]float64, pr.My.Len()), diff: make([]float64, pr.Mx.Len()),
				worst: math.Inf(1)}
			s := in.Settings
			s.Estimator, s.Recorder, s.InnerIters, s.Epochs, s.Lanczos = est, rec, inner, 40, 10
			_, err = solver.Minimize(context.Background(), pr, in.X0, in.Y0, &s)
			require.NoError(t, err)
			t.Logf("%s S=%d: bound ≥ error on %d/%d epochs, ≤ 100× on %d; bound/error in [%.3g, %.3g]",
				spec, inner, rec.held, rec.epochs, rec.within, rec.worst, rec.loosest)
			held += rec.held
			within += rec.within
			total += rec.epochs
		}
	}
	t.Logf("error bound: held on %d/%d epochs, within 100× of the true error on %d (%.1f%%)", held, total, within, 100*float64(within)/float64(total))
	require.Equal(t, total, held)
	require.Greater(t, 2*within, total, "the bound within 100× of the true error on most epochs")
}

type noop struct{}

func (noop) Record(*solver.EpochStats) error { return nil }

// TestErrorBoundAllocs: epochs with the spectrum estimate, the error
// bound and a Recorder allocate nothing, for every estimator (and the
// damped ones).
func TestErrorBoundAllocs(t *testing.T) {
	testkit.SkipRace(t)
	p := synthetic.DefaultParams()
	p.N, p.D, p.R = 40, 12, 4
	in, err := synthetic.Build(p)
	require.NoError(t, err)
	for _, spec := range []string{"hinv", "cg", "cg:damping=auto", "ns:gamma=1,terms=20,damping=1e-3", "ad"} {
		est, err := solver.ParseEstimator(spec)
		require.NoError(t, err)
		s := in.Settings
		s.Estimator, s.Recorder, s.InnerIters, s.Lanczos = est, noop{}, 3, 10
		r := testkit.Stepped(t, in.Problem, s, in.X0, in.Y0, 1)
		require.Zero(t, testkit.StepAllocs(t, r, 5), spec)
	}
}

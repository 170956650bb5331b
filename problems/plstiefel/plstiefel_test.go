package plstiefel_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/plstiefel"
	"github.com/rhgd/rhgd/solver"
)

type rec struct {
	f, hg, bound, minEig, damping []float64
}

func (r *rec) Record(e *solver.EpochStats) error {
	r.f = append(r.f, e.F)
	r.hg = append(r.hg, e.HyperGradNorm)
	r.bound = append(r.bound, e.HyperGradErrBound)
	r.minEig = append(r.minEig, e.Estimate.MinEig)
	r.damping = append(r.damping, e.Estimate.Damping)
	return nil
}

func setup(t *testing.T) (*plstiefel.Problem, solver.Problem, []float64, []float64, solver.Settings) {
	p := plstiefel.DefaultParams()
	pr, err := plstiefel.Generate(p.N, p.P, p.M, p.Rank, p.Seed)
	require.NoError(t, err)
	in, err := plstiefel.Build(p)
	require.NoError(t, err)
	return pr, pr.Bilevel(), in.X0, in.Y0, in.Settings
}

// TestCheckProblem: the oracles are the derivatives of f and g.
func TestCheckProblem(t *testing.T) {
	_, p, x0, y0, _ := setup(t)
	for _, r := range solver.CheckProblem(p, x0, y0, &solver.ProblemCheck{Seed: 1, SecondOrderY: true}) {
		require.True(t, r.OK, "%v", r)
	}
}

// TestUndampedCGFails: H v = grad_y f has no solution (grad_y f has a
// component in ker H), and undamped CG says so with an error matching
// numerr.ErrNotPosDef that names the remedy, instead of oscillating.
func TestUndampedCGFails(t *testing.T) {
	_, p, x0, y0, s := setup(t)
	s.Estimator = &solver.CG{}
	res, err := solver.Minimize(context.Background(), p, x0, y0, &s)
	require.ErrorIs(t, err, numerr.ErrNotPosDef)
	require.ErrorContains(t, err, "damping=auto")
	t.Log(err)
	require.Equal(t, solver.Failure, res.Status)
}

// TestDampedConverges: damped CG and NS reach a stationary point of F.
// With a tiny fixed δ (and undamped NS, whose series stays finite on
// ker H) the true hypergradient falls below 1e-6 of its first value; with
// the auto δ it falls to the damping's bias, which is at most
// δ/(λ_lo + δ)·‖B‖‖QQᵀ(y − c)‖ (λ_lo the least nonzero eigenvalue of H),
// plus the final estimate's norm. F decreases, and the spectrum estimate
// sees the singular Hessian (λ̂_min ≈ 0, auto δ > 0).
func TestDampedConverges(t *testing.T) {
	pr, p, x0, y0, s := setup(t)
	g0 := make([]float64, len(x0))
	pr.TrueHyperGrad(g0, x0)
	n0 := pr.Mx.Norm(x0, g0)
	lamLo := slices.Min(pr.Lam)
	var bNorm float64
	for _, v := range pr.B {
		bNorm += v * v
	}
	bNorm = math.Sqrt(bNorm) // ≥ ‖B‖₂
	for _, spec := range []string{"cg:damping=1e-8", "ns:gamma=1,terms=50", "cg:damping=auto", "ns:gamma=1,terms=50,damping=auto"} {
		est, err := solver.ParseEstimator(spec)
		require.NoError(t, err)
		r := &rec{}
		s.Estimator, s.Recorder, s.Epochs = est, r, 1500
		res, err := solver.Minimize(context.Background(), p, x0, y0, &s)
		require.NoError(t, err, spec)
		g := make([]float64, len(x0))
		pr.TrueHyperGrad(g, res.X)
		n := pr.Mx.Norm(res.X, g)
		last := len(r.f) - 1
		delta := r.damping[last]
		t.Logf("%s: F %.6g → %.6g, ‖grad F‖ %.3g → %.3g, ‖ĝ‖ %.3g, λ̂_min %.3g, δ %.3g", spec, r.f[0], res.F, n0, n, r.hg[last], r.minEig[last], delta)
		require.Less(t, res.F, r.f[0], spec)
		if !strings.Contains(spec, "auto") {
			require.Less(t, n, 1e-6*n0, spec)
			continue
		}
		require.Greater(t, delta, 0.0, spec)
		require.Less(t, math.Abs(r.minEig[last]), 1e-8, spec)
		qy := make([]float64, len(res.Y))
		require.NoError(t, pr.LowerSolve(qy, &solver.Point{X: res.X, Y: res.Y})) // y* = y − QQᵀ(y − Bx)
		var range2 float64                                                       // ‖QQᵀ(y − c)‖ = ‖QQᵀ(Bx − c)‖ at y*
		b := make([]float64, len(qy))
		for i := range b {
			b[i] = res.Y[i] - pr.C[i]
		}
		proj := make([]float64, len(b))
		require.NoError(t, pr.LowerSolve(proj, &solver.Point{X: make([]float64, len(res.X)), Y: b})) // b − QQᵀb
		for i := range b {
			d := b[i] - proj[i]
			range2 += d * d
		}
		bias := delta / (lamLo + delta) * bNorm * math.Sqrt(range2)
		require.LessOrEqual(t, n, r.hg[last]+bias*(1+1e-6)+1e-9, spec)
	}
}

type noop struct{}

func (noop) Record(*solver.EpochStats) error { return nil }

// TestAllocs: epochs of the damped estimators with the spectrum estimate
// and the error bound allocate nothing, and neither does LowerSolve.
func TestAllocs(t *testing.T) {
	testkit.SkipRace(t)
	_, p, x0, y0, s := setup(t)
	for _, spec := range []string{"cg:damping=auto", "ns:gamma=1,terms=50,damping=auto", "ad"} {
		est, err := solver.ParseEstimator(spec)
		require.NoError(t, err)
		s.Estimator, s.Recorder, s.Lanczos = est, noop{}, 5
		r := testkit.Stepped(t, p, s, x0, y0, 1)
		require.Zero(t, testkit.StepAllocs(t, r, 5), spec)
	}
	s.Estimator, s.Lower.UseLowerSolve = &solver.CG{AutoDamping: true}, true
	r := testkit.Stepped(t, p, s, x0, y0, 1)
	require.Zero(t, testkit.StepAllocs(t, r, 5), "lower_solve")
}

// Package testkit holds the checks that the ready-made problems'
// tests share: relative errors, a warmed-up solver for allocation tests
// and benchmarks, the oracles called in one go, and the hypergradient
// against a central difference. Only tests import it.
package testkit

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/solver"
)

// Rel returns ‖a − b‖/‖b‖, the relative error of a against b.
func Rel(a, b []float64) float64 {
	var n, d float64
	for i := range a {
		n += (a[i] - b[i]) * (a[i] - b[i])
		d += b[i] * b[i]
	}
	return math.Sqrt(n / d)
}

// Warm returns a solver for p with the settings s after running s.Epochs
// epochs from (x0, y0) and resetting it at the result, so that
// benchmarks and allocation tests see a representative iterate.
func Warm(tb testing.TB, p solver.Problem, s solver.Settings, x0, y0 []float64) *solver.RHGD {
	tb.Helper()
	r, err := solver.New(p, &s)
	require.NoError(tb, err)
	res, err := r.Run(context.Background(), x0, y0)
	require.NoError(tb, err)
	require.NoError(tb, r.Reset(res.X, res.Y))
	return r
}

// SkipRace skips an allocation test under the race detector, which
// allocates.
func SkipRace(tb testing.TB) {
	tb.Helper()
	if race.Enabled {
		tb.Skip("allocation counts under -race")
	}
}

// StepAllocs returns the allocations of one epoch of r, averaged over
// runs epochs; an epoch's error fails tb.
func StepAllocs(tb testing.TB, r *solver.RHGD, runs int) float64 {
	tb.Helper()
	return testing.AllocsPerRun(runs, func() {
		if _, err := r.Step(); err != nil {
			tb.Fatal(err)
		}
	})
}

// BenchSteps times the epochs of r, with their allocations.
func BenchSteps(b *testing.B, r *solver.RHGD) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Step(); err != nil {
			b.Fatal(err)
		}
	}
}

// Oracles calls every oracle of p at pt once: the values, the gradients
// into gx and gy, the Hessian and its inverse and the cross derivatives
// along pt.Y and gx, and LowerSolve into ly unless ly is nil. It returns
// the first error.
func Oracles(p solver.Problem, pt *solver.Point, gx, gy, ly []float64) error {
	var errs [11]error
	_, errs[0] = p.F(pt)
	_, errs[1] = p.G(pt)
	errs[2] = p.GradFx(gx, pt)
	errs[3] = p.GradFy(gy, pt)
	errs[4] = p.GradGx(gx, pt)
	errs[5] = p.GradGy(gy, pt)
	errs[6] = p.HessGy(gy, pt, pt.Y)
	errs[7] = p.HessGyInv(gy, pt, pt.Y)
	errs[8] = p.CrossGxy(gx, pt, pt.Y)
	errs[9] = p.CrossGyx(gy, pt, gx)
	if ly != nil {
		errs[10] = p.LowerSolve(ly, pt)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Hypergradient checks the HINV and CG hypergradients of p at (x, ystar),
// ystar the lower solution at x, against the central difference (step
// 1e−5) of upper, F(x) = f(x, y*(x)), along two random tangent
// directions (seed 8, 8) retracted on p.Mx: they agree within
// tol·‖hypergradient‖. estimator parses the names "hinv" and "cg".
func Hypergradient(t *testing.T, p solver.Problem, estimator func(string) (solver.Estimator, error), x, ystar []float64, upper func([]float64) float64, tol float64) {
	t.Helper()
	mx := p.Mx
	rnd := rand.New(rand.NewPCG(8, 8))
	u := make([]float64, len(x))
	const h = 1e-5
	xp, xm := make([]float64, len(x)), make([]float64, len(x))
	for _, name := range []string{"hinv", "cg"} {
		est, err := estimator(name)
		require.NoError(t, err)
		r, err := solver.New(p, &solver.Settings{Estimator: est})
		require.NoError(t, err)
		hg, err := r.Estimate(x, ystar)
		require.NoError(t, err)
		for k := 0; k < 2; k++ {
			mx.RandTangent(u, x, rnd)
			require.NoError(t, mx.Retract(xp, x, u, h))
			require.NoError(t, mx.Retract(xm, x, u, -h))
			fd := (upper(xp) - upper(xm)) / (2 * h)
			got := mx.Inner(x, hg, u)
			t.Logf("%s: ⟨hypergradient, u⟩ = %.10g, difference %.10g", name, got, fd)
			require.InDelta(t, fd, got, tol*mx.Norm(x, hg), "%s direction %d", name, k)
		}
	}
}

// Package testkit holds the checks that the ready-made problems'
// tests share: building from parameters and running every estimator,
// relative errors, a warmed-up solver for allocation tests
// and benchmarks, the oracles called in one go, the hypergradient
// against a central difference, and the float32-data check (CheckF32).
// Only tests import it.
package testkit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// Build builds the problem spec describes with o and its parameters
// given as flag and value pairs, as on rhgd run's command line ("-n",
// "20"); it fails tb on parameters it cannot set.
func Build(tb testing.TB, spec problems.Spec, o problems.Options, args ...string) (*problems.Instance, error) {
	tb.Helper()
	require.Zero(tb, len(args)%2, "flag and value pairs: %q", args)
	p := spec.New()
	for i := 0; i < len(args); i += 2 {
		require.NoError(tb, problems.SetParams(p, strings.TrimPrefix(args[i], "-")+"="+args[i+1]))
	}
	*p.Common() = o
	return spec.Build(p)
}

// RunEach runs every estimator that in lists for epochs epochs from in's
// start with in's settings, and fails tb on an error, naming the
// estimator.
func RunEach(tb testing.TB, in *problems.Instance, epochs int) {
	tb.Helper()
	for name := range in.Estimators {
		est, err := in.Estimator(name)
		require.NoError(tb, err)
		s := in.Settings
		s.Estimator, s.Epochs = est, epochs
		_, err = solver.Minimize(context.Background(), in.Problem, in.X0, in.Y0, &s)
		require.NoError(tb, err, name)
	}
}

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

// WarmPaper is Warm with paper's settings for epochs epochs with the
// estimator that paper names name and the batches (zero: RHGD, else
// RSHGD).
func WarmPaper(tb testing.TB, paper problems.Paper, name string, epochs int, batches solver.Batches, p solver.Problem, x0, y0 []float64) *solver.RHGD {
	tb.Helper()
	est, err := paper.Estimator(name)
	require.NoError(tb, err)
	s := paper.Settings
	s.Epochs, s.Estimator, s.Batches = epochs, est, batches
	return Warm(tb, p, s, x0, y0)
}

// BenchNewX times F and GradGy (into gy) at pt, a point of unknown
// identity, so that every call recomputes what the problem keeps per x:
// the work of a new upper iterate.
func BenchNewX(b *testing.B, p solver.Problem, pt *solver.Point, gy []float64) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.F(pt); err != nil {
			b.Fatal(err)
		}
		if err := p.GradGy(gy, pt); err != nil {
			b.Fatal(err)
		}
	}
}

// CrossEntropy is the reference cross-entropy −log softmax(z)_y of the c
// logits z = Wᵀφ (W row-major, len(phi) × c), by the log-sum-exp written
// out, apart from the problems' own softmax code.
func CrossEntropy(phi, w []float64, c, y int) float64 {
	z := make([]float64, c)
	for k := range z {
		for a := range phi {
			z[k] += phi[a] * w[a*c+k]
		}
	}
	mx := z[0]
	for _, v := range z {
		mx = math.Max(mx, v)
	}
	var s float64
	for _, v := range z {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s) - z[y]
}

// Stepped returns a solver for p with the settings s, reset at (x0, y0)
// and stepped epochs epochs, so that allocation tests see a steady state.
func Stepped(tb testing.TB, p solver.Problem, s solver.Settings, x0, y0 []float64, epochs int) *solver.RHGD {
	tb.Helper()
	r, err := solver.New(p, &s)
	require.NoError(tb, err)
	require.NoError(tb, r.Reset(x0, y0))
	for range epochs {
		_, err := r.Step()
		require.NoError(tb, err)
	}
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

// RelOrAbs is Rel, or the absolute error ‖a − b‖ where b is zero.
func RelOrAbs(a, b []float64) float64 {
	var n, d float64
	for i := range a {
		n += (a[i] - b[i]) * (a[i] - b[i])
		d += b[i] * b[i]
	}
	if d == 0 {
		return math.Sqrt(n)
	}
	return math.Sqrt(n / d)
}

// Batches checks that p's oracles at (x, y) on a batch are the averages
// of their components, for an upper problem of nval components and a
// lower one of ntr: the whole set as an explicit list (in reverse order)
// gives the nil batch's value (exactly for wholeTol 0, else within
// wholeTol by dist), and the batch {1, n−2, n−2} gives (o_1 + 2o_{n−2})/3
// within tol by dist, for every oracle but HessGyInv (the inverse of an
// average is not the average of inverses). The directions of HessGy,
// CrossGxy, HessGyInv (in y) and CrossGyx (in x) are random tangents
// drawn with the seed (1, 2).
func Batches(t *testing.T, p solver.Problem, x, y []float64, ntr, nval int, dist func(a, b []float64) float64, wholeTol, tol float64) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(1, 2))
	v, u := make([]float64, len(y)), make([]float64, len(x))
	p.My.RandTangent(v, y, rnd)
	p.Mx.RandTangent(u, x, rnd)
	vec := func(n int, f func([]float64, *solver.Point) error) func(*solver.Point) []float64 {
		return func(pt *solver.Point) []float64 {
			dst := make([]float64, n)
			require.NoError(t, f(dst, pt))
			return dst
		}
	}
	vecv := func(n int, f func([]float64, *solver.Point, []float64) error, dir []float64) func(*solver.Point) []float64 {
		return vec(n, func(dst []float64, pt *solver.Point) error { return f(dst, pt, dir) })
	}
	scalar := func(f func(*solver.Point) (float64, error)) func(*solver.Point) []float64 {
		return func(pt *solver.Point) []float64 {
			s, err := f(pt)
			require.NoError(t, err)
			return []float64{s}
		}
	}
	nx, ny := len(x), len(y)
	oracles := []struct {
		name  string
		upper bool
		eval  func(*solver.Point) []float64
	}{
		{"F", true, scalar(p.F)}, {"GradFx", true, vec(nx, p.GradFx)}, {"GradFy", true, vec(ny, p.GradFy)},
		{"G", false, scalar(p.G)}, {"GradGx", false, vec(nx, p.GradGx)}, {"GradGy", false, vec(ny, p.GradGy)},
		{"HessGy", false, vecv(ny, p.HessGy, v)}, {"CrossGxy", false, vecv(nx, p.CrossGxy, v)},
		{"CrossGyx", false, vecv(ny, p.CrossGyx, u)}, {"HessGyInv", false, vecv(ny, p.HessGyInv, v)},
	}
	batch := func(idx ...int) *solver.Point {
		return &solver.Point{X: x, Y: y, XID: solver.NewID(), YID: solver.NewID(), Batch: idx, BatchID: solver.NewID()}
	}
	for _, o := range oracles {
		n := ntr
		if o.upper {
			n = nval
		}
		full := make([]int, n)
		for i := range full {
			full[i] = n - 1 - i // any order
		}
		whole, all := o.eval(&solver.Point{X: x, Y: y}), o.eval(batch(full...))
		if wholeTol == 0 {
			require.Equal(t, whole, all, "%s: whole set as a list", o.name)
		} else {
			require.Less(t, dist(all, whole), wholeTol, "%s: whole set as a list", o.name)
		}
		if o.name == "HessGyInv" {
			continue
		}
		i, j := 1, n-2
		oi, oj, oij := o.eval(batch(i)), o.eval(batch(j)), o.eval(batch(i, j, j))
		want := make([]float64, len(oi))
		for a := range want {
			want[a] = (oi[a] + 2*oj[a]) / 3
		}
		require.Less(t, dist(oij, want), tol, "%s: batch with a repeat", o.name)
	}
}

// OracleAllocs checks that calling every oracle of p at (x, y) (Oracles,
// with LowerSolve when lower), then extra unless it is nil, allocates
// nothing once warm, on each of the batches, averaged over runs calls.
func OracleAllocs(t *testing.T, p solver.Problem, x, y []float64, batches [][]int, runs int, lower bool, extra func() error) {
	t.Helper()
	SkipRace(t)
	gx, gy := make([]float64, len(x)), make([]float64, len(y))
	var ly []float64
	if lower {
		ly = make([]float64, len(y))
	}
	for _, batch := range batches {
		pt := &solver.Point{X: x, Y: y, Batch: batch}
		if a := testing.AllocsPerRun(runs, func() {
			if err := Oracles(p, pt, gx, gy, ly); err != nil {
				t.Fatal(err)
			}
			if extra != nil {
				if err := extra(); err != nil {
					t.Fatal(err)
				}
			}
		}); a != 0 {
			t.Errorf("batch %v: %v allocations", batch, a)
		}
	}
}

// HypergradientLower is Hypergradient with the lower solution y*(x) from
// p.LowerSolve started at y0.
func HypergradientLower(t *testing.T, p solver.Problem, estimator func(string) (solver.Estimator, error), x, y0 []float64, tol float64) {
	t.Helper()
	lower := func(x []float64) []float64 {
		y := make([]float64, len(y0))
		require.NoError(t, p.LowerSolve(y, &solver.Point{X: x, Y: y0}))
		return y
	}
	upper := func(x []float64) float64 {
		v, err := p.F(&solver.Point{X: x, Y: lower(x)})
		require.NoError(t, err)
		return v
	}
	Hypergradient(t, p, estimator, x, lower(x), upper, tol)
}

// MeanStd formats the mean and the (population) standard deviation of v
// as "m ± s" with one decimal, for the accuracy tables the long runs log.
func MeanStd(v []float64) string {
	var s, s2 float64
	for _, x := range v {
		s += x
		s2 += x * x
	}
	m := s / float64(len(v))
	return fmt.Sprintf("%.1f ± %.1f", m, math.Sqrt(math.Max(0, s2/float64(len(v))-m*m)))
}

// At is the point (x, y) with no identities, so that every oracle
// recomputes.
func At(x, y []float64) *solver.Point { return &solver.Point{X: x, Y: y} }

// Must fails tb on an error.
func Must(tb testing.TB, err error) {
	tb.Helper()
	require.NoError(tb, err)
}

// RandPoint returns a random point of m drawn with the seed (seed, 3).
func RandPoint(m solver.Manifold, seed uint64) []float64 {
	x := make([]float64, m.Len())
	m.RandPoint(x, rand.New(rand.NewPCG(seed, 3)))
	return x
}

// EpochAllocs checks that a steady-state epoch of the solver that warm
// returns for each estimator name allocates nothing (averaged over runs
// epochs); label follows the name in the failure message.
func EpochAllocs(t *testing.T, names []string, runs int, label string, warm func(tb testing.TB, name string) *solver.RHGD) {
	t.Helper()
	for _, name := range names {
		if a := StepAllocs(t, warm(t, name), runs); a != 0 {
			t.Errorf("%s%s: %v allocations per epoch", name, label, a)
		}
	}
}

// EpochBench times the epochs of the solver that warm returns for each
// estimator name, as the sub-benchmarks estimator=<name>.
func EpochBench(b *testing.B, names []string, warm func(tb testing.TB, name string) *solver.RHGD) {
	for _, name := range names {
		b.Run("estimator="+name, func(b *testing.B) { BenchSteps(b, warm(b, name)) })
	}
}

package synthetic_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

// mixedRun runs the paper's settings with HINV for epochs from the
// problem's start at n = 2d, r = 2d/5, with the first k lower steps of
// each epoch in float32 and HINV's eigensolver eig (SetMixedEig; "": the
// default), and returns the final f, the last hypergradient's norm and the
// time per epoch.
func mixedRun(t testing.TB, d, k, epochs int, eig string) (f, hg float64, per time.Duration) {
	p, _, w, m := setup(t, 2*d, d, 2*d/5)
	require.NoError(t, p.SetLowerFloat32Steps(k))
	if eig != "" {
		synthetic.SetMixedEig(p, eig)
	}
	s := paperSettings
	s.Estimator, s.Epochs = solver.HInv{}, epochs
	r, err := solver.New(p.Bilevel(), &s)
	require.NoError(t, err)
	require.NoError(t, r.Reset(w, m))
	t0 := time.Now()
	for range epochs {
		_, err := r.Step()
		require.NoError(t, err)
	}
	per = time.Since(t0) / time.Duration(epochs)
	g, err := r.Hypergradient(true)
	require.NoError(t, err)
	f, err = p.F(&solver.Point{X: r.X(), Y: r.Y(), XID: solver.NewID(), YID: solver.NewID()})
	require.NoError(t, err)
	return f, floats.Norm(g, 2), per
}

// TestMixedAgrees: with every lower step but the last of each epoch in
// float32 (SetLowerFloat32Steps(S−1)), 100 epochs of the paper's settings
// at d = 50 end at f within 1e-6 (relative) of the float64 run's (the
// issue's bar; measured 5e-9, 4.5e-9 with HINV's eigendecomposition in
// float64), and the hypergradient's norm within 1e-5.
// RHGD_MIXED_D=200,1000 adds those orders (a few epochs), for the report.
func TestMixedAgrees(t *testing.T) {
	type size struct{ d, epochs int }
	sizes := []size{{50, 100}}
	if v := os.Getenv("RHGD_MIXED_D"); v != "" {
		for _, s := range splitInts(t, v) {
			sizes = append(sizes, size{s, max(3, 2000/s)})
		}
	}
	for _, sz := range sizes {
		f64, g64, t64 := mixedRun(t, sz.d, 0, sz.epochs, "")
		f32, g32, t32 := mixedRun(t, sz.d, paperSettings.InnerIters-1, sz.epochs, "")
		f3264, _, _ := mixedRun(t, sz.d, paperSettings.InnerIters-1, sz.epochs, "float64")
		rel, relg := math.Abs(f32-f64)/math.Abs(f64), math.Abs(g32-g64)/g64
		t.Logf("d=%d, %d epochs: f %.15g (float64) %.15g (mixed), relative difference %.2g (%.2g with HINV's eigendecomposition in float64); ‖hypergradient‖ %.10g, %.10g, relative difference %.2g; %v, %v per epoch",
			sz.d, sz.epochs, f64, f32, rel, math.Abs(f3264-f64)/math.Abs(f64), g64, g32, relg, t64, t32)
		require.Less(t, rel, 1e-6, "d=%d: f moved", sz.d)
		require.Less(t, relg, 1e-5, "d=%d: the hypergradient's norm moved", sz.d)
	}
}

func splitInts(t testing.TB, s string) []int {
	var r []int
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != ',' {
			i++
		}
		v, err := strconv.Atoi(s[:i])
		require.NoError(t, err)
		r = append(r, v)
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return r
}

// TestMixedAllocs: with the float32 lower steps on, a steady-state epoch
// allocates nothing, with each of the paper's estimators (AD runs them
// in float64: see TestMixedOffForAD), at an order with the Gram product.
func TestMixedAllocs(t *testing.T) {
	testkit.SkipRace(t)
	sp, _, w, m := setup(t, 240, 120, 48)
	require.NoError(t, sp.SetLowerFloat32Steps(paperSettings.InnerIters-1))
	for name, est := range paperEstimators() {
		s := paperSettings
		s.Epochs, s.Estimator = 3, est()
		r := testkit.Warm(t, sp.Bilevel(), s, w, m)
		require.Zero(t, testkit.StepAllocs(t, r, 3), "%s: allocations per epoch", name)
	}
}

// TestMixedOffForAD: AD's reverse pass needs float64 lower steps, so with
// AD (Retain above 1) the float32 steps are off: its run is bit-identical
// to the float64 one.
func TestMixedOffForAD(t *testing.T) {
	run := func(k int) []float64 {
		sp, _, w, m := setup(t, 60, 30, 12)
		require.NoError(t, sp.SetLowerFloat32Steps(k))
		s := paperSettings
		s.Epochs, s.Estimator = 5, solver.AD{}
		r := testkit.Stepped(t, sp.Bilevel(), s, w, m, s.Epochs)
		return append(append([]float64(nil), r.X()...), r.Y()...)
	}
	require.Equal(t, run(0), run(19))
}

// TestMixedKernels: the float32 steps' GradGy is M A M − B within float32
// rounding of the float64 one, ‖ΔK‖ ≤ 4d·u₃₂‖M‖²‖A‖, and their retraction
// rounds only the second-order term: ‖R₃₂ − R‖ ≤ 4d·u₃₂‖R − X − tU‖ +
// 1e-14‖R‖, and a non-finite step is an error. A negative count is an
// error naming the setting; a point of unknown identity runs in float64.
func TestMixedKernels(t *testing.T) {
	const d, u32 = 120, 0x1p-24
	sp, p, w, m := setup(t, 2*d, d, 2*d/5)
	rnd := offIdentity(t, sp, m, 4)
	err := sp.SetLowerFloat32Steps(-1)
	require.ErrorIs(t, err, numerr.ErrInvalid)
	require.ErrorContains(t, err, "SetLowerFloat32Steps")
	ref, _, _, _ := setup(t, 2*d, d, 2*d/5)
	pref := ref.Bilevel()
	require.NoError(t, sp.SetLowerFloat32Steps(2))
	p = sp.Bilevel()

	g, g64 := make([]float64, d*d), make([]float64, d*d)
	pt := &solver.Point{X: w, Y: m, XID: solver.NewID(), YID: solver.NewID()}
	require.NoError(t, p.GradGy(g, pt))
	require.NoError(t, pref.GradGy(g64, &solver.Point{X: w, Y: m, XID: solver.NewID(), YID: solver.NewID()}))
	nm, na := floats.Norm(m, 2), floats.Norm(sp.A, 2)
	dist := floats.Distance(g, g64, 2)
	require.Positive(t, dist, "the first step is float32")
	require.LessOrEqual(t, dist, 4*d*u32*nm*nm*na)
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			require.Equal(t, g[i*d+j], g[j*d+i])
		}
	}

	// the retraction after a float32 GradGy, at a step of a few sizes
	u := make([]float64, d*d)
	sp.SPD.RandTangent(u, m, rnd)
	r32, r64 := make([]float64, d*d), make([]float64, d*d)
	for _, tt := range []float64{1e-4, 1e-2, 0.5} {
		require.NoError(t, p.GradGy(g, &solver.Point{X: w, Y: m, XID: pt.XID, YID: solver.NewID()}))
		require.NoError(t, p.My.Retract(r32, m, u, tt))
		require.NoError(t, pref.My.Retract(r64, m, u, tt))
		second := 0.0
		for i := range r64 {
			v := r64[i] - m[i] - tt*u[i]
			second += v * v
		}
		require.LessOrEqual(t, floats.Distance(r32, r64, 2), 4*d*u32*math.Sqrt(second)+1e-14*floats.Norm(r64, 2), "t=%g", tt)
		pt.XID = solver.NewID() // a new upper iterate: its first steps are float32 again
	}
	// a non-finite step is an error, not an iterate
	require.NoError(t, p.GradGy(g, &solver.Point{X: w, Y: m, XID: solver.NewID(), YID: solver.NewID()}))
	u[5] = math.NaN()
	require.ErrorIs(t, p.My.Retract(r32, m, u, 0.5), numerr.ErrNotFinite)
	// the third call at one upper iterate is float64, as is a point of
	// unknown identity
	x := solver.NewID()
	for i := 0; i < 3; i++ {
		require.NoError(t, p.GradGy(g, &solver.Point{X: w, Y: m, XID: x, YID: solver.NewID()}))
	}
	require.Equal(t, g64, g)
	require.NoError(t, p.GradGy(g, &solver.Point{X: w, Y: m}))
	require.Equal(t, g64, g)
}

// TestMixedParam: the parameter lower-float32-steps reaches
// SetLowerFloat32Steps through Build (the command line, the C ABI and
// Python build problems this way): the lower manifold is the float32 one
// with k > 0, spd's own with 0, and k < 0 is an error naming the
// parameter.
func TestMixedParam(t *testing.T) {
	p := synthetic.DefaultParams()
	p.N, p.D, p.R = 40, 20, 8
	in, err := synthetic.Build(p)
	require.NoError(t, err)
	require.IsType(t, &spd.SPD{}, in.Problem.My)
	p.LowerFloat32Steps = 19
	in, err = synthetic.Build(p)
	require.NoError(t, err)
	name, ok := in.Problem.My.(fmt.Stringer)
	require.True(t, ok)
	require.Contains(t, name.String(), "lower-float32-steps")
	p.LowerFloat32Steps = -1
	_, err = synthetic.Build(p)
	require.ErrorIs(t, err, numerr.ErrInvalid)
	require.ErrorContains(t, err, "lower-float32-steps")
}

// TestMixedEig: with the float32 steps on, HINV diagonalizes in float32 a
// matrix whose λ_min float32 resolves (spectrum [1, 1.5]: eigenvalues
// within 4·n·u₃₂ of float64's, not float64's bit for bit), and in float64,
// bit for bit EigSym's, one where it does not (spectrum [1e-3, 1], where
// n·u₃₂·‖K − σI‖/λ_min = 6e-3 at d = 200); with them off, always in
// float64.
func TestMixedEig(t *testing.T) {
	const d = 200
	p, _, _, _ := setup(t, 2*d, d, 2*d/5)
	rnd := rand.New(rand.NewPCG(11, 11))
	withSpectrum := func(lo, hi float64) []float64 {
		q := make([]float64, d*d)
		m := make([]float64, d*d)
		p.SPD.RandPoint(m, rnd) // any SPD matrix: its eigenvectors are a random basis
		e := lapackx.NewEigSym(d)
		require.NoError(t, e.Factorize(m))
		copy(q, e.Vectors())
		k := make([]float64, d*d)
		for i := 0; i < d; i++ {
			l := lo + (hi-lo)*float64(i)/float64(d-1)
			for a := 0; a < d; a++ {
				for b := 0; b < d; b++ {
					k[a*d+b] += l * q[i*d+a] * q[i*d+b]
				}
			}
		}
		return k
	}
	ref := synthetic.EigSym64(p)
	for _, c := range []struct {
		lo, hi float64
		f32    bool
	}{{1, 1.5, true}, {1e-3, 1, false}} {
		k := withSpectrum(c.lo, c.hi)
		require.NoError(t, ref.FactorizeLower(k))
		want := slices.Clone(ref.Values())
		for _, on := range []int{0, paperSettings.InnerIters - 1} {
			require.NoError(t, p.SetLowerFloat32Steps(on))
			lam, _, err := synthetic.HInvEig(p, k)
			require.NoError(t, err)
			if on == 0 || !c.f32 || lapackx.Backend() != "openblas" {
				require.Equal(t, want, lam, "spectrum [%g, %g], steps %d: float64 expected", c.lo, c.hi, on)
				continue
			}
			require.NotEqual(t, want, lam, "spectrum [%g, %g]: float32 expected", c.lo, c.hi)
			for i := range lam {
				require.InDelta(t, want[i], lam[i], 4*d*lapackx.F32Unit*c.hi, "λ_%d", i)
			}
		}
	}
}

// TestMixedTail: HessGyInv's float32 tail (hinvTail32) gives the float64
// tail's H⁻¹[V] from the same float32 eigendecomposition to float32's
// level: within 8·d·u₃₂·κ(M) relative in the Frobenius norm, κ(M) the
// condition number of M, by which the congruences with G = q Lᵀ (‖G‖² =
// ‖M‖) scale the rounding of R relative to the result.
func TestMixedTail(t *testing.T) {
	if lapackx.Backend() != "openblas" {
		t.Skip("float32's eigendecomposition and tail run on the native backend only")
	}
	for _, d := range []int{120, 400} {
		sp, p, w, m := setup(t, 2*d, d, 2*d/5)
		offIdentity(t, sp, m, 5)
		require.NoError(t, sp.SetLowerFloat32Steps(paperSettings.InnerIters-1))
		v := make([]float64, d*d)
		sp.SPD.RandTangent(v, m, rand.New(rand.NewPCG(9, 9)))
		pt := &solver.Point{X: w, Y: m, XID: solver.NewID(), YID: solver.NewID()}
		u32, u64 := make([]float64, d*d), make([]float64, d*d)
		synthetic.SetMixedTail(sp, true)
		require.NoError(t, p.HessGyInv(u32, pt, v))
		synthetic.SetMixedTail(sp, false)
		require.NoError(t, p.HessGyInv(u64, pt, v))
		e := lapackx.NewEigSym(d)
		require.NoError(t, e.FactorizeValues(m))
		kappa := e.Values()[d-1] / e.Values()[0]
		diff := make([]float64, d*d)
		floats.SubTo(diff, u32, u64)
		rel := floats.Norm(diff, 2) / floats.Norm(u64, 2)
		t.Logf("d=%d: relative difference %.2g, κ(M) %.3g, bound %.2g", d, rel, kappa, 8*float64(d)*lapackx.F32Unit*kappa)
		require.NotZero(t, rel, "the float32 tail did not run")
		require.LessOrEqual(t, rel, 8*float64(d)*lapackx.F32Unit*kappa)
	}
}

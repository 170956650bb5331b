package synthetic_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// anonymous returns p's oracles seeing every point with unknown identity,
// so that no cache ever matches: each value is computed from scratch.
func anonymous(p solver.Problem) solver.Problem {
	anon := func(pt *solver.Point) *solver.Point { return &solver.Point{X: pt.X, Y: pt.Y} }
	q := p
	q.Retain = nil
	q.F = func(pt *solver.Point) (float64, error) { return p.F(anon(pt)) }
	q.G = func(pt *solver.Point) (float64, error) { return p.G(anon(pt)) }
	for _, f := range []*func([]float64, *solver.Point) error{&q.GradFx, &q.GradFy, &q.GradGy, &q.GradGx, &q.LowerSolve} {
		g := *f
		*f = func(dst []float64, pt *solver.Point) error { return g(dst, anon(pt)) }
	}
	for _, f := range []*func([]float64, *solver.Point, []float64) error{&q.HessGy, &q.CrossGxy, &q.CrossGyx, &q.HessGyInv} {
		g := *f
		*f = func(dst []float64, pt *solver.Point, v []float64) error { return g(dst, anon(pt), v) }
	}
	return q
}

// TestRetainKeepsPath: with Retain(S+1), the lower steps leave A M and the
// retraction's Cholesky factor of every iterate for the reverse pass, and
// the oracles there agree with fresh evaluations.
func TestRetainKeepsPath(t *testing.T) {
	const S, eta = 6, 0.5
	sp, p, w, m := setup(t, 40, 12, 4)
	offIdentity(t, sp, m, 5)
	sp.Retain(S + 1)
	ref, _, _, _ := setup(t, 40, 12, 4)
	fresh := anonymous(ref.Bilevel())

	xid := solver.NewID()
	path := make([]solver.Point, S)
	g := make([]float64, len(m))
	for s := range path {
		path[s] = solver.Point{X: w, Y: append([]float64(nil), m...), XID: xid, YID: solver.NewID()}
		testkit.Must(t, p.GradGy(g, &path[s]))
		require.NoError(t, sp.SPD.Retract(m, m, g, -eta))
	}
	for s := range path {
		l, am := synthetic.Kept(sp, &path[s])
		require.True(t, am, "A M of point %d", s)
		require.True(t, l, "factor of point %d: kept from the retraction that made it", s)
	}

	rnd := offIdentity(t, sp, append([]float64(nil), m...), 6)
	v, got, want := make([]float64, len(m)), make([]float64, len(m)), make([]float64, len(m))
	gx, wx := make([]float64, len(w)), make([]float64, len(w))
	for s := S - 1; s >= 0; s-- { // AD's order
		pt := &path[s]
		sp.SPD.RandTangent(v, pt.Y, rnd)
		testkit.Must(t, p.CrossGxy(gx, pt, v))
		testkit.Must(t, fresh.CrossGxy(wx, pt, v))
		require.Less(t, testkit.Rel(gx, wx), 1e-13, "CrossGxy at point %d", s)
		testkit.Must(t, p.HessGy(got, pt, v))
		testkit.Must(t, fresh.HessGy(want, pt, v))
		require.Less(t, testkit.Rel(got, want), 1e-13, "HessGy at point %d", s)
		testkit.Must(t, p.HessGyInv(got, pt, v))
		testkit.Must(t, fresh.HessGyInv(want, pt, v))
		require.Less(t, testkit.Rel(got, want), 1e-12, "HessGyInv at point %d", s)
		gv, err := p.G(pt)
		require.NoError(t, err)
		wv, err := fresh.G(pt)
		require.NoError(t, err)
		require.InDelta(t, wv, gv, 1e-13*math.Abs(wv), "G at point %d", s)
	}
}

// TestADReusesExactly: one AD estimate at the paper's sizes, with the
// per-point work of the lower steps reused, agrees to 1e−12 with the same
// estimate computed without any cache and with the paper's formulas
// written out densely: H[U] = ½(UAM + MAU + UM⁻¹B + BM⁻¹U) and
// G_xy[V] = −2 P_W(M⁻¹ V M⁻¹ W YᵀY) along the lower path.
func TestADReusesExactly(t *testing.T) {
	r := warm(t, "ad")
	x0, y0 := append([]float64(nil), r.X()...), append([]float64(nil), r.Y()...)
	hg, err := r.Hypergradient(true)
	require.NoError(t, err)
	hg = append([]float64(nil), hg...)

	// The same solver over oracles that never hit a cache.
	sp, p, _, _ := setup(t, 100, 50, 20)
	s := paperSettings
	s.Estimator = solver.AD{}
	plain, err := solver.New(anonymous(p), &s)
	require.NoError(t, err)
	require.NoError(t, plain.Reset(x0, y0))
	hgPlain, err := plain.Hypergradient(true)
	require.NoError(t, err)
	t.Logf("cached against uncached: %.3g", testkit.Rel(hg, hgPlain))
	require.Less(t, testkit.Rel(hg, hgPlain), 1e-12, "cached against uncached")

	// The reverse pass written out, on the lower path recomputed.
	d, rr, eta := 50, 20, s.EtaY
	data, err := synthetic.Generate(100, d, rr, 0.01, 42)
	require.NoError(t, err)
	w := mat.NewDense(d, rr, x0)
	a := mat.NewDense(d, d, sp.A)
	var wyy, b mat.Dense
	wyy.Mul(w, mat.NewDense(rr, rr, sp.YtY))
	b.Mul(&wyy, w.T())
	for i := 0; i < d; i++ {
		b.Set(i, i, b.At(i, i)+data.Nu)
	}
	ys := [][]float64{append([]float64(nil), y0...)}
	g := make([]float64, d*d)
	for k := 0; k < s.InnerIters; k++ {
		y := ys[k]
		testkit.Must(t, p.GradGy(g, testkit.At(x0, y)))
		next := make([]float64, d*d)
		require.NoError(t, sp.SPD.Retract(next, y, g, -eta))
		ys = append(ys, next)
	}
	S := s.InnerIters
	lam, want := make([]float64, d*d), make([]float64, len(x0))
	testkit.Must(t, p.GradFy(lam, testkit.At(x0, ys[S])))
	testkit.Must(t, p.GradFx(want, testkit.At(x0, ys[S])))
	cross := make([]float64, len(x0))
	for k := S - 1; k >= 0; k-- {
		m := mat.NewDense(d, d, ys[k])
		var mi mat.Dense
		require.NoError(t, mi.Inverse(m))
		mu := mat.NewDense(d, d, nil)
		mu.Add(mat.NewDense(d, d, lam), mat.NewDense(d, d, lam).T()) // the identity transport: sym
		mu.Scale(0.5, mu)
		var t1, t2 mat.Dense // −2 M⁻¹ μ M⁻¹ W YᵀY, projected
		t1.Mul(&mi, mu)
		t2.Mul(&t1, &mi)
		var c mat.Dense
		c.Mul(&t2, &wyy)
		c.Scale(-2, &c)
		sp.St.Project(cross, x0, c.RawMatrix().Data)
		for i := range want {
			want[i] -= eta * cross[i]
		}
		var uam, mau, umib, bmiu, h mat.Dense
		uam.Mul(mu, a)
		uam.Mul(&uam, m)
		mau.Mul(m, a)
		mau.Mul(&mau, mu)
		umib.Mul(mu, &mi)
		umib.Mul(&umib, &b)
		bmiu.Mul(&b, &mi)
		bmiu.Mul(&bmiu, mu)
		h.Add(&uam, &mau)
		h.Add(&h, &umib)
		h.Add(&h, &bmiu)
		h.Scale(-0.5*eta, &h)
		h.Add(&h, mu)
		copy(lam, h.RawMatrix().Data)
	}
	t.Logf("cached against the written-out reverse pass: %.3g", testkit.Rel(hg, want))
	require.Less(t, testkit.Rel(hg, want), 1e-12, "cached against the written-out reverse pass")
}

// TestCheckProblem: every oracle passes solver.CheckProblem, including its
// check that evaluations cached by identity agree with fresh ones, with
// the default single slot per M and with slots for a whole lower path.
func TestCheckProblem(t *testing.T) {
	for _, n := range []int{1, 21} {
		sp, p, w, m := setup(t, 40, 12, 4)
		offIdentity(t, sp, m, 9)
		sp.Retain(n)
		reports := solver.CheckProblem(p, w, m, &solver.ProblemCheck{Seed: 3, SecondOrderY: true})
		require.GreaterOrEqual(t, len(reports), 8, "a report per oracle")
		for _, r := range reports {
			require.True(t, r.OK, "%d slots: %v", n, r)
		}
	}
}

package spd_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// synth is the paper's synthetic problem (package problems/synthetic)
// written with Euclidean oracles, so that solver.Euclidean converts them
// in whichever metric the SPD manifold has:
//
//	f(W, M) = −tr(M C Wᵀ),  g(W, M) = ⟨M, A⟩ + ⟨M⁻¹, W S Wᵀ + νI⟩,
//
// A = XᵀX, C = XᵀY, S = YᵀY. The lower minimizer is metric-free,
// M*(W) = A^−½ (A^½ B A^½)^½ A^−½ with B = W S Wᵀ + νI (M A M = B), and
// so is the hypergradient of F(W) = f(W, M*(W)).
type synth struct {
	d, r    int
	a, c, s *mat.Dense
	nu      float64
}

func newSynth(n, d, r int, rnd *rand.Rand) *synth {
	x, y := mat.NewDense(n, d, nil), mat.NewDense(n, r, nil)
	for _, m := range []*mat.Dense{x, y} {
		rr, cc := m.Dims()
		for i := 0; i < rr; i++ {
			for j := 0; j < cc; j++ {
				m.Set(i, j, rnd.NormFloat64())
			}
		}
		m.Scale(1/mat.Norm(m, 2), m)
	}
	p := &synth{d: d, r: r, a: &mat.Dense{}, c: &mat.Dense{}, s: &mat.Dense{}, nu: 0.01}
	p.a.Mul(x.T(), x)
	p.c.Mul(x.T(), y)
	p.s.Mul(y.T(), y)
	return p
}

func (p *synth) w(pt *solver.Point) *mat.Dense { return mat.NewDense(p.d, p.r, pt.X) }
func (p *synth) m(pt *solver.Point) *mat.Dense { return mat.NewDense(p.d, p.d, pt.Y) }

func (p *synth) b(w *mat.Dense) *mat.Dense {
	var b mat.Dense
	b.Product(w, p.s, w.T())
	for i := 0; i < p.d; i++ {
		b.Set(i, i, b.At(i, i)+p.nu)
	}
	return &b
}

func inv(m *mat.Dense) *mat.Dense {
	var v mat.Dense
	if err := v.Inverse(m); err != nil {
		panic(err)
	}
	return &v
}

func put(dst []float64, m mat.Matrix) { copy(dst, mat.DenseCopyOf(m).RawMatrix().Data) }

func (p *synth) problem(my *spd.SPD) solver.Problem {
	return solver.Euclidean(solver.EuclideanProblem{
		Mx: stiefel.New(p.d, p.r), My: my,
		F: func(pt *solver.Point) (float64, error) {
			var t mat.Dense
			t.Product(p.m(pt), p.c, p.w(pt).T())
			return -mat.Trace(&t), nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error {
			var t mat.Dense
			t.Mul(p.m(pt), p.c)
			t.Scale(-1, &t)
			put(dst, &t)
			return nil
		},
		GradFy: func(dst []float64, pt *solver.Point) error {
			var t mat.Dense
			t.Mul(p.w(pt), p.c.T())
			t.Scale(-1, &t)
			put(dst, &t)
			return nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error { // A − M⁻¹BM⁻¹
			mi := inv(p.m(pt))
			var t mat.Dense
			t.Product(mi, p.b(p.w(pt)), mi)
			t.Sub(p.a, &t)
			put(dst, &t)
			return nil
		},
		HessGy: func(dst []float64, pt *solver.Point, v []float64) error { // M⁻¹VM⁻¹BM⁻¹ + M⁻¹BM⁻¹VM⁻¹
			mi, vm := inv(p.m(pt)), mat.NewDense(p.d, p.d, v)
			var t, u mat.Dense
			t.Product(mi, vm, mi, p.b(p.w(pt)), mi)
			u.Product(mi, p.b(p.w(pt)), mi, vm, mi)
			t.Add(&t, &u)
			put(dst, &t)
			return nil
		},
		CrossGxy: func(dst []float64, pt *solver.Point, v []float64) error { // −2 M⁻¹VM⁻¹ W S
			mi := inv(p.m(pt))
			var t mat.Dense
			t.Product(mi, mat.NewDense(p.d, p.d, v), mi, p.w(pt), p.s)
			t.Scale(-2, &t)
			put(dst, &t)
			return nil
		},
	})
}

// mStar returns M*(W).
func (p *synth) mStar(w []float64) []float64 {
	d := p.d
	sf := lapackx.NewSymFunc(d)
	ah, aih := make([]float64, d*d), make([]float64, d*d)
	a := mat.DenseCopyOf(p.a).RawMatrix().Data
	lapackx.Symmetrize(a, d)
	if err := sf.SqrtInvSqrt(ah, aih, a); err != nil {
		panic(err)
	}
	var t mat.Dense
	t.Product(mat.NewDense(d, d, ah), p.b(mat.NewDense(d, p.r, w)), mat.NewDense(d, d, ah))
	tt := t.RawMatrix().Data
	lapackx.Symmetrize(tt, d)
	if err := sf.Sqrt(tt, tt); err != nil {
		panic(err)
	}
	t.Product(mat.NewDense(d, d, aih), &t, mat.NewDense(d, d, aih))
	out := t.RawMatrix().Data
	lapackx.Symmetrize(out, d)
	return out
}

// bigF is F(W) = f(W, M*(W)).
func (p *synth) bigF(w []float64) float64 {
	var t mat.Dense
	t.Product(mat.NewDense(p.d, p.d, p.mStar(w)), p.c, mat.NewDense(p.d, p.r, w).T())
	return -mat.Trace(&t)
}

// TestMetricsHypergradient: at (W, M*(W)) the hypergradient that CG
// estimates through each metric's Hessian, connection and whitening is
// the same vector, the metric-free gradient of F, which central
// differences of F along Stiefel retractions check independently.
func TestMetricsHypergradient(t *testing.T) {
	const n, d, r = 20, 8, 3
	rnd := rand.New(rand.NewPCG(11, 11))
	p := newSynth(n, d, r, rnd)
	st := stiefel.New(d, r)
	w := make([]float64, d*r)
	st.RandPoint(w, rnd)
	ms := p.mStar(w)
	var hgs [][]float64
	for _, mt := range []spd.Metric{spd.AffineInvariant, spd.LogEuclidean, spd.BuresWasserstein} {
		rs, err := solver.New(p.problem(spd.NewMetric(d, mt)), &solver.Settings{Estimator: &solver.CG{Tol: 1e-13, MaxIter: 1000}})
		require.NoError(t, err)
		hg, err := rs.Estimate(w, ms)
		require.NoError(t, err, "%v", mt)
		hgs = append(hgs, hg)
	}
	for i, mt := range []string{"log-euclidean", "bures-wasserstein"} {
		e := relErrVec(hgs[i+1], hgs[0])
		t.Logf("%s vs affine-invariant: hypergradients differ by %.2e relative", mt, e)
		require.Less(t, e, 1e-9, mt)
	}
	// ⟨grad F, ξ⟩ against (F(R(hξ)) − F(R(−hξ)))/2h, error O(h²).
	xi, wp, wm := make([]float64, d*r), make([]float64, d*r), make([]float64, d*r)
	for k := 0; k < 3; k++ {
		st.RandTangent(xi, w, rnd)
		const h = 1e-5
		require.NoError(t, st.Retract(wp, w, xi, h))
		require.NoError(t, st.Retract(wm, w, xi, -h))
		fd := (p.bigF(wp) - p.bigF(wm)) / (2 * h)
		var ip float64
		for i := range xi {
			ip += hgs[0][i] * xi[i]
		}
		t.Logf("direction %d: ⟨ĝrad F, ξ⟩ = %.12g, central difference %.12g", k, ip, fd)
		require.InDelta(t, fd, ip, 1e-7*math.Max(1, math.Abs(fd)))
	}
}

func relErrVec(got, want []float64) float64 {
	var d, w float64
	for i := range got {
		d += (got[i] - want[i]) * (got[i] - want[i])
		w += want[i] * want[i]
	}
	return math.Sqrt(d / w)
}

// TestMetricsRun runs RHGD on the synthetic problem with each metric and
// logs the hypergradient norms (reported, not asserted: a fixed step
// size's progress is not a guarantee).
func TestMetricsRun(t *testing.T) {
	const n, d, r = 20, 8, 3
	rnd := rand.New(rand.NewPCG(12, 12))
	p := newSynth(n, d, r, rnd)
	w0 := make([]float64, d*r)
	stiefel.New(d, r).RandPoint(w0, rnd)
	m0 := p.mStar(w0) // start at the lower solution of W0; the run then tracks it
	for _, mt := range []spd.Metric{spd.AffineInvariant, spd.LogEuclidean, spd.BuresWasserstein} {
		var norms []float64
		rec := recorderFunc(func(e *solver.EpochStats) error { norms = append(norms, e.HyperGradNorm); return nil })
		res, err := solver.Minimize(context.Background(), p.problem(spd.NewMetric(d, mt)), w0, m0,
			&solver.Settings{EtaX: 0.5, EtaY: 0.05, InnerIters: 20, Epochs: 100, Recorder: rec})
		require.NoError(t, err, "%v", mt)
		t.Logf("%-18v ‖ĝrad F‖: epoch 0 %.3e, 10 %.3e, 50 %.3e, 99 %.3e; F = %.6f, F(W_K) with M* = %.6f",
			mt, norms[0], norms[10], norms[50], norms[99], res.F, p.bigF(res.X))
	}
}

type recorderFunc func(*solver.EpochStats) error

func (f recorderFunc) Record(e *solver.EpochStats) error { return f(e) }

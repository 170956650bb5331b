package solver_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/product"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

const unitRoundoff = 0x1p-53

// spectrumAt runs one epoch of est on p from (x, y) with no lower steps
// that move y (η_y tiny) and returns the estimate and its spectrum
// estimate.
func spectrumAt(t *testing.T, p solver.Problem, est solver.Estimator, x, y []float64, lanczos int) (hg []float64, lo, hi float64) {
	t.Helper()
	var es solver.EstimatorStats
	rec := recorderFunc(func(s *solver.EpochStats) error {
		es, hg = s.Estimate, append([]float64(nil), s.HyperGrad...)
		return nil
	})
	s := solver.Settings{Estimator: est, InnerIters: 1, EtaY: 1e-300, Epochs: 1, Recorder: rec, Lanczos: lanczos}
	r, err := solver.New(p, &s)
	require.NoError(t, err)
	require.NoError(t, r.Reset(x, y))
	_, err = r.Step()
	require.NoError(t, err)
	return hg, es.MinEig, es.MaxEig
}

// derivedVsGiven checks, on a problem p with HessGyInv, that HINV with
// the inverse derived from HessGy (p without HessGyInv) gives the
// hypergradient of the given inverse at (x, y), to a bound of the order
// of D·ε·κ(H), and that its exact extreme eigenvalues bracket CG's Ritz
// values (Ritz values lie inside the spectrum).
func derivedVsGiven(t *testing.T, name string, p solver.Problem, x, y []float64) {
	t.Helper()
	given, err := solver.New(p, &solver.Settings{Estimator: solver.HInv{}, InnerIters: 1, EtaY: 1e-300})
	require.NoError(t, err, name)
	want, err := given.Estimate(x, y)
	require.NoError(t, err, name)
	q := p
	q.HessGyInv = nil
	derived, err := solver.New(q, &solver.Settings{Estimator: solver.HInv{}, InnerIters: 1, EtaY: 1e-300})
	require.NoError(t, err, name)
	got, err := derived.Estimate(x, y)
	require.NoError(t, err, name)
	_, lo, hi := spectrumAt(t, q, solver.HInv{}, x, y, 0)
	require.Greater(t, lo, 0.0, name)
	kappa := hi / lo
	d := float64(p.My.Dim())
	rel := floats.Distance(got, want, 2) / floats.Norm(want, 2)
	bound := 64 * d * unitRoundoff * kappa * 100 // 100: the given inverse's own rounding and the basis's
	t.Logf("%s: D = %v, κ = %.3g, relative difference %.3g (bound %.3g)", name, d, kappa, rel, bound)
	assert.Less(t, rel, max(bound, 1e-12), "%s: derived vs given inverse", name)
	// CG's Ritz values lie in [λ_min, λ_max].
	_, rlo, rhi := spectrumAt(t, q, &solver.CG{Tol: 1e-12, MaxIter: 400}, x, y, 0)
	slack := 1e3 * d * unitRoundoff * hi
	assert.LessOrEqual(t, lo, rlo+slack, "%s: λ_min %.6g vs CG's Ritz %.6g", name, lo, rlo)
	assert.GreaterOrEqual(t, hi, rhi-slack, "%s: λ_max %.6g vs CG's Ritz %.6g", name, hi, rhi)
}

// TestHInvDerivedMatchesGiven: on problems that give HessGyInv, the
// derived inverse gives the same hypergradient: the synthetic problem
// (SPD lower level, a Whitener, and again through the metric's own inner
// products), the hyper-representation problem (a Euclidean lower level:
// the identity basis) and the Euclidean quadratic.
func TestHInvDerivedMatchesGiven(t *testing.T) {
	sp := smallSynthetic(t, 6, 3)
	x, y := sp.Start(3)
	p := sp.Bilevel()
	// Near the lower solution, where H is positive definite.
	r, err := solver.New(p, &solver.Settings{Estimator: &solver.CG{}, InnerIters: 20, EtaY: 0.5})
	require.NoError(t, err)
	_, y, err = r.EstimateLower(x, y)
	require.NoError(t, err)
	derivedVsGiven(t, "synthetic SPD(6)", p, x, y)
	func() {
		defer solver.SetNoWhiten(true)()
		derivedVsGiven(t, "synthetic SPD(6), metric inner products", p, x, y)
	}()

	hp := smallHyperrep(t, hyperrep.Sizes{N: 40, D: 8, K: 3, NTrain: 20, Noise: 1})
	w, beta := hp.Start(3)
	derivedVsGiven(t, "hyperrep (Euclidean)", hp.Bilevel(), w, beta)

	_, qp, mx, my, x0, _ := quadSetup(4)
	derivedVsGiven(t, "quadratic (Euclidean)", on(qp, mx, my), x0, make([]float64, 6))
}

// TestHInvDerivedSpectrum: on the Euclidean quadratic the derived
// estimate reports the exact extreme eigenvalues of the lower Hessian A,
// as gonum's eigensolver gives them, and counts its D Hessian products.
func TestHInvDerivedSpectrum(t *testing.T) {
	rnd := rand.New(rand.NewPCG(31, 31))
	e := newQuad(rnd, 4, 7, 0.3, 5)
	p := on(e.problem(), euclid.New(4, 1), euclid.New(7, 1))
	var es mat.EigenSym
	require.True(t, es.Factorize(mat.NewSymDense(7, e.A.RawMatrix().Data), false))
	w := es.Values(nil)
	_, lo, hi := spectrumAt(t, p, solver.HInv{}, []float64{0.1, 0.2, -0.3, 0.4}, make([]float64, 7), 0)
	assert.InDelta(t, w[0], lo, 1e2*unitRoundoff*w[6])
	assert.InDelta(t, w[6], hi, 1e2*unitRoundoff*w[6])
}

// brockett is a bilevel problem with its lower level on St(n, 2):
// g(x, y) = −½ tr(yᵀA(x)yN), A(x) = A₀ + Σ_i x_i A_i symmetric with
// distinct eigenvalues, N = diag(2, 1), whose minimizer y*(x) is A(x)'s
// two leading eigenvectors in order (up to their signs), a nondegenerate
// minimum; f(x, y) = ½‖y − T‖² + ½‖x‖². F(x) = f(x, y*(x)) is computable
// by an eigensolver, so its derivative by finite differences is a truth
// for the hypergradient.
type brockett struct {
	n, k int
	a0   []float64   // n×n
	ai   [][]float64 // k of n×n
	tgt  []float64   // n×2
	ref  []float64   // n×2: the signs' reference
}

var brockettN = [2]float64{2, 1}

func newBrockett(seed uint64) *brockett {
	const n, k = 5, 3
	rnd := rand.New(rand.NewPCG(seed, 77))
	b := &brockett{n: n, k: k, a0: make([]float64, n*n), tgt: make([]float64, n*2)}
	a := spdMat(rnd, n, 1, 5).RawMatrix().Data
	copy(b.a0, a)
	for range k {
		m := make([]float64, n*n)
		for i := range n {
			for j := 0; j <= i; j++ {
				v := 0.3 * rnd.NormFloat64()
				m[i*n+j], m[j*n+i] = v, v
			}
		}
		b.ai = append(b.ai, m)
	}
	for i := range b.tgt {
		b.tgt[i] = rnd.NormFloat64()
	}
	b.ref = b.ystar(make([]float64, k), nil)
	return b
}

// amat returns A(x).
func (b *brockett) amat(x []float64) *mat.Dense {
	a := mat.NewDense(b.n, b.n, append([]float64(nil), b.a0...))
	for i, xi := range x {
		for j := range b.n * b.n {
			a.RawMatrix().Data[j] += xi * b.ai[i][j]
		}
	}
	return a
}

// ystar returns A(x)'s two leading eigenvectors as the columns of an n×2
// matrix, signed to agree with ref (when not nil).
func (b *brockett) ystar(x, ref []float64) []float64 {
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(b.n, b.amat(x).RawMatrix().Data), true) {
		panic("eigen")
	}
	var v mat.Dense
	es.VectorsTo(&v)
	y := make([]float64, b.n*2)
	for c := range 2 {
		col := b.n - 1 - c // ascending values
		var dot float64
		for i := range b.n {
			y[i*2+c] = v.At(i, col)
			if ref != nil {
				dot += y[i*2+c] * ref[i*2+c]
			}
		}
		if dot < 0 {
			for i := range b.n {
				y[i*2+c] = -y[i*2+c]
			}
		}
	}
	return y
}

func (b *brockett) f(x, y []float64) float64 {
	var s float64
	for i := range y {
		s += 0.5 * (y[i] - b.tgt[i]) * (y[i] - b.tgt[i])
	}
	for _, v := range x {
		s += 0.5 * v * v
	}
	return s
}

// ayn sets dst = −M y N for the n×n M and the n×2 y.
func (b *brockett) ayn(dst, m, y []float64) {
	n := b.n
	for i := range n {
		for c := range 2 {
			var s float64
			for j := range n {
				s += m[i*n+j] * y[j*2+c]
			}
			dst[i*2+c] = -s * brockettN[c]
		}
	}
}

// trN returns tr(uᵀ M v N) for n×2 u, v.
func (b *brockett) trN(u, m, v []float64) float64 {
	n := b.n
	var s float64
	for c := range 2 {
		for i := range n {
			for j := range n {
				s += u[i*2+c] * m[i*n+j] * v[j*2+c] * brockettN[c]
			}
		}
	}
	return s
}

func (b *brockett) problem() solver.Problem { return solver.Euclidean(b.euclidean()) }

// euclidean returns the problem's Euclidean oracles.
func (b *brockett) euclidean() solver.EuclideanProblem {
	mx, my := euclid.New(b.k, 1), stiefel.New(b.n, 2)
	return solver.EuclideanProblem{Mx: mx, My: my,
		F: func(pt *solver.Point) (float64, error) { return b.f(pt.X, pt.Y), nil },
		G: func(pt *solver.Point) (float64, error) {
			return -0.5 * b.trN(pt.Y, b.amat(pt.X).RawMatrix().Data, pt.Y), nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error { copy(dst, pt.X); return nil },
		GradFy: func(dst []float64, pt *solver.Point) error {
			for i := range dst {
				dst[i] = pt.Y[i] - b.tgt[i]
			}
			return nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			b.ayn(dst, b.amat(pt.X).RawMatrix().Data, pt.Y)
			return nil
		},
		GradGx: func(dst []float64, pt *solver.Point) error {
			for i := range dst {
				dst[i] = -0.5 * b.trN(pt.Y, b.ai[i], pt.Y)
			}
			return nil
		},
		HessGy: func(dst []float64, pt *solver.Point, v []float64) error {
			b.ayn(dst, b.amat(pt.X).RawMatrix().Data, v)
			return nil
		},
		CrossGxy: func(dst []float64, pt *solver.Point, v []float64) error {
			for i := range dst {
				dst[i] = -b.trN(pt.Y, b.ai[i], v)
			}
			return nil
		},
	}
}

// spdEuclid is a bilevel problem with its lower level on the product
// SPD(3) × R²: g(x, (S, z)) = tr(A(x)S) − 2 log det S + ½zᵀCz − zᵀBx,
// geodesically strongly convex in S (tr(A(x)S) along a geodesic has
// second derivative tr(S^½A S^½X²) > 0, −log det S is geodesically
// linear), with y*(x) = (2A(x)⁻¹, C⁻¹Bx); f(x, y) = ½‖S − T‖² + ½‖z‖² +
// ½‖x‖².
type spdEuclid struct {
	a0  []float64
	ai  [][]float64
	c   *mat.Dense // 2×2 SPD
	b   *mat.Dense // 2×k
	tgt []float64  // 3×3
}

func newSPDEuclid(seed uint64) *spdEuclid {
	const k = 3
	rnd := rand.New(rand.NewPCG(seed, 78))
	s := &spdEuclid{a0: spdMat(rnd, 3, 1, 3).RawMatrix().Data, c: spdMat(rnd, 2, 0.5, 4), b: mat.NewDense(2, k, nil),
		tgt: spdMat(rnd, 3, 0.5, 2).RawMatrix().Data}
	for range k {
		m := make([]float64, 9)
		for i := range 3 {
			for j := 0; j <= i; j++ {
				v := 0.2 * rnd.NormFloat64()
				m[i*3+j], m[j*3+i] = v, v
			}
		}
		s.ai = append(s.ai, m)
	}
	for i := range 2 {
		for j := range k {
			s.b.Set(i, j, rnd.NormFloat64())
		}
	}
	return s
}

func (s *spdEuclid) amat(x []float64) *mat.Dense {
	a := mat.NewDense(3, 3, append([]float64(nil), s.a0...))
	for i, xi := range x {
		for j := range 9 {
			a.RawMatrix().Data[j] += xi * s.ai[i][j]
		}
	}
	return a
}

func (s *spdEuclid) ystar(x []float64) []float64 {
	var ai mat.Dense
	if err := ai.Inverse(s.amat(x)); err != nil {
		panic(err)
	}
	var bx, z mat.VecDense
	bx.MulVec(s.b, mat.NewVecDense(len(x), x))
	if err := z.SolveVec(s.c, &bx); err != nil {
		panic(err)
	}
	y := make([]float64, 11)
	for i, v := range ai.RawMatrix().Data {
		y[i] = 2 * v
	}
	copy(y[9:], z.RawVector().Data)
	return y
}

func (s *spdEuclid) f(x, y []float64) float64 {
	var v float64
	for i := range 9 {
		v += 0.5 * (y[i] - s.tgt[i]) * (y[i] - s.tgt[i])
	}
	for _, w := range append(append([]float64(nil), y[9:]...), x...) {
		v += 0.5 * w * w
	}
	return v
}

func (s *spdEuclid) problem() solver.Problem { return solver.Euclidean(s.euclidean()) }

// euclidean returns the problem's Euclidean oracles.
func (s *spdEuclid) euclidean() solver.EuclideanProblem {
	mx, my := euclid.New(3, 1), product.New(spd.New(3), euclid.New(2, 1))
	inv := func(y []float64) *mat.Dense {
		var si mat.Dense
		if err := si.Inverse(mat.NewDense(3, 3, append([]float64(nil), y[:9]...))); err != nil {
			panic(err)
		}
		return &si
	}
	return solver.EuclideanProblem{Mx: mx, My: my,
		F: func(pt *solver.Point) (float64, error) { return s.f(pt.X, pt.Y), nil },
		G: func(pt *solver.Point) (float64, error) {
			sm := mat.NewDense(3, 3, append([]float64(nil), pt.Y[:9]...))
			var as mat.Dense
			as.Mul(s.amat(pt.X), sm)
			z, x := mat.NewVecDense(2, append([]float64(nil), pt.Y[9:]...)), mat.NewVecDense(3, append([]float64(nil), pt.X...))
			var cz, bx mat.VecDense
			cz.MulVec(s.c, z)
			bx.MulVec(s.b, x)
			return mat.Trace(&as) - 2*math.Log(mat.Det(sm)) + 0.5*mat.Dot(z, &cz) - mat.Dot(z, &bx), nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error { copy(dst, pt.X); return nil },
		GradFy: func(dst []float64, pt *solver.Point) error {
			for i := range 9 {
				dst[i] = pt.Y[i] - s.tgt[i]
			}
			copy(dst[9:], pt.Y[9:])
			return nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			a, si := s.amat(pt.X).RawMatrix().Data, inv(pt.Y).RawMatrix().Data
			for i := range 9 {
				dst[i] = a[i] - 2*si[i]
			}
			var cz, bx mat.VecDense
			cz.MulVec(s.c, mat.NewVecDense(2, append([]float64(nil), pt.Y[9:]...)))
			bx.MulVec(s.b, mat.NewVecDense(3, append([]float64(nil), pt.X...)))
			dst[9], dst[10] = cz.AtVec(0)-bx.AtVec(0), cz.AtVec(1)-bx.AtVec(1)
			return nil
		},
		GradGx: func(dst []float64, pt *solver.Point) error {
			for i := range dst {
				dst[i] = floats.Dot(s.ai[i], pt.Y[:9]) - (s.b.At(0, i)*pt.Y[9] + s.b.At(1, i)*pt.Y[10])
			}
			return nil
		},
		HessGy: func(dst []float64, pt *solver.Point, v []float64) error {
			si := inv(pt.Y)
			var t, u mat.Dense
			t.Mul(si, mat.NewDense(3, 3, append([]float64(nil), v[:9]...)))
			u.Mul(&t, si)
			for i, w := range u.RawMatrix().Data {
				dst[i] = 2 * w
			}
			var cw mat.VecDense
			cw.MulVec(s.c, mat.NewVecDense(2, append([]float64(nil), v[9:]...)))
			dst[9], dst[10] = cw.AtVec(0), cw.AtVec(1)
			return nil
		},
		CrossGxy: func(dst []float64, pt *solver.Point, v []float64) error {
			for i := range dst {
				dst[i] = floats.Dot(s.ai[i], v[:9]) - (s.b.At(0, i)*v[9] + s.b.At(1, i)*v[10])
			}
			return nil
		},
	}
}

// fdGrad returns the central differences of F with step h.
func fdGrad(F func([]float64) float64, x []float64, h float64) []float64 {
	g := make([]float64, len(x))
	for i := range x {
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		xp[i] += h
		xm[i] -= h
		g[i] = (F(xp) - F(xm)) / (2 * h)
	}
	return g
}

// TestHInvDerivedFiniteDifferences: on a Stiefel and a product (SPD × R²)
// lower level, where no inverse Hessian is given, the derived HINV at
// (x, y*(x)) is the derivative of F(x) = f(x, y*(x)) (central
// differences with h = 1e-5: error O(h²) ≈ 1e-10 plus rounding ε|F|/h ≈
// 1e-11, relative to a gradient of order one), and agrees with CG at a
// tight tolerance to rounding.
func TestHInvDerivedFiniteDifferences(t *testing.T) {
	bk := newBrockett(5)
	se := newSPDEuclid(6)
	for _, c := range []struct {
		name  string
		p     solver.Problem
		F     func([]float64) float64
		ystar func([]float64) []float64
	}{
		{"Stiefel(5, 2)", bk.problem(), func(x []float64) float64 { return bk.f(x, bk.ystar(x, bk.ref)) },
			func(x []float64) []float64 { return bk.ystar(x, bk.ref) }},
		{"SPD(3) × R²", se.problem(), func(x []float64) float64 { return se.f(x, se.ystar(x)) }, se.ystar},
	} {
		x := []float64{0.2, -0.1, 0.15}
		y := c.ystar(x)
		hg, lo, hi := spectrumAt(t, c.p, solver.HInv{}, x, y, 0)
		require.Greater(t, lo, 0.0, c.name)
		fd := fdGrad(c.F, x, 1e-5)
		rel := floats.Distance(hg, fd, 2) / floats.Norm(fd, 2)
		t.Logf("%s: D = %d, λ ∈ [%.4g, %.4g], relative difference from finite differences %.3g", c.name, c.p.My.Dim(), lo, hi, rel)
		assert.Less(t, rel, 1e-8, c.name)
		cg, rlo, rhi := spectrumAt(t, c.p, &solver.CG{Tol: 1e-14, MaxIter: 200}, x, y, 0)
		kappa := hi / lo
		relCG := floats.Distance(hg, cg, 2) / floats.Norm(cg, 2)
		assert.Less(t, relCG, max(1e-12, 1e3*unitRoundoff*kappa), "%s: vs CG", c.name)
		slack := 1e3 * unitRoundoff * hi
		assert.LessOrEqual(t, lo, rlo+slack, c.name)
		assert.GreaterOrEqual(t, hi, rhi-slack, c.name)
	}
}

// TestHInvDerivedMinibatch: RSHGD with minibatches (every batch sampled)
// runs the derived HINV on the Hessian batch B4, as the given inverse
// runs on it: the two runs' iterates agree to rounding after 5 epochs,
// and a run's Hessian products are D per epoch (one point and batch per
// epoch).
func TestHInvDerivedMinibatch(t *testing.T) {
	hp := smallHyperrep(t, hyperrep.Sizes{N: 40, D: 8, K: 3, NTrain: 20, Noise: 1})
	w, beta := hp.Start(3)
	p := hp.Bilevel()
	q := p
	q.HessGyInv = nil
	run := func(p solver.Problem) *solver.Result {
		s := hyperrep.Paper.Settings
		s.Estimator, s.Epochs, s.Seed = solver.HInv{}, 5, 9
		s.Batches = solver.Batches{Lower: 5, Upper: 5, Cross: 5, Hess: 5}
		res, err := solver.Minimize(context.Background(), p, w, beta, &s)
		require.NoError(t, err)
		return res
	}
	want, got := run(p), run(q)
	rel := floats.Distance(got.X, want.X, 2) / floats.Norm(want.X, 2)
	assert.Less(t, rel, 1e-10)
	assert.Equal(t, 5*q.My.Dim(), got.Stats.HessVecs)
}

// TestHInvMaxDim: above hinv:maxdim, HINV on a problem without HessGyInv
// is an error at New naming the limit, the dimension and the remedy; the
// spec's option sets it, and 0 is never a value.
func TestHInvMaxDim(t *testing.T) {
	sp := smallSynthetic(t, 6, 3) // SPD(6): dimension 21
	p := sp.Bilevel()
	p.HessGyInv = nil
	est, err := solver.ParseEstimator("hinv:maxdim=20")
	require.NoError(t, err)
	require.Equal(t, solver.HInv{MaxDim: 20}, est)
	require.Equal(t, "hinv:maxdim=20", est.(solver.HInv).String())
	_, err = solver.New(p, &solver.Settings{Estimator: est})
	require.ErrorIs(t, err, solver.ErrMissing)
	for _, s := range []string{"HessGyInv", "maxdim = 20", "dimension 21", "cg"} {
		require.ErrorContains(t, err, s)
	}
	est, err = solver.ParseEstimator("hinv:maxdim=21")
	require.NoError(t, err)
	_, err = solver.New(p, &solver.Settings{Estimator: est})
	require.NoError(t, err)
	_, err = solver.ParseEstimator("hinv:maxdim=0")
	require.ErrorIs(t, err, solver.ErrBadSetting)
	_, err = solver.New(p, &solver.Settings{Estimator: solver.HInv{MaxDim: -1}})
	require.ErrorIs(t, err, solver.ErrBadSetting)
	est, err = solver.ParseEstimator("hinv")
	require.NoError(t, err)
	require.Equal(t, solver.HInv{}, est)
}

// TestHInvDerivedAllocs: after the first epoch, epochs of the derived
// HINV allocate nothing, on an SPD lower level (whitened) and a Euclidean
// one (the identity basis), through HessGy and through HessGyBatch.
func TestHInvDerivedAllocs(t *testing.T) {
	var calls batchCalls
	for _, v := range []struct {
		name string
		wrap func(solver.Problem) solver.Problem
	}{
		{"HessGy", func(p solver.Problem) solver.Problem { return p }},
		{"HessGyBatch", func(p solver.Problem) solver.Problem { return withBatch(p, &calls) }},
	} {
		sp := smallSynthetic(t, 6, 3)
		p := sp.Bilevel()
		p.HessGyInv = nil
		x, y := sp.Start(3)
		s := synthetic.Paper.Settings
		s.Estimator = solver.HInv{}
		r, err := solver.New(v.wrap(p), &s)
		require.NoError(t, err)
		require.Zero(t, stepAllocs(t, r, x, y, 5), "%s: SPD", v.name)

		hp := smallHyperrep(t, hyperrep.Sizes{N: 40, D: 8, K: 3, NTrain: 20, Noise: 1})
		q := hp.Bilevel()
		q.HessGyInv = nil
		w, beta := hp.Start(3)
		s = hyperrep.Paper.Settings
		s.Estimator = solver.HInv{}
		r, err = solver.New(v.wrap(q), &s)
		require.NoError(t, err)
		require.Zero(t, stepAllocs(t, r, w, beta, 5), "%s: Euclidean", v.name)
	}
}

// TestHInvDerivedIndefinite: a lower Hessian with a negative eigenvalue
// (−1, exactly: A is diagonal) is ErrNotPositive, a singular one (an
// exact zero eigenvalue) an ErrNotPosDef too, as CG reports them.
func TestHInvDerivedIndefinite(t *testing.T) {
	for _, c := range []struct {
		name string
		d    []float64
		want error
	}{{"indefinite", []float64{2, -1, 3}, solver.ErrNotPositive}, {"singular", []float64{2, 0, 3}, numerr.ErrNotPosDef}} {
		rnd := rand.New(rand.NewPCG(41, 41))
		e := newQuad(rnd, 2, 3, 1, 2)
		e.A = mat.NewDense(3, 3, []float64{c.d[0], 0, 0, 0, c.d[1], 0, 0, 0, c.d[2]})
		r, err := solver.New(on(e.problem(), euclid.New(2, 1), euclid.New(3, 1)), &solver.Settings{Estimator: solver.HInv{}})
		require.NoError(t, err)
		_, err = r.Estimate([]float64{0.1, 0.2}, []float64{0.3, 0.1, -0.2})
		require.ErrorIs(t, err, c.want, c.name)
		require.ErrorIs(t, err, numerr.ErrNotPosDef, c.name)
		require.ErrorContains(t, err, "not strongly convex", c.name)
	}
}

// BenchmarkHInvEstimate: one hypergradient estimate at a fresh point of
// the synthetic problem (SPD(n) lower level, D = n(n+1)/2) by the given
// inverse, the derived one (D products, the basis, the factor) and CG.
func BenchmarkHInvEstimate(b *testing.B) {
	for _, n := range []int{10, 20} {
		sp := smallSynthetic(b, n, 3)
		x, y := sp.Start(3)
		p := sp.Bilevel()
		r, err := solver.New(p, &solver.Settings{Estimator: &solver.CG{}, InnerIters: 20, EtaY: 0.5})
		require.NoError(b, err)
		_, y, err = r.EstimateLower(x, y)
		require.NoError(b, err)
		q := p
		q.HessGyInv = nil
		for _, c := range []struct {
			name string
			p    solver.Problem
			est  solver.Estimator
		}{{"given", p, solver.HInv{}}, {"derived", q, solver.HInv{}}, {"cg", q, &solver.CG{}}} {
			b.Run(c.name+"/n="+strconv.Itoa(n), func(b *testing.B) {
				r, err := solver.New(c.p, &solver.Settings{Estimator: c.est, InnerIters: 1, EtaY: 1e-300})
				require.NoError(b, err)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := r.Estimate(x, y); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

package solver_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/solver"
)

// quad is the Euclidean bilevel problem
//
//	f(x, y) = ½ yᵀQy + cᵀy + ½ xᵀRx + dᵀx,   g(x, y) = ½ yᵀAy − yᵀBx,
//
// with y*(x) = A⁻¹Bx and ∇F(x) = Rx + d + Bᵀ A⁻¹ (Q y* + c).
type quad struct {
	p, q       int
	Q, R, A, B *mat.Dense
	c, d       *mat.VecDense
}

func spdMat(rnd *rand.Rand, n int, lo, hi float64) *mat.Dense {
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, rnd.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var qm mat.Dense
	qr.QTo(&qm)
	lam := mat.NewDiagDense(n, nil)
	for i := 0; i < n; i++ {
		lam.SetDiag(i, lo+(hi-lo)*float64(i)/float64(max(n-1, 1)))
	}
	var t, a mat.Dense
	t.Mul(&qm, lam)
	a.Mul(&t, qm.T())
	sym := mat.NewDense(n, n, nil)
	sym.Add(&a, a.T())
	sym.Scale(0.5, sym)
	return sym
}

func newQuad(rnd *rand.Rand, p, q int, mu, L float64) *quad {
	b := mat.NewDense(q, p, nil)
	for i := 0; i < q; i++ {
		for j := 0; j < p; j++ {
			b.Set(i, j, rnd.NormFloat64()/math.Sqrt(float64(p)))
		}
	}
	c, d := mat.NewVecDense(q, nil), mat.NewVecDense(p, nil)
	for i := 0; i < q; i++ {
		c.SetVec(i, rnd.NormFloat64())
	}
	for i := 0; i < p; i++ {
		d.SetVec(i, rnd.NormFloat64())
	}
	return &quad{p: p, q: q, Q: spdMat(rnd, q, 0.5, 2), R: spdMat(rnd, p, 0.5, 2), A: spdMat(rnd, q, mu, L), B: b, c: c, d: d}
}

func vec(v []float64) *mat.VecDense { return mat.NewVecDense(len(v), v) }

func (e *quad) problem() solver.Problem { return solver.Euclidean(e.euclidean()) }

// euclidean returns the problem's Euclidean oracles on R^p × R^q.
func (e *quad) euclidean() solver.EuclideanProblem {
	return solver.EuclideanProblem{
		Mx: euclid.New(e.p, 1), My: euclid.New(e.q, 1),
		F: func(pt *solver.Point) (float64, error) {
			x, y := pt.X, pt.Y
			var t1, t2 mat.VecDense
			t1.MulVec(e.Q, vec(y))
			t2.MulVec(e.R, vec(x))
			return 0.5*mat.Dot(vec(y), &t1) + mat.Dot(e.c, vec(y)) + 0.5*mat.Dot(vec(x), &t2) + mat.Dot(e.d, vec(x)), nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error {
			v := vec(dst)
			v.MulVec(e.R, vec(pt.X))
			v.AddVec(v, e.d)
			return nil
		},
		GradFy: func(dst []float64, pt *solver.Point) error {
			v := vec(dst)
			v.MulVec(e.Q, vec(pt.Y))
			v.AddVec(v, e.c)
			return nil
		},
		G: func(pt *solver.Point) (float64, error) {
			var t1, t2 mat.VecDense
			t1.MulVec(e.A, vec(pt.Y))
			t2.MulVec(e.B, vec(pt.X))
			return 0.5*mat.Dot(vec(pt.Y), &t1) - mat.Dot(vec(pt.Y), &t2), nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			var t mat.VecDense
			t.MulVec(e.B, vec(pt.X))
			v := vec(dst)
			v.MulVec(e.A, vec(pt.Y))
			v.SubVec(v, &t)
			return nil
		},
		GradGx: func(dst []float64, pt *solver.Point) error {
			v := vec(dst)
			v.MulVec(e.B.T(), vec(pt.Y))
			v.ScaleVec(-1, v)
			return nil
		},
		HessGy: func(dst []float64, _ *solver.Point, v []float64) error {
			vec(dst).MulVec(e.A, vec(v))
			return nil
		},
		CrossGxy: func(dst []float64, _ *solver.Point, v []float64) error {
			w := vec(dst)
			w.MulVec(e.B.T(), vec(v))
			w.ScaleVec(-1, w)
			return nil
		},
	}
}

func (e *quad) withHINV(p solver.Problem) solver.Problem {
	var chol mat.Cholesky
	chol.Factorize(mat.NewSymDense(e.q, e.A.RawMatrix().Data))
	p.HessGyInv = func(dst []float64, _ *solver.Point, v []float64) error {
		return chol.SolveVecTo(vec(dst), vec(v))
	}
	return p
}

// exactHyper is ∇F(x) at y (the Proposition 1 formula with H = A), and
// ystar is A⁻¹Bx.
func (e *quad) exactHyper(x, y []float64) []float64 {
	var fy, s, out mat.VecDense
	fy.MulVec(e.Q, vec(y))
	fy.AddVec(&fy, e.c)
	if err := s.SolveVec(e.A, &fy); err != nil {
		panic(err)
	}
	out.MulVec(e.B.T(), &s)
	var rx mat.VecDense
	rx.MulVec(e.R, vec(x))
	out.AddVec(&out, &rx)
	out.AddVec(&out, e.d)
	return out.RawVector().Data
}

func (e *quad) ystar(x []float64) []float64 {
	var bx, y mat.VecDense
	bx.MulVec(e.B, vec(x))
	if err := y.SolveVec(e.A, &bx); err != nil {
		panic(err)
	}
	return y.RawVector().Data
}

func relDiff(a, b []float64) float64 {
	var n, d float64
	for i := range a {
		n += (a[i] - b[i]) * (a[i] - b[i])
		d += b[i] * b[i]
	}
	return math.Sqrt(n / d)
}

// estimateAt runs one estimate at (x, y) without lower steps.
func estimateAt(t *testing.T, p solver.Problem, mx, my solver.Manifold, est solver.Estimator, x, y []float64, s *solver.Settings) []float64 {
	t.Helper()
	st := solver.Settings{InnerIters: 1, EtaY: 1e-300}
	if s != nil {
		st = *s
	}
	r, err := solver.New(on(p, mx, my), with(est, &st))
	require.NoError(t, err)
	hg, err := r.Estimate(x, y)
	require.NoError(t, err)
	return hg
}

func TestQuadraticEstimators(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 21))
	e := newQuad(rnd, 6, 9, 0.5, 4)
	p := e.withHINV(e.problem())
	mx, my := euclid.New(6, 1), euclid.New(9, 1)
	x := make([]float64, 6)
	for i := range x {
		x[i] = rnd.NormFloat64()
	}
	y := e.ystar(x)
	want := e.exactHyper(x, y)

	hinv := estimateAt(t, p, mx, my, solver.HInv{}, x, y, nil)
	require.Less(t, relDiff(hinv, want), 1e-13, "HINV is exact")

	cg := estimateAt(t, p, mx, my, &solver.CG{Tol: 1e-14, MaxIter: 100}, x, y, nil)
	require.Less(t, relDiff(cg, want), 1e-12, "CG reaches it")

	// NS: ‖error‖ ≤ ‖Bᵀ‖‖A⁻¹‖(1 − γμ)^T ‖∇_y f‖, the paper's rate.
	var prev float64
	for _, terms := range []int{10, 20, 40} {
		gamma := 1 / 4.0 // 1/L
		ns := estimateAt(t, p, mx, my, &solver.Neumann{Gamma: gamma, Terms: terms}, x, y, nil)
		err := relDiff(ns, want)
		var fy mat.VecDense
		fy.MulVec(e.Q, vec(y))
		fy.AddVec(&fy, e.c)
		bound := mat.Norm(e.B, 2) * (1 / 0.5) * math.Pow(1-gamma*0.5, float64(terms)) * fy.Norm(2) / mat.Norm(vec(want), 2)
		require.LessOrEqual(t, err, bound*1.0001, "NS T=%d within (1−γμ)^T", terms)
		if prev > 0 {
			require.Less(t, err, prev, "NS error shrinks with T")
		}
		prev = err
	}
}

// TestQuadraticAD: AD equals the exact derivative of the unrolled map
// x ↦ f(x, y^S(x)), y^{s+1} = y^s − η∇_y g(x, y^s), from a fixed y^0.
func TestQuadraticAD(t *testing.T) {
	rnd := rand.New(rand.NewPCG(22, 22))
	e := newQuad(rnd, 5, 7, 0.5, 4)
	p := e.problem()
	mx, my := euclid.New(5, 1), euclid.New(7, 1)
	x, y0 := make([]float64, 5), make([]float64, 7)
	for i := range x {
		x[i] = rnd.NormFloat64()
	}
	for i := range y0 {
		y0[i] = rnd.NormFloat64()
	}
	const S, eta = 12, 0.2
	// Closed form: y^S = P^S y0 + Σ_{s<S} P^{S−1−s} η B x, P = I − ηA, so
	// dy^S/dx = η Σ P^k B = J; ∇(f∘unroll) = ∇_x f + Jᵀ ∇_y f(x, y^S).
	q := 7
	P := mat.NewDense(q, q, nil)
	P.Scale(-eta, e.A)
	for i := 0; i < q; i++ {
		P.Set(i, i, P.At(i, i)+1)
	}
	J := mat.NewDense(q, 5, nil)
	Pk := mat.NewDense(q, q, nil)
	for i := 0; i < q; i++ {
		Pk.Set(i, i, 1)
	}
	for k := 0; k < S; k++ {
		var t1 mat.Dense
		t1.Mul(Pk, e.B)
		t1.Scale(eta, &t1)
		J.Add(J, &t1)
		Pk.Mul(Pk, P)
	}
	ys := append([]float64(nil), y0...)
	gy := make([]float64, q)
	for s := 0; s < S; s++ {
		must(t, p.GradGy(gy, at(x, ys)))
		for i := range ys {
			ys[i] -= eta * gy[i]
		}
	}
	fy := make([]float64, q)
	must(t, p.GradFy(fy, at(x, ys)))
	var jt mat.VecDense
	jt.MulVec(J.T(), vec(fy))
	want := make([]float64, 5)
	must(t, p.GradFx(want, at(x, ys)))
	for i := range want {
		want[i] += jt.AtVec(i)
	}

	r, err := solver.New(on(p, mx, my), &solver.Settings{Estimator: solver.AD{}, InnerIters: S, EtaY: eta, EtaX: 1e-300, Epochs: 1})
	require.NoError(t, err)
	res, err := r.Run(context.Background(), x, y0)
	require.NoError(t, err)
	// The run's one epoch estimated at y0 after S lower steps, as
	// Hypergradient(true) from the same start does.
	require.NoError(t, r.Reset(x, y0))
	hg, err := r.Hypergradient(true)
	require.NoError(t, err)
	require.Less(t, relDiff(hg, want), 1e-13)
	require.Equal(t, solver.IterationLimit, res.Status)
}

// TestQuadraticConverges: RHGD with each estimator drives ‖∇F‖ down on the
// quadratic problem, and the final x agrees with the closed-form minimizer
// x* = −(R + BᵀA⁻¹QA⁻¹B)⁻¹(d + BᵀA⁻¹c).
func TestQuadraticConverges(t *testing.T) {
	rnd := rand.New(rand.NewPCG(23, 23))
	e := newQuad(rnd, 4, 6, 1, 3)
	p := e.withHINV(e.problem())
	mx, my := euclid.New(4, 1), euclid.New(6, 1)
	// x* from the normal equations.
	var ai mat.Dense
	require.NoError(t, ai.Inverse(e.A))
	var k, h mat.Dense
	k.Mul(&ai, e.B)
	h.Mul(e.Q, &k)
	var hk mat.Dense
	hk.Mul(k.T(), &h)
	hk.Add(&hk, e.R)
	var rhs, aic mat.VecDense
	aic.MulVec(&ai, e.c)
	rhs.MulVec(e.B.T(), &aic)
	rhs.AddVec(&rhs, e.d)
	var xs mat.VecDense
	require.NoError(t, xs.SolveVec(&hk, &rhs))
	xs.ScaleVec(-1, &xs)
	for _, est := range []solver.Estimator{solver.HInv{}, &solver.CG{}, &solver.Neumann{Gamma: 0.3, Terms: 80}, solver.AD{}} {
		x0, y0 := make([]float64, 4), make([]float64, 6)
		res, err := solver.Minimize(context.Background(), on(p, mx, my), x0, y0, &solver.Settings{Estimator: est, EtaX: 0.3, EtaY: 0.3, InnerIters: 40, Epochs: 400, GradTol: 1e-9})
		require.NoError(t, err, est.Name())
		require.Equal(t, solver.GradientThreshold, res.Status, est.Name())
		require.Less(t, relDiff(res.X, xs.RawVector().Data), 1e-6, est.Name())
	}
}

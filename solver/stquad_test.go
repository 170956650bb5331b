package solver_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

// stquad is a gradients-only bilevel problem with x ∈ St(n, p) and
// y ∈ R^m (issue 29 §2's reproduction):
//
//	f(x, y) = ½ yᵀQy + cᵀy + dᵀvec(x),   g(x, y) = ½ yᵀAy − yᵀB vec(x),
//
// A SPD and well conditioned, so that y*(x) = A⁻¹B vec(x) and the
// Euclidean hypergradient ∇F = Bᵀ A⁻¹ (Q y* + c) + d in closed form; the
// Riemannian one is its projection onto T_x St. It gives F, G and the
// four gradients only: CG runs on it with Hessian and cross products
// filled by finite differences (FillFD), as a C or Python callback
// problem without second derivatives would. The oracles allocate nothing.
type stquad struct {
	n, p, m       int
	A, B, Q       []float64 // m×m, m×np, m×m, row-major
	c, d          []float64
	ainv          *mat.Dense // A⁻¹, for the truth
	t1, t2, tx    []float64
	mx            *stiefel.Stiefel
	x0, y0        []float64
	etaX, etaY    float64
	inner, epochs int
}

// newStquad builds the problem at St(8, 3) × R^10: A's spectrum in
// [1, 3], Q's in [0.5, 2], B's entries N(0, 0.3²), so that upper steps
// of η_x = 0.05 converge (η_x = 0.5 cycles) and CG brings ‖grad F‖ to
// 1e-3 of its start in about 130 epochs; y's 20 steps of η_y = 0.3
// contract its error by at most 0.7 each.
func newStquad(seed uint64) *stquad {
	const n, p, m = 8, 3, 10
	rnd := rand.New(rand.NewPCG(seed, 29))
	s := &stquad{n: n, p: p, m: m, t1: make([]float64, m), t2: make([]float64, m), tx: make([]float64, n*p),
		mx: stiefel.New(n, p), etaX: 0.05, etaY: 0.3, inner: 20}
	s.A = spdMat(rnd, m, 1, 3).RawMatrix().Data
	s.Q = spdMat(rnd, m, 0.5, 2).RawMatrix().Data
	s.B = make([]float64, m*n*p)
	for i := range s.B {
		s.B[i] = 0.3 * rnd.NormFloat64()
	}
	s.c, s.d = make([]float64, m), make([]float64, n*p)
	for i := range s.c {
		s.c[i] = rnd.NormFloat64()
	}
	for i := range s.d {
		s.d[i] = rnd.NormFloat64()
	}
	var ai mat.Dense
	if err := ai.Inverse(mat.NewDense(m, m, s.A)); err != nil {
		panic(err)
	}
	s.ainv = &ai
	s.x0, s.y0 = make([]float64, n*p), make([]float64, m)
	s.mx.RandPoint(s.x0, rnd)
	return s
}

// problem returns the gradients-only problem.
func (s *stquad) problem() solver.Problem {
	m, np := s.m, s.n*s.p
	return solver.Euclidean(solver.EuclideanProblem{
		Mx: s.mx, My: euclid.New(m, 1),
		F: func(pt *solver.Point) (float64, error) {
			clear(s.t1)
			matvec(s.t1, 0.5, s.Q, m, m, false, pt.Y)
			var v float64
			for i, yi := range pt.Y {
				v += yi * (s.t1[i] + s.c[i])
			}
			for i, xi := range pt.X {
				v += s.d[i] * xi
			}
			return v, nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error { copy(dst, s.d); return nil },
		GradFy: func(dst []float64, pt *solver.Point) error {
			copy(dst, s.c)
			matvec(dst, 1, s.Q, m, m, false, pt.Y)
			return nil
		},
		G: func(pt *solver.Point) (float64, error) {
			clear(s.t1)
			matvec(s.t1, 0.5, s.A, m, m, false, pt.Y)
			matvec(s.t1, -1, s.B, m, np, false, pt.X)
			var v float64
			for i, yi := range pt.Y {
				v += yi * s.t1[i]
			}
			return v, nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			clear(dst)
			matvec(dst, 1, s.A, m, m, false, pt.Y)
			matvec(dst, -1, s.B, m, np, false, pt.X)
			return nil
		},
		GradGx: func(dst []float64, pt *solver.Point) error {
			clear(dst)
			matvec(dst, -1, s.B, m, np, true, pt.Y)
			return nil
		},
	})
}

// ystar returns y*(x) = A⁻¹B vec(x).
func (s *stquad) ystar(x []float64) []float64 {
	bx := make([]float64, s.m)
	matvec(bx, 1, s.B, s.m, s.n*s.p, false, x)
	y := make([]float64, s.m)
	matvec(y, 1, s.ainv.RawMatrix().Data, s.m, s.m, false, bx)
	return y
}

// hypergrad sets dst to the true Riemannian hypergradient at x: the
// projection onto T_x St of Bᵀ A⁻¹ (Q y* + c) + d.
func (s *stquad) hypergrad(dst, x []float64) {
	y := s.ystar(x)
	u := append([]float64(nil), s.c...)
	matvec(u, 1, s.Q, s.m, s.m, false, y)
	v := make([]float64, s.m)
	matvec(v, 1, s.ainv.RawMatrix().Data, s.m, s.m, false, u)
	e := append([]float64(nil), s.d...)
	matvec(e, 1, s.B, s.m, s.n*s.p, true, v)
	s.mx.Project(dst, x, e)
}

// TestStquadFixture: the fixture's closed forms are what they claim: y*
// zeroes grad_y g, and the hypergradient matches the central difference
// of F(x) = f(x, y*(x)) along a retraction curve to its O(h²) truncation.
func TestStquadFixture(t *testing.T) {
	s := newStquad(1)
	p := s.problem()
	x := s.x0
	ys := s.ystar(x)
	gy := make([]float64, s.m)
	must(t, p.GradGy(gy, at(x, ys)))
	require.Less(t, norm2(gy), 1e-13*norm2(ys))
	hg := make([]float64, len(x))
	s.hypergrad(hg, x)
	rnd := rand.New(rand.NewPCG(3, 3))
	u := make([]float64, len(x))
	s.mx.RandTangent(u, x, rnd)
	F := func(h float64) float64 {
		xh := make([]float64, len(x))
		must(t, s.mx.Retract(xh, x, u, h))
		return value(t, p.F, xh, s.ystar(xh))
	}
	want := s.mx.Inner(x, hg, u)
	for _, h := range []float64{1e-3, 1e-4} {
		fd := (F(h) - F(-h)) / (2 * h)
		// The QR retraction is a second-order curve only up to O(h²) in F.
		require.InDelta(t, want, fd, 100*h*h*(1+math.Abs(want)), "h = %g", h)
	}
}

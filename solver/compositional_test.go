package solver_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

// logdetComp is min over x ∈ R^k of ψ(φ(x)) with φ(x) = M0 + Σ x_i S_i on
// SPD(n) and ψ(Y) = tr(TY) − log det Y, whose gradient in x is
// ∂_i F = tr((T − φ(x)⁻¹) S_i): an independent truth for the bilevel
// reformulation's hypergradient. T = φ(x*)⁻¹ puts the minimizer (F is
// strictly convex) at x*.
type logdetComp struct {
	n, k int
	xs   []float64
	M0   []float64
	S    [][]float64
	T    []float64
	m    *spd.SPD
}

func newLogdetComp(rnd *rand.Rand, n, k int) *logdetComp {
	c := &logdetComp{n: n, k: k, m: spd.New(n)}
	c.M0 = spdMat(rnd, n, 1, 2).RawMatrix().Data
	for i := 0; i < k; i++ {
		s := mat.NewDense(n, n, nil)
		for a := 0; a < n; a++ {
			for b := 0; b <= a; b++ {
				v := rnd.NormFloat64() / 2
				s.Set(a, b, v)
				s.Set(b, a, v)
			}
		}
		c.S = append(c.S, s.RawMatrix().Data)
		c.xs = append(c.xs, 0.2*rnd.NormFloat64())
	}
	ps := make([]float64, n*n)
	if err := c.phi(ps, c.xs); err != nil {
		panic(err)
	}
	var t mat.Dense
	if err := t.Inverse(mat.NewDense(n, n, ps)); err != nil {
		panic(err)
	}
	c.T = t.RawMatrix().Data
	for a := 0; a < n; a++ { // exact symmetry
		for b := 0; b < a; b++ {
			c.T[a*n+b] = c.T[b*n+a]
		}
	}
	return c
}

func (c *logdetComp) phi(dst, x []float64) error {
	copy(dst, c.M0)
	for i, xi := range x {
		for j := range dst {
			dst[j] += xi * c.S[i][j]
		}
	}
	return c.m.CheckPoint(dst)
}

func (c *logdetComp) problem() solver.CompositionalProblem {
	n := c.n
	return solver.CompositionalProblem{
		Psi: func(y []float64) float64 {
			var chol mat.Cholesky
			if !chol.Factorize(mat.NewSymDense(n, append([]float64(nil), y...))) {
				return math.Inf(1)
			}
			return mat.Dot(mat.NewVecDense(n*n, c.T), mat.NewVecDense(n*n, y)) - chol.LogDet()
		},
		GradPsi: func(dst, y []float64) { // Y T Y − Y
			var yt, yty mat.Dense
			ym := mat.NewDense(n, n, y)
			yt.Mul(ym, mat.NewDense(n, n, c.T))
			yty.Mul(&yt, ym)
			for i := range dst {
				dst[i] = yty.RawMatrix().Data[i] - y[i]
			}
			c.m.Project(dst, y, dst)
		},
		Phi: c.phi,
		PhiAdjoint: func(dst, x, w []float64) {
			p := make([]float64, n*n)
			if err := c.phi(p, x); err != nil {
				panic(err)
			}
			for i := range dst {
				dst[i] = c.m.Inner(p, c.S[i], w)
			}
		},
	}
}

func (c *logdetComp) grad(x []float64) []float64 {
	n := c.n
	p := make([]float64, n*n)
	if err := c.phi(p, x); err != nil {
		panic(err)
	}
	var inv mat.Dense
	if err := inv.Inverse(mat.NewDense(n, n, p)); err != nil {
		panic(err)
	}
	g := make([]float64, c.k)
	for i := range g {
		for j := 0; j < n*n; j++ {
			g[i] += (c.T[j] - inv.RawMatrix().Data[j]) * c.S[i][j]
		}
	}
	return g
}

// TestCompositionalHypergradient: at y = y*(x) = φ(x) the CG hypergradient
// of the reformulation (finite-difference Hessian of ½d² on SPD, with its
// connection term, and cross derivative) is ∇(ψ∘φ).
func TestCompositionalHypergradient(t *testing.T) {
	rnd := rand.New(rand.NewPCG(31, 31))
	c := newLogdetComp(rnd, 3, 4)
	x := []float64{0.3, -0.2, 0.5, 0.1}
	y := make([]float64, 9)
	require.NoError(t, c.phi(y, x))
	p, err := solver.Compositional(c.problem(), euclid.New(4, 1), c.m)
	require.NoError(t, err)
	for _, est := range []solver.Estimator{&solver.CG{}, &solver.Neumann{Terms: 200}} {
		hg := estimateAt(t, p, euclid.New(4, 1), c.m, est, x, y, nil)
		require.Less(t, relDiff(hg, c.grad(x)), 1e-6, est.Name())
	}
	// The lower level at a point y ≠ φ(x): grad_y g = −Log_y φ(x) passes
	// the gradient checker against g = ½d².
	y2 := make([]float64, 9)
	u := make([]float64, 9)
	c.m.RandTangent(u, y, rnd)
	require.NoError(t, c.m.Retract(y2, y, u, 0.7))
	rep := solver.CheckGradient(c.m, func(q []float64) float64 { return value(t, p.G, x, q) },
		func(dst, q []float64) { must(t, p.GradGy(dst, at(x, q))) }, y2, u)
	require.True(t, rep.OK, "%v", rep)
}

// TestCompositionalRun: RHGD on the reformulation reaches the minimizer
// x* of ψ∘φ.
func TestCompositionalRun(t *testing.T) {
	rnd := rand.New(rand.NewPCG(32, 32))
	c := newLogdetComp(rnd, 3, 4)
	x0 := make([]float64, 4)
	y0 := make([]float64, 9)
	// y0 = y*(x0): the first lower gradient is rounding noise, which
	// must not make later ones look divergent.
	require.NoError(t, c.phi(y0, x0))
	r, err := newCompositional(c.problem(), euclid.New(4, 1), c.m, &solver.Settings{Estimator: &solver.CG{}, Epochs: 2000, InnerIters: 5, EtaX: 0.5, EtaY: 0.8, GradTol: 1e-8})
	require.NoError(t, err)
	res, err := r.Run(context.Background(), x0, y0)
	require.NoError(t, err)
	g0, g1 := norm2(c.grad(x0)), norm2(c.grad(res.X))
	t.Logf("%v after %d epochs: ‖∇F‖ %.3g → %.3g", res.Status, res.Stats.Epochs, g0, g1)
	require.Equal(t, solver.GradientThreshold, res.Status)
	require.Less(t, g1, 1e-6)
	require.Less(t, relDiff(res.X, c.xs), 1e-6)
}

func TestCompositionalBadSetup(t *testing.T) {
	c := newLogdetComp(rand.New(rand.NewPCG(33, 33)), 2, 2)
	_, err := solver.Compositional(c.problem(), euclid.New(2, 1), struct{ solver.Manifold }{c.m})
	require.ErrorIs(t, err, solver.ErrNoLog)
	pr := c.problem()
	pr.Phi = nil
	_, err = solver.Compositional(pr, euclid.New(2, 1), c.m)
	require.ErrorIs(t, err, solver.ErrMissing)
	pr = c.problem()
	pr.PhiAdjoint = nil
	_, err = newCompositional(pr, euclid.New(2, 1), c.m, &solver.Settings{Estimator: nil})
	require.ErrorIs(t, err, solver.ErrMissing)
}

// TestCompositionalPhiFails: when φ(x) fails (here: leaves the SPD cone
// past a threshold) the run stops with φ's error as its cause and returns
// the best iterate, a point where φ still works.
func TestCompositionalPhiFails(t *testing.T) {
	c := newLogdetComp(rand.New(rand.NewPCG(34, 34)), 3, 4)
	pr := c.problem()
	phi := pr.Phi
	pr.Phi = func(dst, x []float64) error {
		if x[0] > 0.05 || x[0] < -0.05 {
			return errors.New("out of domain")
		}
		return phi(dst, x)
	}
	x0 := make([]float64, 4)
	y0 := make([]float64, 9)
	require.NoError(t, c.phi(y0, x0))
	r, err := newCompositional(pr, euclid.New(4, 1), c.m, &solver.Settings{Estimator: &solver.CG{}, Epochs: 500, InnerIters: 5, EtaX: 0.5, EtaY: 0.8})
	require.NoError(t, err)
	res, err := r.Run(context.Background(), x0, y0)
	require.ErrorContains(t, err, "φ(x): out of domain")
	require.Equal(t, solver.Failure, res.Status)
	require.LessOrEqual(t, math.Abs(res.X[0]), 0.05)
	require.NoError(t, pr.Phi(y0, res.X))
}

// newCompositional runs New on solver.Compositional(c, mx, my).
func newCompositional(c solver.CompositionalProblem, mx, my solver.Manifold, s *solver.Settings) (*solver.RHGD, error) {
	p, err := solver.Compositional(c, mx, my)
	if err != nil {
		return nil, err
	}
	return solver.New(p, s)
}

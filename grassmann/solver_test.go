package grassmann_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/grassmann"
	"github.com/rhgd/rhgd/solver"
)

// subspaceProblem is a bilevel problem whose lower level picks a
// subspace: g(x, Y) = −tr(YᵀA(x)Y), A(x) = A0 + Σ x_i B_i, minimized on
// Gr(n, p) by the span of A(x)'s top p eigenvectors, and
// f(x, Y) = tr(YᵀCY) + ½‖x‖². Both are functions of the subspace.
type subspaceProblem struct {
	n, p  int
	a0, c []float64
	b     [][]float64
}

func (s subspaceProblem) a(x []float64) []float64 {
	a := append([]float64(nil), s.a0...)
	for i, bi := range s.b {
		for k := range a {
			a[k] += x[i] * bi[k]
		}
	}
	return a
}

// trace returns tr(UᵀMV) for the n×n m.
func (s subspaceProblem) trace(u, m, v []float64) float64 {
	mv := mul(m, v, s.n, s.n, s.p)
	var t float64
	for i := range u {
		t += u[i] * mv[i]
	}
	return t
}

// lower returns y*(x), the top p eigenvectors of A(x) (gonum).
func (s subspaceProblem) lower(x []float64) []float64 {
	return topEigenvectors(s.a(x), s.n, s.p)
}

func (s subspaceProblem) upper(x []float64) float64 {
	y := s.lower(x)
	var xx float64
	for _, v := range x {
		xx += v * v
	}
	return s.trace(y, s.c, y) + 0.5*xx
}

func (s subspaceProblem) problem(my solver.Manifold) solver.Problem {
	n, p, k := s.n, s.p, len(s.b)
	scaled := func(dst, m, v []float64, c float64) {
		copy(dst, mul(m, v, n, n, p))
		for i := range dst {
			dst[i] *= c
		}
	}
	return solver.Euclidean(solver.EuclideanProblem{
		Mx: euclid.New(k, 1), My: my,
		F: func(pt *solver.Point) (float64, error) {
			var xx float64
			for _, v := range pt.X {
				xx += v * v
			}
			return s.trace(pt.Y, s.c, pt.Y) + 0.5*xx, nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error { copy(dst, pt.X); return nil },
		GradFy: func(dst []float64, pt *solver.Point) error { scaled(dst, s.c, pt.Y, 2); return nil },
		G:      func(pt *solver.Point) (float64, error) { return -s.trace(pt.Y, s.a(pt.X), pt.Y), nil },
		GradGy: func(dst []float64, pt *solver.Point) error { scaled(dst, s.a(pt.X), pt.Y, -2); return nil },
		GradGx: func(dst []float64, pt *solver.Point) error {
			for i, bi := range s.b {
				dst[i] = -s.trace(pt.Y, bi, pt.Y)
			}
			return nil
		},
		HessGy: func(dst []float64, pt *solver.Point, v []float64) error { scaled(dst, s.a(pt.X), v, -2); return nil },
		CrossGxy: func(dst []float64, pt *solver.Point, v []float64) error {
			for i, bi := range s.b {
				dst[i] = -2 * s.trace(pt.Y, bi, v)
			}
			return nil
		},
	})
}

// TestHypergradient: with the lower level on Gr, the solver's CG
// estimator at (x, y*(x)) gives the gradient of F(x) = f(x, y*(x)),
// which a central difference of F through gonum's eigendecomposition
// gives independently (to O(h²) = 1e-10 relative). The lower Hessian on
// Gr is positive definite at y*(x) (eigenvalues 2(λ_i − λ_j), i ≤ p < j),
// so the Hessian solve is well posed.
func TestHypergradient(t *testing.T) {
	const n, p, k = 7, 2, 3
	rnd := rand.New(rand.NewPCG(15, 1))
	sym := func() []float64 {
		a := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				v := rnd.NormFloat64()
				a[i*n+j], a[j*n+i] = v, v
			}
		}
		return a
	}
	s := subspaceProblem{n: n, p: p, a0: symmetricWithSpectrum([]float64{5, 4, 2, 1, 0.5, 0, -1}, rnd), c: sym()}
	for i := 0; i < k; i++ {
		b := sym()
		for j := range b {
			b[j] *= 0.1
		}
		s.b = append(s.b, b)
	}
	est, err := solver.ParseEstimator("cg:tol=1e-13,maxiter=100")
	require.NoError(t, err)
	r, err := solver.New(s.problem(grassmann.New(n, p)), &solver.Settings{Estimator: est, EtaX: 0.1, EtaY: 0.1})
	require.NoError(t, err)
	x := []float64{0.3, -0.2, 0.5}
	hg, err := r.Estimate(x, s.lower(x))
	require.NoError(t, err)

	const h = 1e-5
	want := make([]float64, k)
	for i := range want {
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		xp[i] += h
		xm[i] -= h
		want[i] = (s.upper(xp) - s.upper(xm)) / (2 * h)
	}
	var d, w float64
	for i := range want {
		d, w = math.Hypot(d, hg[i]-want[i]), math.Hypot(w, want[i])
	}
	t.Logf("relative error %.2e", d/w)
	assert.LessOrEqual(t, d, 1e-8*w, "hypergradient %v, finite difference of F %v", hg, want)
}

package domainadapt_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/domainadapt"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problemtest"
	"github.com/rhgd/rhgd/solver"
)

// randomData draws source and target samples with standard normal entries,
// the target shifted and stretched so that the two differ, and labels in
// 1..3.
func randomData(n, m, d int, seed uint64) *domainadapt.Data {
	rnd := rand.New(rand.NewPCG(seed, 11))
	data := &domainadapt.Data{N: n, M: m, D: d, X: make([]float64, n*d), Y: make([]float64, m*d),
		SourceLabels: make([]int, n), TargetLabels: make([]int, m)}
	for i := range data.X {
		data.X[i] = rnd.NormFloat64()
	}
	for i := range data.Y {
		data.Y[i] = 0.5 + float64(1+i%d)*0.7*rnd.NormFloat64()
	}
	for i := range data.SourceLabels {
		data.SourceLabels[i] = 1 + i%3
	}
	for j := range data.TargetLabels {
		data.TargetLabels[j] = 1 + j%3
	}
	return data
}

// setup returns a small problem, a random plan Γ away from μνᵀ and a
// random M.
func setup(t testing.TB, c domainadapt.Config) (*domainadapt.Problem, solver.Problem, []float64, []float64) {
	dp, err := domainadapt.New(randomData(12, 10, 4, 3), c)
	require.NoError(t, err)
	rnd := rand.New(rand.NewPCG(5, 5))
	g := make([]float64, 120)
	dp.Coupling.RandPoint(g, rnd)
	m := make([]float64, 16)
	dp.SPD.RandPoint(m, rnd)
	return dp, dp.Bilevel(), g, m
}

// TestConformance runs the problem suite (every oracle against finite
// differences and Taylor slopes, caches, H(H⁻¹v) = v) at a random M and at
// the lower solution, for the paper's α and λ = 0 and for α = 0.3 with an
// entropy term.
func TestConformance(t *testing.T) {
	for _, c := range []domainadapt.Config{domainadapt.PaperConfig(), {Alpha: 0.3, Lambda: 0.05, Ridge: 0.1}} {
		t.Run("", func(t *testing.T) {
			dp, p, g, m := setup(t, c)
			ystar := make([]float64, 16)
			require.NoError(t, dp.LowerSolution(ystar, g))
			problemtest.Run(t, p, problemtest.Config{X: g, Y: m, YStar: ystar, SecondOrderY: true, Seed: 1})
		})
	}
}

// at is the point (x, y) with unknown identities: no cache can match it.

// gradNorm returns ‖grad_M g(Γ, M)‖_M.
func gradNorm(t testing.TB, dp *domainadapt.Problem, p solver.Problem, g, m []float64) float64 {
	gr := make([]float64, len(m))
	require.NoError(t, p.GradGy(gr, testkit.At(g, m)))
	return dp.SPD.Norm(m, gr)
}

// TestLowerSolution: the closed-form weighted geometric mean is a critical
// point of g(Γ, ·) (its gradient, checked against finite differences by
// TestConformance, vanishes there), it is where Riemannian gradient
// descent converges from a random start, and at α = 1 and α = 0 it is
// XᵀX + εI and B(Γ) as the test forms them.
func TestLowerSolution(t *testing.T) {
	for _, alpha := range []float64{0, 0.3, 0.5, 1} {
		c := domainadapt.Config{Alpha: alpha, Ridge: 0.05}
		dp, p, g, m0 := setup(t, c)
		star := make([]float64, 16)
		require.NoError(t, dp.LowerSolution(star, g))
		require.NoError(t, dp.SPD.CheckPoint(star))
		scale := gradNorm(t, dp, p, g, m0)
		require.Less(t, gradNorm(t, dp, p, g, star), 1e-12*scale, "α = %v: gradient at M*", alpha)

		// Gradient descent with the exponential map from m0.
		m, gr := append([]float64(nil), m0...), make([]float64, 16)
		var it int
		for it = 0; it < 500 && gradNorm(t, dp, p, g, m) > 1e-13*scale; it++ {
			require.NoError(t, p.GradGy(gr, testkit.At(g, m)))
			require.NoError(t, dp.SPD.Exp(m, m, gr, -0.2))
		}
		d, err := dp.SPD.Dist(m, star)
		require.NoError(t, err)
		t.Logf("α = %v: descent converged in %d steps, d(M, M*) = %.2g", alpha, it, d)
		require.Less(t, d, 1e-10, "α = %v", alpha)

		// The endpoints of the geodesic.
		data := randomData(12, 10, 4, 3)
		var want []float64
		switch alpha {
		case 1:
			want = gramRidge(data.X, 12, 4, 0.05)
		case 0:
			z := make([]float64, 12*4) // 12 ΓY
			for i := 0; i < 12; i++ {
				for j := 0; j < 10; j++ {
					for k := 0; k < 4; k++ {
						z[i*4+k] += 12 * g[i*10+j] * data.Y[j*4+k]
					}
				}
			}
			want = gramRidge(z, 12, 4, 0.05)
		default:
			continue
		}
		require.Less(t, testkit.Rel(star, want), 1e-12, "α = %v", alpha)
	}
}

// gramRidge returns ZᵀZ + εI for the k×d z, by loops.
func gramRidge(z []float64, k, d int, eps float64) []float64 {
	out := make([]float64, d*d)
	for a := 0; a < d; a++ {
		for b := 0; b < d; b++ {
			for i := 0; i < k; i++ {
				out[a*d+b] += z[i*d+a] * z[i*d+b]
			}
		}
		out[a*d+a] += eps
	}
	return out
}

// TestHypergradient: at (Γ, M*(Γ)) the HINV and CG hypergradients equal
// the central difference of F(Γ) = f(Γ, M*(Γ)) along retraction curves, M*
// being the closed form; and the preconditioned HINV solve takes one
// iteration there, where its preconditioner is the exact inverse.
func TestHypergradient(t *testing.T) {
	dp, p, g, _ := setup(t, domainadapt.Config{Alpha: 0.4, Lambda: 0.01, Ridge: 0.1})
	star := make([]float64, 16)
	F := func(x []float64) float64 {
		require.NoError(t, dp.LowerSolution(star, x))
		v, err := p.F(testkit.At(x, star))
		require.NoError(t, err)
		return v
	}
	require.NoError(t, dp.LowerSolution(star, g))
	m := append([]float64(nil), star...)
	for _, est := range []solver.Estimator{solver.HInv{}, &solver.CG{MaxIter: 200, Tol: 1e-13}} {
		r, err := solver.New(p, &solver.Settings{Estimator: est})
		require.NoError(t, err)
		hg, err := r.Estimate(g, m)
		require.NoError(t, err)
		if _, ok := est.(solver.HInv); ok {
			require.Equal(t, 1, dp.HInvIterations())
		}
		rnd := rand.New(rand.NewPCG(9, 9))
		u, gp, gm := make([]float64, 120), make([]float64, 120), make([]float64, 120)
		for k := 0; k < 3; k++ {
			dp.Coupling.RandTangent(u, g, rnd)
			const h = 1e-5
			require.NoError(t, dp.Coupling.Retract(gp, g, u, h))
			require.NoError(t, dp.Coupling.Retract(gm, g, u, -h))
			fd := (F(gp) - F(gm)) / (2 * h)
			want := dp.Coupling.Inner(g, hg, u)
			require.InDelta(t, want, fd, 1e-6*dp.Coupling.Norm(g, hg), "%s, direction %d", est.Name(), k)
		}
	}
}

// TestHInvAway: away from M* the inverse Hessian is exact to HInvTol too,
// in more iterations.
func TestHInvAway(t *testing.T) {
	dp, p, g, m := setup(t, domainadapt.PaperConfig())
	rnd := rand.New(rand.NewPCG(2, 2))
	v, u, back := make([]float64, 16), make([]float64, 16), make([]float64, 16)
	dp.SPD.RandTangent(v, m, rnd)
	require.NoError(t, p.HessGyInv(u, testkit.At(g, m), v))
	require.Greater(t, dp.HInvIterations(), 1)
	require.NoError(t, p.HessGy(back, testkit.At(g, m), u))
	require.Less(t, testkit.Rel(back, v), 1e-12)
}

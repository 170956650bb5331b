package lapackx

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/numerr"
)

// lyapResidual is ‖A X + X A − C‖_F for symmetric A and X.
func lyapResidual(a, x, c []float64, n int) float64 {
	ax := mul(a, x, n)
	r := make([]float64, n*n)
	for i := range r {
		r[i] = ax[i] + ax[(i%n)*n+i/n] - c[i] // AX + XA = AX + (AX)ᵀ
	}
	return fnorm(r)
}

// TestLyapSolveMany: each solution of SolveMany has a backward-stable
// residual against its own right-hand side, and is bit for bit the
// solution of Factorize and SolveFactorized for that right-hand side
// alone (the same operations in the same order), across orders on both
// sides of congruenceGemmCutoff and conditionings with and without the
// eigenpair refinement; in place (dst[i] = c[i]) too.
func TestLyapSolveMany(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(41)
		for _, n := range []int{1, 2, 9, 50, 120} {
			for _, cond := range []float64{1, 1e4, 1e8} {
				name := fmt.Sprintf("n=%d cond=%g", n, cond)
				a := withSpectrum(rnd, logSpaced(n, 1/cond, 1))
				const k = 5
				c, dst := make([][]float64, k), make([][]float64, k)
				for i := range c {
					c[i], dst[i] = randSym(rnd, n, math.Pow(10, float64(i-2))), make([]float64, n*n)
				}
				l := NewLyapSym(n)
				require.NoError(t, l.SolveMany(dst, a, c), name)
				one, want := NewLyapSym(n), make([]float64, n*n)
				require.NoError(t, one.Factorize(a))
				for i := range c {
					bound := 20 * float64(n) * eps * fnorm(a) * fnorm(dst[i])
					assert.Less(t, lyapResidual(a, dst[i], c[i], n), bound+1e-300, "%s c[%d]", name, i)
					assert.True(t, isSymmetricExactly(dst[i], n), "%s c[%d]", name, i)
					require.NoError(t, one.SolveFactorized(want, c[i]))
					assert.Equal(t, want, dst[i], "%s c[%d]: SolveMany against a single solve", name, i)
				}
				// In place: the right-hand sides become the solutions.
				inPlace := make([][]float64, k)
				for i := range c {
					inPlace[i] = append([]float64(nil), c[i]...)
				}
				require.NoError(t, l.SolveMany(inPlace, a, inPlace), name)
				assert.Equal(t, dst, inPlace, "%s in place", name)
			}
		}
		// No right-hand side: A is still factorized.
		l := NewLyapSym(3)
		require.NoError(t, l.SolveMany(nil, withSpectrum(rnd, logSpaced(3, 1, 2)), nil))
		require.Panics(t, func() {
			_ = l.SolveMany(make([][]float64, 2), withSpectrum(rnd, logSpaced(3, 1, 2)), make([][]float64, 1))
		})
	})
}

// TestLyapSolveManyErrors: a bad right-hand side is named by its index,
// with the sentinel kept, and the solutions before it are in place; a bad
// A fails before any.
func TestLyapSolveManyErrors(t *testing.T) {
	const n = 4
	rnd := newRand(42)
	a := withSpectrum(rnd, logSpaced(n, 1, 10))
	c := [][]float64{randSym(rnd, n, 1), randSym(rnd, n, 1), randSym(rnd, n, 1)}
	c[1][1] = math.NaN()
	c[2][1] += 1 // not symmetric, but c[1] fails first
	dst := [][]float64{make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)}
	err := NewLyapSym(n).SolveMany(dst, a, c)
	require.ErrorIs(t, err, numerr.ErrNotFinite)
	assert.Contains(t, err.Error(), "(c[1])")
	assert.Less(t, lyapResidual(a, dst[0], c[0], n), 1e-13)

	c[1][1] = c[1][n] // symmetric again: now c[2]
	err = NewLyapSym(n).SolveMany(dst, a, c)
	require.ErrorIs(t, err, numerr.ErrNotSymmetric)
	assert.Contains(t, err.Error(), "(c[2])")

	bad := append([]float64(nil), a...)
	bad[1] += 1
	err = NewLyapSym(n).SolveMany(dst[:1], bad, c[:1])
	require.ErrorIs(t, err, numerr.ErrNotSymmetric)
	assert.NotContains(t, err.Error(), "c[")
}

// TestLyapSymOverflowThroughV: the scan of X that the bound on max|Y|
// skips still runs where X overflows though Y = (V C Vᵀ) ⊘ (λ_i + λ_j)
// does not: A = 1e-10·[[2, 1], [1, 2]] and C = A X + X A for the
// unrepresentable X = diag(2y, 0), y = 1e308, whose rotation
// Y ≈ y·[[1, ±1], [±1, 1]] is finite. Just inside the range (y = 5e307)
// it is solved, and so is a solution just above the bound.
func TestLyapSymOverflowThroughV(t *testing.T) {
	a := []float64{2e-10, 1e-10, 1e-10, 2e-10}
	l := NewLyapSym(2)
	solve := func(y float64) ([]float64, error) {
		// A X + X A for X = diag(2y, 0): [[8y, 2y], [2y, 0]]·1e-10.
		s := y * 1e-10
		c := []float64{8 * s, 2 * s, 2 * s, 0}
		x := make([]float64, 4)
		return x, l.Solve(x, a, c)
	}
	x, err := solve(1e308)
	require.ErrorIs(t, err, numerr.ErrOverflow, "X = %v", x)
	for _, v := range l.m { // Y, below n = congruenceGemmCutoff kept in l.m
		require.False(t, math.IsInf(v, 0) || math.IsNaN(v), "Y = %v is not finite: not the case under test", l.m)
	}
	for _, y := range []float64{5e307, 0x1p1000} {
		x, err = solve(y)
		require.NoError(t, err, "y = %g", y)
		for i, want := range []float64{2 * y, 0, 0, 0} {
			assert.InDelta(t, want, x[i], 1e-14*2*y, "y = %g, x[%d]", y, i)
		}
	}
}

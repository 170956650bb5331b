package lapackx

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/numerr"
)

// choleskySPD returns GᵀG + n·I for a random n×n G: symmetric positive
// definite with a condition number of a few units.
func choleskySPD(rnd *rand.Rand, n int) []float64 {
	g := make([]float64, n*n)
	for i := range g {
		g[i] = rnd.NormFloat64()
	}
	a := fuzzing.MulTPlain(g, g, n, n, n)
	for i := 0; i < n; i++ {
		a[i*n+i] += float64(n)
	}
	return a
}

// TestCholesky checks the factor against its definition: L is lower
// triangular with a positive diagonal, and LLᵀ (formed here by plain
// loops) reproduces A to a backward error of a small multiple of n·ε‖A‖.
func TestCholesky(t *testing.T) {
	rnd := rand.New(rand.NewPCG(18, 4))
	for _, n := range []int{1, 2, 7, 40, 130} {
		a := choleskySPD(rnd, n)
		orig := append([]float64(nil), a...)
		l := make([]float64, n*n)
		for i := range l {
			l[i] = math.NaN() // every entry must be written
		}
		require.NoError(t, Cholesky(l, a, n), "n = %d", n)
		require.Equal(t, orig, a, "n = %d: a is not modified", n)
		var diff, norm float64
		for i := 0; i < n; i++ {
			require.Greater(t, l[i*n+i], 0.0, "n = %d: L[%d, %d]", n, i, i)
			for j := 0; j < n; j++ {
				if j > i {
					require.Zero(t, l[i*n+j], "n = %d: L[%d, %d] above the diagonal", n, i, j)
				}
				var s float64
				for k := 0; k <= min(i, j); k++ {
					s += l[i*n+k] * l[j*n+k]
				}
				diff += (s - a[i*n+j]) * (s - a[i*n+j])
				norm += a[i*n+j] * a[i*n+j]
			}
		}
		require.LessOrEqual(t, math.Sqrt(diff), 4*float64(n)*0x1p-52*math.Sqrt(norm), "n = %d: ‖LLᵀ − A‖_F", n)
	}
}

// TestCholeskyInPlace checks that dst may be a itself.
func TestCholeskyInPlace(t *testing.T) {
	rnd := rand.New(rand.NewPCG(18, 5))
	const n = 9
	a := choleskySPD(rnd, n)
	want := make([]float64, n*n)
	require.NoError(t, Cholesky(want, a, n))
	require.NoError(t, Cholesky(a, a, n))
	require.Equal(t, want, a)
}

// TestCholeskyNotPosDef checks that matrices that are not positive
// definite (indefinite, singular, zero) and those with a NaN or an
// infinity in the lower triangle give an error wrapping numerr.ErrNotPosDef.
func TestCholeskyNotPosDef(t *testing.T) {
	for name, a := range map[string][]float64{
		"indefinite": {2, 1, 0, 1, -3, 1, 0, 1, 4},
		"singular":   {1, 1, 0, 1, 1, 0, 0, 0, 1},
		"zero":       make([]float64, 9),
		"NaN":        {1, 0, 0, 0, math.NaN(), 0, 0, 0, 1},
		"NaN below":  {1, 0, 0, math.NaN(), 1, 0, 0, 0, 1},
		"Inf below":  {1, 0, 0, 0, 1, 0, math.Inf(1), 0, 1},
	} {
		err := Cholesky(make([]float64, 9), a, 3)
		require.ErrorIs(t, err, numerr.ErrNotPosDef, name)
	}
}

// TestCholeskyShape checks the programmer-error panic and the empty case.
func TestCholeskyShape(t *testing.T) {
	require.NoError(t, Cholesky(nil, nil, 0))
	require.Panics(t, func() { _ = Cholesky(make([]float64, 4), make([]float64, 9), 3) })
}

// TestCholeskyAllocs checks that neither success nor failure allocates.
func TestCholeskyAllocs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(18, 6))
	const n = 30
	a, l := choleskySPD(rnd, n), make([]float64, n*n)
	bad := append([]float64(nil), a...)
	bad[n*n-1] = -1
	require.Zero(t, testing.AllocsPerRun(20, func() { _ = Cholesky(l, a, n) }))
	require.Zero(t, testing.AllocsPerRun(20, func() { _ = Cholesky(l, bad, n) }))
}

// TestCholSolve: A·CholSolve(b) reproduces b to a small multiple of
// n·ε‖A‖‖x‖ (A well conditioned), in place too, and allocates nothing.
func TestCholSolve(t *testing.T) {
	rnd := rand.New(rand.NewPCG(18, 7))
	for _, n := range []int{1, 2, 7, 40, 130} {
		a, l := choleskySPD(rnd, n), make([]float64, n*n)
		require.NoError(t, Cholesky(l, a, n))
		b, x := make([]float64, n), make([]float64, n)
		for i := range b {
			b[i] = rnd.NormFloat64()
		}
		CholSolve(x, l, b, n)
		var anorm, xnorm, rmax float64
		for i := 0; i < n; i++ {
			r := -b[i]
			for j := 0; j < n; j++ {
				r += a[i*n+j] * x[j]
				anorm = max(anorm, math.Abs(a[i*n+j]))
			}
			rmax = max(rmax, math.Abs(r))
			xnorm = max(xnorm, math.Abs(x[i]))
		}
		require.LessOrEqual(t, rmax, 10*float64(n)*float64(n)*0x1p-52*anorm*xnorm, "n = %d", n)
		y := append([]float64(nil), b...)
		CholSolve(y, l, y, n)
		require.Equal(t, x, y, "n = %d: in place", n)
		require.Zero(t, testing.AllocsPerRun(10, func() { CholSolve(x, l, b, n) }), "n = %d", n)
	}
	require.Panics(t, func() { CholSolve(make([]float64, 2), make([]float64, 9), make([]float64, 3), 3) })
}

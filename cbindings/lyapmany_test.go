//go:build cgo

package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
)

// TestLyapunovMany: rhgd_lyapunov_sym_many gives, block by block, what
// rhgd_lyapunov_sym gives for each right-hand side alone (the same
// factorization and operations), with small residuals; in place and with
// x overlapping c shifted by one block; errors name the argument and the
// first bad matrix, and the blocks before it hold their solutions.
func TestLyapunovMany(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{1, 7, 130} { // both sides of lapackx's GEMM cutoff
		const count = 4
		q := householder(n, rnd)
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Pow(10, -3*rnd.Float64()) // κ up to 10³: the refinement runs
		}
		a := spectral(q, d, id)
		nn := n * n
		c := make([]float64, count*nn)
		for k := range count {
			cs := spectral(householder(n, rnd), d, func(x float64) float64 { return x - 0.5 })
			copy(c[k*nn:], cs)
		}
		x := make([]float64, count*nn)
		require.Equal(t, okC, ctest.LyapMany(int64(n), count, a, c, x))
		A := mat.NewDense(n, n, a)
		for k := range count {
			want := make([]float64, nn)
			require.Equal(t, okC, ctest.Lyap(int64(n), a, c[k*nn:(k+1)*nn], want))
			assert.Equal(t, want, x[k*nn:(k+1)*nn], "n=%d block %d against rhgd_lyapunov_sym", n, k)
			X, C := mat.NewDense(n, n, x[k*nn:(k+1)*nn]), mat.NewDense(n, n, c[k*nn:(k+1)*nn])
			var r, t2 mat.Dense
			r.Mul(A, X)
			t2.Mul(X, A)
			r.Add(&r, &t2)
			r.Sub(&r, C)
			assert.Less(t, mat.Norm(&r, 2)/(mat.Norm(A, 2)*mat.Norm(X, 2)), 1e-14*float64(n), "n=%d block %d residual", n, k)
		}
		// In place, and x one block behind c in one buffer.
		cc := append([]float64(nil), c...)
		require.Equal(t, okC, ctest.LyapMany(int64(n), count, a, cc, cc))
		assert.Equal(t, x, cc, "n=%d in place", n)
		buf := make([]float64, (count+1)*nn)
		copy(buf[nn:], c)
		require.Equal(t, okC, ctest.LyapMany(int64(n), count, a, buf[nn:], buf[:count*nn]))
		assert.Equal(t, x, buf[:count*nn], "n=%d shifted overlap", n)
	}

	eye2, nan, nonsym := []float64{1, 0, 0, 1}, []float64{1, math.NaN(), math.NaN(), 1}, []float64{1, 2, 0, 1}
	c3 := append(append(append([]float64(nil), eye2...), eye2...), nan...)
	x3 := make([]float64, 12)
	wantCode(t, "many: C_2 NaN", einval, func() int { return ctest.LyapMany(2, 3, eye2, c3, x3) }, "c: matrix 2: ", "non-finite")
	assert.Equal(t, []float64{0.5, 0, 0, 0.5, 0.5, 0, 0, 0.5}, x3[:8], "the blocks before the bad one")
	copy(c3[8:], nonsym)
	wantCode(t, "many: C_2 not symmetric", einval, func() int { return ctest.LyapMany(2, 3, eye2, c3, x3) }, "c: matrix 2: ", "not symmetric")
	wantCode(t, "many: A not symmetric", einval, func() int { return ctest.LyapMany(2, 1, nonsym, eye2, x3) }, "a: ")
	wantCode(t, "many: singular", enumeric, func() int {
		return ctest.LyapMany(2, 1, []float64{1, 0, 0, -1}, eye2, x3)
	}, "singular")
	wantCode(t, "many: count = 0", einval, func() int { return ctest.LyapMany(2, 0, eye2, eye2, x3) }, "count = 0")
	wantCode(t, "many: n = 0", einval, func() int { return ctest.LyapMany(0, 1, eye2, eye2, x3) }, "at least 1")
	wantCode(t, "many: NULL a", einval, func() int { return ctest.LyapMany(2, 1, nil, eye2, x3) }, "a is NULL")
	wantCode(t, "many: NULL c", einval, func() int { return ctest.LyapMany(2, 1, eye2, nil, x3) }, "c is NULL")
	wantCode(t, "many: NULL x", einval, func() int { return ctest.LyapMany(2, 1, eye2, eye2, nil) }, "x is NULL")
	wantCode(t, "many: overflow", enumeric, func() int {
		return ctest.LyapMany(1, 2, []float64{1.39e-76}, []float64{1, 8.4e270}, make([]float64, 2))
	}, "matrix 1: ", "overflow")
}

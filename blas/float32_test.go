package blas

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// u32 is float32's unit roundoff.
const u32 = 0x1p-24

// TestImpl32 checks the float32 kernels that Impl32 routes against float64
// products of the same (rounded) inputs, on every backend of the build and
// across the Go and native sizes: |C₃₂ − C|_ij ≤ (k+2)u|A||B|_ij (the
// classical bound γ_k, with the rounding of the inputs), and for the
// triangular solve the residual |L X₃₂ − B| ≤ (n+2)u|L||X₃₂|.
func TestImpl32(t *testing.T) {
	defer restore(t)
	for _, b := range Available() {
		require.NoError(t, Use(b))
		for _, n := range []int{3, 40, 130} {
			checkImpl32(t, b, n)
		}
	}
}

func checkImpl32(t *testing.T, b Backend, n int) {
	rnd := rand.New(rand.NewPCG(uint64(n), 7))
	randm := func() ([]float32, []float64) {
		a32, a := make([]float32, n*n), make([]float64, n*n)
		for i := range a32 {
			a32[i] = float32(rnd.NormFloat64())
			a[i] = float64(a32[i])
		}
		return a32, a
	}
	abs := func(a []float64) []float64 {
		r := make([]float64, len(a))
		for i, v := range a {
			r[i] = math.Abs(v)
		}
		return r
	}
	ref := gonum.Implementation{}
	// within checks |c32 − c| ≤ (k+2)u·bound entrywise on the triangle
	// (upper, lower or all) the call writes.
	within := func(what string, c32 []float32, c, bound []float64, k int, tri int) {
		t.Helper()
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if tri > 0 && j < i || tri < 0 && j > i {
					continue
				}
				e, lim := math.Abs(float64(c32[i*n+j])-c[i*n+j]), float64(k+2)*u32*bound[i*n+j]
				require.LessOrEqual(t, e, lim, "%v n=%d %s: entry (%d,%d)", b, n, what, i, j)
			}
		}
	}
	im := Impl32()
	a32, a := randm()
	b32, bm := randm()
	lo32, lo := randm()
	for i := 0; i < n; i++ { // a well-conditioned lower triangle
		for j := i + 1; j < n; j++ {
			lo32[i*n+j], lo[i*n+j] = 0, 0
		}
		lo32[i*n+i] = float32(float64(n) + math.Abs(lo[i*n+i]))
		lo[i*n+i] = float64(lo32[i*n+i])
	}
	c32, c, bound := make([]float32, n*n), make([]float64, n*n), make([]float64, n*n)

	im.Sgemm(gblas.NoTrans, gblas.Trans, n, n, n, 1, a32, n, b32, n, 0, c32, n)
	ref.Dgemm(gblas.NoTrans, gblas.Trans, n, n, n, 1, a, n, bm, n, 0, c, n)
	ref.Dgemm(gblas.NoTrans, gblas.Trans, n, n, n, 1, abs(a), n, abs(bm), n, 0, bound, n)
	within("sgemm", c32, c, bound, n, 0)

	im.Ssyrk(gblas.Upper, gblas.Trans, n, n, 1, a32, n, 0, c32, n)
	ref.Dgemm(gblas.Trans, gblas.NoTrans, n, n, n, 1, a, n, a, n, 0, c, n)
	ref.Dgemm(gblas.Trans, gblas.NoTrans, n, n, n, 1, abs(a), n, abs(a), n, 0, bound, n)
	within("ssyrk", c32, c, bound, n, 1)

	copy(c32, b32)
	im.Strmm(gblas.Left, gblas.Lower, gblas.Trans, gblas.NonUnit, n, n, 1, lo32, n, c32, n)
	ref.Dgemm(gblas.Trans, gblas.NoTrans, n, n, n, 1, lo, n, bm, n, 0, c, n)
	ref.Dgemm(gblas.Trans, gblas.NoTrans, n, n, n, 1, abs(lo), n, abs(bm), n, 0, bound, n)
	within("strmm", c32, c, bound, n, 0)

	for _, sd := range []gblas.Side{gblas.Left, gblas.Right} {
		copy(c32, b32)
		tA := gblas.NoTrans
		if sd == gblas.Right {
			tA = gblas.Trans
		}
		im.Strsm(sd, gblas.Lower, tA, gblas.NonUnit, n, n, 1, lo32, n, c32, n)
		// the residual L X − B (or X Lᵀ − B) in float64
		x := make([]float64, n*n)
		for i, v := range c32 {
			x[i] = float64(v)
		}
		copy(c, bm)
		if sd == gblas.Left {
			ref.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, lo, n, x, n, -1, c, n)
			ref.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, abs(lo), n, abs(x), n, 0, bound, n)
		} else {
			ref.Dgemm(gblas.NoTrans, gblas.Trans, n, n, n, 1, x, n, lo, n, -1, c, n)
			ref.Dgemm(gblas.NoTrans, gblas.Trans, n, n, n, 1, abs(x), n, abs(lo), n, 0, bound, n)
		}
		zero := make([]float32, n*n)
		within("strsm residual", zero, c, bound, n, 0)
	}
}

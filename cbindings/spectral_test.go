//go:build cgo

package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	"github.com/rhgd/rhgd/internal/allocs"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/lapackx"
	specbatch "github.com/rhgd/rhgd/spectral"
)

// spdBatch returns count SPD n×n matrices Q diag(λ) Qᵀ with λ in [0.5, 2]
// and as many general n×n gradients.
func spdBatch(n, count int, seed uint64) (a, g []float64) {
	rnd := rand.New(rand.NewPCG(seed, uint64(n)))
	a, g = make([]float64, count*n*n), make([]float64, count*n*n)
	for i := 0; i < count; i++ {
		b := a[i*n*n : (i+1)*n*n]
		for p := 0; p < n; p++ {
			for q := 0; q <= p; q++ {
				x := rnd.NormFloat64() / float64(2*n)
				b[p*n+q], b[q*n+p] = x, x
			}
			b[p*n+p] += 1
		}
	}
	for i := range g {
		g[i] = rnd.NormFloat64()
	}
	return a, g
}

// TestSpectralBatch: the C kernels give spectral.Batch's results bit for
// bit (Eig and Map, whose own tests check the mathematics), in chunks when
// the batch exceeds a chunk (here 3 matrices of order 40), and in place.
func TestSpectralBatch(t *testing.T) {
	defer smallChunks()()
	for _, c := range []struct{ n, count int }{{3, 50}, {10, 20}, {33, 7}, {40, 8}} {
		n, count := c.n, c.count
		a, g := spdBatch(n, count, 1)
		b := specbatch.NewBatch(n, count)
		w, v := make([]float64, count*n), make([]float64, count*n*n)
		require.NoError(t, b.Eig(w, v, a, count))
		cw, cv := make([]float64, count*n), make([]float64, count*n*n)
		require.Equal(t, okC, ctest.SpectralEigBatch(int64(n), int64(count), a, cw, cv))
		require.Equal(t, w, cw, "n=%d", n)
		require.Equal(t, v, cv, "n=%d", n)
		inplace := slices.Clone(a)
		require.Equal(t, okC, ctest.SpectralEigBatch(int64(n), int64(count), inplace, cw, inplace))
		require.Equal(t, v, inplace, "n=%d in place", n)

		for _, k := range []struct {
			f        lapackx.Func
			fwd, bwd func(a, g, out []float64) int
		}{
			{lapackx.ExpFunc,
				func(a, _, out []float64) int { return ctest.SpectralExpBatch(int64(n), int64(count), a, out) },
				func(a, g, out []float64) int {
					return ctest.SpectralExpBatchBackward(int64(n), int64(count), a, g, out)
				}},
			{lapackx.LogFunc,
				func(a, _, out []float64) int { return ctest.SpectralLogBatch(int64(n), int64(count), a, out) },
				func(a, g, out []float64) int {
					return ctest.SpectralLogBatchBackward(int64(n), int64(count), a, g, out)
				}},
			{specbatch.ReEig(0.9),
				func(a, _, out []float64) int { return ctest.SpectralReEigBatch(int64(n), int64(count), 0.9, a, out) },
				func(a, g, out []float64) int {
					return ctest.SpectralReEigBatchBackward(int64(n), int64(count), 0.9, a, g, out)
				}},
		} {
			out, grad := make([]float64, count*n*n), make([]float64, count*n*n)
			require.NoError(t, b.Map(out, grad, a, g, count, k.f))
			co, cg := make([]float64, count*n*n), make([]float64, count*n*n)
			require.Equal(t, okC, k.fwd(a, nil, co))
			require.Equal(t, okC, k.bwd(a, g, cg))
			require.Equal(t, out, co, "n=%d forward", n)
			require.Equal(t, grad, cg, "n=%d backward", n)
			ia, ig := slices.Clone(a), slices.Clone(g)
			require.Equal(t, okC, k.fwd(ia, nil, ia))
			require.Equal(t, okC, k.bwd(a, ig, ig))
			require.Equal(t, out, ia, "n=%d forward in place", n)
			require.Equal(t, grad, ig, "n=%d backward in place", n)
			// A shifted overlap: out starts one matrix into a.
			sh := make([]float64, (count+1)*n*n)
			copy(sh, a)
			require.Equal(t, okC, k.fwd(sh[:count*n*n], nil, sh[n*n:]))
			require.Equal(t, out, sh[n*n:], "n=%d forward, shifted overlap", n)
		}
	}
}

// smallChunks makes the chunks 3 matrices of order 40 (4800 doubles) and
// returns the function that restores them.
func smallChunks() func() {
	old := chunkLen
	chunkLen = 3 * 40 * 40
	return func() { chunkLen = old }
}

// TestSpectralBatchErrors: bad arguments are RHGD_EINVAL naming the
// argument (and the matrix, counted from 0 over the whole batch), an
// overflow RHGD_ENUMERIC.
func TestSpectralBatchErrors(t *testing.T) {
	const n, count = 3, 5
	a, g := spdBatch(n, count, 2)
	w, out := make([]float64, count*n), make([]float64, count*n*n)
	nonsym, nan, indef, big := slices.Clone(a), slices.Clone(a), slices.Clone(a), slices.Clone(a)
	nonsym[3*n*n+1] += 0.5
	nan[4*n*n+2*n] = math.NaN()
	indef[2*n*n] = -5
	big[1*n*n] = 800
	gnan := slices.Clone(g)
	gnan[2*n*n+4] = math.Inf(1)
	for _, c := range []struct {
		name string
		code int
		f    func() int
		msg  []string
	}{
		{"eig n=0", einval, func() int { return ctest.SpectralEigBatch(0, count, a, w, out) }, []string{"n = 0"}},
		{"eig count=0", einval, func() int { return ctest.SpectralEigBatch(n, 0, a, w, out) }, []string{"count = 0"}},
		{"eig huge", einval, func() int { return ctest.SpectralEigBatch(n, 1<<40, a, w, out) }, []string{"too large"}},
		{"eig NULL a", einval, func() int { return ctest.SpectralEigBatch(n, count, nil, w, out) }, []string{"a is NULL"}},
		{"eig NULL w", einval, func() int { return ctest.SpectralEigBatch(n, count, a, nil, out) }, []string{"w is NULL"}},
		{"eig NULL v", einval, func() int { return ctest.SpectralEigBatch(n, count, a, w, nil) }, []string{"v is NULL"}},
		{"eig w, v overlap", einval, func() int { return ctest.SpectralEigBatch(n, count, a, out[:count*n], out) }, []string{"w and v overlap"}},
		{"eig not symmetric", einval, func() int { return ctest.SpectralEigBatch(n, count, nonsym, w, out) }, []string{"not symmetric", "matrix 3", "argument a"}},
		{"eig NaN", einval, func() int { return ctest.SpectralEigBatch(n, count, nan, w, out) }, []string{"non-finite", "matrix 4", "argument a"}},
		{"log indefinite", einval, func() int { return ctest.SpectralLogBatch(n, count, indef, out) }, []string{"not positive definite", "matrix 2"}},
		{"log backward indefinite", einval, func() int { return ctest.SpectralLogBatchBackward(n, count, indef, g, out) }, []string{"matrix 2"}},
		{"exp overflow", enumeric, func() int { return ctest.SpectralExpBatch(n, count, big, out) }, []string{"matrix 1"}},
		{"exp NULL out", einval, func() int { return ctest.SpectralExpBatch(n, count, a, nil) }, []string{"out is NULL"}},
		{"exp backward NULL g", einval, func() int { return ctest.SpectralExpBatchBackward(n, count, a, nil, out) }, []string{"g is NULL"}},
		{"exp backward g Inf", einval, func() int { return ctest.SpectralExpBatchBackward(n, count, a, gnan, out) }, []string{"argument g: matrix 2"}},
		{"reeig eps NaN", einval, func() int { return ctest.SpectralReEigBatch(n, count, math.NaN(), a, out) }, []string{"eps = NaN"}},
		{"reeig backward eps Inf", einval, func() int { return ctest.SpectralReEigBatchBackward(n, count, math.Inf(1), a, g, out) }, []string{"eps = +Inf"}},
		{"reeig not symmetric", einval, func() int { return ctest.SpectralReEigBatch(n, count, 1e-4, nonsym, out) }, []string{"matrix 3"}},
	} {
		wantCode(t, c.name, c.code, c.f, c.msg...)
	}
}

// TestSpectralBatchAllocs: after the first call at a size, the batched
// kernels allocate nothing, in chunks too.
func TestSpectralBatchAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates")
	}
	defer smallChunks()()
	for _, c := range []struct{ n, count int }{{3, 64}, {20, 40}, {40, 8}} {
		n, count := int64(c.n), int64(c.count)
		a, g := spdBatch(c.n, c.count, 3)
		w, out := make([]float64, c.count*c.n), make([]float64, c.count*c.n*c.n)
		for name, f := range map[string]func(){
			"eig":          func() { ctest.SpectralEigBatch(n, count, a, w, out) },
			"exp":          func() { ctest.SpectralExpBatch(n, count, a, out) },
			"log":          func() { ctest.SpectralLogBatch(n, count, a, out) },
			"log backward": func() { ctest.SpectralLogBatchBackward(n, count, a, g, out) },
			"exp backward": func() { ctest.SpectralExpBatchBackward(n, count, a, g, out) },
			"reeig":        func() { ctest.SpectralReEigBatch(n, count, 1e-3, a, out) },
			"reeig backward": func() {
				ctest.SpectralReEigBatchBackward(n, count, 1e-3, a, g, out)
			},
		} {
			f()
			require.Zero(t, allocs.Steady(5, f), "%s n=%d count=%d", name, n, count)
		}
	}
}

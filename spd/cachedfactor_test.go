package spd_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/spd"
)

// TestCachedFactor: after each retraction the manifold hands out the
// Cholesky factor of the result, lower triangular with LLᵀ equal to it,
// and nothing for any other point; it factors nothing itself.
func TestCachedFactor(t *testing.T) {
	const n = 5
	for _, r := range []spd.Retraction{spd.SecondOrder, spd.Exponential} {
		m := spd.New(n)
		m.Retraction = r
		rnd := rand.New(rand.NewPCG(8, 8))
		x, y, u := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		m.RandPoint(x, rnd)
		require.Nil(t, m.CachedFactor(x), "a new manifold holds no factor")
		for k := 0; k < 3; k++ {
			m.RandTangent(u, x, rnd)
			require.NoError(t, m.Retract(y, x, u, 0.3))
			l := m.CachedFactor(y)
			require.NotNil(t, l, "retraction %d, step %d", r, k)
			var scale float64
			for _, v := range y {
				scale = math.Max(scale, math.Abs(v))
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if j > i {
						require.Zero(t, l[i*n+j], "strict upper triangle")
						continue
					}
					var s float64
					for k := 0; k <= j; k++ {
						s += l[i*n+k] * l[j*n+k]
					}
					require.InDelta(t, y[i*n+j], s, 1e-14*scale, "(LLᵀ)_%d%d", i, j)
				}
			}
			require.Nil(t, m.CachedFactor(x), "the retraction's start is no longer the cached point")
			old := y[1] // one ulp off in one symmetric pair
			y[1] = math.Nextafter(old, math.Inf(1))
			y[n] = y[1]
			require.Nil(t, m.CachedFactor(y), "the cache follows content")
			y[1], y[n] = old, old
			copy(x, y)
		}
	}
}

package spd_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/spd"
)

// TestWhiten: whitened coordinates carry the metric, ⟨c(U), c(V)⟩_F =
// ⟨U, V⟩_X, also off the tangent space (both read sym(U)); c(U) is
// symmetric, and dst may be u. Orders on both sides of LAPACK's dsygst
// cutoff.
func TestWhiten(t *testing.T) {
	for _, n := range []int{1, 7, 130, 310} {
		s := spd.New(n)
		rnd := rand.New(rand.NewPCG(uint64(n), 2))
		x, u, v := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		s.RandPoint(x, rnd)
		for i := range u {
			u[i], v[i] = rnd.NormFloat64(), rnd.NormFloat64()
		}
		cu, cv := make([]float64, n*n), make([]float64, n*n)
		require.NoError(t, s.Whiten(cu, x, u))
		require.NoError(t, s.Whiten(cv, x, v))
		want := s.Inner(x, u, v)
		got := floats.Dot(cu, cv)
		scale := s.Norm(x, u) * s.Norm(x, v)
		require.InDelta(t, want, got, 1e-12*float64(n)*scale, "n=%d", n)
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				require.Equal(t, cu[i*n+j], cu[j*n+i], "n=%d: c(U) not symmetric at (%d,%d)", n, i, j)
			}
		}
		require.InDelta(t, s.Norm(x, u), math.Sqrt(floats.Dot(cu, cu)), 1e-12*float64(n)*s.Norm(x, u))
		require.NoError(t, s.Whiten(u, x, u))
		require.Equal(t, cu, u, "n=%d: aliased dst", n)
	}
	bad := spd.New(2)
	require.Error(t, bad.Whiten(make([]float64, 4), []float64{1, 0, 0, -1}, []float64{1, 0, 0, 1}))
}

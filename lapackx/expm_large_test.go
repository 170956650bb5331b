package lapackx

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExpmLargeIdentities checks Expm at larger orders, with exact norms
// (n = 100, 300) and estimated ones (n = 420, where lowPowersLarge may skip
// the estimates of ‖A⁴‖ and ‖A⁶‖): e^A e^{−A} = I for a general A, and
// agreement with the symmetric exponential for a symmetric one.
func TestExpmLargeIdentities(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(21)
		for _, n := range []int{100, 300, 420} {
			a := randGeneral(rnd, n, n, 2/math.Sqrt(float64(n)))
			e := NewExpm(n)
			checkInverse(t, e, a, n)

			s := randSym(rnd, n, 3/math.Sqrt(float64(n)))
			want, got := make([]float64, n*n), make([]float64, n*n)
			require.NoError(t, NewSymFunc(n).Exp(want, s))
			require.NoError(t, e.Exp(got, s))
			require.Less(t, relErr(got, want), 1e-13*float64(n), "n=%d", n)
		}
	})
}

package lapackx

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

func TestExpmAgainstSymmetric(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(6)
		for _, n := range []int{3, 8, 33, 90} {
			for _, sc := range []float64{1e-4, 0.1, 1, 10, 100} {
				a := randSym(rnd, n, sc/math.Sqrt(float64(n)))
				want := make([]float64, n*n)
				require.NoError(t, NewSymFunc(n).Exp(want, a))
				got := make([]float64, n*n)
				require.NoError(t, NewExpm(n).Exp(got, a))
				require.Less(t, relErr(got, want), 1e-13*float64(n)*math.Max(1, sc), "n=%d scale=%g", n, sc)
			}
		}
	})
}

// checkInverse returns e^A by e, checking e^A·e^{−A} = I to 1e-12·n.
func checkInverse(t *testing.T, e *Expm, a []float64, n int) []float64 {
	t.Helper()
	neg := make([]float64, n*n)
	for i := range a {
		neg[i] = -a[i]
	}
	ea, ena := make([]float64, n*n), make([]float64, n*n)
	require.NoError(t, e.Exp(ea, a))
	require.NoError(t, e.Exp(ena, neg))
	p := mul(ea, ena, n)
	for i := 0; i < n; i++ {
		p[i*n+i] -= 1
	}
	require.Less(t, fnorm(p), 1e-12*float64(n), "n=%d", n)
	return ea
}

func TestExpmInverseIdentity(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(7)
		for _, n := range []int{3, 5, 20, 64} {
			a := randGeneral(rnd, n, n, 2/math.Sqrt(float64(n)))
			e := NewExpm(n)
			ea := checkInverse(t, e, a, n)
			// gonum's Padé (Higham 2005) agrees.
			var g mat.Dense
			g.Exp(mat.NewDense(n, n, a))
			require.Less(t, relErr(ea, g.RawMatrix().Data), 1e-12, "n=%d", n)
		}
	})
}

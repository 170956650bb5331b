package bimap

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProducts checks the blocks of Products against WᵀA_iW formed by
// plain loops.
func TestProducts(t *testing.T) {
	const n, d, k = 3, 5, 2
	rnd := rand.New(rand.NewPCG(18, 9))
	a, w := make([]float64, n*d*d), make([]float64, d*k)
	for i := range a {
		a[i] = rnd.NormFloat64()
	}
	for i := range w {
		w[i] = rnd.NormFloat64()
	}
	awv, awh, zh, z := make([]float64, n*d*k), make([]float64, d*n*k), make([]float64, k*n*k), make([]float64, k*k)
	Products(awv, awh, zh, a, w, n, d, k)
	for i := 0; i < n; i++ {
		Block(z, zh, i, n, k)
		for p := 0; p < k; p++ {
			for q := 0; q < k; q++ {
				var v float64
				for r := 0; r < d; r++ {
					for c := 0; c < d; c++ {
						v += w[r*k+p] * 0.5 * (a[i*d*d+r*d+c] + a[i*d*d+c*d+r]) * w[c*k+q]
					}
				}
				require.InDelta(t, v, z[p*k+q], 1e-13, "block %d (%d, %d)", i, p, q)
			}
		}
	}
}

// TestSymOf checks that SymOf is VecUpper's adjoint on symmetric
// matrices: ⟨S, B(g)⟩ = vec(S)ᵀg.
func TestSymOf(t *testing.T) {
	const k = 4
	rnd := rand.New(rand.NewPCG(18, 10))
	s, g, b, v := make([]float64, k*k), make([]float64, k*(k+1)/2), make([]float64, k*k), make([]float64, k*(k+1)/2)
	for a := 0; a < k; a++ {
		for c := a; c < k; c++ {
			s[a*k+c] = rnd.NormFloat64()
			s[c*k+a] = s[a*k+c]
		}
	}
	for i := range g {
		g[i] = rnd.NormFloat64()
	}
	SymOf(b, g, k)
	VecUpper(v, s, k)
	require.Equal(t, []float64{s[0], s[1], s[2], s[3], s[5], s[6], s[7], s[10], s[11], s[15]}, v)
	var lhs, rhs float64
	for i := range s {
		lhs += s[i] * b[i]
	}
	for i := range g {
		rhs += v[i] * g[i]
	}
	require.InDelta(t, rhs, lhs, 1e-14)
}

package lapackx

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResidDot2: the residuals refineSmallEig builds on, A v_i − λ_i v_i
// for computed eigenpairs (so that the sum cancels to about u·‖A‖ from
// terms of size ‖A‖), are within Dot2's bound of the exact value (math/big
// at 300 bits, exact here: these products span far fewer bits):
// |r − r̂| ≤ u·|r̂| + 2(n·u)²·Σ_k |a_jk v_ik|, on both backends, at orders
// on both sides of the AVX2 kernel's 8-wide blocks. A plain float64 sum
// misses by up to n·u·Σ|a v|, about 10⁵× more here; the test asserts that
// the compensated one is below a thousandth of that bound, so that a
// kernel that lost the compensation (contracted into fused multiply-adds,
// say) fails.
func TestResidDot2(t *testing.T) {
	for _, n := range []int{1, 2, 7, 8, 9, 23, 64} {
		a := withSpectrum(newRand(uint64(n)), logSpaced(n, 1e-6, 1e3))
		e := NewEigSym(n)
		require.NoError(t, e.Factorize(a))
		v, w := e.Vectors(), e.Values()
		m := n
		forEachBackend(t, func(t *testing.T) {
			r := make([]float64, m*n)
			lp().resid(n, m, a, v, w, r)
			var worstCompensated, worstPlainBound float64
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					exact := new(big.Float).SetPrec(300)
					var abs float64
					for k := 0; k < n; k++ {
						p := new(big.Float).SetPrec(300).SetFloat64(a[j*n+k])
						p.Mul(p, new(big.Float).SetPrec(300).SetFloat64(v[i*n+k]))
						exact.Add(exact, p)
						abs += math.Abs(a[j*n+k] * v[i*n+k])
					}
					p := new(big.Float).SetPrec(300).SetFloat64(w[i])
					p.Mul(p, new(big.Float).SetPrec(300).SetFloat64(v[i*n+j]))
					exact.Sub(exact, p)
					abs += math.Abs(w[i] * v[i*n+j])
					x, _ := exact.Float64()
					nu := float64(n+1) * u
					bound := u*math.Abs(x) + 2*nu*nu*abs
					got := r[i*n+j]
					require.LessOrEqual(t, math.Abs(got-x), bound, "n=%d r[%d,%d] = %v, exact %v", n, i, j, got, x)
					worstCompensated = math.Max(worstCompensated, math.Abs(got-x))
					worstPlainBound = math.Max(worstPlainBound, nu*abs)
				}
			}
			assert.Less(t, worstCompensated, 1e-3*worstPlainBound, fmt.Sprintf("n=%d", n))
		})
	}
}

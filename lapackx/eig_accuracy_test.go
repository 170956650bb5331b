package lapackx

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEigSymAccuracy: EigSym's residual ‖AV − VΛ‖_F/‖A‖_F and
// orthogonality ‖VVᵀ − I‖_F stay at LAPACK's level, under (n+4)·ε and
// 2(n+4)·ε (1.2e-14 and 2.4e-14 at n = 50), on both backends and on both
// sides of the native backend's QL cutoff, through Factorize (upper
// triangle) and FactorizeLower.
func TestEigSymAccuracy(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, n := range []int{20, 50, 100, 200} {
			for name, a := range map[string][]float64{"graded": benchSPD(n), "random": randSym(newRand(uint64(n)), n, 1)} {
				for _, lower := range []bool{false, true} {
					t.Run(fmt.Sprintf("n=%d/%s/lower=%v", n, name, lower), func(t *testing.T) {
						e := NewEigSym(n)
						if lower {
							require.NoError(t, e.FactorizeLower(a))
						} else {
							require.NoError(t, e.Factorize(a))
						}
						res, orth := eigErrors(a, e.Values(), e.Vectors(), n)
						tol := float64(n+4) * eps
						require.LessOrEqual(t, res, tol, "residual")
						require.LessOrEqual(t, orth, 2*tol, "orthogonality")
					})
				}
			}
		}
	})
}

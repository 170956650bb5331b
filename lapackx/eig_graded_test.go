package lapackx

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gradedLogDet returns A = D B D for B with the spectrum logspaced over
// [1/2, 2] (κ(B) = 4) and d_i = 10^(g(2i/(n−1) − 1)), ascending, with
// log det A = 2 Σ log d_i + Σ log λ(B), the truth TestEigSymFactorizeGraded
// holds the eigenvalues' logarithms to: B's spectrum is that of its
// rounded entries within n·ε·‖B‖, so Σ log λ(B) within 2n²·ε·κ(B).
func gradedLogDet(n int, g float64, seed uint64) ([]float64, float64) {
	lamB := logSpaced(n, 0.5, 2)
	b := withSpectrum(newRand(seed), lamB)
	d := make([]float64, n)
	var ld float64
	for i := range d {
		d[i] = math.Pow(10, g*(2*float64(i)/float64(n-1)-1))
		ld += 2*math.Log(d[i]) + math.Log(lamB[i])
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			b[i*n+j] *= d[i] * d[j]
		}
	}
	return b, ld
}

// TestEigSymFactorizeGraded: on A = D B D graded down its diagonal
// (κ(A) up to 10¹⁶·κ(B)), FactorizeGraded's eigenvalues are all positive
// and their logarithms sum to log det A within 16n²·ε·κ(B) (each
// eigenvalue to a few n·ε relative, where ε·‖A‖ exceeds the smallest at
// g = 4), with Factorize's residual and orthogonality bounds, on both
// backends and at orders on both sides of the native QL cutoff.
// Factorize's sum, dsyevd's from n = 32, is logged for comparison: there
// the small eigenvalues are accurate to ε·‖A‖ only (Σ log λ off by up
// to 3 at g = 4, against 10⁻¹² here).
func TestEigSymFactorizeGraded(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, n := range []int{8, 20, 33, 50, 100} {
			for _, g := range []float64{2, 4} {
				t.Run(fmt.Sprintf("n=%d/g=%g", n, g), func(t *testing.T) {
					a, ld := gradedLogDet(n, g, uint64(n))
					e := NewEigSym(n)
					require.NoError(t, e.FactorizeGraded(a))
					w := e.Values()
					require.Positive(t, w[0])
					var s float64
					for _, x := range w {
						s += math.Log(x)
					}
					assert.InDelta(t, ld, s, 16*float64(n*n)*eps*4, "Σ log λ")
					res, orth := eigErrors(a, w, e.Vectors(), n)
					tol := float64(n+4) * eps
					assert.LessOrEqual(t, res, tol, "residual")
					assert.LessOrEqual(t, orth, 2*tol, "orthogonality")
					require.NoError(t, e.Factorize(a))
					var f float64
					for _, x := range e.Values() {
						f += math.Log(x) // NaN where one came out ≤ 0
					}
					t.Logf("Σ log λ off by %.2g graded, %.2g through Factorize", math.Abs(s-ld), math.Abs(f-ld))
				})
			}
		}
	})
}

package lapackx

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// blockTri3 is issue 20's stiff block upper triangular matrix and e^A from
// mpmath at 80 digits, rounded to float64: e^A[1:, 0] = 0 and e^A[0, 0] =
// e^{−500} exactly, the lower block is e^{[[−550, 360], [630, −630]]}.
var (
	blockTri3    = []float64{-500, 500, 0, 0, -550, 360, 0, 630, -630}
	blockTri3Exp = []float64{7.124576406741286e-218, 1.4620742733474185e-49, 1.016285798634033e-49,
		0, 1.1343126789441398e-49, 7.884591691652926e-50,
		0, 1.3798035460392622e-49, 9.590995302407414e-50}
)

// TestExpmBlockTriangular: the zeros that A's block structure puts in e^A
// are exact, the diagonal entry of a 1×1 block is e^{a_ii}, and the
// normwise error is at most scipy's on the same matrix (8.7e-14).
func TestExpmBlockTriangular(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		got := make([]float64, 9)
		require.NoError(t, NewExpm(3).Exp(got, blockTri3))
		require.Zero(t, got[3])
		require.Zero(t, got[6])
		require.Equal(t, math.Exp(-500), got[0])
		require.LessOrEqual(t, relErr(got, blockTri3Exp), 8.7e-14)
		for i, want := range blockTri3Exp {
			if want != 0 {
				require.InEpsilon(t, want, got[i], 1e-13, "entry %d", i)
			}
		}
	})
}

// TestExpmBlockStructure: for A = [[A11, A12], [0, A22]], symmetrically
// permuted, e^A keeps the zero block exactly and its diagonal blocks are
// e^{A11} and e^{A22}.
func TestExpmBlockStructure(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(11)
		for _, sz := range [][2]int{{1, 4}, {5, 1}, {7, 9}, {20, 30}} {
			p, q := sz[0], sz[1]
			n := p + q
			b := randGeneral(rnd, n, n, 3/math.Sqrt(float64(n)))
			for i := p; i < n; i++ {
				clear(b[i*n : i*n+p]) // block upper triangular
			}
			// A = P B Pᵀ with the permutation i ↦ perm[i].
			perm := rnd.Perm(n)
			a := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					a[perm[i]*n+perm[j]] = b[i*n+j]
				}
			}
			ea := make([]float64, n*n)
			require.NoError(t, NewExpm(n).Exp(ea, a))
			blk := func(lo, m int) []float64 {
				x := make([]float64, m*m)
				for i := 0; i < m; i++ {
					copy(x[i*m:(i+1)*m], b[(lo+i)*n+lo:(lo+i)*n+lo+m])
				}
				e := make([]float64, m*m)
				require.NoError(t, NewExpm(m).Exp(e, x))
				return e
			}
			e11, e22 := blk(0, p), blk(p, q)
			var d11, d22, n11, n22 float64
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					v := ea[perm[i]*n+perm[j]]
					switch {
					case i >= p && j < p:
						require.Zero(t, v, "p=%d q=%d (%d, %d)", p, q, i, j)
					case i < p && j < p:
						d11 = math.Hypot(d11, v-e11[i*p+j])
						n11 = math.Hypot(n11, e11[i*p+j])
					case i >= p && j >= p:
						d22 = math.Hypot(d22, v-e22[(i-p)*q+j-p])
						n22 = math.Hypot(n22, e22[(i-p)*q+j-p])
					}
				}
			}
			require.Less(t, d11/n11, 1e-12*float64(n), "p=%d q=%d", p, q)
			require.Less(t, d22/n22, 1e-12*float64(n), "p=%d q=%d", p, q)
		}
	})
}

// TestExpmAliased: Exp(a, a) gives what Exp(dst, a) gives, also on the
// triangular path, which reads A's diagonal while it squares.
func TestExpmAliased(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(12)
		for _, n := range []int{3, 6, 20} {
			full := randGeneral(rnd, n, n, 2)
			upper := append([]float64(nil), full...)
			lower := append([]float64(nil), full...)
			for i := 0; i < n; i++ {
				clear(upper[i*n : i*n+i])
				clear(lower[i*n+i+1 : (i+1)*n])
			}
			for _, a := range [][]float64{full, upper, lower, blockTri3} {
				if len(a) != n*n {
					continue
				}
				want := make([]float64, n*n)
				require.NoError(t, NewExpm(n).Exp(want, a))
				got := append([]float64(nil), a...)
				require.NoError(t, NewExpm(n).Exp(got, got))
				require.Equal(t, want, got, "n=%d", n)
			}
		}
	})
}

// TestExpmStructuredAllocs: the structured path allocates nothing either.
func TestExpmStructuredAllocs(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		e, dst := NewExpm(3), make([]float64, 9)
		require.Zero(t, testing.AllocsPerRun(20, func() { require.NoError(t, e.Exp(dst, blockTri3)) }))
	})
}

package lapackx

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
)

// TestEigBatch: each block of a batch gets the eigenvalues and
// eigenvectors EigSym gives the same matrix (vectors up to sign), on both
// backends; steady calls allocate nothing.
func TestEigBatch(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(4, 4))
		for _, n := range []int{1, 5, 33} {
			const count = 3
			a := make([]float64, count*n*n)
			for k := 0; k < count; k++ {
				for i := 0; i < n; i++ {
					for j := 0; j <= i; j++ {
						v := rnd.NormFloat64()
						a[k*n*n+i*n+j], a[k*n*n+j*n+i] = v, v
					}
				}
			}
			in := append([]float64(nil), a...)
			w := make([]float64, count*n)
			lw, liw := EigBatchWork(n)
			work, iwork := make([]float64, lw), make([]int32, liw)
			_, err := EigBatch(n, count, a, w, work, iwork)
			require.NoError(t, err)
			e := NewEigSym(n)
			for k := 0; k < count; k++ {
				require.NoError(t, e.Factorize(in[k*n*n:(k+1)*n*n]))
				for i, lam := range e.Values() {
					require.InDelta(t, lam, w[k*n+i], 1e-12*(1+math.Abs(lam)), "n %d block %d value %d", n, k, i)
					var dot float64 // |⟨v, v'⟩| = 1 for the same unit eigenvector
					for j := 0; j < n; j++ {
						dot += e.Vectors()[i*n+j] * a[k*n*n+i*n+j]
					}
					require.InDelta(t, 1, math.Abs(dot), 1e-10, "n %d block %d vector %d", n, k, i)
				}
			}
			if !race.Enabled {
				require.Zero(t, testing.AllocsPerRun(3, func() {
					copy(a, in)
					if _, err := EigBatch(n, count, a, w, work, iwork); err != nil {
						t.Fatal(err)
					}
				}))
			}
		}
	})
}

package lapackx

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/internal/race"
)

// TestZeroAllocsSizePaths: the size paths of issue 20's kernels that
// TestZeroAllocs's orders (4, 40, 120, 151) do not reach allocate nothing
// in the steady state, under both backends: Expm from n = 400 (where the
// ‖A⁴‖, ‖A⁶‖ estimates are skipped), on reducible (block-triangular) and
// triangular inputs of order 40 (structure detection and the restored
// zeros), at n = 1 and 2 (closed forms) and aliased; EigSym's
// FactorizeLower and FactorizeValues on both sides of the QL cutoff;
// EigBatch from the cutoff (batched dsyevd); ReduceSym by triangular
// solves and from sygstCutoff by dsygst, and Congruence, which
// problems/synthetic's HessGyInv route runs.
func TestZeroAllocsSizePaths(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(20)
		ops := make(map[string]func())
		expm := func(label string, a []float64, n int, alias bool) {
			ex, dst := NewExpm(n), make([]float64, n*n)
			ops[label] = func() {
				src := a
				if alias {
					copy(dst, a)
					src = dst
				}
				require.NoError(t, ex.Exp(dst, src))
			}
		}
		expm("Expm n=420", randGeneral(rnd, 420, 420, 0.02), 420, false)
		expm("Expm n=1", []float64{0.7}, 1, false)
		expm("Expm n=2", []float64{1, 3, -2, 0.5}, 2, false)
		const m = 40
		gen := randGeneral(rnd, m, m, 0.5)
		upper, block := append([]float64(nil), gen...), append([]float64(nil), gen...)
		for i := 0; i < m; i++ {
			clear(upper[i*m : i*m+i])
			if i >= m/2 { // block upper triangular, two diagonal blocks
				clear(block[i*m : i*m+m/2])
			}
		}
		expm("Expm triangular", upper, m, false)
		expm("Expm block-triangular", block, m, false)
		expm("Expm aliased", block, m, true)

		for _, n := range []int{40, eigQLCutoff()} {
			spd := withSpectrum(rnd, logSpaced(n, 0.1, 10))
			es, dst := NewEigSym(n), make([]float64, n*n)
			ops[fmt.Sprint("EigSym.FactorizeLower n=", n)] = func() { require.NoError(t, es.FactorizeLower(spd)) }
			ops[fmt.Sprint("EigSym.FactorizeValues n=", n)] = func() { require.NoError(t, es.FactorizeValues(spd)) }
			lw, liw := EigBatchWork(n)
			work, iwork := make([]float64, lw), make([]int32, liw)
			a, w := make([]float64, 2*n*n), make([]float64, 2*n)
			ops[fmt.Sprint("EigBatch n=", n)] = func() {
				copy(a, spd)
				copy(a[n*n:], spd)
				_, err := EigBatch(n, 2, a, w, work, iwork)
				require.NoError(t, err)
			}
			e, p := randSym(rnd, n, 1), make([]float64, n*n)
			ops[fmt.Sprint("Congruence n=", n)] = func() { Congruence(dst, spd, e, p, n, false) }
		}
		for _, n := range []int{40, sygstCutoff} {
			spd := withSpectrum(rnd, logSpaced(n, 0.1, 10))
			l := append([]float64(nil), spd...)
			require.True(t, Impl{}.Dpotrf(gblas.Lower, n, l, n))
			sym, a := randSym(rnd, n, 1), make([]float64, n*n)
			ops[fmt.Sprint("ReduceSym n=", n)] = func() {
				copy(a, sym)
				ReduceSym(a, l, n)
			}
		}
		for name, op := range ops {
			op() // warm up
			require.Zero(t, allocsPerCall(op), name)
		}
	})
}

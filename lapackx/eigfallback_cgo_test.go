//go:build cgo && !purego

package lapackx

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
)

// TestEigDsyevdFallback: where dsyevd reports failure (forced here by
// lapacke.FailDsyevd, after dsyevd has run and overwritten its matrix, as
// a real failure leaves it), EigSym.Factorize, FactorizeLower and
// FactorizeValues, EigBatch, SymFunc and LyapSym still succeed on the
// native backend at orders that run dsyevd: the input is restored and
// syevql solves it. The results are those of a backward-stable solver:
// residual ‖AV − VΛ‖_F/‖A‖_F ≤ (n+4)·ε, ‖VVᵀ − I‖_F ≤ 2(n+4)·ε, the
// eigenvalues within (n+4)·ε·‖A‖₂ of dsyevd's on the same matrix (Weyl's
// inequality with both backward errors of that order), and every fallback
// is counted.
func TestEigDsyevdFallback(t *testing.T) {
	prev := blas.Current()
	defer func() { require.NoError(t, blas.Use(prev)) }()
	require.NoError(t, blas.Use(blas.Native))
	defer lapacke.FailDsyevd.Store(false)
	for _, n := range []int{eigQLCutoff(), 150} {
		a := benchSPD(n)
		tol := float64(n+4) * eps
		ref := NewEigSym(n)
		require.NoError(t, ref.Factorize(a)) // dsyevd, not failing
		wref := append([]float64(nil), ref.Values()...)
		anorm := math.Max(math.Abs(wref[0]), math.Abs(wref[n-1]))
		checkValues := func(t *testing.T, w []float64) {
			t.Helper()
			for i := range w {
				assert.LessOrEqual(t, math.Abs(w[i]-wref[i]), tol*anorm, "λ_%d", i)
			}
		}
		checkVectors := func(t *testing.T, w, v []float64) {
			t.Helper()
			res, orth := eigErrors(a, w, v, n)
			assert.LessOrEqual(t, res, tol, "residual")
			assert.LessOrEqual(t, orth, 2*tol, "orthogonality")
		}

		lapacke.FailDsyevd.Store(true)
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			e := NewEigSym(n)
			for _, call := range []struct {
				name string
				f    func() error
				vecs bool
			}{
				{"Factorize", func() error { return e.Factorize(a) }, true},
				{"FactorizeLower", func() error { return e.FactorizeLower(a) }, true},
				{"FactorizeValues", func() error { return e.FactorizeValues(a) }, false},
			} {
				before := eigFallbacks.Load()
				require.NoError(t, call.f(), call.name)
				assert.Equal(t, int64(1), eigFallbacks.Load()-before, "%s: fallbacks counted", call.name)
				checkValues(t, e.Values())
				if call.vecs {
					checkVectors(t, e.Values(), e.Vectors())
				}
			}

			// A batch of three: each matrix falls back on its own.
			const count = 3
			lw, liw := EigBatchWork(n)
			buf, w := make([]float64, 0, count*n*n), make([]float64, count*n)
			for range count {
				buf = append(buf, a...)
			}
			before := eigFallbacks.Load()
			_, err := EigBatch(n, count, buf, w, make([]float64, lw), make([]int32, liw))
			require.NoError(t, err, "EigBatch")
			assert.Equal(t, int64(count), eigFallbacks.Load()-before, "EigBatch: fallbacks counted")
			for k := range count {
				checkValues(t, w[k*n:(k+1)*n])
				checkVectors(t, w[k*n:(k+1)*n], buf[k*n*n:(k+1)*n*n])
			}

			// The matrix functions on top: A^½·A^½ = A and the Lyapunov
			// residual, to the bounds of TestSymFuncIdentities' kind.
			s, sq := NewSymFunc(n), make([]float64, n*n)
			require.NoError(t, s.Sqrt(sq, a))
			sq2 := fuzzing.MulPlain(sq, sq, n, n, n)
			assert.LessOrEqual(t, relErr(sq2, a), 4*tol*math.Sqrt(anorm/wref[0]), "A^½·A^½")
			l, c, x := NewLyapSym(n), randSym(newRand(7), n, 1), make([]float64, n*n)
			require.NoError(t, l.Solve(x, a, c))
			ax, r := fuzzing.MulPlain(a, x, n, n, n), make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					r[i*n+j] = ax[i*n+j] + ax[j*n+i] // (A X + X A)_ij, X and A symmetric
				}
			}
			assert.LessOrEqual(t, relErr(r, c), 4*tol*anorm/wref[0], "Lyapunov residual")
		})
		lapacke.FailDsyevd.Store(false)
	}
}

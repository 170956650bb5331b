//go:build cgo && !purego

package lapackx

import (
	"fmt"
	"testing"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
)

// BenchmarkLyapStages times LyapSym's two stages, the eigendecomposition
// (stage=factorize) and the two congruences (stage=solve), and, for the
// first, LAPACK's dsyevr on one thread (stage=evr) beside EigSym's driver.
func BenchmarkLyapStages(b *testing.B) {
	_ = blas.Current()
	for _, n := range []int{50, 100, 200, 500, 1000} {
		a, c := benchSPD(n), randSym(newRand(9), n, 1)
		l := NewLyapSym(n)
		dst := make([]float64, n*n)
		b.Run(fmt.Sprintf("stage=factorize/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := l.Factorize(a); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("stage=solve/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := l.SolveFactorized(dst, c); err != nil {
					b.Fatal(err)
				}
			}
		})
		buf, w, z := make([]float64, n*n), make([]float64, n), make([]float64, n*n)
		work, iwork, isuppz := make([]float64, 70*n), make([]int32, 10*n), make([]int32, 2*n)
		b.Run(fmt.Sprintf("stage=evr/n=%d", n), func(b *testing.B) {
			blas.SerialBegin()
			defer blas.SerialEnd()
			for b.Loop() {
				copy(buf, a)
				if info := lapacke.Dsyevr('V', 'L', n, buf, n, w, z, n, isuppz, work, iwork); info != 0 {
					b.Fatal(info)
				}
			}
		})
	}
}

//go:build cgo && !purego

package lapackx

import (
	"fmt"
	"testing"

	"github.com/rhgd/rhgd/blas"
)

// BenchmarkLyapStages times LyapSym's two stages, the eigendecomposition
// (stage=factorize) and the two congruences (stage=solve). On the shared
// 2-core EPYC beside other work (2026-11-25), factorize took 60-75% of a
// solve at every n from 50 to 1000, and LAPACK's dsyevr (MRRR) on one
// thread, measured here while its binding existed, was no faster than
// EigSym's driver at any n (n = 50: 1.1 ms against 0.14-0.25 ms; n = 200:
// 5.2-10.6 ms against 3.1-4.9 ms; n = 500: 49-79 ms against 52-67 ms;
// n = 1000: 1.1-1.3 s against 0.94-1.3 s), so its binding went again.
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
	}
}

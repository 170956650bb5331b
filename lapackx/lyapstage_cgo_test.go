//go:build cgo && !purego

package lapackx

import (
	"fmt"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// BenchmarkLyapStages times LyapSym's stages beside the bare calls that
// bound them: stage=floor-eig is the copy and the eigensolver alone (what
// the benchmark report's eig case times, less its symmetry check);
// stage=factorize adds the checks and the eigenpair refinement;
// stage=solve is SolveFactorized (the check of C, two congruences of 3n³
// flops each, the Hadamard scaling); stage=full is Solve; stage=floor-gemm
// is one n×n GEMM (2n³). Issue 32 §5 holds full to 1.3× floor-eig from
// n = 200; congruences at GEMM's rate put it at 1 + 3·gemm/floor-eig.
//
//	go test -run '^$' -bench LyapStages -benchtime 10x -count 6 ./lapackx
//
// On the shared 2-core EPYC beside other work (2026-11-25), factorize took
// 60-75% of a solve at every n from 50 to 1000, and LAPACK's dsyevr (MRRR)
// on one thread, measured here while its binding existed, was no faster
// than EigSym's driver at any n (n = 50: 1.1 ms against 0.14-0.25 ms;
// n = 200: 5.2-10.6 ms against 3.1-4.9 ms; n = 500: 49-79 ms against
// 52-67 ms; n = 1000: 1.1-1.3 s against 0.94-1.3 s), so its binding went
// again.
func BenchmarkLyapStages(b *testing.B) {
	impl := blas.Impl()
	for _, n := range []int{50, 100, 200, 500, 1000} {
		a, c := benchSPD(n), randSym(newRand(9), n, 1)
		l, e := NewLyapSym(n), NewEigSym(n)
		dst := make([]float64, n*n)
		if err := l.Factorize(a); err != nil {
			b.Fatal(err)
		}
		for _, st := range []struct {
			name string
			run  func() error
		}{
			{"floor-eig", func() error { copy(e.v, a); return e.factorizeV(false) }},
			{"factorize", func() error { return l.Factorize(a) }},
			{"solve", func() error { return l.SolveFactorized(dst, c) }},
			{"full", func() error { return l.Solve(dst, a, c) }},
			{"floor-gemm", func() error {
				impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a, n, c, n, 0, dst, n)
				return nil
			}},
		} {
			b.Run(fmt.Sprintf("stage=%s/n=%d", st.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := st.run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

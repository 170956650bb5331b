//go:build cgo && !purego

package lapackx

import (
	"fmt"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// BenchmarkLyapStages times LyapSym's stages interleaved (see interleave)
// beside the bare calls that bound them: eig is the copy and the
// eigensolver alone (what the benchmark report's eig case times, less its
// symmetry check); factorize adds the checks and the eigenpair
// refinement; solve is SolveFactorized (the check of C, two congruences
// of 3n³ flops each, the Hadamard scaling); full is Solve; gemm is one n×n
// GEMM (2n³). Each reports its median time and its median ratio to eig in
// the same iteration: issue 32 §5 holds full/eig to 1.3 from n = 200, and
// congruences at GEMM's rate put full/eig near 1 + 3·gemm/eig.
//
//	go test -run '^$' -bench LyapStages -benchtime 20x ./lapackx
//
// On the shared 2-core EPYC beside other work (2026-11-27, load average
// 4-6; three runs, 20 iterations at n = 200 and 500, 4 at 1000): full/eig
// 1.57-1.77 at n = 200, 1.88-1.99 at 500, 2.10-2.13 at 1000 (one run
// 3.07); gemm/eig 0.14, 0.24, 0.31, so the solve's two congruences
// (solve/eig 0.46-0.53, 0.80-0.82, 1.01-1.02) are 3.2-3.6 GEMMs of their
// 6n³ flops' 3; factorize/eig 1.06-1.20 (the refinement and the checks).
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
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			interleave(b, []string{"eig", "factorize", "solve", "full", "gemm"},
				func() error { copy(e.v, a); return e.factorizeV(false) },
				func() error { return l.Factorize(a) },
				func() error { return l.SolveFactorized(dst, c) },
				func() error { return l.Solve(dst, a, c) },
				func() error {
					impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a, n, c, n, 0, dst, n)
					return nil
				})
		})
	}
}

package lapackx

import (
	"fmt"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// BenchmarkSymFuncStages splits SymFunc.Apply (f = exp) into its stages,
// each as Apply runs it, next to the bare calls that bound them:
// stage=factorize is the symmetry check, the copy and dsyevd;
// stage=floor-eig is the copy and dsyevd alone (BenchmarkEigSym);
// stage=eval is f(λ), the row scaling, the rank-n update and the mirror;
// stage=floor-syrk and stage=floor-gemm are the bare products. Each
// reports Gflop/s over the nominal count: dsyevd with vectors 9n³, syrk
// n³, gemm 2n³. Apply over floor-eig is the ratio the matrix functions are
// held to.
//
//	go test -run '^$' -bench SymFuncStages -benchtime 3x -count 6 ./lapackx
func BenchmarkSymFuncStages(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		a := benchSPD(n)
		s := NewSymFunc(n)
		e := NewEigSym(n)
		dst, c := make([]float64, n*n), make([]float64, n*n)
		if err := s.Factorize(a); err != nil {
			b.Fatal(err)
		}
		impl := blas.Impl()
		n3 := float64(n) * float64(n) * float64(n)
		for _, st := range []struct {
			name  string
			flops float64
			run   func() error
		}{
			{"full", 0, func() error { return s.Apply(dst, a, ExpFunc) }},
			{"factorize", 9 * n3, func() error { return s.Factorize(a) }},
			{"floor-eig", 9 * n3, func() error { copy(e.v, a); return e.factorizeV(false) }},
			{"eval", n3, func() error { return s.Eval(dst, ExpFunc) }},
			{"floor-syrk", n3, func() error {
				impl.Dsyrk(gblas.Upper, gblas.Trans, n, n, 1, a, n, 0, c, n)
				return nil
			}},
			{"floor-gemm", 2 * n3, func() error {
				impl.Dgemm(gblas.Trans, gblas.NoTrans, n, n, n, 1, a, n, a, n, 0, c, n)
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
				if st.flops > 0 {
					b.ReportMetric(st.flops*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "Gflop/s")
				}
			})
		}
	}
}

package lapackx

import (
	"fmt"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
)

// reduceSymOperands are a benchmark's operands of L⁻¹ U L⁻ᵀ at order n:
// a random symmetric U, the lower Cholesky factor L of benchSPD(n), and
// the scratch t to copy U into.
func reduceSymOperands(n int) (u, l, t []float64) {
	l = benchSPD(n)
	Impl{}.Dpotrf(gblas.Lower, n, l, n)
	return randSym(newRand(5), n, 1), l, make([]float64, n*n)
}

// BenchmarkReduceSymRecursive compares ReduceSym (dsygst from n = 300 on
// the native backend, two triangular solves below and on gonum) with
// ReduceSymRecursive, copy of the operand included.
//
//	go test -run '^$' -bench ReduceSymRecursive -count 6 ./lapackx
func BenchmarkReduceSymRecursive(b *testing.B) {
	for _, n := range []int{100, 200, 500, 1000, 2000} {
		u, l, t := reduceSymOperands(n)
		for _, m := range []struct {
			name string
			f    func(a, l []float64, n int)
		}{{"reducesym", ReduceSym}, {"recursive", ReduceSymRecursive}} {
			b.Run(fmt.Sprintf("method=%s/n=%d", m.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					copy(t, u)
					m.f(t, l, n)
				}
			})
		}
	}
}

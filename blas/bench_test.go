package blas

import (
	"fmt"
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BenchmarkHybridCrossover times pure Go against the native library on
// small square calls; level2Cutoff and level3Cutoff in hybrid.go come from
// it. Measured on the 2-core Xeon (AVX-512, OpenBLAS SkylakeX kernels,
// `go test -run '^$' -bench HybridCrossover -count 3 ./blas`), medians in ns:
//
//	gemm n=2:   go   51   native   61     gemv n=64:  go  567   native  398
//	gemm n=4:   go  146   native   74     gemv n=96:  go 1386   native 2439
//	gemm n=8:   go  414   native   87     gemv n=128: go 2433   native 2423
//	gemm n=32:  go 11903  native 1025     gemv n=256: go 10294  native 5974
func BenchmarkHybridCrossover(b *testing.B) {
	if !haveNative {
		b.Skip("pure-Go build")
	}
	lazyStart() // RHGD_THREADS applies
	impls := []struct {
		name string
		impl gblas.Float64
	}{{"go", gonum.Implementation{}}, {"native", nativeImpl()},
		{"native-window", Hybrid{Native: nativeImpl()}}} // native with the one-thread windows
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{2, 4, 6, 8, 12, 16, 32} {
		a, c := randSlice(rnd, n*n), randSlice(rnd, n*n)
		for _, im := range impls {
			b.Run(fmt.Sprintf("op=gemm/impl=%s/n=%d", im.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					im.impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a, n, a, n, 0, c, n)
				}
			})
		}
	}
	for _, n := range []int{32, 48, 64, 80, 96, 128, 256, 512, 1024, 2048} {
		a, x, y := randSlice(rnd, n*n), randSlice(rnd, n), randSlice(rnd, n)
		for _, im := range impls {
			b.Run(fmt.Sprintf("op=gemv/impl=%s/n=%d", im.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					im.impl.Dgemv(gblas.NoTrans, n, n, 1, a, n, x, 1, 0, y, 1)
				}
			})
		}
	}
}

func randSlice(rnd *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rnd.NormFloat64()
	}
	return s
}

// BenchmarkGoBLASDgemm compares GoBLAS's pooled, allocation-free Dgemm with
// gonum's own. Measured on the 2-core Xeon (`go test -run '^$' -bench
// GoBLASDgemm -count 3 ./blas`), medians: n=100 gonum 199 µs and 10
// allocations, GoBLAS 217 µs and none; n=300 3.98 ms (52), 4.24 ms (0);
// n=1000 153 ms (514), 172 ms (0). About 10% slower, in exchange for
// allocation-free steady states on the pure-Go backend; 64×64 and 64×192
// tiles measured slower than 64×128.
func BenchmarkGoBLASDgemm(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{100, 300, 1000} {
		a, c := randSlice(rnd, n*n), randSlice(rnd, n*n)
		for _, im := range []struct {
			name string
			impl gblas.Float64
		}{{"gonum", gonum.Implementation{}}, {"goblas", GoBLAS{}}} {
			b.Run(fmt.Sprintf("impl=%s/n=%d", im.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					im.impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a, n, a, n, 0, c, n)
				}
			})
		}
	}
}

// BenchmarkSerialSwitch is the cost of a one-thread window around a call:
// a SerialBegin and SerialEnd pair with more than one thread set.
func BenchmarkSerialSwitch(b *testing.B) {
	if !haveNative {
		b.Skip("pure-Go build")
	}
	lazyStart()
	b.ReportAllocs()
	for b.Loop() {
		SerialBegin()
		SerialEnd()
	}
}

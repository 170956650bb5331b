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
	Start() // RHGD_THREADS applies
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

// BenchmarkSerialWindow times the triangular, symmetric and rank-k level-3
// calls on one OpenBLAS thread and on all, to place serialLo and serialHi.
// Measured on the 2-core Xeon (`go test -run '^$' -bench SerialWindow
// -count 1 ./blas`), all threads against one, µs: n=50 trsm 12.2/9.2, trmm
// 7.6/4.4, syrk 6.5/6.4, symm 17.5/7.1; n=100 trsm 47/60, trmm 25/27, syrk
// 54/27, symm 51/43; n=200 trsm 297/415, syrk 180/155. gemm is
// threaded only above n ≈ 100 by OpenBLAS itself (n=50: 3.9/3.9 µs).
func BenchmarkSerialWindow(b *testing.B) {
	if !haveNative {
		b.Skip("pure-Go build")
	}
	rnd := rand.New(rand.NewPCG(1, 1))
	nat := nativeImpl()
	for _, n := range []int{20, 50, 100, 200} {
		a, c, t := randSlice(rnd, n*n), randSlice(rnd, n*n), randSlice(rnd, n*n)
		for i := 0; i < n; i++ {
			a[i*n+i] += float64(n)
		}
		for _, one := range []bool{false, true} {
			tag := fmt.Sprintf("threads=all/n=%d", n)
			if one {
				tag = fmt.Sprintf("threads=one/n=%d", n)
			}
			run := func(name string, f func()) {
				b.Run("op="+name+"/"+tag, func(b *testing.B) {
					if one {
						SerialBegin()
						defer SerialEnd()
					}
					for b.Loop() {
						f()
					}
				})
			}
			run("trsm", func() {
				copy(t, c)
				nat.Dtrsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, n, 1, a, n, t, n)
			})
			run("trmm", func() {
				copy(t, c)
				nat.Dtrmm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, n, 1, a, n, t, n)
			})
			run("gemm", func() { nat.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a, n, c, n, 0, t, n) })
			run("syrk", func() { nat.Dsyrk(gblas.Upper, gblas.Trans, n, n, 1, a, n, 0, t, n) })
			run("symm", func() { nat.Dsymm(gblas.Left, gblas.Upper, n, n, 1, a, n, c, n, 0, t, n) })
		}
	}
}

package blas

import (
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"
)

// Probe is one call kind for measuring where threads pay off (`rhgd
// tune`): Setup makes inputs of order n and returns the call on them,
// which runs the native library directly, outside every window, on
// whatever thread count is set. Orders are the orders worth measuring,
// ascending.
type Probe struct {
	Call   Call
	Orders []int
	Setup  func(n int) func()
}

// Orders measured by the probes: the range where the crossovers lie on
// machines from 2 to 64 cores (below the smallest, OpenBLAS keeps most
// calls on one thread by itself or threads lose everywhere measured).
var (
	level3Orders = []int{64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536}
	level2Orders = []int{256, 512, 1024, 1536, 2048, 3072, 4096}
)

// ThreadProbes returns the probes of the BLAS calls Hybrid brackets (nil
// in a pure-Go build).
func ThreadProbes() []Probe {
	if !haveNative {
		return nil
	}
	nat := nativeImpl()
	const (
		N, T    = gblas.NoTrans, gblas.Trans
		U, Lo   = gblas.Upper, gblas.Lower
		L, NonU = gblas.Left, gblas.NonUnit
	)
	// in returns three n×n inputs (a with a dominant diagonal, so its
	// triangles are well conditioned) and two n-vectors.
	in := func(n int) (a, b, c, x, y []float64) {
		rnd := rand.New(rand.NewPCG(uint64(n), 1))
		fill := func(k int) []float64 {
			s := make([]float64, k)
			for i := range s {
				s[i] = rnd.NormFloat64()
			}
			return s
		}
		a, b, c, x, y = fill(n*n), fill(n*n), fill(n*n), fill(n), fill(n)
		for i := range n {
			a[i*n+i] += float64(n)
		}
		return
	}
	l3 := func(call Call, f func(n int, a, b, c []float64)) Probe {
		return Probe{call, level3Orders, func(n int) func() {
			a, b, c, _, _ := in(n)
			return func() { f(n, a, b, c) }
		}}
	}
	l2 := func(call Call, f func(n int, a, x, y []float64)) Probe {
		return Probe{call, level2Orders, func(n int) func() {
			a, _, _, x, y := in(n)
			return func() { f(n, a, x, y) }
		}}
	}
	return []Probe{
		l3(CallGemm, func(n int, a, b, c []float64) { nat.Dgemm(N, N, n, n, n, 1, a, n, b, n, 0, c, n) }),
		l3(CallSymm, func(n int, a, b, c []float64) { nat.Dsymm(L, U, n, n, 1, a, n, b, n, 0, c, n) }),
		l3(CallSyrk, func(n int, a, b, c []float64) { nat.Dsyrk(U, T, n, n, 1, a, n, 0, c, n) }),
		l3(CallSyr2k, func(n int, a, b, c []float64) { nat.Dsyr2k(U, T, n, n, 1, a, n, b, n, 0, c, n) }),
		l3(CallTrmm, func(n int, a, b, c []float64) {
			copy(c, b)
			nat.Dtrmm(L, Lo, N, NonU, n, n, 1, a, n, c, n)
		}),
		l3(CallTrsm, func(n int, a, b, c []float64) {
			copy(c, b)
			nat.Dtrsm(L, Lo, N, NonU, n, n, 1, a, n, c, n)
		}),
		l2(CallGemv, func(n int, a, x, y []float64) { nat.Dgemv(N, n, n, 1, a, n, x, 1, 0, y, 1) }),
		l2(CallSymv, func(n int, a, x, y []float64) { nat.Dsymv(U, n, 1, a, n, x, 1, 0, y, 1) }),
		l2(CallGer, func(n int, a, x, y []float64) { nat.Dger(n, n, 1e-12, x, 1, y, 1, a, n) }),
		l2(CallTrmv, func(n int, a, x, y []float64) {
			copy(y, x)
			nat.Dtrmv(Lo, N, NonU, n, a, n, y, 1)
		}),
	}
}

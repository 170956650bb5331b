//go:build cgo && !purego

package lapackx

import (
	"fmt"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
)

// BenchmarkEigDriver compares LAPACK's two symmetric eigensolvers with
// eigenvectors, one thread below eigSerialCutoff as EigSym runs them.
// Measured on the 2-core Xeon (`go test -run '^$' -bench EigDriver -count 8
// ./lapackx`), medians: n=10 syevd 13 µs, syevr 16 µs; n=50 221 µs,
// 316 µs; n=200 2.86 ms, 3.54 ms; n=1000 104 ms, 131 ms. dsyevd wins at
// every size, so EigSym calls it.
func BenchmarkEigDriver(b *testing.B) {
	for _, n := range []int{10, 50, 200, 1000} {
		a := benchSPD(n)
		buf, w, z := make([]float64, n*n), make([]float64, n), make([]float64, n*n)
		work, iwork := make([]float64, 1+6*n+2*n*n+26*n), make([]int32, 3+10*n)
		isuppz := make([]int32, 2*n)
		run := func(b *testing.B, f func() int) {
			b.ReportAllocs()
			if n < eigSerialCutoff {
				blas.SerialBegin()
				defer blas.SerialEnd()
			}
			for b.Loop() {
				copy(buf, a)
				if info := f(); info != 0 {
					b.Fatal(info)
				}
			}
		}
		b.Run(fmt.Sprintf("driver=syevd/n=%d", n), func(b *testing.B) {
			run(b, func() int { return lapacke.Dsyevd('V', 'L', n, buf, n, w, work, iwork) })
		})
		b.Run(fmt.Sprintf("driver=syevr/n=%d", n), func(b *testing.B) {
			run(b, func() int { return lapacke.Dsyevr('V', 'L', n, buf, n, w, z, n, isuppz, work, iwork) })
		})
	}
}

// BenchmarkEigThreads runs dsyevd on one thread and on all, to place
// eigSerialCutoff. Measured on the 2-core Xeon (`go test -run '^$' -bench
// EigThreads -count 3 ./lapackx`), medians, one thread against all: n=50
// 216 µs, 330 µs; n=100 0.77 ms, 1.04 ms; n=200 2.67 ms, 3.28 ms; n=300
// 7.14 ms, 7.22 ms; n=500 22.7 ms, 22.7 ms; n=700 67 ms, 53 ms; n=1000
// 160 ms, 106 ms: threads pay off from n ≈ 500.
func BenchmarkEigThreads(b *testing.B) {
	for _, n := range []int{50, 100, 200, 300, 500, 700, 1000} {
		a := benchSPD(n)
		buf, w := make([]float64, n*n), make([]float64, n)
		work, iwork := make([]float64, 1+6*n+2*n*n), make([]int32, 3+5*n)
		for _, serial := range []bool{true, false} {
			name := "all"
			if serial {
				name = "one"
			}
			b.Run(fmt.Sprintf("threads=%s/n=%d", name, n), func(b *testing.B) {
				if serial {
					blas.SerialBegin()
					defer blas.SerialEnd()
				}
				for b.Loop() {
					copy(buf, a)
					if info := lapacke.Dsyevd('V', 'L', n, buf, n, w, work, iwork); info != 0 {
						b.Fatal(info)
					}
				}
			})
		}
	}
}

// BenchmarkQRLayout compares the thin QR of a row-major n×p matrix done as
// the LQ of its column-major view (no data movement, dgelqf/dorglq) with
// the one QR uses: transpose, dgeqrf/dorgqr, transpose back. Measured on the
// 2-core Xeon (`go test -run '^$' -bench QRLayout -count 2 ./lapackx`):
// n=1000,p=50 LQ 4.6 ms, transposed 1.0 ms; n=10000,p=100 110 ms, 35 ms;
// n=200,p=200 1.78 ms, 1.47 ms; n=1000,p=1000 75 ms, 54 ms.
func BenchmarkQRLayout(b *testing.B) {
	for _, s := range [][2]int{{1000, 50}, {10000, 100}, {200, 200}, {1000, 1000}} {
		n, p := s[0], s[1]
		a := randGeneral(newRand(4), n, p, 1)
		t, q := make([]float64, n*p), make([]float64, n*p)
		tau, work := make([]float64, p), make([]float64, 64*n+64*64)
		b.Run(fmt.Sprintf("layout=lq/n=%d,p=%d", n, p), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(t, a)
				lapacke.Dgelqf(p, n, t, p, tau, work, len(work))
				lapacke.Dorglq(p, n, p, t, p, tau, work, len(work))
			}
		})
		b.Run(fmt.Sprintf("layout=transposed/n=%d,p=%d", n, p), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				transposeTo(t, a, n, p)
				lapacke.Dgeqrf(n, p, t, n, tau, work, len(work))
				lapacke.Dorgqr(n, p, p, t, n, tau, work, len(work))
				transposeTo(q, t, p, n)
			}
		})
	}
}

// BenchmarkReduceSym compares dsygst with two triangular solves for
// L⁻¹ A L⁻ᵀ, to place sygstCutoff. Measured on the 2-core Xeon (`go test
// -run '^$' -bench ReduceSym -count 2 ./lapackx`): n=50 solves 29 µs, dsygst
// 146 µs; n=100 0.11 ms, 0.32 ms; n=200 0.65 ms, 0.89 ms; n=400 4.2 ms,
// 3.2 ms; n=1000 31 ms, 22 ms.
func BenchmarkReduceSym(b *testing.B) {
	for _, n := range []int{50, 100, 200, 400, 1000} {
		x := benchSPD(n)
		u := randSym(newRand(5), n, 1)
		l := append([]float64(nil), x...)
		Impl{}.Dpotrf(gblas.Lower, n, l, n)
		t := make([]float64, n*n)
		impl := blas.Impl()
		b.Run(fmt.Sprintf("method=solves/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(t, u)
				impl.Dtrsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, n, 1, l, n, t, n)
				impl.Dtrsm(gblas.Right, gblas.Lower, gblas.Trans, gblas.NonUnit, n, n, 1, l, n, t, n)
			}
		})
		b.Run(fmt.Sprintf("method=dsygst/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(t, u)
				lapacke.Dsygst(1, 'U', n, t, n, l, n)
			}
		})
	}
}

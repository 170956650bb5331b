//go:build cgo && !purego

package lapackx

import (
	"fmt"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
)

// BenchmarkEigDriver compares symmetric eigensolvers with eigenvectors on
// benchSPD matrices: driver=ql is rhgd's syevql (EigSym's choice below
// eigQLCutoff) and ql-base the same without its AVX2 code; evd is
// LAPACK's dsyevd (EigSym's choice above), on one OpenBLAS thread as
// EigSym runs it; jacobi and hestenes are two- and one-sided Jacobi
// in pure Go (jacobi_test.go) and gonum is gonum's Dsyev (the pure-Go
// backend's). BenchmarkEigDriverSmallEig adds spectral's
// SmallEig. Measured on the 2-core EPYC (`go test -run '^$' -bench
// EigDriver -count 6 ./lapackx`), medians at n=50: ql 87 µs, ql-base
// 195 µs, evd 167 µs, evr 201 µs, ev 215 µs, trd+steqr 200 µs, gonum
// 248 µs, jacobi 1.5 ms, hestenes 2.0 ms (SmallEig 218 µs against EigSym's
// 98 µs); evr, ev and trd+steqr were LAPACK's dsyevr (MRRR), dsyev (QR)
// and dsytrd+dorgtr+dsteqr, measured when the benchmark had them (their
// bindings went as dead code; git history has them). ql leads evd by 2.3×
// at n=20, 1.3× at n=100, 1.2× at n=128 and trails from n ≈ 150 (1.52 ms
// against 1.46 ms at n=160); see eigQLVecCutoff. The Jacobi methods are 10× slower or worse at every
// order and less orthogonal (TestJacobiRivals).
func BenchmarkEigDriver(b *testing.B) {
	_ = blas.Current() // starts the backend: else SerialBegin, finding one thread set, does nothing
	for _, n := range []int{20, 32, 50, 64, 100, 128, 160, 200} {
		a := benchSPD(n)
		buf, w, z := make([]float64, n*n), make([]float64, n), make([]float64, n*n)
		lwork := 1 + 6*n + 2*n*n + 26*n + 64*n
		work, iwork := make([]float64, lwork), make([]int32, 3+10*n)
		glw, _ := gonumLapack{}.eigWork(n)
		gwork := make([]float64, glw)
		drivers := []struct {
			name   string
			serial bool // on one OpenBLAS thread, as EigSym runs LAPACK
			maxN   int  // slow rivals stop here
			f      func() int
		}{
			{"ql", false, 0, func() int { return lapacke.Syevql(n, buf, w, work[:n], true, false) }},
			{"ql-base", false, 0, func() int { return lapacke.Syevql(n, buf, w, work[:n], true, true) }},
			{"evd", true, 0, func() int { return lapacke.Dsyevd('V', 'U', n, buf, n, w, work, iwork) }},
			{"jacobi", false, 100, func() int { return boolInfo(jacobiCyclic(buf, w, z, n)) }},
			{"hestenes", false, 100, func() int { return boolInfo(jacobiOneSided(buf, w, z, n)) }},
			{"gonum", false, 0, func() int {
				return boolInfo(gonumLapack{}.eig(true, true, n, buf, w, gwork, nil) == nil)
			}},
		}
		for _, dr := range drivers {
			if dr.maxN > 0 && n > dr.maxN {
				continue
			}
			b.Run(fmt.Sprintf("driver=%s/n=%d", dr.name, n), func(b *testing.B) {
				b.ReportAllocs()
				if dr.serial {
					blas.SerialBegin()
					defer blas.SerialEnd()
				}
				for b.Loop() {
					copy(buf, a)
					if info := dr.f(); info != 0 {
						b.Fatal(info)
					}
				}
			})
		}
	}
}

func boolInfo(ok bool) int {
	if ok {
		return 0
	}
	return 1
}

// BenchmarkEigThreads runs dsyevd on one thread and on all. Measured on
// the 2-core Xeon (`go test -run '^$' -bench EigThreads -count 3
// ./lapackx`), medians, one thread against all: n=50 216 µs, 330 µs;
// n=100 0.77 ms, 1.04 ms; n=200 2.67 ms, 3.28 ms; n=300 7.14 ms, 7.22 ms;
// n=500 22.7 ms, 22.7 ms; n=700 67 ms, 53 ms; n=1000 160 ms, 106 ms. On the
// 2-core EPYC (-count 6): n=50 177 µs, 361 µs; n=100 0.61 ms, 1.18 ms;
// n=200 2.45 ms, 3.75 ms. tune's BenchmarkThreadProbes measures dsyevd with the
// other LAPACK calls (bench/threads.sh: quiet and beside busy processes).
func BenchmarkEigThreads(b *testing.B) {
	_ = blas.Current() // starts the backend: else SerialBegin, finding one thread set, does nothing
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
		u, l, t := reduceSymOperands(n)
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

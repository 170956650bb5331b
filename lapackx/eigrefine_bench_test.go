//go:build cgo && !purego

package lapackx

import (
	"fmt"
	"slices"
	"testing"
	"time"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
)

// BenchmarkRefinedEigSym times RefinedEigSym (ssyevd refined to float64)
// against dsyevd on one OpenBLAS thread (EigSym's choice, evd1) and on
// all threads (evdall), interleaved in each round so that a shared
// machine's load moves all alike; it reports each one's median time and
// the median over rounds of refined's time over evd1's and evdall's, and
// the refinement steps taken (fallback: 1 when it fell back to dsyevd);
// ssyevd1 is the float32 start alone and gemm one n×n dgemm on all
// threads, the unit in which each refinement step costs 3.5.
// spectrum=separated is linearly spaced in [−1, 1]; spectrum=hinv is
// the synthetic problem's HINV matrix's at d = 1000, [0.0093, 0.0149],
// linearly spaced with each eigenvalue jittered by up to 0.45 of the
// spacing (smallest relative gaps about 1e-5, as there).
//
//	go test -run '^$' -bench RefinedEigSym -benchtime 5x ./lapackx
func BenchmarkRefinedEigSym(b *testing.B) {
	_ = blas.Current() // starts the backend: else SerialBegin does nothing
	for _, spec := range []string{"separated", "hinv"} {
		for _, n := range []int{500, 1000, 2000} {
			var lam []float64
			switch spec {
			case "separated":
				lam = linSpaced(n, -1, 1)
			case "hinv":
				lam = hinvSpectrum(n)
			}
			a := withSpectrum(newRand(uint64(n)), lam)
			e := NewRefinedEigSym(n)
			buf, w := make([]float64, n*n), make([]float64, n)
			work, iwork := make([]float64, evdWork(n)), make([]int32, 3+5*n)
			evd := func() {
				copy(buf, a)
				if info := lapacke.Dsyevd('V', 'U', n, buf, n, w, work, iwork); info != 0 {
					b.Fatal(info)
				}
			}
			a32, w32 := make([]float32, n*n), make([]float32, n)
			work32 := make([]float32, evdWork(n))
			c := make([]float64, n*n)
			names := []string{"refined", "evd1", "evdall", "ssyevd1", "gemm"}
			fns := []func(){
				func() {
					if err := e.Factorize(a); err != nil {
						b.Fatal(err)
					}
				},
				func() { blas.SerialBegin(); evd(); blas.SerialEnd() },
				evd,
				func() {
					for i, x := range a {
						a32[i] = float32(x)
					}
					blas.SerialBegin()
					if info := lapacke.Ssyevd('V', 'U', n, a32, n, w32, work32, iwork); info != 0 {
						b.Fatal(info)
					}
					blas.SerialEnd()
				},
				func() { blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a, n, a, n, 0, c, n) },
			}
			b.Run(fmt.Sprintf("spectrum=%s/n=%d", spec, n), func(b *testing.B) {
				ts := make([][]float64, len(fns))
				var r1, ra []float64
				for b.Loop() {
					for i, f := range fns {
						t0 := time.Now()
						f()
						ts[i] = append(ts[i], float64(time.Since(t0))/1e6)
					}
					k := len(ts[0]) - 1
					r1, ra = append(r1, ts[0][k]/ts[1][k]), append(ra, ts[0][k]/ts[2][k])
				}
				for i, name := range names {
					b.ReportMetric(median(ts[i]), name+"-med-ms")
				}
				b.ReportMetric(median(r1), "refined/evd1")
				b.ReportMetric(median(ra), "refined/evdall")
				b.ReportMetric(float64(e.Steps()), "steps")
				b.ReportMetric(boolMetric(e.FellBack()), "fallback")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

func median(x []float64) float64 {
	x = slices.Clone(x)
	slices.Sort(x)
	return x[len(x)/2]
}

func boolMetric(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

package spectral

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rhgd/rhgd/lapackx"
)

// benchOrders are the orders of the measurements.
var benchOrders = []int{5, 10, 20, 50, 100}

// benchCount is the matrices per batch: about the 80 of one SPD-network
// step.
const benchCount = 64

func benchBatch(n int) (a, e []float64) {
	rnd := rand.New(rand.NewPCG(uint64(n), 11))
	a, e = make([]float64, benchCount*n*n), make([]float64, benchCount*n*n)
	for i := 0; i < benchCount; i++ {
		copy(a[i*n*n:], randSPD(n, 1.5/math.Sqrt(float64(n)), rnd))
		copy(e[i*n*n:], randSym(n, rnd))
	}
	return a, e
}

// BenchmarkBatchEig is the eigendecompositions of a batch of benchCount
// SPD matrices of order n, per path: go (SmallEig), lapack (lapackx.EigSym
// per matrix: a cgo crossing and a thread switch each), batched (dsyevd on
// a chunk in one crossing), on one worker and on GOMAXPROCS (workers=0);
// path=auto is what Batch picks. On the pure-Go backend lapack and batched
// are both gonum's Dsyev per matrix.
func BenchmarkBatchEig(b *testing.B) {
	for _, n := range benchOrders {
		a, _ := benchBatch(n)
		for _, p := range []Path{Go, LAPACK, Batched, Auto} {
			for _, w := range []int{1, 0} {
				b.Run(fmt.Sprintf("n=%d/path=%v/workers=%d", n, p, effWorkers(w)), func(b *testing.B) {
					b.ReportAllocs()
					bt := NewBatch(n, benchCount)
					bt.Path, bt.Workers = p, w
					for b.Loop() {
						if err := bt.Factorize(a, benchCount); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

func effWorkers(w int) int {
	if w == 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// BenchmarkBatchLayer is a LogEig layer's forward and backward pass on a
// batch (Factorize, Apply with log(A_i) formed, FrechetAll) with Batch's
// own choices (Auto), on one worker and on GOMAXPROCS; and the same with
// lapackx.SymFunc per matrix (workers=1), the unbatched reference.
func BenchmarkBatchLayer(b *testing.B) {
	for _, n := range benchOrders {
		a, e := benchBatch(n)
		out := make([]float64, benchCount*n*n)
		for _, w := range []int{1, 0} {
			b.Run(fmt.Sprintf("n=%d/path=batch/workers=%d", n, effWorkers(w)), func(b *testing.B) {
				b.ReportAllocs()
				bt := NewBatch(n, benchCount)
				bt.Workers = w
				for b.Loop() {
					if err := bt.Factorize(a, benchCount); err != nil {
						b.Fatal(err)
					}
					if err := bt.Apply(out, lapackx.LogFunc); err != nil {
						b.Fatal(err)
					}
					bt.FrechetAll(out, e, nil)
				}
			})
		}
		b.Run(fmt.Sprintf("n=%d/path=symfunc/workers=1", n), func(b *testing.B) {
			b.ReportAllocs()
			sf := lapackx.NewSymFunc(n)
			for b.Loop() {
				for i := 0; i < benchCount; i++ {
					blk := out[i*n*n : (i+1)*n*n]
					if err := sf.Apply(blk, a[i*n*n:(i+1)*n*n], lapackx.LogFunc); err != nil {
						b.Fatal(err)
					}
					if err := sf.Frechet(blk, e[i*n*n:(i+1)*n*n], lapackx.LogFunc); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkFrechet is one Daleckii–Krein product Df(A)[E] after Apply, by
// the row-dot loops (kernel=dots) and by lapackx.Congruence's BLAS calls
// (kernel=blas) on the backend in use; congruenceCutoff (native) and
// congruenceCutoffGo (RHGD_BLAS=gonum) are set from it.
func BenchmarkFrechet(b *testing.B) {
	for _, n := range []int{5, 10, 16, 20, 24, 32, 50, 100} {
		a, e := benchBatch(n)
		bt := NewBatch(n, 1)
		if err := bt.Factorize(a, 1); err != nil {
			b.Fatal(err)
		}
		if err := bt.Apply(nil, lapackx.LogFunc); err != nil {
			b.Fatal(err)
		}
		d := make([]float64, n*n)
		for _, k := range []string{"dots", "blas"} {
			b.Run(fmt.Sprintf("n=%d/kernel=%s", n, k), func(b *testing.B) {
				b.ReportAllocs()
				old, oldGo := congruenceCutoff, congruenceCutoffGo
				defer func() { congruenceCutoff, congruenceCutoffGo = old, oldGo }()
				if k == "dots" {
					congruenceCutoff, congruenceCutoffGo = math.MaxInt, math.MaxInt
				} else {
					congruenceCutoff, congruenceCutoffGo = 0, 0
				}
				for b.Loop() {
					bt.Frechet(d, e[:n*n], 0)
				}
			})
		}
	}
}

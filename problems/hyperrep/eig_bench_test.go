package hyperrep

import (
	"fmt"
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/spectral"
)

// BenchmarkSmallEig is one eigendecomposition (values and vectors) of an
// SPD matrix like the features' WᵀAW: lapackx.EigSym (path=lapack: LAPACK's
// dsyevd through cgo, or gonum's Dsyev on the pure-Go backend) against
// spectral.SmallEig (path=go). smallEigCutoff is set from it.
func BenchmarkSmallEig(b *testing.B) {
	for _, n := range []int{4, 10, 16, 24, 32, 48, 64, 96} {
		a := make([]float64, n*n)
		if err := randSPD(a, lapackx.NewSymFunc(n), n, rand.New(rand.NewPCG(uint64(n), 1))); err != nil {
			b.Fatal(err)
		}
		for _, path := range []struct {
			name string
			e    interface{ Factorize(a []float64) error }
		}{{"lapack", lapackx.NewEigSym(n)}, {"go", spectral.NewSmallEig(n)}} {
			b.Run(fmt.Sprintf("n=%d/path=%s", n, path.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := path.e.Factorize(a); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkFeatureProducts is the two products of the features of one set
// at the paper's sizes (n = 100 samples, d = 50, k = 10): A_iW for all i as
// one n·d × d by d × k product and M = Wᵀ[A_1W | … | A_nW], on OpenBLAS's
// default threads and on one thread (blas.SerialBegin), which features
// uses.
func BenchmarkFeatureProducts(b *testing.B) {
	n, d, k := 100, 50, 10
	rnd := rand.New(rand.NewPCG(1, 1))
	fill := func(m int) []float64 {
		v := make([]float64, m)
		for i := range v {
			v[i] = rnd.NormFloat64()
		}
		return v
	}
	a, w, aw, mh := fill(n*d*d), fill(d*k), make([]float64, n*d*k), make([]float64, n*k*k)
	impl := blas.Impl()
	for _, serial := range []bool{false, true} {
		b.Run(fmt.Sprintf("serial=%v", serial), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if serial {
					blas.SerialBegin()
				}
				impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n*d, k, d, 1, a, d, w, k, 0, aw, k)
				impl.Dgemm(gblas.Trans, gblas.NoTrans, k, n*k, d, 1, w, k, aw, n*k, 0, mh, n*k)
				if serial {
					blas.SerialEnd()
				}
			}
		})
	}
}

package lapackx

import (
	"math"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// TestReduceSymRecursive checks L M Lᵀ = A for the M = L⁻¹ A L⁻ᵀ that
// ReduceSymRecursive leaves in the lower triangle, at orders around the
// recursion's base and splits, with NaN in the triangles it must not read,
// and its agreement with ReduceSym.
func TestReduceSymRecursive(t *testing.T) {
	ReduceSymRecursive(nil, nil, 0) // n = 0: nothing to do, no BLAS call
	for _, n := range []int{1, 5, reduceRecBase, reduceRecBase + 1, 100, 257, 400} {
		rnd := newRand(uint64(n) + 11)
		a := randSym(rnd, n, 1)
		l := withSpectrum(rnd, logSpaced(n, 1e-1, 1e1))
		if !(Impl{}).Dpotrf(gblas.Lower, n, l, n) {
			t.Fatalf("n=%d: potrf", n)
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				l[i*n+j] = math.NaN() // not read
			}
		}
		m := append([]float64(nil), a...)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				m[i*n+j] = math.NaN() // not read
			}
		}
		ReduceSymRecursive(m, l, n)
		ref := append([]float64(nil), a...)
		ReduceSym(ref, l, n)
		lc := append([]float64(nil), l...)
		var mmax, lmax, dmax float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if j > i {
					m[i*n+j], lc[i*n+j] = m[j*n+i], 0
				}
				mmax = math.Max(mmax, math.Abs(m[i*n+j]))
				lmax = math.Max(lmax, math.Abs(lc[i*n+j]))
				if j <= i {
					dmax = math.Max(dmax, math.Abs(m[i*n+j]-ref[i*n+j]))
				}
			}
		}
		// L M Lᵀ − A, relative to ‖L‖²‖M‖.
		impl := blas.Impl()
		p, r := make([]float64, n*n), make([]float64, n*n)
		impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, lc, n, m, n, 0, p, n)
		impl.Dgemm(gblas.NoTrans, gblas.Trans, n, n, n, 1, p, n, lc, n, 0, r, n)
		var res float64
		for i := range r {
			res = math.Max(res, math.Abs(r[i]-a[i]))
		}
		tol := 10 * float64(n) * 0x1p-52 * lmax * lmax * mmax
		if !(res <= tol) {
			t.Errorf("n=%d: max|L M Lᵀ − A| = %.3g > %.3g", n, res, tol)
		}
		if !(dmax <= tol/(lmax*lmax)*10) {
			t.Errorf("n=%d: max|M − ReduceSym| = %.3g (max|M| = %.3g)", n, dmax, mmax)
		}
	}
}

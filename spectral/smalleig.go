package spectral

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/numerr"
)

// SmallEig is a pure-Go eigensolver for small symmetric matrices,
// A = Vᵀ diag(λ) V with λ ascending and the unit eigenvectors in the rows
// of V, the convention of lapackx.EigSym: Householder reduction to
// tridiagonal form with the transformation accumulated (EISPACK's tred2,
// Bowdler, Martin, Reinsch and Wilkinson, Handbook for Automatic
// Computation II, 1971), then the implicit QL/QR iteration with Wilkinson's
// shift (LAPACK's dsteqr, as lapackx's syevql.c), with V stored transposed
// so that both the reduction's updates and the rotations run along
// contiguous rows.
//
// At small orders lapackx.EigSym (dsyevd through cgo, bracketed by the
// switch to one OpenBLAS thread) spends more on the crossing and its
// general set-up than on arithmetic: BenchmarkSmallEig (first measured in
// problems/hyperrep, where this solver was born) gave medians of 4.0 µs
// here against 8.4 µs at n = 10, 0.6 against 1.7 µs at n = 4, and a lead
// up to n = 48 (216 against 243 µs), lost by n = 64 (1.45 against
// 0.56 ms). SmallEigCutoff = 32 keeps a margin; Batch, whose batched
// dsyevd shares one crossing among many matrices, switches earlier
// (batchGoCutoff). (gonum's Dsyev, the pure-Go backend's path, took 7.4 µs at
// n = 10.)
//
// A SmallEig owns its workspace: Factorize allocates nothing. It is not
// safe for concurrent use.
type SmallEig struct {
	n    int
	d, e []float64 // eigenvalues; subdiagonal scratch
	vt   []float64 // n×n, row i the eigenvector of d[i]
}

// SmallEigCutoff is the largest order at which SmallEig is used in place
// of LAPACK (see SmallEig and BenchmarkSmallEig).
const SmallEigCutoff = 32

// NewSmallEig returns a workspace for n×n matrices.
func NewSmallEig(n int) *SmallEig {
	if n < 0 {
		panic("spectral: negative order")
	}
	return &SmallEig{n: n, d: make([]float64, n), e: make([]float64, n), vt: make([]float64, n*n)}
}

// Values returns the eigenvalues of the last Factorize in ascending
// order: the workspace's own slice.
func (s *SmallEig) Values() []float64 { return s.d }

// Vectors returns the n×n row-major matrix whose row i is the unit
// eigenvector of Values()[i]: the workspace's own slice.
func (s *SmallEig) Vectors() []float64 { return s.vt }

// Factorize computes the eigendecomposition of the symmetric n×n
// row-major a, of which it reads the upper triangle. It returns an error
// wrapping numerr.ErrNotFinite for a non-finite entry and
// numerr.ErrNotConverged if the iteration stalls; the workspace's values
// are then unspecified.
func (s *SmallEig) Factorize(a []float64) error {
	return eigInto(s.d, s.e, s.vt, a, s.n)
}

// eigInto is SmallEig.Factorize into the caller's d (n), e (n scratch)
// and vt (n×n).
func eigInto(d, e, vt, a []float64, n int) error {
	if len(a) != n*n {
		panic("spectral: SmallEig: dimension mismatch")
	}
	var amax float64
	for p := 0; p < n; p++ {
		for q := p; q < n; q++ {
			x := a[p*n+q]
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("spectral: %w: eigensolver input a[%d,%d] = %v", numerr.ErrNotFinite, p, q, x)
			}
			vt[p*n+q], vt[q*n+p] = x, x
			amax = math.Max(amax, math.Abs(x))
		}
	}
	if n == 0 {
		return nil
	}
	// Far from 1 in magnitude, scale by a power of two (exactly, as
	// LAPACK's drivers do) so that squares and products of entries
	// neither overflow nor underflow; the eigenvalues scale back at the end.
	exp := 0
	if amax != 0 && (amax < 0x1p-400 || amax > 0x1p400) {
		_, exp = math.Frexp(amax)
		for i := range vt {
			vt[i] = math.Ldexp(vt[i], -exp) // 2^−exp itself may overflow
		}
	}
	// Householder reduction (tred2). The procedure's V(k, j) is vt[j*n+k].
	for j := 0; j < n; j++ {
		d[j] = vt[j*n+n-1]
	}
	for i := n - 1; i > 0; i-- {
		var scale, h float64
		for k := 0; k < i; k++ {
			scale += math.Abs(d[k])
		}
		if scale == 0 {
			e[i] = d[i-1]
			for j := 0; j < i; j++ {
				d[j] = vt[j*n+i-1]
				vt[j*n+i] = 0
				vt[i*n+j] = 0
			}
		} else {
			for k := 0; k < i; k++ {
				d[k] /= scale
				h += d[k] * d[k]
			}
			f := d[i-1]
			g := math.Sqrt(h)
			if f > 0 {
				g = -g
			}
			e[i] = scale * g
			h -= f * g
			d[i-1] = f - g
			for j := 0; j < i; j++ {
				e[j] = 0
			}
			for j := 0; j < i; j++ {
				f = d[j]
				vt[i*n+j] = f
				row := vt[j*n : j*n+i]
				g = e[j] + row[j]*f
				for k := j + 1; k < i; k++ {
					g += row[k] * d[k]
					e[k] += row[k] * f
				}
				e[j] = g
			}
			f = 0
			for j := 0; j < i; j++ {
				e[j] /= h
				f += e[j] * d[j]
			}
			hh := f / (h + h)
			for j := 0; j < i; j++ {
				e[j] -= hh * d[j]
			}
			for j := 0; j < i; j++ {
				f, g = d[j], e[j]
				row := vt[j*n : j*n+i]
				for k := j; k < i; k++ {
					row[k] -= f*e[k] + g*d[k]
				}
				d[j] = vt[j*n+i-1]
				vt[j*n+i] = 0
			}
		}
		d[i] = h
	}
	// Accumulate the transformations.
	for i := 0; i < n-1; i++ {
		vt[i*n+n-1] = vt[i*n+i]
		vt[i*n+i] = 1
		h := d[i+1]
		ri1 := vt[(i+1)*n : (i+1)*n+i+1]
		if h != 0 {
			for k := range ri1 {
				d[k] = ri1[k] / h
			}
			for j := 0; j <= i; j++ {
				rj := vt[j*n : j*n+i+1]
				var g float64
				for k, x := range ri1 {
					g += x * rj[k]
				}
				for k := range rj {
					rj[k] -= g * d[k]
				}
			}
		}
		clear(ri1)
	}
	for j := 0; j < n; j++ {
		d[j] = vt[j*n+n-1]
		vt[j*n+n-1] = 0
	}
	vt[n*n-1] = 1
	// Implicit QL/QR (LAPACK's dsteqr) on the diagonal d and the couplings e.
	for i := 1; i < n; i++ {
		e[i-1] = e[i]
	}
	e[n-1] = 0
	if !steqr(n, d, e, vt) {
		return fmt.Errorf("spectral: %w: QL eigensolver", numerr.ErrNotConverged)
	}
	for i := range d {
		if math.IsNaN(d[i]) { // cannot happen for finite input; never hand one on
			return fmt.Errorf("spectral: %w: QL eigensolver produced NaN", numerr.ErrNotConverged)
		}
		d[i] = math.Ldexp(d[i], exp)
	}
	// Sort ascending, moving the eigenvectors with their eigenvalues.
	for i := 0; i < n-1; i++ {
		m := i
		for k := i + 1; k < n; k++ {
			if d[k] < d[m] {
				m = k
			}
		}
		if m != i {
			d[i], d[m] = d[m], d[i]
			vi, vm := vt[i*n:(i+1)*n], vt[m*n:(m+1)*n]
			for r := range vi {
				vi[r], vm[r] = vm[r], vi[r]
			}
		}
	}
	return nil
}

// hypot returns √(x² + y²), by the plain formula where it neither
// overflows nor loses precision to underflow and by math.Hypot elsewhere.
func hypot(x, y float64) float64 {
	if z := x*x + y*y; z > 0x1p-900 && z < 0x1p900 {
		return math.Sqrt(z)
	}
	return math.Hypot(x, y)
}

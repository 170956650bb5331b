package lapackx

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/numerr"
)

// SymTol is the symmetry tolerance for inputs that must be symmetric:
// |a_ij − a_ji| ≤ SymTol · max |a_kl|. LAPACK reads one triangle only, so
// the check exists to catch a wrong matrix, not rounding: products such as
// X·G·X computed in floating point are symmetric to about n·ε relative,
// far inside it. Symmetrize inputs that are further off.
const SymTol = 1e-10

// checkSym verifies that the n×n row-major a is finite and symmetric
// within SymTol and copies it into dst when dst is not nil. It returns an
// error wrapping numerr.ErrNotFinite or numerr.ErrNotSymmetric that names op and the
// offending entry.
//
// Two passes: a contiguous one that copies and finds the largest |a_ij|
// (NaN or Inf if any entry is not finite), then a tiled one that finds the
// largest |a_ij − a_ji|. At n = 1000 they take about 1.3 and 1.0 ms
// (BenchmarkCheckSym), against 0.6 ms for the bare copy.
func checkSym(op string, dst, a []float64, n int) error {
	if len(a) != n*n || (dst != nil && len(dst) != n*n) {
		panic(errShape)
	}
	amax := maxAbsCopy(dst, a)
	if math.IsNaN(amax) || math.IsInf(amax, 0) {
		return checkFinite(op, a, n)
	}
	const tile = 16
	var dmax float64
	di, dj := 0, 0
	for ib := 0; ib < n; ib += tile {
		ie := min(ib+tile, n)
		for jb := 0; jb <= ib; jb += tile {
			je := min(jb+tile, n)
			for i := ib; i < ie; i++ {
				row := a[i*n : i*n+min(je, i)]
				for j := jb; j < len(row); j++ {
					if d := math.Abs(row[j] - a[j*n+i]); d > dmax {
						dmax, di, dj = d, i, j
					}
				}
			}
		}
	}
	if tol := SymTol * amax; dmax > tol {
		return fmt.Errorf("lapackx: %w: %s: |a[%d,%d] − a[%d,%d]| = %.3g > %.3g (SymTol·max|a|)",
			numerr.ErrNotSymmetric, op, di, dj, dj, di, dmax, tol)
	}
	return nil
}

// maxAbsCopy returns max |a_i|, NaN if an entry is NaN (Inf if one is
// infinite and none NaN), and copies a into dst unless dst is nil.
func maxAbsCopy(dst, a []float64) float64 {
	var m float64
	if dst == nil {
		for _, v := range a {
			if av := math.Abs(v); av > m || av != av {
				m = av
			}
		}
		return m
	}
	dst = dst[:len(a)]
	for i, v := range a {
		dst[i] = v
		if av := math.Abs(v); av > m || av != av {
			m = av
		}
	}
	return m
}

// checkFinite verifies that every entry of a is finite.
func checkFinite(op string, a []float64, cols int) error {
	for i, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("lapackx: %w: %s: a[%d,%d] = %v", numerr.ErrNotFinite, op, i/cols, i%cols, v)
		}
	}
	return nil
}

// mirrorUpper copies the strict upper triangle of the n×n row-major a into
// its lower triangle, making a exactly symmetric. It works in tiles for
// cache reuse.
func mirrorUpper(a []float64, n int) {
	const tile = 32
	for ib := 0; ib < n; ib += tile {
		ie := min(ib+tile, n)
		for jb := 0; jb <= ib; jb += tile {
			je := min(jb+tile, n)
			for i := ib; i < ie; i++ {
				row := a[i*n:]
				for j := jb; j < min(je, i); j++ {
					row[j] = a[j*n+i]
				}
			}
		}
	}
}

// transposeSquare transposes the n×n row-major a in place.
func transposeSquare(a []float64, n int) {
	const tile = 32
	for ib := 0; ib < n; ib += tile {
		ie := min(ib+tile, n)
		for jb := 0; jb <= ib; jb += tile {
			je := min(jb+tile, n)
			for i := ib; i < ie; i++ {
				for j := jb; j < min(je, i); j++ {
					a[i*n+j], a[j*n+i] = a[j*n+i], a[i*n+j]
				}
			}
		}
	}
}

// Symmetrize replaces the n×n row-major a by (a + aᵀ)/2.
func Symmetrize(a []float64, n int) {
	if len(a) != n*n {
		panic(errShape)
	}
	const tile = 32 // in tiles, as mirrorUpper: a column walk misses the TLB at every step
	for ib := 0; ib < n; ib += tile {
		ie := min(ib+tile, n)
		for jb := 0; jb <= ib; jb += tile {
			je := min(jb+tile, n)
			for i := ib; i < ie; i++ {
				for j := jb; j < min(je, i); j++ {
					v := 0.5 * (a[i*n+j] + a[j*n+i])
					a[i*n+j], a[j*n+i] = v, v
				}
			}
		}
	}
}

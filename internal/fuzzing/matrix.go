package fuzzing

import "math"

// The independent checks of the fuzz targets, and other tests that want a
// product by its definition, use these plain loops, which share nothing
// with BLAS or LAPACK. Matrices are row-major.

// MulPlain returns the m×n product of a (m×k) and b (k×n).
func MulPlain(a, b []float64, m, k, n int) []float64 {
	c := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for l := 0; l < k; l++ {
			x := a[i*k+l]
			for j := 0; j < n; j++ {
				c[i*n+j] += x * b[l*n+j]
			}
		}
	}
	return c
}

// MulTPlain returns the m×n product aᵀb of a (k×m) and b (k×n).
func MulTPlain(a, b []float64, m, k, n int) []float64 {
	return MulPlain(Transpose(a, k, m), b, m, k, n)
}

// MulPlainT returns the m×n product abᵀ of a (m×k) and b (n×k).
func MulPlainT(a, b []float64, m, k, n int) []float64 {
	return MulPlain(a, Transpose(b, n, k), m, k, n)
}

// FromEigen returns Qᵀ diag(λ) Q for the n×n q and the n values λ: the
// symmetric matrix with eigenvalues λ and eigenvectors the rows of an
// orthogonal Q, symmetric to rounding (entry ij and ji multiply in other
// orders).
func FromEigen(q, lam []float64) []float64 {
	n := len(lam)
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += q[k*n+i] * lam[k] * q[k*n+j]
			}
			a[i*n+j] = s
		}
	}
	return a
}

// Transpose returns the c×r transpose of the r×c a.
func Transpose(a []float64, r, c int) []float64 {
	t := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			t[j*r+i] = a[i*c+j]
		}
	}
	return t
}

// Frob returns ‖a‖_F, scaled so that it neither overflows nor underflows
// before the result does; NaN or Inf for such entries.
func Frob(a []float64) float64 {
	scale := MaxAbs(a)
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return scale
	}
	var s float64
	for _, v := range a {
		s += (v / scale) * (v / scale)
	}
	return scale * math.Sqrt(s)
}

// Sub returns a − b.
func Sub(a, b []float64) []float64 {
	c := make([]float64, len(a))
	for i := range a {
		c[i] = a[i] - b[i]
	}
	return c
}

// Eye returns the n×n identity.
func Eye(n int) []float64 {
	m := make([]float64, n*n)
	for i := 0; i < n; i++ {
		m[i*n+i] = 1
	}
	return m
}

// ExpAbove returns the e with v < 2^e ≤ 2v (v = f·2^e, f ∈ [½, 1)), or 0
// for v zero or not finite: dividing by 2^e brings v into [½, 1) exactly.
func ExpAbove(v float64) int {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0
	}
	_, e := math.Frexp(v)
	return e
}

// LdexpAll returns a·2^e, exact for every entry that stays normal.
func LdexpAll(a []float64, e int) []float64 {
	out := make([]float64, len(a))
	for i, v := range a {
		out[i] = math.Ldexp(v, e)
	}
	return out
}

// RowsErr is the relative Frobenius error of got (n columns a row) on the
// rows that ref holds, ref's k-th row being got's rows[k]: the measure of
// the mpmath reference generators (lapackx's and spd's testdata), which
// also judge numpy and scipy by it.
func RowsErr(got []float64, n int, rows []int, ref []float64) float64 {
	var d, r float64
	for k, i := range rows {
		for j, x := range got[i*n : (i+1)*n] {
			y := ref[k*n+j]
			d += (x - y) * (x - y)
			r += y * y
		}
	}
	return math.Sqrt(d / r)
}

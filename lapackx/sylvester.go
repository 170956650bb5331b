package lapackx

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/numerr"
)

// Sylvester solves A X + X B = C for general A (m×m), B (n×n) and C (m×n)
// by the Bartels–Stewart method: real Schur forms A = Za Ta Zaᵀ and
// B = Zb Tb Zbᵀ, the quasi-triangular equation Ta Y + Y Tb = Zaᵀ C Zb, and
// X = Za Y Zbᵀ. The equation has a unique solution when A and −B have no
// common eigenvalue.
//
// The native path calls LAPACK's dgees and dtrsyl on the column-major view
// of the row-major buffers, in which the equation reads Bᵀ Xᵀ + Xᵀ Aᵀ = Cᵀ:
// the roles of A and B swap and nothing is transposed. The pure-Go path
// runs gonum's Hessenberg–QR and a Go port of dtrsyl on the row-major
// matrices directly.
//
// For symmetric A and B = A, LyapSym is several times faster. Steady-state
// calls allocate nothing; a Sylvester is not safe for concurrent use.
type Sylvester struct {
	m, n       int
	sa, sb     *schur
	f, tmp     []float64
	as, bs, cs []float64 // the equation scaled down, for coefficients near overflow
}

// NewSylvester returns a workspace for equations with A m×m and B n×n.
func NewSylvester(m, n int) *Sylvester {
	if m < 0 || n < 0 {
		panic(errNegative)
	}
	return &Sylvester{m: m, n: n, sa: newSchur(m), sb: newSchur(n), f: make([]float64, m*n), tmp: make([]float64, m*n),
		as: make([]float64, m*m), bs: make([]float64, n*n), cs: make([]float64, m*n)}
}

// Solve sets dst (m×n) to the solution of A X + X B = C. dst may be c. It
// returns an error wrapping numerr.ErrNotFinite for bad input, numerr.ErrSingular when A
// and −B share an eigenvalue (to working precision) and numerr.ErrOverflow when
// the solution does not fit in float64.
func (s *Sylvester) Solve(dst, a, b, c []float64) error {
	m, n := s.m, s.n
	if len(a) != m*m || len(b) != n*n || len(c) != m*n || len(dst) != m*n {
		panic(errShape)
	}
	if err := checkFinite("Sylvester A", a, m); err != nil {
		return err
	}
	if err := checkFinite("Sylvester B", b, n); err != nil {
		return err
	}
	if err := checkFinite("Sylvester C", c, n); err != nil {
		return err
	}
	if m == 0 || n == 0 {
		return nil
	}
	// dtrsyl forms Ta_kk + Tb_ll, which overflows for coefficients near
	// the top of the float64 range and then divides C by Inf: the fuzz
	// target found X = 0 for A = 1.78e308, B = 1.86e306, C = 1.06e6, whose
	// solution 5.9e−303 is representable. The equation divided by a power
	// of two (exactly, but for entries of C pushed below 2^−1022 by at most
	// 2^24, whose share of X would underflow anyway) has the same solution
	// and coefficients below sylvesterMax.
	if k := sylvesterScale(a, b); k > 0 {
		ldexpTo(s.as, a, -k)
		ldexpTo(s.bs, b, -k)
		ldexpTo(s.cs, c, -k)
		a, b, c = s.as, s.bs, s.cs
	}
	scale, err := lp().sylvester(s, dst, a, b, c)
	if err != nil {
		return err
	}
	if scale != 1 {
		scale = 1 / scale
		for i := range dst {
			dst[i] *= scale
		}
	}
	for _, v := range dst {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("lapackx: %w: Sylvester solution exceeds the float64 range", numerr.ErrOverflow)
		}
	}
	return nil
}

// sylvesterMax bounds the coefficients Solve hands to the solver: their
// Schur forms' diagonals, at most n·max|a_ij| each, then add without
// overflow for any n below 2^20.
const sylvesterMax = 0x1p1000

// sylvesterScale returns the k > 0 for which max(|A|, |B|)/2^k is below
// sylvesterMax, or 0 when it already is.
func sylvesterScale(a, b []float64) int {
	var amax float64
	for _, v := range a {
		amax = math.Max(amax, math.Abs(v))
	}
	for _, v := range b {
		amax = math.Max(amax, math.Abs(v))
	}
	if amax < sylvesterMax {
		return 0
	}
	_, e := math.Frexp(amax) // amax < 2^e
	return e - 1000
}

// ldexpTo sets dst = src·2^k.
func ldexpTo(dst, src []float64, k int) {
	for i, v := range src {
		dst[i] = math.Ldexp(v, k)
	}
}

// gemmCol computes C = α op(A) op(B) + β C for column-major matrices (C is
// M×N, the inner dimension K) through the row-major BLAS: a column-major
// buffer read row-major is the transpose, and Cᵀ = op(B)ᵀ op(A)ᵀ.
func gemmCol(tA, tB gblas.Transpose, M, N, K int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	blas.Impl().Dgemm(tB, tA, N, M, K, alpha, b, ldb, a, lda, beta, c, ldc)
}

package lapackx

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/numerr"
)

// LU solves square linear systems A X = B by LU factorization with partial
// pivoting: LAPACK's dgetrf on the native backend, gonum's Dgetrf on the
// pure-Go one.
//
// Both factorize Aᵀ = P L U (the native one as the column-major view of
// the row-major buffer, with no transposition), so A = Uᵀ Lᵀ Pᵀ; Solve
// then runs two row-major triangular solves and the row swaps, or LAPACK's
// dgetrs for a single right-hand side on the native backend.
//
// An LU owns its workspace and is not safe for concurrent use.
type LU struct {
	n    int
	lu   []float64
	ip32 []int32 // native pivots, 1-based
	ip   []int   // gonum pivots, 0-based (scratch)
	ok   bool
}

// NewLU returns a workspace for n×n systems.
func NewLU(n int) *LU {
	if n < 0 {
		panic(errNegative)
	}
	return &LU{n: n, lu: make([]float64, n*n), ip32: make([]int32, n), ip: make([]int, n)}
}

// N returns the order of the systems.
func (l *LU) N() int { return l.n }

// Factorize computes the LU factorization of the n×n row-major a, which it
// does not modify. It returns an error wrapping numerr.ErrNotFinite for bad input
// or numerr.ErrSingular for a zero or subnormal pivot.
func (l *LU) Factorize(a []float64) error {
	n := l.n
	if len(a) != n*n {
		panic(errShape)
	}
	l.ok = false
	if err := checkFinite("LU", a, n); err != nil {
		return err
	}
	copy(l.lu, a)
	if n == 0 {
		l.ok = true
		return nil
	}
	singular, err := lp().getrf(n, l.lu, l.ip32, l.ip)
	if err != nil {
		return err
	}
	for i := 0; i < n && !singular; i++ {
		// A subnormal pivot's reciprocal overflows: the solve would be
		// Inf or NaN.
		singular = math.Abs(l.lu[i*n+i]) < 0x1p-1022 // smallest normal
	}
	if singular {
		return fmt.Errorf("lapackx: %w: LU of %d×%d matrix has a zero or subnormal pivot", numerr.ErrSingular, n, n)
	}
	l.ok = true
	return nil
}

// Solve overwrites the n×nrhs row-major b with the solution X of A X = B.
func (l *LU) Solve(b []float64, nrhs int) {
	n := l.n
	if !l.ok {
		panic("lapackx: LU used without a successful Factorize")
	}
	if len(b) != n*nrhs {
		panic(errShape)
	}
	if n == 0 || nrhs == 0 {
		return
	}
	if nrhs == 1 && lp().getrs1(n, l.lu, l.ip32, b) {
		return
	}
	// Read row-major, the buffer holds Uᵀ (lower, with diagonal) and Lᵀ
	// (strictly upper, unit diagonal); X = P (Lᵀ)⁻¹ (Uᵀ)⁻¹ B.
	impl := blas.Impl()
	impl.Dtrsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, nrhs, 1, l.lu, n, b, nrhs)
	impl.Dtrsm(gblas.Left, gblas.Upper, gblas.NoTrans, gblas.Unit, n, nrhs, 1, l.lu, n, b, nrhs)
	// P = P_1 P_2 ⋯ P_n, P_i swapping rows i and ip[i]: apply P_n first.
	for i := n - 1; i >= 0; i-- {
		if p := int(l.ip32[i]) - 1; p != i {
			impl.Dswap(nrhs, b[i*nrhs:], 1, b[p*nrhs:], 1)
		}
	}
}

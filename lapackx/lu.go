package lapackx

import (
	"fmt"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/numerr"
)

// LU solves square linear systems A X = B by LU factorization with partial
// pivoting: LAPACK's dgetrf on the native backend, gonum's Dgetrf on the
// pure-Go one.
//
// The native path factorizes the column-major view of the row-major
// buffer, which is Aᵀ = P L U, so A = Uᵀ Lᵀ Pᵀ; Solve then runs two
// row-major triangular solves and the row swaps, with no transposition of
// A or B.
//
// An LU owns its workspace and is not safe for concurrent use.
type LU struct {
	n    int
	lu   []float64
	ip32 []int32 // native pivots, 1-based
	ip   []int   // gonum pivots, 0-based
	nat  bool    // which path factorized
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
// or numerr.ErrSingular for an exactly zero pivot.
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
	l.nat = useNative()
	if n == 0 {
		l.ok = true
		return nil
	}
	var zeroPivot int
	if l.nat {
		if info := cDgetrf(n, n, l.lu, n, l.ip32); info > 0 {
			zeroPivot = info
		} else if info < 0 {
			return lapackErr("dgetrf", info)
		}
	} else {
		transposeSquare(l.lu, n)
		if !(gonum.Implementation{}).Dgetrf(n, n, l.lu, n, l.ip) {
			zeroPivot = 1
		}
		transposeSquare(l.lu, n)
		for i, p := range l.ip {
			l.ip32[i] = int32(p + 1)
		}
	}
	if zeroPivot != 0 {
		return fmt.Errorf("lapackx: %w: LU of %d×%d matrix has a zero pivot", numerr.ErrSingular, n, n)
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
	if l.nat && nrhs == 1 {
		// A single right-hand side is a contiguous column, which dgetrs
		// takes as it is: solving (Aᵀ)ᵀ x = b with the factors of Aᵀ.
		if info := cDgetrs('T', n, 1, l.lu, n, l.ip32, b, n); info != 0 {
			panic(lapackErr("dgetrs", info)) // only on invalid arguments
		}
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

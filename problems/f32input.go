package problems

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// CheckSymmetric checks the n×n matrices stored one after the other in a,
// the input named name: every entry finite and every matrix symmetric to
// float32 rounding (lapackx.Asymmetry ≤ lapackx.F32Tol(n)). Its error
// wraps ErrBadData (and numerr.ErrNotSymmetric or numerr.ErrNotFinite) and
// names the matrix, its asymmetry and the bound. When notes is not nil
// and some matrices are asymmetric beyond float64 rounding
// (lapackx.SymTol), it appends a note saying how many, by how much at
// most, and that they are symmetrized: for callers that use (A + Aᵀ)/2,
// as SymmetrizeInput does.
func CheckSymmetric(notes *[]string, name string, a []float64, n int) error {
	worst, err := asymmetry(name, a, n)
	if err != nil || notes == nil || !(worst > lapackx.SymTol) {
		return err
	}
	var count int
	for k := 0; k < len(a); k += n * n {
		if lapackx.Asymmetry(a[k:k+n*n], n) > lapackx.SymTol {
			count++
		}
	}
	what := name + " is"
	if len(a) > n*n {
		what = fmt.Sprintf("%s: %d of the %d matrices are", name, count, len(a)/(n*n))
	}
	*notes = append(*notes, fmt.Sprintf("%s asymmetric by up to %.2g relative, within float32 rounding (≤ %.2g): symmetrized", what, worst, lapackx.F32Tol(n)))
	return nil
}

// SymmetrizeInput checks the n×n matrices stored one after the other in
// a, the input named name, as CheckSymmetric does (appending its note to
// notes unless notes is nil), and makes them exactly symmetric, (A + Aᵀ)/2.
func SymmetrizeInput(notes *[]string, name string, a []float64, n int) error {
	if err := CheckSymmetric(notes, name, a, n); err != nil {
		return err
	}
	for k := 0; k < len(a); k += n * n {
		lapackx.Symmetrize(a[k:k+n*n], n)
	}
	return nil
}

// asymmetry returns the largest relative asymmetry of the matrices in a,
// or an error naming the first one that is not finite or is asymmetric
// beyond float32 rounding.
func asymmetry(name string, a []float64, n int) (float64, error) {
	if n < 1 || len(a)%(n*n) != 0 {
		return 0, fmt.Errorf("%w: %s has %d entries, not a whole number of %d×%d matrices", ErrBadData, name, len(a), n, n)
	}
	var worst float64
	for k := 0; k < len(a); k += n * n {
		what := name
		if len(a) > n*n {
			what = fmt.Sprintf("%s_%d", name, k/(n*n))
		}
		m := a[k : k+n*n]
		for i, v := range m {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: %s[%d,%d] = %v: %w", ErrBadData, what, i/n, i%n, v, numerr.ErrNotFinite)
			}
		}
		r, bound := lapackx.Asymmetry(m, n), lapackx.F32Tol(n)
		if r > bound {
			return 0, fmt.Errorf("%w: %s: max|a_pq − a_qp| = %.3g·max|a_pq|, beyond float32 rounding (%.3g for order %d): %w",
				ErrBadData, what, r, bound, n, numerr.ErrNotSymmetric)
		}
		worst = max(worst, r)
	}
	return worst, nil
}

// SnapInput accepts x, the input named name (a .npz file's W0, say), as
// a point of m (solver.SnapPoint): a point within float32 rounding of m is
// projected onto it in place, and the note, naming the input, is appended
// to notes. Its error wraps ErrBadData and names the input.
func SnapInput(notes *[]string, m solver.Manifold, name string, x []float64) error {
	note, err := solver.SnapPoint(m, x)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrBadData, name, err)
	}
	if note != "" {
		*notes = append(*notes, name+": "+note)
	}
	return nil
}

// SnapStart accepts the parts of st, a start read from a data file, as
// points of mx and my, in that order (SnapInput, naming them nameX and
// nameY); a nil part (absent from the file) or a nil manifold (a part
// without a constraint) is left as it is. It returns the first error.
func SnapStart(notes *[]string, st Start, mx, my solver.Manifold, nameX, nameY string) error {
	if st.X != nil && mx != nil {
		if err := SnapInput(notes, mx, nameX, st.X); err != nil {
			return err
		}
	}
	if st.Y != nil && my != nil {
		return SnapInput(notes, my, nameY, st.Y)
	}
	return nil
}

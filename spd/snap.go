package spd

import (
	"fmt"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/manifold"
	"github.com/rhgd/rhgd/numerr"
)

// SnapPoint implements solver.Snapper. A positive definite x asymmetric
// beyond Tol but within float32 rounding (lapackx.Asymmetry(x) ≤
// lapackx.F32Tol(n)), such as a matrix computed in float32, is replaced by
// its symmetric part (x + xᵀ)/2, the nearest symmetric matrix in the
// Frobenius norm. dst may be x.
func (s *SPD) SnapPoint(dst, x []float64) (string, error) {
	if done, err := manifold.Snapped(dst, x, s.CheckPoint(x), numerr.ErrNotSymmetric); done {
		return "", err // nil, or a wrong length, non-finite entries, not positive definite, a bad Tol
	}
	n := s.n
	r, bound := lapackx.Asymmetry(x, n), lapackx.F32Tol(n)
	if !(r <= bound) {
		return "", fmt.Errorf("spd: %w: max|x_ij − x_ji| = %.3g·max|x_ij|, beyond float32 rounding (%.3g for n = %d)", numerr.ErrNotSymmetric, r, bound, n)
	}
	copy(dst[:n*n], x)
	lapackx.Symmetrize(dst, n)
	if err := s.CheckPoint(dst); err != nil {
		return "", err
	}
	return fmt.Sprintf("max|x_ij − x_ji| = %.2g·max|x_ij|, within float32 rounding (≤ %.2g): symmetrized", r, bound), nil
}

package stiefel

import (
	"fmt"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/manifold"
)

// SnapPoint implements solver.Snapper. A point with ‖XᵀX − I‖_F above Tol
// but within lapackx.F32Tol(n), such as an orthonormal matrix computed in
// float32, is replaced by its polar factor X(XᵀX)^{−½}: the nearest point
// of St(n, p) in the Frobenius norm (Fan and Hoffman 1955), which moves X by
// about ½‖XᵀX − I‖_F and treats the columns alike, where the Q factor of a
// QR factorization would depend on their order. dst may be x.
func (s *Stiefel) SnapPoint(dst, x []float64) (string, error) {
	if done, err := manifold.Snapped(dst, x, s.CheckPoint(x), ErrNotOrthonormal); done {
		return "", err // nil, or a wrong length, non-finite entries, a bad Tol
	}
	s.check(dst)
	d, bound := s.defect(x), lapackx.F32Tol(s.n)
	if !(d <= bound) {
		return "", fmt.Errorf("%w: ‖XᵀX − I‖_F = %.3g, beyond float32 rounding (%.3g for n = %d)", ErrNotOrthonormal, d, bound, s.n)
	}
	copy(s.a, x)
	if err := s.orthonormalize(dst); err != nil {
		return "", fmt.Errorf("stiefel: re-orthonormalizing: %w", err)
	}
	return fmt.Sprintf("‖XᵀX − I‖_F = %.2g, within float32 rounding (≤ %.2g): re-orthonormalized (polar factor)", d, bound), nil
}

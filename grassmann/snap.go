package grassmann

import (
	"fmt"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/manifold"
)

// SnapPoint implements solver.Snapper, as stiefel's does. A point with
// ‖XᵀX − I‖_F above DefaultTol but within lapackx.F32Tol(n), such as an
// orthonormal basis computed in float32, is replaced by its polar factor
// X(XᵀX)^{−½}: it has the same column space, so the subspace the caller
// meant is kept, and it is the orthonormal basis nearest X (Fan and
// Hoffman 1955), so the representative is kept too. dst may be x.
func (g *Grassmann) SnapPoint(dst, x []float64) (string, error) {
	if done, err := manifold.Snapped(dst, x, g.CheckPoint(x), ErrNotOrthonormal); done {
		return "", err // nil, or a wrong length, non-finite entries
	}
	g.check(dst)
	d, bound := g.defect(x), lapackx.F32Tol(g.n)
	if !(d <= bound) {
		return "", fmt.Errorf("%w: ‖XᵀX − I‖_F = %.3g, beyond float32 rounding (%.3g for n = %d)", ErrNotOrthonormal, d, bound, g.n)
	}
	copy(g.a, x)
	if err := g.polar(dst, g.a); err != nil {
		return "", fmt.Errorf("grassmann: re-orthonormalizing: %w", err)
	}
	return fmt.Sprintf("‖XᵀX − I‖_F = %.2g, within float32 rounding (≤ %.2g): re-orthonormalized (polar factor, same column space)", d, bound), nil
}

package simplex

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/lapackx"
)

// SnapPoint implements solver.Snapper, as stiefel's and coupling's do. A
// vector of positive entries whose sum is off one by more than CheckPoint
// allows but by no more than float32 rounding (|Σx − 1| ≤
// lapackx.F32Tol(n)), such as a distribution computed or stored in
// float32, is divided by its sum: the nearest point of the simplex in
// Kullback–Leibler divergence (the I-projection argmin_y KL(y ‖ x)), which
// keeps the entries' ratios, so that a small probability keeps its
// relative accuracy. A zero or negative entry is refused whatever its
// size: it is on the boundary or outside, not rounding away from a point.
// dst may be x.
func (s *Simplex) SnapPoint(dst, x []float64) (string, error) {
	err := s.CheckPoint(x)
	if err == nil {
		copy(dst, x)
		return "", nil
	}
	if len(x) != s.n {
		return "", err
	}
	if perr := positive("point", x); perr != nil {
		return "", perr // non-finite, zero or negative entries
	}
	s.check(dst)
	var sum float64
	for _, a := range x {
		sum += a
	}
	d, bound := math.Abs(sum-1), lapackx.F32Tol(s.n)
	if !(d <= bound) {
		return "", fmt.Errorf("%w: Σx − 1 = %.3g, beyond float32 rounding (%.3g for n = %d)", ErrNotPoint, sum-1, bound, s.n)
	}
	for i, a := range x {
		dst[i] = a / sum
	}
	if err := s.CheckPoint(dst); err != nil {
		return "", fmt.Errorf("simplex: normalizing a point within float32 rounding: %w", err)
	}
	return fmt.Sprintf("Σx − 1 = %.2g, within float32 rounding (≤ %.2g): divided by its sum", sum-1, bound), nil
}

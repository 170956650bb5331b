package manifold

import "errors"

// Snapped is how a solver.Snapper's SnapPoint starts, given err, the
// manifold's CheckPoint(x): a point it accepts is copied to dst (done,
// nil); an error other than the one snapping corrects (errors.Is(err,
// fixable): a wrong length, non-finite entries) is returned as it is
// (done, err); otherwise (not done) the caller snaps x into dst.
func Snapped(dst, x []float64, err, fixable error) (done bool, _ error) {
	if err == nil {
		copy(dst, x)
		return true, nil
	}
	if errors.Is(err, fixable) {
		return false, nil
	}
	return true, err
}

package solver

import (
	"errors"
	"fmt"

	"github.com/rhgd/rhgd/numerr"
)

// maxRetractHalvings bounds the halvings of a step whose retraction
// fails: 2⁻⁴⁰ ≈ 1e−12 of the step.
const maxRetractHalvings = 40

// retract sets dst = R_x(−step·u) and returns the step taken. A
// retraction that fails for a step (a Sinkhorn balancing that does not
// converge, an overflow, a factorization that breaks down) succeeds for
// shorter ones, since R_x(0) = x: so a failure halves the step and
// retries, counting it in Stats.RetractFailures, rather than ending a run
// whose step rule chose a step the manifold cannot take. An error of
// invalid input (numerr.ErrInvalid: x off the manifold, a bad setting)
// does not depend on the step and is returned at once.
func (r *RHGD) retract(m Manifold, dst, x, u []float64, step float64) (float64, error) {
	return retractHalving(m, dst, x, u, step, &r.stats)
}

// retractHalving is retract for any Stats: the solver's, or an
// estimator's through its Env.
func retractHalving(m Manifold, dst, x, u []float64, step float64, stats *Stats) (float64, error) {
	first := step
	for h := 0; ; h++ {
		err := m.Retract(dst, x, u, -step)
		switch {
		case err == nil:
			return step, nil
		case errors.Is(err, numerr.ErrInvalid):
			return step, err
		case h == maxRetractHalvings:
			return step, fmt.Errorf("no step from %.3g down to %.3g could be retracted: %w", first, step, err)
		}
		stats.RetractFailures++
		step /= 2
	}
}

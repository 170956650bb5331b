package coupling

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/manifold"
)

// SnapPoint implements solver.Snapper. A positive plan whose marginal
// error (‖Γ1 − a‖₁ + ‖Γᵀ1 − b‖₁)/Σa is above Tol but within float32
// rounding (lapackx.F32Tol of the larger side), such as a plan computed in
// float32, is rebalanced by Sinkhorn scaling diag(u) Γ diag(v) to the
// marginals a and b, with the default Sinkhorn settings: the nearest plan
// in Kullback–Leibler divergence, which keeps Γ's entries' ratios within
// each row and column. dst may be x.
func (c *Coupling) SnapPoint(dst, x []float64) (string, error) {
	if done, err := manifold.Snapped(dst, x, c.CheckPoint(x), ErrMarginal); done {
		return "", err // nil, or a wrong length, entries not finite or not positive, bad settings
	}
	c.check(dst)
	e, bound := c.marginalError(x, c.a, c.b)/c.mass, lapackx.F32Tol(max(c.m, c.n))
	if !(e <= bound) {
		return "", fmt.Errorf("%w: ‖Γ1 − a‖₁ + ‖Γᵀ1 − b‖₁ = %.3g·Σa, beyond float32 rounding (%.3g for %d×%d)", ErrMarginal, e, bound, c.m, c.n)
	}
	for k, v := range x {
		c.mn2[k] = math.Log(v)
	}
	saved := c.Sinkhorn
	c.Sinkhorn = SinkhornSettings{}
	err := c.balance(dst, c.mn2)
	c.Sinkhorn = saved
	if err == nil {
		err = c.CheckPoint(dst)
	}
	if err != nil {
		return "", fmt.Errorf("coupling: rebalancing a plan within float32 rounding: %w", err)
	}
	return fmt.Sprintf("‖Γ1 − a‖₁ + ‖Γᵀ1 − b‖₁ = %.2g·Σa, within float32 rounding (≤ %.2g): rebalanced (Sinkhorn scaling)", e, bound), nil
}

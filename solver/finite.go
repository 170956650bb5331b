package solver

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/numerr"
)

// finiteOracles returns p with each oracle wrapped so that a NaN or ±Inf
// it returns from finite arguments is an error wrapping
// numerr.ErrNotFinite: the oracle's own failure (a log of a negative
// number, an overflow inside it), which its caller names with the epoch
// and step, as it does an error the oracle returns. Without it, such a
// value surfaced later as a divergence of the iterates, which it is not.
// A non-finite result from non-finite arguments passes through for the
// solver's divergence checks. The checks read the result once, and the
// arguments only when the result is not finite; they allocate nothing.
// LowerSteps is left as it is: RHGD checks its results (finiteReach).
func finiteOracles(p Problem) Problem {
	p.F, p.G = finiteValue(p.F), finiteValue(p.G)
	p.GradFx, p.GradFy = finiteGrad(p.GradFx), finiteGrad(p.GradFy)
	p.GradGx, p.GradGy = finiteGrad(p.GradGx), finiteGrad(p.GradGy)
	p.LowerSolve = finiteGrad(p.LowerSolve)
	p.HessGy, p.HessGyInv = finiteProduct(p.HessGy), finiteProduct(p.HessGyInv)
	p.CrossGxy, p.CrossGyx = finiteProduct(p.CrossGxy), finiteProduct(p.CrossGyx)
	p.HessGyBatch = finiteBatch(p.HessGyBatch)
	return p
}

func finiteValue(o func(*Point) (float64, error)) func(*Point) (float64, error) {
	if o == nil {
		return nil
	}
	return func(pt *Point) (float64, error) {
		v, err := o(pt)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) && allFinite(pt.X, pt.Y) {
			return v, fmt.Errorf("%w: returned %v at finite x and y", numerr.ErrNotFinite, v)
		}
		return v, err
	}
}

func finiteGrad(o func([]float64, *Point) error) func([]float64, *Point) error {
	if o == nil {
		return nil
	}
	return func(dst []float64, pt *Point) error {
		if err := o(dst, pt); err != nil {
			return err
		}
		if i := firstNotFinite(dst); i >= 0 && allFinite(pt.X, pt.Y) {
			return fmt.Errorf("%w: dst[%d] = %v at finite x and y", numerr.ErrNotFinite, i, dst[i])
		}
		return nil
	}
}

func finiteProduct(o func([]float64, *Point, []float64) error) func([]float64, *Point, []float64) error {
	if o == nil {
		return nil
	}
	return func(dst []float64, pt *Point, v []float64) error {
		if err := o(dst, pt, v); err != nil {
			return err
		}
		if i := firstNotFinite(dst); i >= 0 && allFinite(pt.X, pt.Y, v) {
			return fmt.Errorf("%w: dst[%d] = %v at finite x, y and direction", numerr.ErrNotFinite, i, dst[i])
		}
		return nil
	}
}

func finiteBatch(o func([]float64, *Point, []float64, int) error) func([]float64, *Point, []float64, int) error {
	if o == nil {
		return nil
	}
	return func(dst []float64, pt *Point, v []float64, k int) error {
		if err := o(dst, pt, v, k); err != nil {
			return err
		}
		if i := firstNotFinite(dst); i >= 0 && allFinite(pt.X, pt.Y, v) {
			return fmt.Errorf("%w: dst[%d] = %v at finite x, y and directions", numerr.ErrNotFinite, i, dst[i])
		}
		return nil
	}
}

// finiteReach bounds the iterates of Euclidean gradient steps that are
// certainly finite. In exact arithmetic y_s = y_0 − η Σ_{i<s} ∇g(y_i), so
//
//	‖y_s‖_F ≤ ‖y_0‖_F + η Σ_{i<s} ‖∇g(y_i)‖_F,
//
// and the rounding of the steps and of the norms changes both sides by
// relative amounts far below 1: a right-hand side under MaxFloat64/16
// means that no entry of y_s overflowed. RHGD.lowerFused tells with it an
// oracle's own non-finite result from a divergence, which
// finiteOracles' wrappers tell by looking at the point; Problem.LowerSteps
// is not wrapped, since the points between its steps are not seen.
const finiteReach = math.MaxFloat64 / 16

// firstNotFinite returns the index of the first NaN or ±Inf in v, or −1:
// a·0 is 0 for finite a and NaN otherwise, so the common case is one
// sum and one comparison.
func firstNotFinite(v []float64) int {
	var z float64
	for _, a := range v {
		z += a * 0
	}
	if z == 0 {
		return -1
	}
	for i, a := range v {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return i
		}
	}
	return -1 // not reached
}

// allFinite reports whether every entry of every slice is finite.
func allFinite(vs ...[]float64) bool {
	for _, v := range vs {
		if firstNotFinite(v) >= 0 {
			return false
		}
	}
	return true
}

package solver

import (
	"cmp"
	"fmt"
	"math"
	"strconv"

	"github.com/rhgd/rhgd/numerr"
)

// AdaGD solves the hypergradient's linear system H v = grad_y f by
// gradient descent with AdaGrad-norm steps, AdaRHD's second solver
// (AdaRHD-GD; see ApplyAdaRHD), as its authors' code does it
// (src/AdaRHD_utils.py, ts_gradient_descent, lines 88–153, called with
// v_reg = 0): from the last estimate's solution (the first estimate from
// b = grad_y f itself), each iteration forms r = Hv − b, sets γ² ← γ² +
// ‖r‖², stops once ‖r‖² < Tol, and else steps v ← v − r/γ, with γ from
// Gamma at every estimate. Its iteration cap grows as AdaRHD's lower cap
// does (the scripts' v_subiter under GD, run_simple_spd_gr_AdaRHD.py
// lines 242–245): MaxIter for the first five estimates, then 50 more
// every five, up to 500.
//
// One difference: the code reuses the last solution as it is (its lower
// variables are Euclidean or SPD, whose tangent vectors it stores as one
// space); AdaGD transports it to the new y, which is the identity on a
// Euclidean space.
type AdaGD struct {
	// MaxIter is the first iteration cap; default DefaultAdaGDMaxIter.
	MaxIter int
	// Tol stops the iterations once ‖Hv − b‖² < Tol; default
	// DefaultAdaGDTol, the scripts' 1/K for their K = 10000 epochs with GD.
	Tol float64
	// Gamma is γ₀, the first step being at most 1/γ₀; default 1/EtaY (the
	// scripts start γ, β and α at one value).
	Gamma float64
}

// The defaults of AdaGD's zero fields.
const (
	DefaultAdaGDMaxIter = 50   // AdaGD.MaxIter: the scripts' v_subiter
	DefaultAdaGDTol     = 1e-4 // AdaGD.Tol
)

// Name returns "adagd".
func (*AdaGD) Name() string { return "adagd" }

// String returns the spec ParseEstimator reads, with the defaults filled.
func (a *AdaGD) String() string {
	s := "adagd:maxiter=" + strconv.Itoa(cmp.Or(a.MaxIter, DefaultAdaGDMaxIter)) +
		",tol=" + strconv.FormatFloat(cmp.Or(a.Tol, DefaultAdaGDTol), 'g', -1, 64)
	if a.Gamma != 0 {
		s += ",gamma=" + strconv.FormatFloat(a.Gamma, 'g', -1, 64)
	}
	return s
}

// Needs returns GradFx, GradFy, CrossGxy and HessGy.
func (*AdaGD) Needs() Oracles { return needsHessVp }

// Bind checks the settings (MaxIter ≥ 0, Tol and Gamma ≥ 0 and finite)
// and returns AdaGD's instance with its own warm start.
func (a *AdaGD) Bind(env *Env) (Hypergrad, error) {
	maxIter, tol, gamma := cmp.Or(a.MaxIter, DefaultAdaGDMaxIter), cmp.Or(a.Tol, DefaultAdaGDTol), a.Gamma
	switch {
	case maxIter < 0:
		return nil, fmt.Errorf("%w: AdaGD MaxIter = %d, want ≥ 0 (0: default %d)", ErrBadSetting, a.MaxIter, DefaultAdaGDMaxIter)
	case !(tol >= 0) || math.IsInf(tol, 0):
		return nil, fmt.Errorf("%w: AdaGD Tol = %v, want finite and ≥ 0 (0: default %g)", ErrBadSetting, a.Tol, DefaultAdaGDTol)
	case !(gamma >= 0) || math.IsInf(gamma, 0):
		return nil, fmt.Errorf("%w: AdaGD Gamma = %v, want finite and ≥ 0 (0: default 1/η_y)", ErrBadSetting, a.Gamma)
	}
	if gamma == 0 {
		gamma = 1 / env.EtaY()
	}
	return &adaGD{env: env, maxIter: maxIter, tol: tol, gamma: gamma,
		b: env.NewY(), v: env.NewY(), hv: env.NewY(), prev: env.NewY(), prevY: env.NewY()}, nil
}

type adaGD struct {
	env                   *Env
	maxIter               int
	tol, gamma            float64
	b, v, hv, prev, prevY []float64
	hasPrev               bool
	count                 int // estimates since Reset, for the growing cap
}

func (a *adaGD) Reset() { a.hasPrev, a.count = false, 0 }

// MarshalBinary returns the warm start and the estimate count.
func (a *adaGD) MarshalBinary() ([]byte, error) {
	var e stateEnc
	e.bool(a.hasPrev)
	e.f64s(a.prev)
	e.f64s(a.prevY)
	e.int(a.count)
	return e.b, nil
}

// UnmarshalBinary restores MarshalBinary's state.
func (a *adaGD) UnmarshalBinary(b []byte) error {
	d := stateDec{b: b}
	has := d.bool("warm start")
	prev := d.f64sLen("warm start's solution", len(a.prev))
	prevY := d.f64sLen("warm start's y", len(a.prevY))
	count := d.nonneg("estimates")
	if err := d.done(); err != nil {
		return err
	}
	a.hasPrev, a.count = has, count
	copy(a.prev, prev)
	copy(a.prevY, prevY)
	return nil
}

func (a *adaGD) Estimate(dst []float64, at *Point) error {
	env, my, y := a.env, a.env.My, at.Y
	b, v, hv := a.b, a.v, a.hv
	if err := env.GradFy(b, at); err != nil {
		return err
	}
	bnorm := my.Norm(y, b)
	if math.IsNaN(bnorm) || math.IsInf(bnorm, 0) {
		return fmt.Errorf("AdaGD: %w: ‖grad_y f‖ = %v", numerr.ErrNotFinite, bnorm)
	}
	if a.hasPrev {
		my.Transport(v, a.prevY, y, a.prev)
	} else {
		copy(v, b)
	}
	limit := adaLowerCap(a.maxIter, a.count)
	a.count++
	gamma2, rn := a.gamma*a.gamma, math.NaN()
	it := 0
	for ; it < limit; it++ {
		if err := env.HessGy(hv, at, v); err != nil {
			return err
		}
		for i := range hv {
			hv[i] -= b[i] // r = Hv − b
		}
		rn = my.Inner(y, hv, hv)
		if math.IsNaN(rn) || math.IsInf(rn, 0) {
			return fmt.Errorf("AdaGD: %w: ‖Hv − b‖² = %v at iteration %d", numerr.ErrNotFinite, rn, it)
		}
		gamma2 += rn
		if rn < a.tol {
			break
		}
		step := 1 / math.Sqrt(gamma2)
		for i := range v {
			v[i] -= step * hv[i]
		}
	}
	env.AddIterations(it)
	if !math.IsNaN(rn) {
		if bnorm > 0 {
			env.SetResidual(math.Sqrt(rn) / bnorm)
		}
		env.SetSolve(bnorm, math.Sqrt(rn), 0)
	}
	copy(a.prev, v)
	copy(a.prevY, y)
	a.hasPrev = true
	return env.Hyper(dst, at, v)
}

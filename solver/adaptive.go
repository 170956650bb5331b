package solver

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/numerr"
)

// LowerRule says how each epoch solves the lower problem. The zero value
// is the paper's Algorithm 1: InnerIters retraction steps of size EtaY.
//
// The rules trade the paper's fixed work per epoch for time to a
// solution. The hypergradient estimated at an inexact y has an error of
// at most C·d(y, y*(x)) (paper, Lemma 1), and strong convexity gives
// d(y, y*) ≤ ‖grad_y g(x, y)‖/μ; so stopping the lower loop once
// ‖grad_y g‖ ≤ Tol·‖ĝ_{k−1}‖ bounds the hypergradient's error by a fixed
// fraction (about Tol·C/μ) of its own size, the relative-error condition
// under which inexact gradient descent keeps the rate of exact gradient
// descent (as in inexact bilevel methods such as Pedregosa's HOAG, which
// uses summable absolute tolerances instead). The first epoch, with no
// hypergradient yet, takes InnerIters steps.
type LowerRule struct {
	// UseLowerSolve replaces the steps by Problem.LowerSolve, the exact
	// lower solution, when the problem has one (and is ignored when it
	// has not). Each solution is checked by one GradGy (see
	// Problem.LowerSolve).
	UseLowerSolve bool
	// Tol, when positive, ends an epoch's lower loop as soon as
	// ‖grad_y g(x_k, y)‖ ≤ Tol·‖ĝrad F(x_{k−1})‖, after at most MaxIters
	// steps.
	Tol float64
	// MaxIters caps an adaptive lower loop; default 10·InnerIters (zero:
	// the default).
	MaxIters int
	// ErrBound, with Tol, ends the lower loop once the lower-level term
	// of the error bound (EpochStats.HyperGradErrBound), K̂·‖grad_y g‖,
	// is at most Tol·‖ĝrad F(x_{k−1})‖, with K̂ from the last epoch's
	// estimate (see the package documentation): the estimated error of
	// the hypergradient, not the lower gradient, is then a fixed fraction
	// of its size. It needs a spectrum estimate (CG's, or
	// Settings.Lanczos); until there is one, the plain Tol test applies.
	// AdaptiveSettings leaves it off.
	ErrBound bool
	// AdaGrad takes AdaRHD's AdaGrad-norm lower steps instead (see
	// ApplyAdaRHD): step 1/β with β² ← β² + ‖grad_y g‖² after each step,
	// from β = 1/EtaY at each epoch's start, until ‖grad_y g‖² ≤ 1/Epochs
	// or a step cap that grows with the epochs. It excludes the other
	// lower rules (BB, Tol, UseLowerSolve).
	AdaGrad bool
	// BB takes Riemannian Barzilai–Borwein steps (the step from the
	// transported difference of successive gradients, starting from EtaY
	// and kept between epochs), each accepted by a nonmonotone Armijo test
	// on g over the epoch's last five values, halving the step until it
	// holds. It needs Problem.G; g's geodesic strong convexity makes the
	// test pass for small enough steps.
	BB bool
}

// UpperRule says how the upper step size is chosen. The zero value is the
// paper's fixed EtaX.
type UpperRule struct {
	// BB takes safeguarded Riemannian Barzilai–Borwein steps: from the
	// second epoch, η_k alternates between ⟨s,s⟩/⟨s,z⟩ and ⟨s,z⟩/⟨z,z⟩,
	// with s the last step and z the change of the hypergradient, both
	// transported to x_k.
	//
	// When ⟨s,z⟩ ≤ 0, F does not curve upwards along the last step (it is
	// concave there, or linear to rounding), the BB quotients have no
	// meaning, and the quadratic model they come from has no minimum
	// along −ĝ: a longer step decreases F more. The step is then twice
	// the last one. Spectral projected gradient methods and the
	// Riemannian BB method take the largest allowed step instead (Birgin,
	// Martínez and Raydan, SIAM J. Optim. 10(4), 2000; Iannazzo and
	// Porcelli, IMA J. Numer. Anal. 38(1), 2018), which their line
	// search then shortens; the upper level has no line search (f is seen
	// only after the step, at the next epoch's lower solution), so the
	// step grows geometrically and reaches any length up to MaxStep in
	// log₂(MaxStep/η) epochs, each at most twice a step that did not
	// raise f. Keeping the last step instead stalls a run at EtaX across
	// a region of negative curvature (with the exact lower solution near
	// a maximum of F, for hundreds of epochs).
	//
	// The step stays in [MinStep, MaxStep], and whenever f(x_k, y_{k+1})
	// exceeds the largest of its last ten values by more than f's
	// rounding (16 ulps of their magnitude), the cap is lowered to half
	// the last step (a nonmonotone safeguard: the hypergradient is
	// estimated, so F cannot be line-searched exactly), which also ends a
	// growth that went too far; after ten epochs without such a rise a
	// lowered cap doubles, up to MaxStep, so that one too long step (or a
	// noisy estimate) does not bound every later step (nonmonotone
	// spectral gradient methods keep their bounds fixed). A step whose retraction fails is halved
	// until it succeeds, as under every rule (Stats.RetractFailures), and
	// the length η‖ĝ‖ of the step taken then bounds the later BB steps.
	// Divergence is still detected as with a fixed step.
	BB bool
	// MinStep and MaxStep bound the BB step; defaults EtaX/1000 and
	// 1000·EtaX (zero: the default).
	MinStep, MaxStep float64
	// AdaGrad takes AdaRHD's AdaGrad-norm upper steps instead (see
	// ApplyAdaRHD): step 1/α with α² ← α² + ‖ĝ‖² after each epoch, from
	// α = 1/EtaX. It excludes BB.
	AdaGrad bool
}

// AdaptiveSettings returns settings that reach a solution sooner than the
// paper's: the exact lower solution when the problem has one, otherwise
// BB lower steps until ‖grad_y g‖ ≤ 0.1·‖ĝ‖ (at most 10·InnerIters), BB
// upper steps, and a stop once ‖ĝ‖ ≤ DefaultRelGradTol·‖ĝ₀‖ (see
// ApplyAdaptive). Set Epochs, GradTol and the rest as usual; the paper's
// fixed settings are the zero Lower and Upper rules and RelGradTol.
func AdaptiveSettings() Settings {
	var s Settings
	s.ApplyAdaptive()
	return s
}

// DefaultRelGradTol is the relative hypergradient tolerance of
// AdaptiveSettings, about √ε: a gradient step decreases f by about
// η‖ĝ‖², so once ‖ĝ‖ ≤ √ε·‖ĝ₀‖ an epoch's progress is about ε times the
// first epoch's, below the rounding of f itself (for a first decrease no
// larger than |f|), and further epochs only move the iterates within the
// noise of the estimated hypergradient.
const DefaultRelGradTol = 1e-8

// ApplyAdaptive sets the rules of AdaptiveSettings on s (Lower, Upper
// and RelGradTol = DefaultRelGradTol), keeping its step sizes, budgets,
// estimator and the rest: the adaptive preset over a problem's paper
// settings.
func (s *Settings) ApplyAdaptive() {
	s.Lower = LowerRule{UseLowerSolve: true, Tol: 0.1, BB: true}
	s.Upper = UpperRule{BB: true}
	s.RelGradTol = DefaultRelGradTol
}

// check validates the rules and fills their defaults.
func (l *LowerRule) check(s *Settings) error {
	switch {
	case !(l.Tol >= 0) || math.IsInf(l.Tol, 0):
		return numerr.Errorf("%w: %v = %v", ErrBadSetting, settingTerm("Lower.Tol"), l.Tol)
	case l.MaxIters < 0:
		return numerr.Errorf("%w: %v = %d", ErrBadSetting, settingTerm("Lower.MaxIters"), l.MaxIters)
	case l.AdaGrad && (l.BB || l.Tol > 0 || l.UseLowerSolve):
		other := "Lower.UseLowerSolve"
		switch {
		case l.BB:
			other = "Lower.BB"
		case l.Tol > 0:
			other = "Lower.Tol"
		}
		return numerr.Errorf("%w: %v and %v are two lower rules: choose one", ErrBadSetting, settingTerm("Lower.AdaGrad"), settingTerm(other))
	}
	if l.MaxIters == 0 {
		l.MaxIters = 10 * s.InnerIters
	}
	return nil
}

// paper reports whether the rule is the paper's fixed steps.
func (l *LowerRule) paper() bool { return !l.UseLowerSolve && l.Tol == 0 && !l.BB && !l.AdaGrad }

func (u *UpperRule) check(s *Settings) error {
	switch {
	case !(u.MinStep >= 0) || math.IsInf(u.MinStep, 0):
		return numerr.Errorf("%w: %v = %v", ErrBadSetting, settingTerm("Upper.MinStep"), u.MinStep)
	case !(u.MaxStep >= 0) || math.IsInf(u.MaxStep, 0):
		return numerr.Errorf("%w: %v = %v", ErrBadSetting, settingTerm("Upper.MaxStep"), u.MaxStep)
	case u.AdaGrad && u.BB:
		return numerr.Errorf("%w: %v and %v are two upper rules: choose one", ErrBadSetting, settingTerm("Upper.AdaGrad"), settingTerm("Upper.BB"))
	}
	if u.MinStep == 0 {
		u.MinStep = s.EtaX / 1000
	}
	if u.MaxStep == 0 {
		u.MaxStep = 1000 * s.EtaX
	}
	if u.MinStep > u.MaxStep {
		return numerr.Errorf("%w: %v = %g > %v = %g", ErrBadSetting, settingTerm("Upper.MinStep"), u.MinStep, settingTerm("Upper.MaxStep"), u.MaxStep)
	}
	return nil
}

// bbState is the memory of a Barzilai–Borwein step rule on one manifold:
// the last point, gradient and step size.
type bbState struct {
	prevX, prevG []float64
	t, sv, z     []float64 // scratch: transported gradient, step, difference
	prevStep     float64
	have         bool // prevX and prevG hold the last step's
	odd          bool // alternates BB1 and BB2
}

func newBB(n int) *bbState {
	return &bbState{prevX: make([]float64, n), prevG: make([]float64, n), t: make([]float64, n),
		sv: make([]float64, n), z: make([]float64, n)}
}

// step returns the BB step at x with gradient g, or def when there is no
// previous step or the curvature ⟨s, z⟩ is not positive (the lower rule
// passes the last step, the upper one twice it).
func (b *bbState) step(m Manifold, x, g []float64, def float64, alternate bool) float64 {
	if !b.have {
		return def
	}
	m.Transport(b.t, b.prevX, x, b.prevG)
	for i := range b.t {
		b.sv[i] = -b.prevStep * b.t[i]
		b.z[i] = g[i] - b.t[i]
	}
	sz := m.Inner(x, b.sv, b.z)
	if !(sz > 0) {
		return def
	}
	b.odd = !b.odd
	if alternate && !b.odd {
		zz := m.Inner(x, b.z, b.z)
		if zz > 0 {
			return sz / zz
		}
	}
	return m.Inner(x, b.sv, b.sv) / sz
}

// remember stores the step taken from x along −step·g.
func (b *bbState) remember(x, g []float64, step float64) {
	copy(b.prevX, x)
	copy(b.prevG, g)
	b.prevStep, b.have = step, true
}

// lowerWindow is how many of an epoch's g values the nonmonotone Armijo
// test compares with, and armijoC its sufficient-decrease constant.
const (
	lowerWindow      = 5
	armijoC          = 1e-4
	maxHalvings      = 60
	roundingHalvings = 10
)

// lowerBB takes one BB step with the nonmonotone Armijo test from the
// current y with gradient r.gy (squared norm gn2): it evaluates g at the
// trial points, accepts the first that decreases enough, and moves y
// there, keeping that point's identity (and so what the problem cached
// there). It reports stationary, leaving y where it is, when g rose by
// the same amount over roundingHalvings halvings of the step (a factor of
// a thousand): a rise that does not shrink with the step is no first-order
// change along −grad, only the rounding of g along the retraction, so y
// solves the lower level to rounding (a wrong gradient's rise shrinks with
// the step, and ends in the error).
func (r *RHGD) lowerBB(s int, gn2 float64) (stationary bool, err error) {
	my, y, env := r.my, r.y, r.env
	if s == 0 { // a new x: g's values and gradients of the last epoch do not apply
		r.lbb.have = false
		r.gWin = r.gWin[:0]
		g, err := r.p.G(env.batch(&r.cur, lowerBatch))
		if err != nil {
			return false, numerr.Errorf("%v at epoch %d: %w", OracleG, r.epoch, err)
		}
		r.stats.LowerValues++
		r.gWin = append(r.gWin, g)
	}
	step := r.lbb.step(my, y, r.gy, r.lowerStep, false)
	step = min(max(step, r.s.EtaY*1e-6), r.s.EtaY*1e6)
	ref := r.gWin[0]
	for _, v := range r.gWin[1:] {
		ref = max(ref, v)
	}
	trial := &r.trial
	*trial = Point{X: r.x, XID: r.cur.XID, Y: r.by}
	riseFirst, hFirst := 0.0, 0
	for h := 0; ; h++ {
		if h == maxHalvings {
			return false, fmt.Errorf("%w: lower BB step at epoch %d, step %d: no decrease of g after %d halvings (‖grad_y g‖² = %.3g)",
				errDiverged, r.epoch, s, maxHalvings, gn2)
		}
		if err := my.Retract(r.by, y, r.gy, -step); err != nil {
			r.stats.RetractFailures++
			step /= 2 // a retraction too far to compute is a step too long
			continue
		}
		trial.YID = NewID()
		g, err := r.p.G(env.batch(trial, lowerBatch))
		if err != nil {
			step /= 2
			continue
		}
		r.stats.LowerValues++
		if rise := g - ref; rise > 0 {
			switch {
			case riseFirst == 0:
				riseFirst, hFirst = rise, h
			case h-hFirst >= roundingHalvings && rise >= riseFirst/2 && rise <= 2*riseFirst:
				return true, nil
			}
		}
		if g <= ref-armijoC*step*gn2 {
			if len(r.gWin) == lowerWindow {
				copy(r.gWin, r.gWin[1:])
				r.gWin = r.gWin[:lowerWindow-1]
			}
			r.gWin = append(r.gWin, g)
			break
		}
		step /= 2
	}
	r.lbb.remember(y, r.gy, step)
	r.lowerStep = step
	copy(y, r.by)
	r.cur.YID = trial.YID
	return false, nil
}

// upperStepSize returns η_k for the step from x_k along −ĝ, of norm
// hgNorm.
func (r *RHGD) upperStepSize(f, hgNorm float64) float64 {
	u := &r.s.Upper
	if u.AdaGrad {
		return r.adaUpperStep(hgNorm)
	}
	if !u.BB {
		return r.s.EtaX
	}
	// The nonmonotone safeguard: f above all of its recent values, by
	// more than f's own rounding, means the last step was too long; a
	// window of epochs without such a rise lets the cap recover.
	if n := len(r.fWin); n > 0 {
		worst := r.fWin[0]
		for _, v := range r.fWin[1:] {
			worst = max(worst, v)
		}
		switch {
		case risen(f, worst):
			r.upperMax = max(u.MinStep, min(r.upperMax, r.ubb.prevStep/2))
			r.upperCalm = 0
		case r.upperMax < u.MaxStep:
			r.upperCalm++
			if r.upperCalm >= upperWindow {
				r.upperMax = min(u.MaxStep, upperGrowth*r.upperMax)
				r.upperCalm = 0
			}
		}
		if n == upperWindow {
			copy(r.fWin, r.fWin[1:])
			r.fWin = r.fWin[:n-1]
		}
	}
	r.fWin = append(r.fWin, f)
	// Without positive curvature along the last step, grow it (see
	// UpperRule.BB).
	step := r.ubb.step(r.mx, r.x, r.hg, upperGrowth*r.ubb.prevStep, true)
	if !r.ubb.have {
		step = r.s.EtaX
	}
	// A step longer than the last one the retraction had to shorten
	// would fail again.
	step = min(max(step, u.MinStep), r.upperMax)
	if hgNorm > 0 {
		step = min(step, r.upperReach/hgNorm)
	}
	return step
}

// risen reports whether f is above ref by more than their rounding:
// fRoundingUlps units in the last place of the larger magnitude. Near a
// solution a step's true change of f, about η‖ĝ‖², falls below the
// rounding of f itself, and a comparison of the rounded values then
// finds a rise in half the epochs by chance; the safeguard would halve
// the cap at each and drive the step to MinStep, stalling a run asked
// for a tolerance below √ε.
func risen(f, ref float64) bool {
	m := max(math.Abs(f), math.Abs(ref))
	return f-ref > fRoundingUlps*(math.Nextafter(m, math.Inf(1))-m)
}

// upperWindow is how many recent f values the upper safeguard compares
// with (and how many epochs without a rise double a lowered cap, up to
// MaxStep), upperGrowth the factor of the BB upper step where the
// curvature along the last step is not positive (and of the cap's
// recovery), and fRoundingUlps the rise of f, in units in the last place,
// that the safeguard takes for rounding (see risen): f is computed by a
// sum, whose rounding error is a few ulps per term of its size.
const (
	upperWindow   = 10
	upperGrowth   = 2
	fRoundingUlps = 16
)

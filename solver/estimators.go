package solver

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/numerr"
)

// Errors of the estimators.
var (
	// ErrNeumannStep signifies γ ≥ 2/λ_max(H): the truncated Neumann
	// series would diverge (numerr.ErrInvalid: the setting is wrong).
	ErrNeumannStep = numerr.New(numerr.ErrInvalid, "solver: Neumann step γ too large")
	// ErrNotPositive signifies a Hessian that is not positive definite
	// along a CG direction: g is not strongly convex there
	// (numerr.ErrNotPosDef).
	ErrNotPositive = numerr.New(numerr.ErrNotPosDef, "solver: Hessian not positive definite")
)

// The estimators' oracle needs.
var (
	needsHInv   = NewOracles(OracleGradFx, OracleGradFy, OracleCrossGxy, OracleHessGyInv)
	needsHessVp = NewOracles(OracleGradFx, OracleGradFy, OracleCrossGxy, OracleHessGy)
)

// CG solves H v = grad_y f in the tangent space T_y by conjugate gradients
// (the paper's Algorithm 4 on H v = b itself, in the metric of My), then
// forms grad_x f − G_xy g[v]. Its step sizes and residual ratios define
// the Lanczos tridiagonal of H on the Krylov space, whose extreme Ritz
// values it reports as the epoch's spectrum estimate (EstimatorStats
// MinEig, MaxEig) at no extra oracle cost. On a singular or indefinite
// Hessian it stops with ErrSingular or ErrNotPositive instead of
// oscillating; Damping or AutoDamping then solves (H + δI) v = b (see
// the package documentation, "Lower levels that are not strongly
// convex"). When the lower manifold is a Whitener (SPD), each iteration
// whitens H p once and takes its inner products as dot products of
// whitened copies of r and p, kept by the same recurrences.
type CG struct {
	// MaxIter bounds the iterations; default DefaultCGMaxIter.
	MaxIter int
	// Tol stops at ‖b − Hv‖_y ≤ Tol·‖b‖_y; default DefaultCGTol.
	Tol float64
	// WarmStart starts from the previous epoch's solution, transported to
	// the new y, instead of from zero.
	WarmStart bool
	// Damping, when positive, is a fixed δ: CG solves (H + δI) v = b.
	Damping float64
	// AutoDamping chooses δ at every estimate from a Lanczos estimate of
	// H's spectrum (Settings.Lanczos steps, DefaultLanczosSteps when 0):
	// δ = max(0, AutoDampingRatio·λ̂_max − λ̂_min), so that the damped
	// system's condition number is at most about 1/AutoDampingRatio.
	AutoDamping bool
}

// AutoDampingRatio is the least ratio λ_min/λ_max that auto damping
// keeps: δ = max(0, AutoDampingRatio·λ̂_max − λ̂_min).
const AutoDampingRatio = 1e-3

// Errors of a linear solve on a lower Hessian that is not positive
// definite.
var (
	// ErrSingular signifies a CG whose curvature ⟨p, Hp⟩ along a search
	// direction fell to CurvatureTol times the largest seen, or whose
	// residual grew by more than ResidualGrowth: the lower Hessian is
	// (numerically) singular or indefinite, g is not strongly convex in
	// y there, and undamped CG would oscillate (numerr.ErrNotPosDef).
	ErrSingular = numerr.New(numerr.ErrNotPosDef, "solver: lower Hessian singular or indefinite")
)

// CurvatureTol and ResidualGrowth are CG's tests of a singular or
// indefinite Hessian: ⟨p, Hp⟩/‖r‖² ≤ CurvatureTol·max_j ⟨p_j, Hp_j⟩/‖r_j‖²
// (a Rayleigh quotient of p below CurvatureTol·λ_max: ‖p‖ ≥ ‖r‖ in CG),
// and ‖r‖ above ResidualGrowth times the least residual seen.
const (
	CurvatureTol   = 1e-12
	ResidualGrowth = 1e4
)

// Name returns "cg".
func (*CG) Name() string { return "cg" }

// String returns the spec ParseEstimator reads, with the defaults filled.
func (c *CG) String() string {
	maxIter, tol := c.settings()
	s := "cg:maxiter=" + strconv.Itoa(maxIter) + ",tol=" + strconv.FormatFloat(tol, 'g', -1, 64)
	if c.WarmStart {
		s += ",warm=true"
	}
	switch {
	case c.AutoDamping:
		s += ",damping=auto"
	case c.Damping != 0:
		s += ",damping=" + strconv.FormatFloat(c.Damping, 'g', -1, 64)
	}
	return s
}

// Needs returns GradFx, GradFy, CrossGxy and HessGy.
func (*CG) Needs() Oracles { return needsHessVp }

// settings returns MaxIter and Tol, their zeros the defaults.
func (c *CG) settings() (int, float64) {
	return cmp.Or(c.MaxIter, DefaultCGMaxIter), cmp.Or(c.Tol, DefaultCGTol)
}

// Bind checks the settings (MaxIter ≥ 0, Tol ≥ 0 and finite, Damping ≥ 0
// and finite) and returns CG's instance with its own warm-start state.
func (c *CG) Bind(env *Env) (Hypergrad, error) {
	maxIter, tol := c.settings()
	switch {
	case maxIter < 0:
		return nil, fmt.Errorf("%w: CG MaxIter = %d, want ≥ 0 (0: default %d)", ErrBadSetting, c.MaxIter, DefaultCGMaxIter)
	case !(tol >= 0) || math.IsInf(tol, 0):
		return nil, fmt.Errorf("%w: CG Tol = %v, want finite and ≥ 0 (0: default %g)", ErrBadSetting, c.Tol, DefaultCGTol)
	case !(c.Damping >= 0) || math.IsInf(c.Damping, 0):
		return nil, fmt.Errorf("%w: CG Damping = %v, want finite and ≥ 0", ErrBadSetting, c.Damping)
	}
	cg := &cg{env: env, maxIter: maxIter, tol: tol, warm: c.WarmStart, damping: c.Damping, auto: c.AutoDamping,
		b: env.NewY(), v: env.NewY(), res: env.NewY(), p: env.NewY(), hp: env.NewY(),
		prev: env.NewY(), prevY: env.NewY(),
		alpha: make([]float64, maxIter), beta: make([]float64, maxIter),
		diag: make([]float64, maxIter), off: make([]float64, maxIter)}
	if wh, ok := env.My.(Whitener); ok && !noWhiten {
		cg.wh, cg.resW, cg.pW, cg.hpW = wh, env.NewY(), env.NewY(), env.NewY()
	}
	return cg, nil
}

// noWhiten turns off the whitened inner products of CG and Neumann, for
// the tests that compare them with the metric's own (SetNoWhiten).
var noWhiten bool

// whitenedNorm returns ‖u‖_y through wh's coordinates, left in w.
func whitenedNorm(wh Whitener, w, y, u []float64) (float64, error) {
	if err := wh.Whiten(w, y, u); err != nil {
		return math.NaN(), err
	}
	return math.Sqrt(floats.Dot(w, w)), nil
}

type cg struct {
	env              *Env
	maxIter          int
	tol              float64
	warm             bool
	damping          float64
	auto             bool
	b, v, res, p, hp []float64
	// With a Whitener lower manifold, the whitened coordinates of res, p
	// and hp: each inner product is then a dot product (see Whitener).
	wh            Whitener
	resW, pW, hpW []float64
	prev, prevY   []float64 // previous solution (tangent at prevY)
	hasPrev       bool
	alpha, beta   []float64 // CG's coefficients: the Lanczos tridiagonal
	diag, off     []float64 // scratch for its Ritz values
}

func (c *cg) Reset() { c.hasPrev = false }

// MarshalBinary returns the warm start: the last solution and its y.
func (c *cg) MarshalBinary() ([]byte, error) {
	var e stateEnc
	e.bool(c.hasPrev)
	e.f64s(c.prev)
	e.f64s(c.prevY)
	return e.b, nil
}

// UnmarshalBinary restores MarshalBinary's warm start.
func (c *cg) UnmarshalBinary(b []byte) error {
	d := stateDec{b: b}
	has := d.bool("warm start")
	prev := d.f64sLen("warm start's solution", len(c.prev))
	prevY := d.f64sLen("warm start's y", len(c.prevY))
	if err := d.done(); err != nil {
		return err
	}
	c.hasPrev = has
	copy(c.prev, prev)
	copy(c.prevY, prevY)
	return nil
}

// hess sets dst = (H + δI)[u].
func (c *cg) hess(dst []float64, at *Point, u []float64, delta float64) error {
	if err := c.env.HessGy(dst, at, u); err != nil {
		return err
	}
	if delta != 0 {
		for i := range dst {
			dst[i] += delta * u[i]
		}
	}
	return nil
}

func (c *cg) Estimate(dst []float64, at *Point) error {
	env, my, y := c.env, c.env.My, at.Y
	b, v, res, p, hp := c.b, c.v, c.res, c.p, c.hp
	if err := env.GradFy(b, at); err != nil {
		return err
	}
	// grad_y f carries rounding of the size of the Euclidean gradient
	// outside the tangent space, where the Hessian is not defined; near a
	// point where grad_y f vanishes that noise is as large as b itself, and
	// CG would chase it. Projecting again leaves rounding of b's own size.
	my.Project(res, y, b)
	copy(b, res)
	var bnorm float64
	if c.wh != nil {
		var err error
		if bnorm, err = whitenedNorm(c.wh, c.resW, y, b); err != nil {
			return fmt.Errorf("CG: %w", err)
		}
	} else {
		bnorm = my.Norm(y, b)
	}
	if math.IsNaN(bnorm) || math.IsInf(bnorm, 0) {
		return fmt.Errorf("CG: %w: ‖grad_y f‖ = %v", numerr.ErrNotFinite, bnorm)
	}
	delta, lzLo, lzHi := c.damping, math.NaN(), math.NaN()
	if c.auto {
		lo, hi, err := env.Spectrum(at)
		if err != nil {
			return fmt.Errorf("CG: auto damping: %w", err)
		}
		lzLo, lzHi = lo, hi
		delta = max(0, AutoDampingRatio*hi-lo)
	}
	copy(res, b)
	clear(v)
	if c.warm && c.hasPrev {
		my.Transport(v, c.prevY, y, c.prev)
		if err := c.hess(hp, at, v, delta); err != nil {
			return err
		}
		for i := range res {
			res[i] = b[i] - hp[i]
		}
		if c.wh != nil {
			if err := c.wh.Whiten(c.resW, y, res); err != nil {
				return fmt.Errorf("CG: %w", err)
			}
		}
	}
	copy(p, res)
	var rr float64
	if c.wh != nil { // resW holds res's coordinates
		copy(c.pW, c.resW)
		rr = floats.Dot(c.resW, c.resW)
	} else {
		rr = my.Inner(y, res, res)
	}
	rrBest, curvMax := rr, 0.0
	it := 0
	for ; it < c.maxIter && math.Sqrt(rr) > c.tol*bnorm; it++ {
		if err := c.hess(hp, at, p, delta); err != nil {
			return err
		}
		var php float64
		if c.wh != nil {
			if err := c.wh.Whiten(c.hpW, y, hp); err != nil {
				return fmt.Errorf("CG: %w", err)
			}
			php = floats.Dot(c.pW, c.hpW)
		} else {
			php = my.Inner(y, p, hp)
		}
		curv := php / rr // ≥ the Rayleigh quotient of p, ≤ λ_max
		switch {
		case math.IsNaN(php) || math.IsInf(php, 0):
			return fmt.Errorf("CG: %w: ⟨p, Hp⟩ = %v at iteration %d", numerr.ErrNotFinite, php, it)
		case php <= 0:
			return fmt.Errorf("CG: %w: ⟨p, Hp⟩ = %.3g at iteration %d (g is not strongly convex in y here; damp the solve: cg:damping=auto)", ErrNotPositive, php, it)
		case curv <= CurvatureTol*curvMax:
			return fmt.Errorf("CG: %w: curvature ⟨p, Hp⟩/‖r‖² = %.3g ≤ %.0e × its largest value %.3g at iteration %d, relative residual %.3g (g is not strongly convex in y here; damp the solve: cg:damping=auto)",
				ErrSingular, curv, CurvatureTol, curvMax, it, math.Sqrt(rr)/bnorm)
		}
		curvMax = max(curvMax, curv)
		alpha := rr / php
		for i := range v {
			v[i] += alpha * p[i]
			res[i] -= alpha * hp[i]
		}
		var rrNew float64
		if c.wh != nil {
			resW, hpW := c.resW, c.hpW
			for i := range resW {
				resW[i] -= alpha * hpW[i]
			}
			rrNew = floats.Dot(resW, resW)
		} else {
			rrNew = my.Inner(y, res, res)
		}
		beta := rrNew / rr
		c.alpha[it], c.beta[it] = alpha, beta
		rr = rrNew
		if rr > ResidualGrowth*ResidualGrowth*rrBest {
			return fmt.Errorf("CG: %w: the residual grew to %.3g, %.0e× its least value, at iteration %d (g is not strongly convex in y here; damp the solve: cg:damping=auto)",
				ErrSingular, math.Sqrt(rr), math.Sqrt(rr/rrBest), it)
		}
		rrBest = min(rrBest, rr)
		for i := range p {
			p[i] = res[i] + beta*p[i]
		}
		if c.wh != nil {
			pW, resW := c.pW, c.resW
			for i := range pW {
				pW[i] = resW[i] + beta*pW[i]
			}
		}
	}
	env.AddIterations(it)
	if math.IsNaN(rr) || math.IsInf(rr, 0) {
		return fmt.Errorf("CG: %w: residual norm² %v", numerr.ErrNotFinite, rr)
	}
	if bnorm > 0 {
		env.SetResidual(math.Sqrt(rr) / bnorm)
	}
	if it > 0 {
		lo, hi := cgRitz(c.alpha, c.beta, c.diag, c.off, it)
		lo, hi = lo-delta, hi-delta
		if c.auto { // the random-start Lanczos sees directions b's Krylov space may miss
			lo, hi = min(lo, lzLo), max(hi, lzHi)
		}
		env.SetSpectrum(lo, hi)
	} else if c.auto {
		env.SetSpectrum(lzLo, lzHi)
	}
	env.SetSolve(bnorm, math.Sqrt(rr), delta)
	if c.warm {
		copy(c.prev, v)
		copy(c.prevY, y)
		c.hasPrev = true
	}
	return env.Hyper(dst, at, v)
}

// Neumann approximates H⁻¹ by the truncated series γ Σ_{i<T} (I − γH)^i
// (paper, Section 3.1), which converges when γ < 2/λ_max(H). On a Whitener
// lower manifold (SPD) its power iteration and norms use whitened
// coordinates (see CG).
type Neumann struct {
	// Gamma is the step γ; default 1/λ̂ with λ̂ the power-iteration estimate
	// of λ_max(H) (so 0 means "choose").
	Gamma float64
	// Terms is T; default DefaultNeumannTerms.
	Terms int
	// PowerIters is the number of power iterations that estimate λ_max(H)
	// to check γ (default DefaultNeumannPower); negative skips the check.
	PowerIters int
	// Damping, when positive, is a fixed δ: the series approximates
	// (H + δI)⁻¹, γ Σ_{i<T} (I − γ(H + δI))^i, and γ's default and check
	// use λ_max + δ.
	Damping float64
	// AutoDamping chooses δ at every estimate as CG's AutoDamping does.
	AutoDamping bool
}

// Name returns "ns".
func (*Neumann) Name() string { return "ns" }

// String returns the spec ParseEstimator reads, with the defaults filled.
func (ns *Neumann) String() string {
	terms, iters := ns.settings()
	var b strings.Builder
	b.WriteString("ns:")
	if ns.Gamma != 0 {
		b.WriteString("gamma=" + strconv.FormatFloat(ns.Gamma, 'g', -1, 64) + ",")
	}
	b.WriteString("terms=" + strconv.Itoa(terms) + ",power=" + strconv.Itoa(iters))
	switch {
	case ns.AutoDamping:
		b.WriteString(",damping=auto")
	case ns.Damping != 0:
		b.WriteString(",damping=" + strconv.FormatFloat(ns.Damping, 'g', -1, 64))
	}
	return b.String()
}

// Needs returns GradFx, GradFy, CrossGxy and HessGy.
func (*Neumann) Needs() Oracles { return needsHessVp }

// settings returns Terms and PowerIters, their zeros the defaults.
func (ns *Neumann) settings() (terms, iters int) {
	return cmp.Or(ns.Terms, DefaultNeumannTerms), cmp.Or(ns.PowerIters, DefaultNeumannPower)
}

// Bind checks the settings (Gamma ≥ 0 and finite, Terms ≥ 1, and Gamma
// set when the λ_max check is skipped) and returns the instance.
func (ns *Neumann) Bind(env *Env) (Hypergrad, error) {
	terms, iters := ns.settings()
	switch {
	case !(ns.Gamma >= 0) || math.IsInf(ns.Gamma, 0):
		return nil, fmt.Errorf("%w: Neumann Gamma = %v", ErrBadSetting, ns.Gamma)
	case terms < 1:
		return nil, fmt.Errorf("%w: Neumann Terms = %d", ErrBadSetting, ns.Terms)
	case !(ns.Damping >= 0) || math.IsInf(ns.Damping, 0):
		return nil, fmt.Errorf("%w: Neumann Damping = %v", ErrBadSetting, ns.Damping)
	case iters < 0 && ns.Gamma == 0:
		return nil, fmt.Errorf("NS: %w: Gamma not set and the λ_max estimate skipped", ErrNeumannStep)
	}
	n := &neumann{env: env, gamma: ns.Gamma, terms: terms, iters: iters, damping: ns.Damping, auto: ns.AutoDamping,
		b: env.NewY(), v: env.NewY(), p: env.NewY(), hp: env.NewY(), w: env.NewY()}
	if wh, ok := env.My.(Whitener); ok && !noWhiten {
		n.wh, n.wW, n.hwW = wh, env.NewY(), env.NewY()
	}
	return n, nil
}

type neumann struct {
	env            *Env
	gamma          float64
	terms, iters   int
	damping        float64
	auto           bool
	b, v, p, hp, w []float64
	// With a Whitener lower manifold, the whitened coordinates of the
	// power iteration's w and H w, also scratch for norms.
	wh      Whitener
	wW, hwW []float64
}

// norm returns ‖u‖_y, through whitened coordinates when it can.
func (ns *neumann) norm(y, u []float64) (float64, error) {
	if ns.wh != nil {
		return whitenedNorm(ns.wh, ns.wW, y, u)
	}
	return ns.env.My.Norm(y, u), nil
}

func (ns *neumann) Reset() {}

func (ns *neumann) Estimate(dst []float64, at *Point) error {
	env := ns.env
	b, v, p, hp := ns.b, ns.v, ns.p, ns.hp
	if err := env.GradFy(b, at); err != nil {
		return err
	}
	nb, err := ns.norm(at.Y, b)
	if err != nil {
		return fmt.Errorf("NS: %w", err)
	}
	if math.IsNaN(nb) || math.IsInf(nb, 0) {
		return fmt.Errorf("NS: %w: ‖grad_y f‖ = %v", numerr.ErrNotFinite, nb)
	}
	delta := ns.damping
	if ns.auto {
		lo, hi, err := env.Spectrum(at)
		if err != nil {
			return fmt.Errorf("NS: auto damping: %w", err)
		}
		delta = max(0, AutoDampingRatio*hi-lo)
	}
	gamma := ns.gamma
	if ns.iters > 0 {
		lam, err := ns.powerIteration(at, b)
		if err != nil {
			return err
		}
		lam += delta
		if gamma == 0 {
			gamma = 1 / lam
		}
		env.SetResidual(gamma * lam)
		if !(gamma*lam < 2) {
			return fmt.Errorf("NS: %w: γ = %.3g, λ_max(H) ≈ %.3g, need γ < %.3g", ErrNeumannStep, gamma, lam, 2/lam)
		}
	}
	// p_0 = b, p_{i+1} = (I − γH) p_i, v = γ Σ p_i.
	copy(p, b)
	copy(v, b)
	for i := 1; i < ns.terms; i++ {
		if err := env.HessGy(hp, at, p); err != nil {
			return err
		}
		for k := range p {
			p[k] -= gamma * (hp[k] + delta*p[k])
			v[k] += p[k]
		}
	}
	for k := range v {
		v[k] *= gamma
	}
	if env.WantsNorms() {
		// b − (H+δI)v = (I − γ(H+δI))^T b, of norm ≤ ‖p_{T−1}‖ when
		// 0 ≤ γ(H+δI) ≤ 2I (the condition the power iteration checks).
		np, err := ns.norm(at.Y, p)
		if err != nil {
			return fmt.Errorf("NS: %w", err)
		}
		env.SetSolve(nb, np, delta)
	}
	nv, err := ns.norm(at.Y, v)
	if err != nil {
		return fmt.Errorf("NS: %w", err)
	}
	if math.IsNaN(nv) || math.IsInf(nv, 0) {
		return fmt.Errorf("NS: %w: the series reached ‖v‖ = %v", numerr.ErrNotFinite, nv)
	}
	env.AddIterations(ns.terms)
	return env.Hyper(dst, at, v)
}

// powerIteration estimates λ_max(H_y g) at `at` by ns.iters power steps
// from the start vector s (a tangent), returning the last Rayleigh
// quotient.
func (ns *neumann) powerIteration(at *Point, s []float64) (float64, error) {
	env, my, y := ns.env, ns.env.My, at.Y
	if ns.wh != nil {
		return ns.powerWhitened(at, s)
	}
	w, hw := ns.w, ns.hp
	copy(w, s)
	if my.Norm(y, w) == 0 {
		my.RandTangent(w, y, env.Rand())
	}
	var lam float64
	for i := 0; i < ns.iters; i++ {
		nw := my.Norm(y, w)
		for j := range w {
			w[j] /= nw
		}
		if err := env.HessGy(hw, at, w); err != nil {
			return 0, err
		}
		lam = my.Inner(y, w, hw)
		copy(w, hw)
	}
	if math.IsNaN(lam) || math.IsInf(lam, 0) {
		return 0, fmt.Errorf("NS: %w: λ_max(H) estimate %v", numerr.ErrNotFinite, lam)
	}
	return lam, nil
}

// powerWhitened is powerIteration from s with whitened coordinates: per
// step one Hessian product and its whitening, the norm and the Rayleigh
// quotient dot products of them.
func (ns *neumann) powerWhitened(at *Point, s []float64) (float64, error) {
	env, y := ns.env, at.Y
	w, hw, wW, hwW := ns.w, ns.hp, ns.wW, ns.hwW
	copy(w, s)
	for k := 0; k < 2; k++ { // s, or a random start when s = 0
		if err := ns.wh.Whiten(wW, y, w); err != nil {
			return 0, fmt.Errorf("NS: %w", err)
		}
		if k == 1 || floats.Dot(wW, wW) != 0 {
			break
		}
		env.My.RandTangent(w, y, env.Rand())
	}
	var lam float64
	for i := 0; i < ns.iters; i++ {
		nw := math.Sqrt(floats.Dot(wW, wW))
		for j := range w {
			w[j] /= nw
			wW[j] /= nw
		}
		if err := env.HessGy(hw, at, w); err != nil {
			return 0, err
		}
		if err := ns.wh.Whiten(hwW, y, hw); err != nil {
			return 0, fmt.Errorf("NS: %w", err)
		}
		lam = floats.Dot(wW, hwW)
		copy(w, hw)
		copy(wW, hwW)
	}
	if math.IsNaN(lam) || math.IsInf(lam, 0) {
		return 0, fmt.Errorf("NS: %w: λ_max(H) estimate %v", numerr.ErrNotFinite, lam)
	}
	return lam, nil
}

// AD differentiates through the S lower steps y^{s+1} = R_{y^s}(−η_y
// grad_y g(x, y^s)) in reverse mode, approximating each retraction's
// differential by the projection onto the next tangent space (paper,
// Lemma 1's AD): with λ_S = grad_y f(x, y^S),
//
//	μ_s = T_{y^{s+1}→y^s} λ_{s+1},   hg −= η_y G_xy g(x, y^s)[μ_s],
//	λ_s = μ_s − η_y H_y g(x, y^s)[μ_s],
//
// starting from hg = grad_x f(x, y^S); the transport is the manifold's.
// In Euclidean space it is the exact derivative of the unrolled map.
type AD struct{}

// Name returns "ad".
func (AD) Name() string { return "ad" }

// String returns the spec ParseEstimator reads: "ad".
func (AD) String() string { return "ad" }

// Needs returns GradFx, GradFy, CrossGxy and HessGy.
func (AD) Needs() Oracles { return needsHessVp }

// Bind asks the solver to keep the lower path, or only the lower loop's
// start where the problem differentiates its fused loop
// (Problem.LowerStepsVJP), and returns the instance.
func (AD) Bind(env *Env) (Hypergrad, error) {
	if !env.UseLowerStepsVJP() {
		env.KeepPath()
	}
	return &ad{env: env, lam: env.NewY(), mu: env.NewY(), h: env.NewY(), cx: env.NewX(), bS: env.NewY()}, nil
}

type ad struct {
	env        *Env
	lam, mu, h []float64
	cx         []float64
	bS         []float64 // grad_y f at y^S, for the error bound
}

func (a *ad) Reset() {}

func (a *ad) Estimate(dst []float64, at *Point) error {
	env, my, eta := a.env, a.env.My, a.env.EtaY()
	if env.useVJP {
		return a.estimateVJP(dst, at)
	}
	path := env.Path() // y^0 … y^S, the last being `at`
	if len(path) == 0 {
		return env.GradFx(dst, at) // no lower steps: the G_x f term alone
	}
	S := len(path) - 1
	last := &path[S]
	if err := env.GradFy(a.lam, last); err != nil {
		return err
	}
	if env.WantsNorms() {
		copy(a.bS, a.lam)
	}
	if err := env.GradFx(dst, last); err != nil {
		return err
	}
	for s := S - 1; s >= 0; s-- {
		ps := &path[s]
		my.Transport(a.mu, path[s+1].Y, ps.Y, a.lam)
		if err := env.CrossGxy(a.cx, ps, a.mu); err != nil {
			return err
		}
		for i := range dst {
			dst[i] -= eta * a.cx[i]
		}
		if err := env.HessGy(a.h, ps, a.mu); err != nil {
			return err
		}
		for i := range a.lam {
			a.lam[i] = a.mu[i] - eta*a.h[i]
		}
	}
	env.AddIterations(S)
	if env.WantsNorms() {
		// At a fixed y, AD's implicit v = η Σ_s (I − ηH)^s b leaves the
		// residual b − Hv = (I − ηH)^S b: the final adjoint λ_0.
		env.SetSolve(my.Norm(last.Y, a.bS), my.Norm(path[0].Y, a.lam), 0)
	}
	return nil
}

// estimateVJP is Estimate by one Problem.LowerStepsVJP call: hg = grad_x
// f(x, y^S) + ∇_x⟨λ_S, y^S(x)⟩, the sweep's sum, and λ_0 = dy.
func (a *ad) estimateVJP(dst []float64, at *Point) error {
	env, my := a.env, a.env.My
	start, S := env.LowerStart()
	if err := env.GradFy(a.lam, at); err != nil {
		return err
	}
	if env.WantsNorms() {
		copy(a.bS, a.lam)
	}
	if err := env.GradFx(dst, at); err != nil {
		return err
	}
	if S > 0 {
		if err := env.LowerStepsVJP(a.cx, a.mu, start, S, a.lam); err != nil {
			return err
		}
		for i := range dst {
			dst[i] += a.cx[i]
		}
		copy(a.lam, a.mu)
	}
	env.AddIterations(S)
	if env.WantsNorms() {
		y0 := at.Y
		if S > 0 {
			y0 = start.Y
		}
		env.SetSolve(my.Norm(at.Y, a.bS), my.Norm(y0, a.lam), 0)
	}
	return nil
}

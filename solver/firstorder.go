package solver

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rhgd/rhgd/numerr"
)

// needsFirstOrder are the first-order estimator's oracles: gradients only.
var needsFirstOrder = NewOracles(OracleF, OracleGradFx, OracleGradFy, OracleGradGy, OracleGradGx)

// FirstOrder is a fully first-order (Hessian-free) estimator: the
// value-function penalty method of F²SA (Kwon, Kwon, Wright and Nowak,
// "A fully first-order method for stochastic bilevel optimization", ICML
// 2023) on manifolds, as RF²SA (Dutta, Cheng and Sra, "Riemannian bilevel
// optimization", arXiv 2405.15816) poses it. It calls only F, GradFx,
// GradFy, GradGy and GradGx, so it runs on problems without Hessian or
// cross-derivative oracles (the C and Python callback problems) and the
// solver fills nothing by finite differences for it.
//
// The bilevel problem is replaced by the penalty
//
//	L_λ(x) = min_z [f(x, z) + λ g(x, z)] − λ min_y g(x, y),
//
// whose gradient is grad_x f(x, z*_λ) + λ (grad_x g(x, z*_λ) − grad_x g(x, y*)).
// The solver's lower steps are the y iterate; the estimator keeps the
// second lower iterate z ∈ My, which it moves by ZSteps Riemannian
// gradient steps z ← R_z(−η_z (grad_y g + grad_y f/λ)) per estimate (a
// step of size η_z/λ on f + λg, so that the z problem keeps g's
// conditioning as λ grows), and returns
//
//	ĝ = grad_x f(x, z) + λ_k (grad_x g(x, z) − grad_x g(x, y)).
//
// All three terms are gradients in x at the same x, so they lie in T_x
// and add without transport. z and y are points of My, not tangent
// vectors of Mx: when x moves, z is kept as the next estimate's warm
// start as it is, and needs no transport either.
//
// The guarantee it inherits is F²SA's (Kwon et al., Section 3; RF²SA
// carries it to manifolds, with constants that depend on the curvature):
// for g (geodesically) μ-strongly convex in y and λ ≥ 2·L_f/μ (so that
// f/λ + g is strongly convex too), ‖grad L*_λ(x) − grad F(x)‖ = O(1/λ),
// and L*_λ is smooth with a constant independent of λ, which is why the
// upper step η_x need not shrink as λ grows. An error in y or z enters ĝ
// multiplied by λ, so ZSteps (and the solver's lower solve) must keep
// them accurate as λ grows.
//
// # The bias estimate
//
// ĝ's error is not small where ‖ĝ‖ is: ĝ → 0 at a stationary point of
// L_λ, where grad F is the O(1/λ) bias. So at each estimate (when a
// Recorder, Settings.Lower.ErrBound, GradTol or RelGradTol asks for it,
// and always under the adaptive λ) the estimator estimates
// ‖ĝ − grad F(x)‖ with gradients only and reports it as the epoch's
// EpochStats.HyperGradErrBound; GradTol and RelGradTol then stop only
// once ‖ĝ‖ plus this estimate is within the tolerance. It is the sum of
//
//   - the penalty's bias, by Richardson extrapolation: a second z iterate
//     tracks z*_2λ with the same steps, and since ĝ_λ − grad F = b/λ +
//     O(1/λ²), 2.5‖ĝ_λ − ĝ_2λ‖ estimates it (2 for b/λ; 2 + q/λ for a
//     quadratic's b/(λ + q), at most 2.5 under F²SA's λ ≥ 2q);
//   - the lower iterates' lag, as the geometric tail of their steps: z's
//     last step, continued at the ratio ρ_z of its last two gradient
//     norms, leaves z − z* ≈ −ρ_z/(1 − ρ_z)·(z − z_prev); y's is measured
//     by one more lower step y' = R_y(−η_y grad_y g), y − y* ≈ −(y' −
//     y)/(1 − ρ_y); each enters through the gradients in x it moves:
//     t = −ρ_z/(1 − ρ_z)·(φ(z) − φ(z_prev)) + λ/(1 − ρ_y)·(grad_x g(x,
//     y') − grad_x g(x, y)), φ = grad_x f + λ grad_x g, and the bound
//     adds ‖t‖. Ratios are capped at 0.999.
//
// It is an estimate, not a proof: the Richardson term assumes the O(1/λ)
// term dominates, and the tail assumes that the last step's gradient
// ratio is the error's rate, which fails for an ill-conditioned lower
// level whose error lies in directions the gradient barely sees. On the
// package's tests (a Stiefel quadratic, the synthetic and hyperrep
// problems with their paper steps, 2,000 epochs each) it was at least the
// true error on every epoch, and at most 40× it. The estimate costs a
// second z loop, one more z gradient per loop, a lower step and four
// grad_x evaluations per estimate.
//
// # λ
//
// By default (Growth and Power zero, no minibatches) λ adapts to the
// estimate, from λ_0 = Lambda: the penalty term pen falls as 1/λ and the
// lag term tail grows as λ, so λ doubles while pen exceeds both ‖ĝ‖/2
// and 2·tail (doubling then lowers pen + tail), the 2λ iterate becoming
// the λ one. A doubling must have removed a quarter of pen once the new
// 2λ iterate has caught up; otherwise λ returns to λ/2 and is held, twice
// as long after each such return. Given Growth or Power, λ follows F²SA's
// schedule λ_k = Lambda + Growth·k^Power over the estimates k = 0, 1, …
// since Reset (Growth 10 and Power 1/3 where not given). To reach
// E‖grad F‖² ≤ ε, λ must grow to O(ε^{−1/2}); F²SA does so in Õ(ε^{−3/2})
// iterations with exact gradients, which λ_k ∝ k^{1/3} matches, and in
// Õ(ε^{−7/2}) with stochastic gradients and decreasing steps, λ_k ∝
// k^{1/7}: the schedule a run that samples minibatches takes by default,
// since there the difference of two estimates measures their noise, not
// the bias (the solver's steps keep a fixed size, so such a run stalls at
// a noise floor that grows with λ).
//
// With Settings.Batches each z step draws its own B1 (grad_y g) and B2
// (grad_y f), and both grad_x g terms use one B3, so their difference
// has the variance of a difference, O(‖z − y‖), not of each term.
type FirstOrder struct {
	// Lambda is λ_0; default DefaultFOLambda.
	Lambda float64
	// Growth is the coefficient c of the schedule λ_k = λ_0 + c·k^Power;
	// default: λ adapts to the bias estimate (DefaultFOGrowth when
	// Power is given or the run samples minibatches). A negative value
	// keeps λ fixed at Lambda.
	Growth float64
	// Power is the exponent of the schedule; default: λ adapts (1/3,
	// F²SA's deterministic schedule, when Growth is given; 1/7, its
	// stochastic one, when the run samples minibatches).
	Power float64
	// ZSteps is the number of z steps per estimate; default the solver's
	// InnerIters S. With the paper's fixed lower steps, z then lags behind
	// z*_λ(x) as y lags behind y*(x), by steps of one size from warm
	// starts, and the two lags largely cancel in grad_x g(x, z) −
	// grad_x g(x, y); with more or fewer z steps (or another η_z) they do
	// not, and λ multiplies the difference. On the synthetic problem with
	// the paper's steps, 20 z steps reach HINV's f, 10 or 40 do not.
	ZSteps int
	// EtaZ is η_z, the z step size on g + f/λ; 0 means the solver's η_y.
	EtaZ float64
	// ZTol, when positive, ends the z steps once ‖grad_y g + grad_y f/λ_k‖
	// ≤ ZTol·‖ĝ_{k−1}‖/λ_k (so that λ_k times z's error stays a fraction
	// of the hypergradient), after at most 10·ZSteps; for runs whose y is
	// accurate by itself (Problem.LowerSolve, an adaptive lower loop),
	// where z's lag has nothing to cancel against. Zero: ZSteps steps.
	ZTol float64
}

// Name returns "fo".
func (*FirstOrder) Name() string { return "fo" }

// String returns the spec ParseEstimator reads, with the defaults that do
// not depend on the run filled (no growth: the adaptive λ).
func (fo *FirstOrder) String() string {
	l, c, t := fo.settings()
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	s := "fo:lambda=" + f(l)
	switch {
	case fo.Growth < 0:
		s += ",growth=" + f(fo.Growth)
	case fo.Growth != 0 || fo.Power != 0:
		s += ",growth=" + f(c)
	}
	if fo.Power != 0 {
		s += ",power=" + f(fo.Power)
	}
	if t != 0 {
		s += ",zsteps=" + strconv.Itoa(t)
	}
	if fo.EtaZ != 0 {
		s += ",eta=" + f(fo.EtaZ)
	}
	if fo.ZTol != 0 {
		s += ",ztol=" + f(fo.ZTol)
	}

	return s
}

// Needs returns F, GradFx, GradFy, GradGy and GradGx.
func (*FirstOrder) Needs() Oracles { return needsFirstOrder }

func (fo *FirstOrder) settings() (lambda, growth float64, zsteps int) {
	lambda, growth, zsteps = fo.Lambda, fo.Growth, fo.ZSteps
	if lambda == 0 {
		lambda = DefaultFOLambda
	}
	switch {
	case growth == 0:
		growth = DefaultFOGrowth
	case growth < 0:
		growth = 0
	}
	return lambda, growth, fo.ZSteps
}

// Bind checks the settings (Lambda > 0, Power > 0, EtaZ ≥ 0, ZTol ≥ 0,
// all finite; ZSteps ≥ 0) and returns the instance with its own z
// iterates.
func (fo *FirstOrder) Bind(env *Env) (Hypergrad, error) {
	lambda, growth, zsteps := fo.settings()
	power := fo.Power
	if power == 0 {
		power = 1.0 / 3
		if env.sampled() {
			power = 1.0 / 7
		}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !(lambda > 0) || !finite(lambda):
		return nil, fmt.Errorf("%w: FirstOrder Lambda = %v, want > 0 and finite (0: default %d)", ErrBadSetting, fo.Lambda, DefaultFOLambda)
	case !finite(growth):
		return nil, fmt.Errorf("%w: FirstOrder Growth = %v, want finite", ErrBadSetting, fo.Growth)
	case !(power > 0) || !finite(power):
		return nil, fmt.Errorf("%w: FirstOrder Power = %v, want > 0 and finite (0: default 1/3, or 1/7 with minibatches)", ErrBadSetting, fo.Power)
	case zsteps < 0:
		return nil, fmt.Errorf("%w: FirstOrder ZSteps = %d, want ≥ 0 (0: the solver's InnerIters)", ErrBadSetting, fo.ZSteps)
	case !(fo.ZTol >= 0) || !finite(fo.ZTol):
		return nil, fmt.Errorf("%w: FirstOrder ZTol = %v, want ≥ 0 and finite", ErrBadSetting, fo.ZTol)
	case !(fo.EtaZ >= 0) || !finite(fo.EtaZ):
		return nil, fmt.Errorf("%w: FirstOrder EtaZ = %v, want ≥ 0 and finite (0: η_y)", ErrBadSetting, fo.EtaZ)
	}
	eta := fo.EtaZ
	if eta == 0 {
		eta = env.EtaY()
	}
	if zsteps == 0 {
		zsteps = env.InnerIters()
	}
	if fo.ZTol > 0 {
		zsteps *= 10
	}
	adaptive := fo.Growth == 0 && fo.Power == 0 && !env.sampled()
	return &firstOrder{env: env, lambda0: lambda, growth: growth, power: power, adaptive: adaptive, zsteps: zsteps, eta: eta, ztol: fo.ZTol,
		wantBias: adaptive || env.WantsNorms(),
		pen:      penaltyIterate{z: env.NewY(), zn: env.NewY(), zp: env.NewY()},
		pen2:     penaltyIterate{z: env.NewY(), zn: env.NewY(), zp: env.NewY()},
		gz:       env.NewY(), fz: env.NewY(), yn: env.NewY(),
		gx: env.NewX(), gxy: env.NewX(), gyd: env.NewX(), g2: env.NewX(), t1: env.NewX()}, nil
}

type firstOrder struct {
	env                    *Env
	lambda0, growth, power float64
	adaptive               bool // λ follows the bias estimate, not the schedule
	wantBias               bool // estimate the bias at every estimate
	zsteps                 int  // the cap, with ztol
	eta, ztol              float64

	// The state carried from one estimate to the next (cleared by Reset).
	k        int            // estimates since Reset
	lam      float64        // the next estimate's λ under the adaptive rule
	lastNorm float64        // ‖ĝ_{k−1}‖
	grownPen float64        // the penalty bias estimate before the last doubling of λ; 0: none to check
	lastPen  float64        // the last estimate's penalty bias estimate
	wait     int            // estimates left to settle after a doubling, or to hold λ after one that did not pay
	hold     int            // the hold after the next doubling that does not pay
	pen      penaltyIterate // z at λ_k
	pen2     penaltyIterate // z at 2λ_k, for the bias estimate

	// Scratch.
	gz, fz, yn   []float64 // My-sized
	gx, gxy, gyd []float64 // Mx-sized
	g2, t1       []float64
	ypt          Point // (x, y'), y' = yn one lower step from y
}

// penaltyIterate is a lower iterate z of the penalty problem min f/λ + g
// at one λ, with its point (x, z) for the oracles, and what its last z
// step tells about its remaining error.
type penaltyIterate struct {
	z, zn, zp []float64 // z, the step's target, and z before the last step
	pt, ppt   Point     // (x, z), (x, zp)
	has       bool      // z holds the last estimate's iterate
	rate      float64   // the last step's ratio of gradient norms; NaN: no step taken
}

func (fo *firstOrder) Reset() {
	fo.k, fo.lastNorm, fo.lam = 0, 0, fo.lambda0
	fo.grownPen, fo.lastPen, fo.wait, fo.hold = 0, 0, 0, firstHold
	fo.pen.has, fo.pen2.has = false, false
}

// lambda returns λ_k.
func (fo *firstOrder) lambda() float64 {
	switch {
	case fo.adaptive:
		return fo.lam
	case fo.k == 0 || fo.growth == 0:
		return fo.lambda0
	}
	return fo.lambda0 + fo.growth*math.Pow(float64(fo.k), fo.power)
}

func (fo *firstOrder) Estimate(dst []float64, at *Point) error {
	env := fo.env
	lam := fo.lambda()
	fo.k++
	if err := fo.steps(&fo.pen, at, lam, fo.wantBias); err != nil {
		return err
	}
	// ĝ = grad_x f(x, z) + λ (grad_x g(x, z) − grad_x g(x, y)), all in T_x;
	// both grad_x g on one batch B3.
	if err := env.GradGx(fo.gxy, at); err != nil {
		return err
	}
	if err := fo.penaltyGrad(dst, &fo.pen.pt, lam); err != nil {
		return err
	}
	norm := env.Mx.Norm(at.X, dst)
	fo.lastNorm = norm
	if !fo.wantBias {
		return nil
	}
	bias, pen, tail, err := fo.bias(dst, at, lam)
	if err != nil {
		return err
	}
	env.SetBias(bias)
	if fo.adaptive {
		fo.adapt(lam, pen, tail, norm)
	}
	return nil
}

// bias returns the estimate of ‖ĝ − grad F(x)‖ for ĝ = dst at λ, and its
// two parts: the penalty's O(1/λ) bias, from ĝ at 2λ (Richardson), and
// the lower iterates' lag (the geometric tail of their last steps). See
// FirstOrder.
func (fo *firstOrder) bias(dst []float64, at *Point, lam float64) (bias, pen, tail float64, err error) {
	env, mx := fo.env, fo.env.Mx
	if !fo.pen2.has {
		copy(fo.pen2.z, fo.pen.z)
		fo.pen2.has = true
		fo.pen2.pt.YID = NewID()
	}
	if err := fo.steps(&fo.pen2, at, 2*lam, false); err != nil {
		return 0, 0, 0, err
	}
	if err := fo.penaltyGrad(fo.g2, &fo.pen2.pt, 2*lam); err != nil {
		return 0, 0, 0, err
	}
	// y's lag: one more lower step y' = R_y(−η_y grad_y g) and its ratio.
	ry, ryn, err := fo.lowerStep(at)
	if err != nil {
		return 0, 0, 0, err
	}
	if err := env.GradGx(fo.gyd, &fo.ypt); err != nil {
		return 0, 0, 0, err
	}
	// y − y* ≈ −(y' − y)/(1 − ρ_y), and y enters ĝ as −λ grad_x g(x, y).
	cy := 0.0
	if ry > 0 {
		cy = 1 / (1 - capRate(ryn/ry))
	}
	for i := range fo.gyd {
		fo.gyd[i] -= fo.gxy[i] // grad_x g(x, y') − grad_x g(x, y)
	}
	// z − z* ≈ −ρ/(1 − ρ)·(z − z_prev): the tail of the z steps, in ĝ
	// through φ(z) = grad_x f(x, z) + λ grad_x g(x, z).
	it, t := &fo.pen, fo.t1
	cz := 0.0
	if !math.IsNaN(it.rate) {
		r := capRate(it.rate)
		cz = r / (1 - r)
		if err := fo.penaltyGrad(t, &it.ppt, lam); err != nil {
			return 0, 0, 0, err
		}
	}
	for i := range t {
		zt := 0.0
		if cz != 0 {
			zt = -cz * (dst[i] - t[i])
		}
		t[i] = zt + lam*cy*fo.gyd[i]
	}
	// Richardson: ĝ_λ − ĝ_2λ ≈ b/(2λ).
	for i := range fo.g2 {
		fo.g2[i] = dst[i] - fo.g2[i]
	}
	pen = richardson * mx.Norm(at.X, fo.g2)
	tail = mx.Norm(at.X, fo.t1)
	return pen + tail, pen, tail, nil
}

// richardson is the factor of the Richardson difference ‖ĝ_λ − ĝ_2λ‖ in
// the penalty's bias estimate: 2 for a bias b/λ; for the quadratic model
// b/(λ + q) it is 2 + q/λ, at most 2.5 when λ ≥ 2q, F²SA's condition λ ≥
// 2L_f/μ for a strongly convex z problem.
const richardson = 2.5

// maxRate caps a measured contraction ratio of the lower steps: a ratio
// at or above it (rounding at an exact lower solution, or steps that
// barely contract) counts as maxRate, a tail of at most 1/(1 − maxRate)
// steps.
const maxRate = 0.999

func capRate(r float64) float64 {
	if !(r < maxRate) { // and NaN
		return maxRate
	}
	return r
}

// lowerStep sets fo.yn to y' = R_y(−η_y grad_y g(x, y)), with fo.ypt its
// point, and returns ‖grad_y g‖ at y and at y'.
func (fo *firstOrder) lowerStep(at *Point) (ry, ryn float64, err error) {
	env, my := fo.env, fo.env.My
	if err := env.GradGy(fo.gz, at); err != nil {
		return 0, 0, err
	}
	ry = my.Norm(at.Y, fo.gz)
	if _, err := retractHalving(my, fo.yn, at.Y, fo.gz, env.EtaY(), env.stats); err != nil {
		return 0, 0, fmt.Errorf("FO: lower step for the bias estimate: %w", err)
	}
	fo.ypt.X, fo.ypt.XID, fo.ypt.Y, fo.ypt.YID = at.X, at.XID, fo.yn, NewID()
	if err := env.GradGy(fo.gz, &fo.ypt); err != nil {
		return 0, 0, err
	}
	return ry, my.Norm(fo.yn, fo.gz), nil
}

// adapt sets the next estimate's λ. The error estimate is pen + tail with
// pen ∝ 1/λ and tail ∝ λ (the lower lag enters ĝ multiplied by λ):
// doubling λ lowers it when pen > 2·tail. So λ doubles while pen exceeds
// both biasRatio·‖ĝ‖ and 2·tail. Once the new 2λ iterate has caught up
// (pen no longer falls by settleRate per estimate, at most settleMax
// estimates), pen must be at most payBack of its value before the
// doubling; if not, pen was not the O(1/λ) bias: λ goes back to λ/2 and
// is held, for twice as long after each such return.
func (fo *firstOrder) adapt(lam, pen, tail, norm float64) {
	last := fo.lastPen
	fo.lastPen = pen
	switch {
	case math.IsNaN(pen) || math.IsInf(pen+tail, 0):
	case fo.grownPen > 0 && fo.wait > 0 && pen < settleRate*last:
		fo.wait-- // settling
	case fo.grownPen > 0:
		fo.wait = 0
		if pen > payBack*fo.grownPen {
			fo.lam = lam / 2
			copy(fo.pen2.z, fo.pen.z) // the λ iterate is the λ/2 one's 2λ iterate
			fo.pen2.pt.YID = NewID()
			fo.wait, fo.hold = fo.hold, 2*fo.hold
		}
		fo.grownPen = 0
	case fo.wait > 0:
		fo.wait-- // held
	case pen > biasRatio*norm && pen > 2*tail:
		// The 2λ iterate is the next estimate's warm start at λ.
		fo.lam, fo.grownPen, fo.lastPen, fo.wait = 2*lam, pen, math.Inf(1), settleMax
		copy(fo.pen.z, fo.pen2.z)
		fo.pen.pt.YID = NewID()
	}
}

// The adaptive rule's constants: a doubling of λ must remove at least a
// quarter of the bias estimate (half when the O(1/λ) bias dominates),
// measured once the estimate has settled.
const (
	payBack    = 0.75
	settleRate = 0.8
	settleMax  = 20
	firstHold  = 4
)

// biasRatio is the adaptive rule's bound on the penalty's bias estimate
// relative to ‖ĝ‖.
const biasRatio = 0.5

// steps moves it's z by the z steps of the penalty problem at λ from its
// warm start (y at the first estimate), keeping the point before the last
// step and the last step's ratio of gradient norms when tail asks for
// them (the bias estimate's lag term).
func (fo *firstOrder) steps(it *penaltyIterate, at *Point, lam float64, tail bool) error {
	env, my := fo.env, fo.env.My
	if !it.has {
		copy(it.z, at.Y)
		it.has = true
		it.pt.YID = NewID()
	}
	it.pt.X, it.pt.XID, it.pt.Y = at.X, at.XID, it.z
	// z ← R_z(−η (grad_y g + grad_y f/λ)): the z problem min f + λg
	// with step η/λ.
	tol := 0.0
	if fo.ztol > 0 && fo.lastNorm > 0 {
		tol = fo.ztol * fo.lastNorm / lam
	}
	gnorm, prev := math.NaN(), math.NaN()
	t := 0
	for ; t < fo.zsteps; t++ {
		if err := fo.zgrad(&it.pt, lam); err != nil {
			return err
		}
		if tol > 0 || t == fo.zsteps-1 || tail {
			prev = gnorm
			if gnorm = my.Norm(it.z, fo.gz); gnorm <= tol {
				break
			}
		}
		if tail {
			copy(it.zp, it.z)
			it.ppt = it.pt
		}
		// A step the retraction cannot take is halved, as the solver's are.
		if _, err := retractHalving(my, it.zn, it.z, fo.gz, fo.eta, env.stats); err != nil {
			return fmt.Errorf("FO: z retraction at step %d: %w", t, err)
		}
		copy(it.z, it.zn)
		it.pt.YID = NewID()
	}
	env.AddIterations(t)
	if math.IsNaN(gnorm) || math.IsInf(gnorm, 0) {
		return fmt.Errorf("FO: %w: z gradient norm %v", numerr.ErrNotFinite, gnorm)
	}
	if it == &fo.pen {
		env.SetResidual(gnorm)
	}
	if !tail {
		return nil
	}
	it.ppt.Y = it.zp
	if t == fo.zsteps {
		// The loop's last gradient was before its last step: one more at z
		// for the step's ratio.
		if err := fo.zgrad(&it.pt, lam); err != nil {
			return err
		}
		prev, gnorm = gnorm, my.Norm(it.z, fo.gz)
	}
	it.rate = math.NaN()
	if t > 0 && prev > 0 {
		it.rate = gnorm / prev
	}
	return nil
}

// penaltyGrad sets dst = grad_x f(x, z) + λ (grad_x g(x, z) − fo.gxy) at
// pt = (x, z), fo.gxy = grad_x g(x, y).
func (fo *firstOrder) penaltyGrad(dst []float64, pt *Point, lam float64) error {
	env := fo.env
	if err := env.GradFx(dst, pt); err != nil {
		return err
	}
	if err := env.GradGx(fo.gx, pt); err != nil {
		return err
	}
	for i := range dst {
		dst[i] += lam * (fo.gx[i] - fo.gxy[i])
	}
	return nil
}

// zgrad sets fo.gz = grad_y g(x, z) + grad_y f(x, z)/λ at pt = (x, z),
// each on a batch of its own when the run samples.
func (fo *firstOrder) zgrad(pt *Point, lam float64) error {
	env := fo.env
	env.redraw()
	if err := env.GradGy(fo.gz, pt); err != nil {
		return err
	}
	if err := env.gradFyOnly(fo.fz, pt); err != nil {
		return err
	}
	for i := range fo.gz {
		fo.gz[i] += fo.fz[i] / lam
	}
	return nil
}

// MarshalBinary returns the state carried between estimates (the fields
// Reset clears): the count k, the adaptive λ and its rule's memory, the
// last ‖ĝ‖, and the z iterates at λ and at 2λ; the rest of
// penaltyIterate (zp, rate) is refilled by each estimate before it is
// read. A field added to that state is added here and in
// UnmarshalBinary, with a new CheckpointVersion (TestCheckpointResume's
// fo cases fail while one is missing).
func (fo *firstOrder) MarshalBinary() ([]byte, error) {
	var e stateEnc
	e.int(fo.k)
	e.int(fo.wait)
	e.int(fo.hold)
	for _, v := range [...]float64{fo.lam, fo.lastNorm, fo.grownPen, fo.lastPen} {
		e.f64(v)
	}
	for _, it := range [...]*penaltyIterate{&fo.pen, &fo.pen2} {
		e.bool(it.has)
		e.f64s(it.z)
	}
	return e.b, nil
}

// UnmarshalBinary restores MarshalBinary's state; the z iterates get new
// identities.
func (fo *firstOrder) UnmarshalBinary(b []byte) error {
	d := stateDec{b: b}
	k, wait, hold := d.nonneg("k"), d.nonneg("wait"), d.nonneg("hold")
	var v [4]float64
	for i := range v {
		v[i] = d.f64([...]string{"λ", "last norm", "grown penalty", "last penalty"}[i])
	}
	var has [2]bool
	var z [2][]float64
	for i, it := range [...]*penaltyIterate{&fo.pen, &fo.pen2} {
		has[i] = d.bool("z present")
		z[i] = d.f64sLen("z", len(it.z))
	}
	if err := d.done(); err != nil {
		return err
	}
	fo.k, fo.wait, fo.hold = k, wait, hold
	fo.lam, fo.lastNorm, fo.grownPen, fo.lastPen = v[0], v[1], v[2], v[3]
	for i, it := range [...]*penaltyIterate{&fo.pen, &fo.pen2} {
		it.has = has[i]
		copy(it.z, z[i])
		it.pt.YID = NewID()
	}
	return nil
}

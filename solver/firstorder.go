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
// The multiplier grows as λ_k = Lambda + Growth·k^Power over the
// estimates k = 0, 1, … since Reset. The guarantee it inherits is F²SA's
// (Kwon et al., Section 3; RF²SA carries it to manifolds, with constants
// that depend on the curvature): for g (geodesically) μ-strongly convex
// in y and λ ≥ 2·L_f/μ (so that f/λ + g is strongly convex too),
// ‖grad L*_λ(x) − grad F(x)‖ = O(1/λ), and L*_λ is smooth with a constant
// independent of λ, which is why the upper step η_x need not shrink as λ
// grows. To reach E‖grad F‖² ≤ ε, λ must grow to O(ε^{−1/2}); F²SA does so
// in Õ(ε^{−3/2}) iterations with exact gradients, which a schedule
// λ_k ∝ k^{1/3} matches, and in Õ(ε^{−7/2}) with stochastic gradients and
// decreasing steps, λ_k ∝ k^{1/7}. The default Power follows: 1/3, or 1/7
// when the run samples minibatches. These rates assume that the lower
// iterates track y*(x) and z*_λ(x): an error in y or z enters ĝ
// multiplied by λ, so ZSteps (and the solver's lower solve) must keep
// them accurate as λ grows; the solver's steps keep a fixed size, so a
// sampled run stalls at a noise floor that grows with λ.
//
// With Settings.Batches each z step draws its own B1 (grad_y g) and B2
// (grad_y f), and both grad_x g terms use one B3, so their difference
// has the variance of a difference, O(‖z − y‖), not of each term.
type FirstOrder struct {
	// Lambda is λ_0; default 10.
	Lambda float64
	// Growth is the coefficient c of λ_k = λ_0 + c·k^Power; default 10.
	// A negative value keeps λ fixed at Lambda.
	Growth float64
	// Power is the exponent of the schedule; default 1/3 (F²SA's
	// deterministic schedule), or 1/7 (its stochastic one) when the run
	// samples minibatches (Settings.Batches).
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
// not depend on the run filled.
func (fo *FirstOrder) String() string {
	l, c, t := fo.settings()
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	s := "fo:lambda=" + f(l) + ",growth=" + f(c)
	if fo.Growth < 0 {
		s = "fo:lambda=" + f(l) + ",growth=" + f(fo.Growth)
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
		lambda = 10
	}
	switch {
	case growth == 0:
		growth = 10
	case growth < 0:
		growth = 0
	}
	return lambda, growth, fo.ZSteps
}

// Bind checks the settings (Lambda > 0, Power > 0, EtaZ ≥ 0, ZTol ≥ 0,
// all finite; ZSteps ≥ 0) and returns the instance with its own z
// iterate.
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
		return nil, fmt.Errorf("%w: FirstOrder Lambda = %v, want > 0 and finite (0: default 10)", ErrBadSetting, fo.Lambda)
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
	return &firstOrder{env: env, lambda0: lambda, growth: growth, power: power, zsteps: zsteps, eta: eta, ztol: fo.ZTol,
		z: env.NewY(), zn: env.NewY(), gz: env.NewY(), fz: env.NewY(), gx: env.NewX()}, nil
}

type firstOrder struct {
	env                    *Env
	lambda0, growth, power float64
	zsteps                 int // the cap, with ztol
	eta, ztol              float64
	k                      int     // estimates since Reset
	lastNorm               float64 // ‖ĝ_{k−1}‖
	z, zn, gz, fz, gx      []float64
	zpt                    Point // (x, z)
	hasZ                   bool  // z holds the last estimate's iterate
}

func (fo *firstOrder) Reset() { fo.k, fo.hasZ, fo.lastNorm = 0, false, 0 }

// lambda returns λ_k.
func (fo *firstOrder) lambda() float64 {
	if fo.k == 0 || fo.growth == 0 {
		return fo.lambda0
	}
	return fo.lambda0 + fo.growth*math.Pow(float64(fo.k), fo.power)
}

func (fo *firstOrder) Estimate(dst []float64, at *Point) error {
	env, my := fo.env, fo.env.My
	lam := fo.lambda()
	fo.k++
	if !fo.hasZ {
		copy(fo.z, at.Y)
		fo.hasZ = true
		fo.zpt.YID = NewID()
	}
	fo.zpt.X, fo.zpt.XID, fo.zpt.Y = at.X, at.XID, fo.z
	// z ← R_z(−η (grad_y g + grad_y f/λ)): the z problem min f + λg
	// with step η/λ.
	tol := 0.0
	if fo.ztol > 0 && fo.lastNorm > 0 {
		tol = fo.ztol * fo.lastNorm / lam
	}
	var gnorm float64
	t := 0
	for ; t < fo.zsteps; t++ {
		if err := fo.zgrad(lam); err != nil {
			return err
		}
		if tol > 0 || t == fo.zsteps-1 {
			if gnorm = my.Norm(fo.z, fo.gz); gnorm <= tol {
				break
			}
		}
		// A step the retraction cannot take is halved, as the solver's are.
		if _, err := retractHalving(my, fo.zn, fo.z, fo.gz, fo.eta, env.stats); err != nil {
			return fmt.Errorf("FO: z retraction at step %d: %w", t, err)
		}
		copy(fo.z, fo.zn)
		fo.zpt.YID = NewID()
	}
	env.AddIterations(t)
	if math.IsNaN(gnorm) || math.IsInf(gnorm, 0) {
		return fmt.Errorf("FO: %w: z gradient norm %v", numerr.ErrNotFinite, gnorm)
	}
	env.SetResidual(gnorm)
	// ĝ = grad_x f(x, z) + λ (grad_x g(x, z) − grad_x g(x, y)), all in T_x;
	// both grad_x g on one batch B3.
	if err := env.GradFx(dst, &fo.zpt); err != nil {
		return err
	}
	if err := env.GradGx(fo.gx, &fo.zpt); err != nil {
		return err
	}
	for i := range dst {
		dst[i] += lam * fo.gx[i]
	}
	if err := env.GradGx(fo.gx, at); err != nil {
		return err
	}
	for i := range dst {
		dst[i] -= lam * fo.gx[i]
	}
	if fo.ztol > 0 {
		fo.lastNorm = env.Mx.Norm(at.X, dst)
	}
	return nil
}

// zgrad sets fo.gz = grad_y g(x, z) + grad_y f(x, z)/λ, each on a batch
// of its own when the run samples.
func (fo *firstOrder) zgrad(lam float64) error {
	env := fo.env
	env.redraw()
	if err := env.GradGy(fo.gz, &fo.zpt); err != nil {
		return err
	}
	if err := env.gradFyOnly(fo.fz, &fo.zpt); err != nil {
		return err
	}
	for i := range fo.gz {
		fo.gz[i] += fo.fz[i] / lam
	}
	return nil
}

// MarshalBinary returns the state carried between estimates: the
// schedule's count k, the last ‖ĝ‖ and z. A field added to that state is
// added here and in UnmarshalBinary, with a new CheckpointVersion.
func (fo *firstOrder) MarshalBinary() ([]byte, error) {
	var e stateEnc
	e.int(fo.k)
	e.f64(fo.lastNorm)
	e.bool(fo.hasZ)
	e.f64s(fo.z)
	return e.b, nil
}

// UnmarshalBinary restores MarshalBinary's state; z gets a new identity.
func (fo *firstOrder) UnmarshalBinary(b []byte) error {
	d := stateDec{b: b}
	k := d.nonneg("k")
	last := d.f64("last norm")
	has := d.bool("has z")
	z := d.f64sLen("z", len(fo.z))
	if err := d.done(); err != nil {
		return err
	}
	fo.k, fo.lastNorm, fo.hasZ = k, last, has
	copy(fo.z, z)
	fo.zpt.YID = NewID()
	return nil
}

package solver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/rhgd/rhgd/internal/stagetime"
	"github.com/rhgd/rhgd/numerr"
)

// Settings control a run of RHGD. The zero value works: every field's
// default is stated beside it, and New rejects values out of range with
// an error naming the setting.
//
// Zero follows the rule of every front end (ParseSettings, the CLI, the C
// ABI, Python): a setting left out takes its default, and 0 means 0 where
// 0 is a value of the setting. A struct field cannot tell being left out
// from being 0, so in Go a zero field is a field left out: a setting for
// which 0 is no value (a zero step size, no epochs;
// SettingInfo.ZeroIsDefault) takes its default, where a spec's explicit
// key=0 is an error, and the others mean 0 (GradTol = 0: no gradient
// test), as key=0 does. EtaX = 0 therefore runs η_x = 0.1, as leaving
// eta_x out does; it never holds x fixed (EstimateLower gives the lower
// solution and the hypergradient at a fixed x). Those never 0: EtaX,
// EtaY, InnerIters, Epochs, DivergeFactor, FDStep, Lower.MaxIters,
// Upper.MinStep, Upper.MaxStep. WithDefaults returns the values a run
// uses.
type Settings struct {
	// EtaX and EtaY are the upper and lower step sizes η_x and η_y;
	// default 0.1 each (zero: the default).
	EtaX, EtaY float64
	// InnerIters is S, the lower-level steps per epoch; default 20
	// (zero: the default).
	InnerIters int
	// Epochs is K, the epoch (outer iteration) limit; default 200 (zero:
	// the default).
	Epochs int
	// GradTol stops the run once ‖ĝrad F(x_k)‖ ≤ GradTol; zero disables.
	// An estimator that estimates its own bias (FirstOrder: Env.SetBias)
	// stops once ‖ĝrad F(x_k)‖ plus that estimate is ≤ GradTol instead:
	// then ‖grad F(x_k)‖ ≤ GradTol wherever the estimate is at least the
	// true error, and its small ‖ĝ‖ at a stationary point of its penalty
	// does not stop the run.
	GradTol float64
	// RelGradTol stops the run once ‖ĝrad F(x_k)‖ ≤ RelGradTol·‖ĝrad
	// F(x_0)‖, the first epoch's norm (plus the bias estimate on the left,
	// as for GradTol); zero disables. Either tolerance stops the run
	// (status GradientThreshold). AdaptiveSettings sets it to
	// DefaultRelGradTol.
	RelGradTol float64
	// Runtime stops the run once it has taken this long; zero disables.
	Runtime time.Duration
	// DivergeFactor declares the lower level diverged when ‖grad_y g‖
	// exceeds DivergeFactor times the larger of its values at the run's
	// first step and at the epoch's first step (a run started at the lower
	// solution has a first value near zero), and the upper level diverged
	// when f(x_k, y_{k+1}) rises above the best value seen by more than
	// DivergeFactor·max(1, |best|) (a too large η_x); default 1e8 (zero:
	// the default). Slower growth ends at a non-finite value, also
	// reported as divergence.
	DivergeFactor float64
	// Estimator estimates the hypergradient; nil means CG with its
	// defaults. ParseEstimator finds one by name.
	Estimator Estimator
	// FDStep is the relative step of the finite differences filling a
	// missing HessGy or CrossGxy; default DefaultFDStep (zero: the
	// default).
	FDStep float64
	// Batches turns RHGD into RSHGD (paper, Algorithm 2) on a finite-sum
	// problem; the zero value uses the whole sums.
	Batches Batches
	// Recorder receives each epoch's statistics and iterates; nil records
	// nothing.
	Recorder Recorder
	// Seed seeds the random numbers of the estimators (power-iteration
	// starts) and of RSHGD's batches; runs are reproducible from it.
	Seed uint64
	// Lower and Upper choose adaptive lower solves and upper step sizes
	// (see AdaptiveSettings); their zero values are the paper's fixed
	// InnerIters steps of size EtaY and fixed EtaX.
	Lower LowerRule
	Upper UpperRule
	// Lanczos, when positive, runs that many Lanczos steps on the lower
	// Hessian after each estimate whose estimator gave no spectrum
	// estimate of its own (CG gives one from its coefficients), for the
	// epoch's EstimatorStats.MinEig and MaxEig and the error bound
	// EpochStats.HyperGradErrBound; it also sizes the auto damping's
	// Lanczos run (default DefaultLanczosSteps). Each step costs one
	// Hessian–vector product, counted in Stats.HessVecs.
	Lanczos int
	// Checkpoint, when set, saves the run's state between epochs (see
	// Checkpointer; CheckpointFile writes it to a file), for LoadState and
	// Resume to continue it; nil saves nothing.
	Checkpoint Checkpointer
}

// WithDefaults returns the settings with every zero field set to its
// default (the values a run uses), or an error naming the first field out
// of range, as New would report it. s may be nil.
func (s *Settings) WithDefaults() (Settings, error) {
	var o Settings
	if s != nil {
		o = *s
	}
	bad := func(name string, v any) error {
		return numerr.Errorf("%w: %v = %v", ErrBadSetting, settingTerm(name), v)
	}
	switch {
	case !(o.EtaX >= 0) || math.IsInf(o.EtaX, 0):
		return o, bad("EtaX", o.EtaX)
	case !(o.EtaY >= 0) || math.IsInf(o.EtaY, 0):
		return o, bad("EtaY", o.EtaY)
	case o.InnerIters < 0:
		return o, bad("InnerIters", o.InnerIters)
	case o.Lanczos < 0:
		return o, bad("Lanczos", o.Lanczos)
	case o.Epochs < 0:
		return o, bad("Epochs", o.Epochs)
	case !(o.GradTol >= 0):
		return o, bad("GradTol", o.GradTol)
	case !(o.RelGradTol >= 0) || math.IsInf(o.RelGradTol, 0):
		return o, bad("RelGradTol", o.RelGradTol)
	case o.Runtime < 0:
		return o, bad("Runtime", o.Runtime)
	case !(o.DivergeFactor >= 0):
		return o, bad("DivergeFactor", o.DivergeFactor)
	case !(o.FDStep >= 0) || math.IsInf(o.FDStep, 0):
		return o, bad("FDStep", o.FDStep)
	}
	if o.EtaX == 0 {
		o.EtaX = 0.1
	}
	if o.EtaY == 0 {
		o.EtaY = 0.1
	}
	if o.InnerIters == 0 {
		o.InnerIters = 20
	}
	if o.Epochs == 0 {
		o.Epochs = 200
	}
	if o.DivergeFactor == 0 {
		o.DivergeFactor = 1e8
	}
	if o.FDStep == 0 {
		o.FDStep = DefaultFDStep
	}
	if o.Estimator == nil {
		o.Estimator = &CG{}
	}
	if err := o.Lower.check(&o); err != nil {
		return o, err
	}
	if err := o.Upper.check(&o); err != nil {
		return o, err
	}
	return o, nil
}

// Stats counts the work of a run.
type Stats struct {
	Epochs      int
	UpperGrads  int // grad_x f evaluations (each with its grad_y f)
	LowerGrads  int // grad_y g evaluations (with the check of each LowerSolve's point, and one per run for its scale)
	LowerValues int // g evaluations (the BB lower steps' line search)
	LowerSolves int // Problem.LowerSolve calls
	HessVecs    int
	CrossVecs   int
	Iterations  int // CG iterations, Neumann terms or AD steps, summed
	// RetractFailures counts the retractions that failed (a Sinkhorn
	// balancing that did not converge, a Cholesky factor that broke down)
	// and were retried with half the step.
	RetractFailures int
	Residual        float64 // the last estimate's residual (see EstimatorStats)
	Runtime         time.Duration
	startedWall     time.Time
	// LowerXGrads counts grad_x g evaluations and UpperYGrads the grad_y f
	// evaluations apart from the upper gradient's: FirstOrder's oracles
	// (per epoch in EstimatorStats.GradGx and GradFy).
	LowerXGrads, UpperYGrads int
}

// EpochStats is what a Recorder receives after each epoch k: the point
// (x_k, y_{k+1}) at which the hypergradient was estimated, as read-only
// views of the solver's own slices valid only during Record (copy what
// you keep), and the epoch's numbers.
type EpochStats struct {
	Epoch         int       // k, from 0
	X, Y          []float64 // x_k and y_{k+1}
	HyperGrad     []float64 // ĝrad F(x_k) ∈ T_{x_k}
	F             float64   // f(x_k, y_{k+1})
	HyperGradNorm float64   // ‖ĝrad F(x_k)‖_{x_k}
	LowerGradNorm float64   // ‖grad_y g‖ at the last lower gradient's point (y_{k+1} itself after an exact solve)
	LowerSteps    int       // the epoch's lower steps (0 after an exact solve)
	UpperStep     float64   // η_x of the step from x_k, after any halvings its retraction needed
	// HyperGradErrBound is the a-posteriori estimate of ‖ĝrad F(x_k) −
	// grad F(x_k)‖ of the package documentation ("The hypergradient's
	// error bound"), from the lower gradient norm, the solve's residual
	// and the spectrum estimate: NaN without a spectrum estimate
	// (Settings.Lanczos, or CG), +Inf when the estimated λ_min is not
	// positive. Under FirstOrder it is that estimator's own bias estimate
	// (gradients only; see FirstOrder).
	HyperGradErrBound float64
	Elapsed           time.Duration
	Stats             Stats // cumulative counts
	Estimate          EstimatorStats
}

// Recorder receives per-epoch statistics and iterates. Record returning
// an error stops the run with status Failure.
type Recorder interface {
	Record(*EpochStats) error
}

// Result is the outcome of Run; the error, if any, is Run's second result.
//
// F is always f(X, Y), with Y the lower iterate that goes with X (as
// scipy's OptimizeResult.fun is the objective at its x), and BestF is
// f(BestX, BestY). After K epochs the iterates are:
//
//   - IterationLimit, RuntimeLimit, Cancelled: the last epoch stepped x to
//     x_K, so Run ends with a final lower solve at x_K, exactly as an epoch
//     starts (the S steps, the adaptive loop or LowerSolve, counted in
//     Stats, not recorded as an epoch), and evaluates f there: X = x_K,
//     Y = y_{K+1}, F = f(x_K, y_{K+1}). This costs one epoch's lower work
//     beyond the budget; the final point takes part in the best iterates.
//     A run stopped before its first epoch returns (x0, y0) and f there.
//   - GradientThreshold: the last epoch did not move x: X = x_{K−1},
//     Y = y_K, F = f(x_{K−1}, y_K), the last epoch's value.
//   - Diverged, Failure: X, Y are BestX, BestY (never a corrupted
//     iterate) and F = BestF. This includes a final lower solve that
//     failed or diverged, whose status and error Run returns.
//
// The per-epoch values a Recorder sees (EpochStats.F = f(x_k, y_{k+1}))
// are those of the point before each epoch's upper step, as in the paper's
// Algorithm 1.
type Result struct {
	X, Y []float64
	// BestX and BestY are the iterates with the lowest finite f among the
	// epochs' (x_k, y_{k+1}) and the final point above, and BestF that
	// value: +Inf, with the start as BestX and BestY, when no finite value
	// was reached (a run that failed in its first epoch).
	BestX, BestY []float64
	BestF        float64
	// F is f(X, Y), as above.
	F float64
	// HyperGradNorm is the last completed epoch's estimate ‖ĝrad
	// F(x_{K−1})‖ at the point before its upper step, x_{K−1}: the
	// returned X when the gradient threshold stopped the run, one step
	// behind X after a budget or cancellation (no hypergradient is
	// estimated at x_K), and not X's after Diverged or Failure.
	HyperGradNorm float64
	Status        Status
	Stats         Stats
}

// RHGD is Riemannian hypergradient descent (paper, Algorithm 1): each epoch
// takes S retraction steps y ← R_y(−η_y grad_y g(x, y)), estimates the
// hypergradient at (x, y) and steps x ← R_x(−η_x ĝrad F(x)). With
// Settings.Batches it is RSHGD (Algorithm 2). An RHGD owns all its
// buffers: after construction an epoch allocates nothing. It is not safe
// for concurrent use.
type RHGD struct {
	p      Problem
	mx, my Manifold
	s      Settings
	est    Hypergrad
	env    *Env
	pcg    *rand.PCG
	smp    *sampler // batches of a finite-sum problem; nil otherwise

	ready      bool     // a Reset (or LoadState) succeeded: there is a starting point, or a run to resume
	notes      []string // what Reset did to the starting point (StartNotes)
	cur        Point    // (x, y) with identities; X and Y are r.x and r.y
	x, y       []float64
	hg, gy     []float64
	bx, by     []float64 // x- and y-sized scratch
	bestX      []float64
	bestY      []float64
	bestF      float64
	stats      Stats
	epoch      int
	gy0        float64 // first lower gradient norm, for divergence
	es         EpochStats
	lastF      float64
	lastHGNorm float64
	hgNorm0    float64 // the first epoch's ‖ĝrad F‖, for RelGradTol

	// Adaptive rules (LowerRule, UpperRule).
	exact      bool     // Problem.LowerSolve replaces the lower steps
	lbb, ubb   *bbState // BB memories; nil unless used
	gWin, fWin []float64
	lowerStep  float64 // the last accepted BB lower step
	upperMax   float64 // UpperRule.MaxStep, lowered by the safeguard
	upperCalm  int     // epochs since the safeguard last found a rise of f
	adaAlpha2  float64 // AdaRHD's upper accumulator α² (UpperRule.AdaGrad)
	adaBeta2   float64 // AdaRHD's lower accumulator β², from 1/η_y² at each epoch (LowerRule.AdaGrad)
	upperReach float64 // the length of the last upper step shortened for its retraction
	steps      int     // the epoch's lower steps
	trial      Point   // a BB lower step's trial point
	lastK      float64 // the last estimate's error-bound factor K̂ (LowerRule.ErrBound)

	// The check of LowerSolve's points (lowerExact): g's curvature (0
	// until the run's first solve measures it), the random direction
	// that measures it, and scratch.
	lsAt          Point
	lsCurv        float64
	lsPCG         *rand.PCG
	lsRand        *rand.Rand
	lsU, lsY, lsG []float64

	// fused says that Problem.LowerSteps takes the S lower steps of each
	// epoch (see lowerFused), with lnorms (length S) for their gradient
	// norms.
	fused  bool
	lnorms []float64

	// dir, when the estimator gives the lower steps' direction (SABA's
	// variance-reduced one), replaces GradGy on B1 in lower's loop.
	dir lowerDirector
}

// lowerDirector is a bound estimator that gives the direction of each
// of the epoch's lower steps itself (SABA: a variance-reduced grad_y g,
// and at step 0 its joint step), called in place of GradGy on the batch
// B1 and counting its own oracle calls.
type lowerDirector interface {
	LowerDirection(dst []float64, at *Point, step int) error
}

// New returns an RHGD for p with settings s (nil: defaults). When the
// estimator needs HessGy or CrossGxy, it fills the missing ones by finite
// differences if the gradients they need are there (FirstOrder needs
// neither and gets no filling), and returns an error wrapping ErrMissing when an
// oracle the estimator needs is still missing, or ErrBadSetting for a
// setting out of range. HInv on a problem without HessGyInv needs HessGy
// in its place, up to its MaxDim (see HInv).
func New(p Problem, s *Settings) (*RHGD, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	st, err := s.WithDefaults()
	if err != nil {
		return nil, err
	}
	est := st.Estimator
	if st.Lower.BB && p.G == nil {
		return nil, numerr.Errorf("%w: %v needs the lower objective %v", ErrMissing, settingTerm("Lower.BB"), OracleG)
	}
	exact := st.Lower.UseLowerSolve && p.LowerSolve != nil
	p = finiteOracles(p)
	estNeeds := est.Needs()
	if pn, ok := est.(problemNeeds); ok {
		if estNeeds, err = pn.needsOf(&p); err != nil {
			return nil, fmt.Errorf("%s estimator: %w", est.Name(), err)
		}
	}
	needs := NewOracles(OracleF, OracleGradGy) | estNeeds
	if st.Lanczos > 0 {
		needs |= NewOracles(OracleHessGy) // the spectrum estimate's products
	}
	if second := needs & NewOracles(OracleHessGy, OracleCrossGxy); second != 0 && (p.HessGy == nil || p.CrossGxy == nil) {
		p = FillFD(p, st.FDStep)
	}
	if err := p.need(needs); err != nil {
		return nil, fmt.Errorf("%s estimator: %w", est.Name(), err)
	}
	mx, my := p.Mx, p.My
	pcg := rand.NewPCG(0, 0) // seeded by Reset
	r := &RHGD{p: p, mx: mx, my: my, s: st, pcg: pcg,
		x: make([]float64, mx.Len()), y: make([]float64, my.Len()),
		hg: make([]float64, mx.Len()), gy: make([]float64, my.Len()),
		bx: make([]float64, mx.Len()), by: make([]float64, my.Len()),
		bestX: make([]float64, mx.Len()), bestY: make([]float64, my.Len())}
	r.cur = Point{X: r.x, Y: r.y}
	r.exact = exact
	if exact {
		r.lsPCG = rand.NewPCG(lowerScaleSeed, lowerScaleSeed)
		r.lsRand = rand.New(r.lsPCG)
		r.lsU, r.lsY, r.lsG = make([]float64, my.Len()), make([]float64, my.Len()), make([]float64, my.Len())
	}
	if st.Lower.BB {
		r.lbb, r.gWin = newBB(my.Len()), make([]float64, 0, lowerWindow)
	}
	if st.Upper.BB {
		r.ubb, r.fWin = newBB(mx.Len()), make([]float64, 0, upperWindow)
	}
	if p.NF > 0 || p.NG > 0 {
		if r.smp, err = newSampler(p.NF, p.NG, st.Batches, st.Seed); err != nil {
			return nil, err
		}
	} else if st.Batches != (Batches{}) {
		return nil, fmt.Errorf("%w: Batches %+v for a problem without components (NF = NG = 0)", ErrBadSetting, st.Batches)
	}
	r.env = &Env{Mx: mx, My: my, p: &r.p, etaY: st.EtaY, inner: st.InnerIters, rnd: rand.New(pcg), stats: &r.stats, smp: r.smp,
		bx: make([]float64, mx.Len()), lz: newLanczos(my.Len(), cmp.Or(st.Lanczos, DefaultLanczosSteps))}
	r.env.info.wantNorms = st.Recorder != nil || st.Lower.ErrBound || st.GradTol > 0 || st.RelGradTol > 0
	r.env.info.reset()
	// Problem.LowerSteps replaces exactly the fixed sequence of S
	// Euclidean gradient steps on the full g, with no use for the points
	// between them: not the adaptive rules' tests, not AD's path (unless
	// Problem.LowerStepsVJP differentiates the loop as a whole). A
	// finite-sum g whose lower batches are not sampled (Batches.Lower
	// zero) is summed whole at every step, as the oracle sums it.
	wholeG := p.NG == 0 || st.Batches.Lower == 0
	canFuse := p.LowerSteps != nil && IsEuclideanSpace(my) && !st.Lower.BB && !st.Lower.AdaGrad && st.Lower.Tol == 0 && wholeG
	r.env.canVJP = canFuse && p.LowerStepsVJP != nil && st.Lower.paper() &&
		(p.NG == 0 || st.Batches.Hess == 0 && st.Batches.Cross == 0)
	if r.est, err = est.Bind(r.env); err != nil {
		return nil, fmt.Errorf("%s estimator: %w", est.Name(), err)
	}
	if d, ok := r.est.(lowerDirector); ok {
		if !st.Lower.paper() {
			return nil, numerr.Errorf("%w: the %s estimator directs the paper's fixed lower steps; it needs %v", ErrBadSetting, est.Name(), termPaper)
		}
		r.dir = d
	}
	if r.env.keepPath && !st.Lower.paper() {
		return nil, numerr.Errorf("%w: the %s estimator differentiates the paper's fixed lower steps; it needs %v", ErrBadSetting, est.Name(), termPaper)
	}
	if r.env.keepPath {
		r.env.path = make([]Point, st.InnerIters+1)
		for i := range r.env.path {
			r.env.path[i] = Point{X: r.x, Y: make([]float64, my.Len())}
		}
		if p.Retain != nil {
			p.Retain(len(r.env.path))
		}
	}
	if canFuse && !r.env.keepPath && r.dir == nil {
		r.fused, r.lnorms = true, make([]float64, st.InnerIters)
	}
	return r, nil
}

// Reset validates and sets the starting point, clearing the statistics.
// Step and Hypergradient continue from it. A Reset that fails leaves no
// starting point: Step and Hypergradient then fail with ErrNoStart until
// a Reset succeeds, instead of continuing from the previous run's
// iterates.
//
// Reset accepts the points the loaders, the C ABI and Python accept: a
// point within float32 rounding of its manifold (a start computed or
// stored in float32) is projected onto it when the manifold is a Snapper
// (SnapPoint), and StartNotes says so; x0 and y0 themselves are not
// modified. A point of the wrong length, not finite or farther off is an
// error wrapping ErrBadStart.
func (r *RHGD) Reset(x0, y0 []float64) error {
	r.ready = false
	r.notes = r.notes[:0]
	// Into scratch first: the iterates change only when both are good.
	nx, err := acceptStart("x0", r.mx, r.bx, x0)
	if err != nil {
		return err
	}
	ny, err := acceptStart("y0", r.my, r.by, y0)
	if err != nil {
		return err
	}
	for _, n := range [...]string{nx, ny} {
		if n != "" {
			r.notes = append(r.notes, n)
		}
	}
	copy(r.x, r.bx)
	copy(r.y, r.by)
	r.cur.XID, r.cur.YID = NewID(), NewID()
	copy(r.bestX, r.x)
	copy(r.bestY, r.y)
	r.bestF = math.Inf(1)
	r.stats = Stats{startedWall: time.Now()}
	r.epoch, r.gy0 = 0, 0
	r.lastF, r.lastHGNorm, r.hgNorm0, r.lastK = 0, 0, 0, math.NaN()
	r.lowerStep, r.upperMax, r.upperReach = r.s.EtaY, r.s.Upper.MaxStep, math.Inf(1)
	r.upperCalm, r.adaAlpha2 = 0, 1/(r.s.EtaX*r.s.EtaX)
	if r.lbb != nil {
		r.lbb.have = false
	}
	if r.ubb != nil {
		r.ubb.have, r.fWin = false, r.fWin[:0]
	}
	r.pcg.Seed(r.s.Seed, estimatorStream)
	if r.lsPCG != nil {
		r.lsCurv = 0
		r.lsPCG.Seed(lowerScaleSeed, lowerScaleSeed)
	}
	if r.smp != nil {
		r.smp.reset()
	}
	r.est.Reset()
	r.ready = true
	return nil
}

// ErrNoStart signifies Step or Hypergradient on an RHGD without a
// starting point: before its first Reset, or after a Reset that failed.
// It matches numerr.ErrInvalid.
var ErrNoStart = numerr.New(numerr.ErrInvalid, "solver: no starting point")

// errNoStart says what to do.
var errNoStart = fmt.Errorf("%w: call Reset(x0, y0) first (New sets none, and a Reset that failed leaves none)", ErrNoStart)

// StartNotes returns what the last successful Reset did to its starting
// point: one note per point it projected onto its manifold (see Reset),
// none when it took both as they were. The slice is the RHGD's own,
// valid until the next Reset.
func (r *RHGD) StartNotes() []string { return r.notes }

// X returns the current upper iterate: the RHGD's own slice, read-only.
func (r *RHGD) X() []float64 { return r.x }

// Y returns the current lower iterate: the RHGD's own slice, read-only.
func (r *RHGD) Y() []float64 { return r.y }

// estimatorStream and samplerStream keep the random numbers of the
// estimators (power-iteration starts) and of RSHGD's batches apart.
const (
	estimatorStream = 0x7b6d
	samplerStream   = 0x5a3b1e
)

// errDiverged wraps the status sentinel.
var errDiverged = statusTable[Diverged].err

// The names of an epoch's stages in a stage profile (internal/stagetime):
// each counts the time since the previous mark.
const (
	StageLower    = "lower steps"            // the lower solve (S steps, the adaptive loop or LowerSolve)
	StageEstimate = "hypergradient estimate" // the estimator, at the lower solve's end point
	StageUpper    = "upper step and f"       // f, the step size and the upper retraction, the record
)

// Step runs one epoch from the current iterates: call Reset first (Step
// without a starting point returns Failure and ErrNoStart). On an error
// the iterates are left as they were at the start of the epoch's failing
// part; Run then falls back to the best.
func (r *RHGD) Step() (Status, error) {
	if !r.ready {
		return Failure, errNoStart
	}
	// The stage marks time the epoch's parts for the benchmark report's
	// stage profile (internal/stagetime): one atomic load each otherwise.
	defer stagetime.Mark(StageUpper)
	gyNorm, status, err := r.lower()
	stagetime.Mark(StageLower)
	if err != nil {
		return status, err
	}
	before := r.stats
	err = r.estimate()
	stagetime.Mark(StageEstimate)
	if err != nil {
		return Failure, fmt.Errorf("hypergradient at epoch %d: %w", r.epoch, err)
	}
	if r.s.Lower.ErrBound {
		r.lastK, _ = r.env.info.lowerFactor()
	}
	x := r.x
	f, err := r.p.F(r.env.batch(&r.cur, reportBatch))
	if err != nil {
		return Failure, numerr.Errorf("%v at epoch %d: %w", OracleF, r.epoch, err)
	}
	hgNorm := r.mx.Norm(x, r.hg)
	if math.IsNaN(f) || math.IsInf(f, 0) || math.IsNaN(hgNorm) || math.IsInf(hgNorm, 0) {
		return Diverged, fmt.Errorf("%w: f = %v, ‖hypergradient‖ = %v at epoch %d", errDiverged, f, hgNorm, r.epoch)
	}
	if rise := f - r.bestF; rise > r.s.DivergeFactor*max(1, math.Abs(r.bestF)) {
		return Diverged, numerr.Errorf("%w: f = %.3g at epoch %d, %.3g above the best value %.3g%v",
			errDiverged, f, r.epoch, rise, r.bestF, r.upperDivergeHint())
	}
	if f < r.bestF {
		r.bestF = f
		copy(r.bestX, x)
		copy(r.bestY, r.y)
	}
	r.lastF, r.lastHGNorm = f, hgNorm
	if r.epoch == 0 {
		r.hgNorm0 = hgNorm
	}
	eta := r.upperStepSize(f, hgNorm)
	// An estimator that knows its bias (FirstOrder) stops only where ‖ĝ‖
	// plus the bias is within the tolerance.
	stopNorm := hgNorm
	if b := r.env.info.bias; !math.IsNaN(b) {
		stopNorm += b
	}
	done := r.s.GradTol > 0 && stopNorm <= r.s.GradTol || r.s.RelGradTol > 0 && stopNorm <= r.s.RelGradTol*r.hgNorm0
	var rerr error
	if !done {
		// x_{k+1} goes to r.bx; x stays x_k until the epoch is recorded.
		planned := eta
		eta, rerr = r.retract(r.mx, r.bx, x, r.hg, eta)
		if eta < planned {
			r.upperReach = eta * hgNorm
		}
	}
	r.stats.Epochs = r.epoch + 1
	r.stats.Runtime = time.Since(r.stats.startedWall)
	if r.s.Recorder != nil {
		in := &r.env.info
		r.es = EpochStats{Epoch: r.epoch, X: x, Y: r.y, HyperGrad: r.hg, F: f, HyperGradNorm: hgNorm,
			LowerGradNorm: gyNorm, LowerSteps: r.steps, UpperStep: eta, HyperGradErrBound: in.errorBound(gyNorm),
			Elapsed: r.stats.Runtime, Stats: r.stats, Estimate: EstimatorStats{
				HessVecs: r.stats.HessVecs - before.HessVecs, CrossVecs: r.stats.CrossVecs - before.CrossVecs,
				Iterations: r.stats.Iterations - before.Iterations, Residual: r.stats.Residual,
				MinEig: in.minEig, MaxEig: in.maxEig, Damping: in.damping,
				GradGx: r.stats.LowerXGrads - before.LowerXGrads, GradFy: r.stats.UpperYGrads - before.UpperYGrads}}
		if err := r.s.Recorder.Record(&r.es); err != nil {
			return Failure, fmt.Errorf("recorder at epoch %d: %w", r.epoch, err)
		}
	}
	r.epoch++
	switch {
	case rerr != nil:
		return Failure, fmt.Errorf("upper retraction at epoch %d: %w", r.epoch-1, rerr)
	case done:
		return GradientThreshold, nil
	}
	if r.ubb != nil {
		r.ubb.remember(x, r.hg, eta)
	}
	copy(x, r.bx)
	r.cur.XID = NewID()
	return NotTerminated, nil
}

// lower runs the epoch's lower solve from the current y: the S paper
// steps (keeping the path for AD, or by one Problem.LowerSteps call: see
// lowerFused), the adaptive loop of Settings.Lower, or
// Problem.LowerSolve. It returns the Riemannian norm of the last lower
// gradient when a Recorder will report it or the adaptive test needs it
// (zero otherwise). Divergence is watched through the ambient Frobenius
// norm of the gradient, which costs no metric evaluation per step.
func (r *RHGD) lower() (float64, Status, error) {
	r.steps = 0
	if r.exact {
		return r.lowerExact()
	}
	if r.fused {
		return r.lowerFused()
	}
	S := r.s.InnerIters
	my, y, env := r.my, r.y, r.env
	tol := 0.0
	if r.s.Lower.Tol > 0 && r.lastHGNorm > 0 { // from the second epoch on
		S, tol = r.s.Lower.MaxIters, r.s.Lower.Tol*r.lastHGNorm
		if r.s.Lower.ErrBound && r.lastK > 0 && !math.IsInf(r.lastK, 0) {
			tol /= r.lastK
		}
	}
	ada := r.s.Lower.AdaGrad
	if ada {
		S = adaLowerCap(r.s.InnerIters, r.epoch)
	}
	ref := 0.0 // the larger of the run's first gradient norm and the epoch's
	gyNorm := 0.0
	for s := 0; s < S; s++ {
		if env.keepPath {
			r.keep(s)
		}
		if r.dir != nil {
			if err := r.dir.LowerDirection(r.gy, &r.cur, s); err != nil {
				return 0, Failure, fmt.Errorf("%s lower direction at epoch %d, lower step %d: %w", r.s.Estimator.Name(), r.epoch, s, err)
			}
		} else {
			if r.smp != nil {
				r.smp.lowerStep()
			}
			if err := r.p.GradGy(r.gy, env.batch(&r.cur, lowerBatch)); err != nil {
				return 0, Failure, numerr.Errorf("%v at epoch %d, lower step %d: %w", OracleGradGy, r.epoch, s, err)
			}
			r.stats.LowerGrads++
		}
		g := frob(r.gy)
		if r.gy0 == 0 {
			r.gy0 = g
		}
		if s == 0 {
			ref = max(r.gy0, g)
		}
		switch {
		case math.IsNaN(g) || math.IsInf(g, 0):
			// GradGy itself reports a non-finite value at a finite point
			// (finiteOracles): here the iterates have left the floats.
			return 0, Diverged, fmt.Errorf("%w: iterate not finite at epoch %d, lower step %d", errDiverged, r.epoch, s)
		case ref > 0 && g > r.s.DivergeFactor*ref:
			return 0, Diverged, numerr.Errorf("%w: lower gradient norm %.3g, %.0e× its reference value, at epoch %d%v", errDiverged, g, g/ref, r.epoch, r.lowerDivergeHint())
		}
		if tol > 0 || s == S-1 && r.s.Recorder != nil {
			gyNorm = my.Norm(y, r.gy)
			if tol > 0 && gyNorm <= tol {
				break
			}
		}
		if ada {
			gn2, done, err := r.adaLowerStep(s)
			if err != nil {
				return 0, Failure, err
			}
			r.steps++
			if done || s == S-1 {
				gyNorm = math.Sqrt(gn2)
			}
			if done {
				break
			}
			continue
		}
		if r.lbb != nil {
			gn2 := my.Inner(y, r.gy, r.gy)
			if gn2 == 0 {
				// y is stationary: no step can decrease g, and a retraction
				// along zero may still move y by rounding and raise it
				// (exp∘log under the log-Euclidean metric), which the
				// line search would take for a failed step.
				gyNorm = 0
				break
			}
			stationary, err := r.lowerBB(s, gn2)
			if err != nil {
				return 0, Failure, err
			}
			if stationary {
				gyNorm = math.Sqrt(gn2)
				break
			}
		} else {
			if err := my.Retract(r.by, y, r.gy, -r.s.EtaY); err != nil {
				return 0, Failure, fmt.Errorf("lower retraction at epoch %d, step %d: %w", r.epoch, s, err)
			}
			copy(y, r.by)
			r.cur.YID = NewID()
		}
		r.steps++
	}
	if env.keepPath {
		r.keep(S)
		env.pathLen = S + 1
	}
	return gyNorm, NotTerminated, nil
}

// lowerFused takes the epoch's S paper steps by one Problem.LowerSteps
// call, then checks them as lower's loop checks its own, step by step over
// the returned gradient norms: the same divergence tests at the same step,
// with the same statuses and messages, and the same gyNorm (‖grad_y g‖ at
// y_{S−1}, the Frobenius norm on a Euclidean My). A non-finite norm where
// the iterate is known to be finite is the oracle's own failure, as
// finiteOracles reports a non-finite GradGy; beyond that bound it is a
// divergence, as in the loop. (The two can name one stop differently only
// at the edge of overflow: a finite gradient whose sum of squares
// overflows, entries beyond about 1e154, or iterates within a factor 16
// of MaxFloat64.) y changes only once every check passed.
func (r *RHGD) lowerFused() (float64, Status, error) {
	S, norms := r.s.InnerIters, r.lnorms
	if r.env.useVJP { // AD differentiates this loop from its start
		copy(r.env.start.Y, r.y)
		r.env.start.X, r.env.start.XID, r.env.start.YID = r.x, r.cur.XID, r.cur.YID
		r.env.startSteps = 0 // until the steps succeed
	}
	if err := r.p.LowerSteps(r.by, &r.cur, S, r.s.EtaY, norms); err != nil {
		return 0, Failure, numerr.Errorf("%v at epoch %d: %w", TermLowerSteps, r.epoch, err)
	}
	r.stats.LowerGrads += S
	// reach bounds ‖y_s‖_F: y_s is finite while it is at most finiteReach.
	reach, xFinite := frob(r.y), firstNotFinite(r.x) < 0
	ref := 0.0 // as in lower
	for s, g := range norms[:S] {
		if r.gy0 == 0 {
			r.gy0 = g
		}
		if s == 0 {
			ref = max(r.gy0, g)
		}
		notFinite := math.IsNaN(g) || math.IsInf(g, 0)
		switch {
		case notFinite && xFinite && reach <= finiteReach:
			return 0, Failure, numerr.Errorf("%v at epoch %d, lower step %d: %w: norms[%d] = %v at finite x and y", TermLowerSteps, r.epoch, s, numerr.ErrNotFinite, s, g)
		case notFinite:
			return 0, Diverged, fmt.Errorf("%w: iterate not finite at epoch %d, lower step %d", errDiverged, r.epoch, s)
		case ref > 0 && g > r.s.DivergeFactor*ref:
			return 0, Diverged, numerr.Errorf("%w: lower gradient norm %.3g, %.0e× its reference value, at epoch %d%v", errDiverged, g, g/ref, r.epoch, r.lowerDivergeHint())
		}
		reach += r.s.EtaY * g
	}
	if i := firstNotFinite(r.by); i >= 0 {
		if xFinite && reach <= finiteReach {
			return 0, Failure, numerr.Errorf("%v at epoch %d: %w: dst[%d] = %v after steps from finite x and y", TermLowerSteps, r.epoch, numerr.ErrNotFinite, i, r.by[i])
		}
		return 0, Diverged, fmt.Errorf("%w: iterate not finite at epoch %d after lower step %d", errDiverged, r.epoch, S-1)
	}
	copy(r.y, r.by)
	r.cur.YID = NewID()
	r.steps = S
	r.env.startSteps = S
	if r.s.Recorder == nil {
		return 0, NotTerminated, nil
	}
	return norms[S-1], NotTerminated, nil
}

// lowerExact sets y to Problem.LowerSolve's solution at the current x,
// and checks it with one GradGy there: a point whose lower gradient
// exceeds lowerSolveTol times the gradient's scale (gradScale, measured
// once per run, at the first solve) is an error wrapping ErrLowerSolve,
// and y stays as it was. Before, only a NaN was caught, and a wrong
// closed form ran to a wrong answer with a nil error.
func (r *RHGD) lowerExact() (float64, Status, error) {
	pt := r.lowerPoint()
	if err := r.p.LowerSolve(r.by, pt); err != nil {
		return 0, Failure, numerr.Errorf("%v at epoch %d: %w", OracleLowerSolve, r.epoch, err)
	}
	r.stats.LowerSolves++
	for i, v := range r.by {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, Diverged, numerr.Errorf("%w: %v gave y[%d] = %v at epoch %d", errDiverged, OracleLowerSolve, i, v, r.epoch)
		}
	}
	// The gradient at the new point, on the batch LowerSolve solved for
	// (in a field: a local would escape to the heap).
	at := &r.lsAt
	*at = *pt
	at.Y, at.YID = r.by, NewID()
	if err := r.p.GradGy(r.gy, at); err != nil {
		return 0, Failure, numerr.Errorf("%v at %v's point at epoch %d: %w", OracleGradGy, OracleLowerSolve, r.epoch, err)
	}
	r.stats.LowerGrads++
	size := max(frob(r.by), frob(r.y))
	if r.lsCurv == 0 {
		c, err := gradScale(r.p.GradGy, r.my, at, r.by, r.gy, size, r.lsRand, r.lsU, r.lsY, r.lsG)
		if err != nil {
			return 0, Failure, numerr.Errorf("%v near %v's point at epoch %d: %w", OracleGradGy, OracleLowerSolve, r.epoch, err)
		}
		r.stats.LowerGrads++
		r.lsCurv = c
	}
	if err := lowerSolveCheck(r.epoch, frob(r.gy), r.lsCurv*size, lowerSolveTol); err != nil {
		return 0, Failure, err
	}
	copy(r.y, r.by)
	r.cur.YID = at.YID
	if r.s.Recorder == nil {
		return 0, NotTerminated, nil
	}
	return r.my.Norm(r.y, r.gy), NotTerminated, nil
}

// lowerPoint returns the current point with the lower batch (LowerSolve
// solves the lower problem of the current minibatch, or the whole one).
func (r *RHGD) lowerPoint() *Point {
	if r.smp != nil {
		r.smp.lowerStep()
	}
	return r.env.batch(&r.cur, lowerBatch)
}

// keep stores the current y as the path's point s.
func (r *RHGD) keep(s int) {
	p := &r.env.path[s]
	copy(p.Y, r.y)
	p.XID, p.YID = r.cur.XID, r.cur.YID
}

// Hypergradient estimates the hypergradient at the current iterates
// without moving x: after S lower steps when lower is set (the forward pass
// AD differentiates; epoch 0 of Run estimates this way), at the current y
// otherwise. It is the allocation-free step Estimate is made of: repeated
// calls continue the random stream (RSHGD's batches) and the lower steps
// from where the last left off. The returned slice is the RHGD's own. It
// skips Reset's validation: call Reset first (without a starting point it
// returns ErrNoStart). To see each epoch's hypergradient during a run,
// use a Recorder (EpochStats.HyperGrad).
func (r *RHGD) Hypergradient(lower bool) ([]float64, error) {
	if !r.ready {
		return nil, errNoStart
	}
	if lower {
		if _, _, err := r.lower(); err != nil {
			return nil, err
		}
	} else if r.env.keepPath {
		r.keep(0)
		r.env.pathLen = 1
	} else {
		r.env.startSteps = 0 // AD by LowerStepsVJP: no steps to differentiate
	}
	if err := r.estimate(); err != nil {
		return nil, err
	}
	return r.hg, nil
}

// estimate sets r.hg to the estimator's hypergradient at (r.x, r.y),
// drawing RSHGD's batches first.
func (r *RHGD) estimate() error {
	if r.smp != nil {
		r.smp.upperStep()
	}
	r.env.info.reset()
	if err := r.est.Estimate(r.hg, &r.cur); err != nil {
		return err
	}
	if r.s.Lanczos > 0 && math.IsNaN(r.env.info.minEig) {
		if _, _, err := r.env.Spectrum(&r.cur); err != nil {
			return fmt.Errorf("spectrum estimate: %w", err)
		}
	}
	return nil
}

// Run resets to (x0, y0) and runs epochs until a stopping rule fires or
// ctx is done. It returns the result, whose F is f at its X and Y (after
// a budget or cancellation, a final lower solve at the last x gives that
// Y: see Result), and, for the Diverged and Failure statuses, the error
// that stopped the run; the result then carries the best iterates seen.
// Between epochs it calls Settings.Checkpoint, if set (see Checkpointer).
// ctx must not be nil (context.Background() when
// nothing cancels the run): a nil ctx is an error wrapping
// numerr.ErrInvalid, as net/http refuses one.
func (r *RHGD) Run(ctx context.Context, x0, y0 []float64) (*Result, error) {
	if ctx == nil {
		return nil, fmt.Errorf("solver: %w: nil context (use context.Background())", numerr.ErrInvalid)
	}
	if err := r.Reset(x0, y0); err != nil {
		return nil, err
	}
	return r.run(ctx)
}

// Resume continues the run from the state LoadState restored (or that
// Reset set, or the last Step left) until a stopping rule fires or ctx is
// done, and returns what Run returns. A run saved between its epochs
// (SaveState) and resumed ends as the uninterrupted run does, bit for bit
// on the same backend, but for Stats.Runtime (see LoadState). ctx must
// not be nil, as for Run; a solver with no run to continue is an error
// wrapping numerr.ErrInvalid.
func (r *RHGD) Resume(ctx context.Context) (*Result, error) {
	switch {
	case ctx == nil:
		return nil, fmt.Errorf("solver: %w: nil context (use context.Background())", numerr.ErrInvalid)
	case !r.ready:
		return nil, fmt.Errorf("solver: %w: no run to resume (Reset or LoadState first)", numerr.ErrInvalid)
	}
	return r.run(ctx)
}

// run runs epochs from the current state until a stopping rule fires,
// calling Settings.Checkpoint between them, and makes the result.
func (r *RHGD) run(ctx context.Context) (*Result, error) {
	status := NotTerminated
	var err error
	ck := r.s.Checkpoint
	for status == NotTerminated {
		switch {
		case ctx.Err() != nil:
			status = Cancelled
		case r.epoch >= r.s.Epochs:
			status = IterationLimit
		case r.s.Runtime > 0 && time.Since(r.stats.startedWall) >= r.s.Runtime:
			status = RuntimeLimit
		default:
			status, err = r.Step()
			if status == NotTerminated && ck != nil {
				if cerr := ck.Checkpoint(r, false); cerr != nil {
					status, err = Failure, fmt.Errorf("checkpoint after epoch %d: %w", r.epoch-1, cerr)
				}
			}
		}
	}
	f := r.lastF
	switch status {
	case IterationLimit, RuntimeLimit, Cancelled:
		if ck != nil {
			if cerr := ck.Checkpoint(r, true); cerr != nil {
				status, err = Failure, fmt.Errorf("checkpoint at the run's end, epoch %d: %w", r.epoch, cerr)
				break
			}
		}
		f, status, err = r.finish(status)
	}
	r.stats.Runtime = time.Since(r.stats.startedWall)
	res := &Result{X: append([]float64(nil), r.x...), Y: append([]float64(nil), r.y...),
		BestX: append([]float64(nil), r.bestX...), BestY: append([]float64(nil), r.bestY...),
		BestF: r.bestF, F: f, HyperGradNorm: r.lastHGNorm, Status: status, Stats: r.stats}
	if err != nil {
		copy(res.X, r.bestX)
		copy(res.Y, r.bestY)
		res.F = r.bestF
	}
	return res, err
}

// finish gives the iterate Run returns after a budget or cancellation its
// lower iterate and f (see Result): when an epoch moved x to x_K, the
// lower solve at x_K, as an epoch starts; then f there, on a fresh report
// batch for RSHGD, checked as an epoch checks it and kept if best. It
// returns f and status, or Diverged or Failure with the error.
func (r *RHGD) finish(status Status) (float64, Status, error) {
	if r.epoch > 0 {
		if _, st, err := r.lower(); err != nil {
			return 0, st, fmt.Errorf("final lower solve at x_%d: %w", r.epoch, err)
		}
	}
	if r.smp != nil {
		r.smp.draw(reportBatch)
	}
	f, err := r.p.F(r.env.batch(&r.cur, reportBatch))
	if err != nil {
		return 0, Failure, numerr.Errorf("%v at the final iterate x_%d: %w", OracleF, r.epoch, err)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, Diverged, fmt.Errorf("%w: f = %v at the final iterate x_%d", errDiverged, f, r.epoch)
	}
	if rise := f - r.bestF; rise > r.s.DivergeFactor*max(1, math.Abs(r.bestF)) {
		return 0, Diverged, numerr.Errorf("%w: f = %.3g at the final iterate x_%d, %.3g above the best value %.3g%v",
			errDiverged, f, r.epoch, rise, r.bestF, r.upperDivergeHint())
	}
	if f < r.bestF {
		r.bestF = f
		copy(r.bestX, r.x)
		copy(r.bestY, r.y)
	}
	return f, status, nil
}

// Minimize runs RHGD on p from (x0, y0) with settings s (nil: defaults,
// and the CG estimator). ctx must not be nil, as for Run.
func Minimize(ctx context.Context, p Problem, x0, y0 []float64, s *Settings) (*Result, error) {
	r, err := New(p, s)
	if err != nil {
		return nil, err
	}
	return r.Run(ctx, x0, y0)
}

// Estimate returns the estimator's hypergradient at (x, y) as it stands,
// without lower-level steps; AD differentiates through a path of one
// point there (its G_x f term alone). It is the way to get a
// hypergradient at a given point: it validates x and y, resets the run's
// random streams (so that equal arguments give equal results) and returns
// a copy. It is Reset followed by Hypergradient(false).
func (r *RHGD) Estimate(x, y []float64) ([]float64, error) {
	if err := r.Reset(x, y); err != nil {
		return nil, err
	}
	hg, err := r.Hypergradient(false)
	if err != nil {
		return nil, err
	}
	return append([]float64(nil), hg...), nil
}

// EstimateLower returns the estimator's hypergradient at x with the lower
// iterate y that the solver's lower solve reaches at x from y0, and a
// copy of that y: Problem.LowerSolve's y*(x) (y0 its warm start) when the
// settings use it (Lower.UseLowerSolve and the problem has one), else one
// epoch's lower loop from y0, InnerIters steps of EtaY or the BB steps of
// Lower.BB (with no earlier hypergradient to scale Lower.Tol, the loop
// takes InnerIters steps, as a run's first epoch does). AD differentiates
// through those steps. It is the way to get a hypergradient at a given x
// when y*(x) is not at hand; LowerGradNorm says how close the returned y
// is to it. Like Estimate it validates x and y0, resets the run's random
// streams (equal arguments give equal results) and returns copies; it is
// Reset followed by Hypergradient(true).
func (r *RHGD) EstimateLower(x, y0 []float64) (hg, y []float64, err error) {
	if err := r.Reset(x, y0); err != nil {
		return nil, nil, err
	}
	g, err := r.Hypergradient(true)
	if err != nil {
		return nil, nil, err
	}
	return append([]float64(nil), g...), append([]float64(nil), r.y...), nil
}

// LowerGradNorm returns ‖grad_y g(x, y)‖_y on the whole sums (every
// component of a finite-sum g), the accuracy of y as a lower solution:
// for g geodesically μ-strongly convex in y, d(y, y*(x)) ≤ ‖grad_y
// g‖/μ, and the hypergradient's error is at most a constant times that
// distance (paper, Lemma 1). It validates x and y as Reset does (a point
// within float32 rounding of its manifold is projected onto it first)
// and uses the RHGD's scratch space (not safe for concurrent use, as the
// rest).
func (r *RHGD) LowerGradNorm(x, y []float64) (float64, error) {
	// As Reset accepts them: a point within float32 rounding of its
	// manifold is projected, into scratch.
	if _, err := acceptStart("x", r.mx, r.bx, x); err != nil {
		return 0, err
	}
	if _, err := acceptStart("y", r.my, r.by, y); err != nil {
		return 0, err
	}
	x, y = r.bx, r.by
	if err := r.p.GradGy(r.gy, &Point{X: x, Y: y}); err != nil {
		return 0, numerr.Errorf("%v: %w", OracleGradGy, err)
	}
	return r.my.Norm(y, r.gy), nil
}

// IsDiverged reports whether err is a divergence: the solver's (status
// Diverged), which errors.Is also matches to numerr.ErrDiverged.
func IsDiverged(err error) bool { return errors.Is(err, errDiverged) }

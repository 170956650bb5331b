package solver

import (
	"math"
	"math/rand/v2"

	"github.com/rhgd/rhgd/numerr"
)

// Estimator is a hypergradient estimator (paper, Section 3.1): a
// description with settings, such as CG{Tol: 1e-10}, that any number of
// solvers may share. Bind gives each solver its own instance, with its
// own buffers and state (a CG warm start), so that nothing is shared
// between runs. Implement it to add an estimator; HInv, CG, Neumann, AD
// and GDA are this package's, and ParseEstimator finds them by name.
type Estimator interface {
	// Name returns a short name, such as "cg".
	Name() string
	// Needs returns the set of Problem oracles the estimator calls; the
	// solver checks them, after filling HessGy and CrossGxy by finite
	// differences where it can.
	Needs() Oracles
	// Bind validates the settings and returns the estimator's instance for
	// the solver env belongs to, with its buffers allocated.
	Bind(env *Env) (Hypergrad, error)
}

// Hypergrad is an estimator bound to one solver. An instance that carries
// state from one estimate to the next (CG's warm start, FirstOrder's z
// and its λ schedule) also implements encoding.BinaryMarshaler and
// encoding.BinaryUnmarshaler for that state alone, so that a checkpoint
// (RHGD.SaveState) restores it and a resumed run continues bit for bit;
// UnmarshalBinary gets what MarshalBinary of an instance bound with the
// same settings on the same problem wrote, and returns an error for
// anything else. An instance without them is taken to keep nothing
// between estimates.
type Hypergrad interface {
	// Estimate sets dst ∈ T_x to the hypergradient estimate at (x_k,
	// y_{k+1}) = at, after the epoch's lower steps, calling the problem's
	// oracles through the Env it was bound to. It allocates nothing.
	Estimate(dst []float64, at *Point) error
	// Reset forgets what the instance carries from one estimate to the
	// next (a warm start); the solver calls it when a run starts.
	Reset()
}

// EstimatorStats reports one estimate's work.
type EstimatorStats struct {
	HessVecs   int     // Hessian–vector products
	CrossVecs  int     // cross-derivative products
	Iterations int     // CG iterations, Neumann terms or AD steps
	Residual   float64 // CG: final relative residual; NS: γ·λ_max estimate; FO: ‖grad‖ of the last z step
	// MinEig and MaxEig are the epoch's Lanczos estimates of the extreme
	// eigenvalues of the lower Hessian H_y g(x_k, y_{k+1}): CG's own Ritz
	// values, or Settings.Lanczos steps, or HINV's exact values when it
	// derives the inverse; NaN when not estimated. Ritz values lie inside
	// the spectrum: MinEig ≥ λ_min, MaxEig ≤ λ_max.
	MinEig, MaxEig float64
	// Damping is the δ of a damped solve (H + δI) v = b; 0 when undamped.
	Damping float64
	// GradGx counts grad_x g evaluations and GradFy the grad_y f ones
	// apart from the upper gradient's: FirstOrder's, whose grad_y g
	// evaluations at z count in Stats.LowerGrads.
	GradGx, GradFy int
}

// Env is a solver as its estimator sees it: the manifolds, the lower path,
// the settings an estimator may read, a random source, and the problem's
// oracles, called through methods that count them and give each the
// minibatch Algorithm 2 assigns it (B2 for the upper gradients, B3 for the
// cross derivative, B4 for Hessian products). Its methods allocate
// nothing; it belongs to one solver and is not safe for concurrent use.
type Env struct {
	// Mx and My are the problem's manifolds.
	Mx, My Manifold

	p        *Problem
	etaY     float64
	inner    int // Settings.InnerIters
	rnd      *rand.Rand
	stats    *Stats
	smp      *sampler // nil: full sets
	at       Point    // scratch: the caller's point with a batch
	bx       []float64
	keepPath bool
	path     []Point // y^0 … y^S of the epoch, with x_k
	pathLen  int
	// With Problem.LowerStepsVJP in use (canVJP, set before Bind, lets
	// AD's Bind choose it: useVJP), the epoch's lower loop keeps its
	// start y^0 (start.Y) and its step count (startSteps) instead of a
	// path.
	canVJP, useVJP bool
	start          Point
	startSteps     int
	lz             *lanczos // the spectrum estimate's buffers
	info           solveInfo
}

// solveInfo is what the epoch's estimate tells the error bound: the
// spectrum estimate, the damping, and the norms of the linear solve
// H v = b (b = grad_y f) and of its product C v = G_xy g[v].
type solveInfo struct {
	minEig, maxEig float64 // NaN: not estimated
	damping        float64
	resid          float64 // ‖b − H v‖_y, undamped H; NaN: unknown
	bnorm          float64 // ‖b‖_y
	vnorm, cvnorm  float64 // ‖v‖_y and ‖G_xy g[v]‖_x
	wantNorms      bool    // Hyper measures vnorm and cvnorm
	bias           float64 // the estimator's own estimate of ‖ĝ − grad F‖; NaN: none
}

func (s *solveInfo) reset() {
	want := s.wantNorms
	*s = solveInfo{minEig: math.NaN(), maxEig: math.NaN(), resid: math.NaN(), bnorm: math.NaN(),
		vnorm: math.NaN(), cvnorm: math.NaN(), wantNorms: want, bias: math.NaN()}
}

// Spectrum returns Lanczos estimates of the smallest and largest
// eigenvalues of the lower Hessian at `at` (Ritz values: lo ≥ λ_min,
// hi ≤ λ_max), from Settings.Lanczos steps (DefaultLanczosSteps when
// unset), and records them for the epoch's statistics. It allocates
// nothing.
func (e *Env) Spectrum(at *Point) (lo, hi float64, err error) {
	lo, hi, err = e.lz.run(e, at)
	if err == nil {
		e.SetSpectrum(lo, hi)
	}
	return lo, hi, err
}

// SetSpectrum records an estimator's own estimates of the extreme
// eigenvalues of the lower Hessian (CG's Ritz values).
func (e *Env) SetSpectrum(lo, hi float64) { e.info.minEig, e.info.maxEig = lo, hi }

// SetSolve records the linear solve of the estimate for the error bound:
// ‖b‖ = ‖grad_y f‖, the residual ‖b − H v‖ of the undamped system, and
// the damping δ of a damped solve (0: none).
func (e *Env) SetSolve(bnorm, resid, damping float64) {
	e.info.bnorm, e.info.resid, e.info.damping = bnorm, resid, damping
}

// SetBias records an estimator's own a-posteriori estimate of its error
// ‖ĝ − grad F(x)‖ (FirstOrder's penalty bias): it is then the epoch's
// error bound, and GradTol and RelGradTol stop on ‖ĝ‖ plus it.
func (e *Env) SetBias(b float64) { e.info.bias = b }

// WantsNorms reports whether the solver computes an error bound this
// run, so that an estimator measures the norms it needs (‖b − H v‖).
func (e *Env) WantsNorms() bool { return e.info.wantNorms }

// EtaY returns the lower step size η_y.
func (e *Env) EtaY() float64 { return e.etaY }

// InnerIters returns S, the solver's lower steps per epoch
// (Settings.InnerIters, its default filled).
func (e *Env) InnerIters() int { return e.inner }

// Rand returns the solver's random source for estimators, seeded from
// Settings.Seed at the start of each run.
func (e *Env) Rand() *rand.Rand { return e.rnd }

// NewX and NewY allocate a tangent-sized buffer of Mx or My, for Bind.
func (e *Env) NewX() []float64 { return make([]float64, e.Mx.Len()) }

// NewY: see NewX.
func (e *Env) NewY() []float64 { return make([]float64, e.My.Len()) }

// KeepPath asks the solver, during Bind, to store the epoch's lower
// iterates for Path.
func (e *Env) KeepPath() { e.keepPath = true }

// Path returns the epoch's lower iterates y^0, …, y^S as points with the
// current x (read-only); its last element is the point of the estimate.
// It is empty unless KeepPath was called.
func (e *Env) Path() []Point { return e.path[:e.pathLen] }

// UseLowerStepsVJP asks the solver, during Bind, to keep the start y^0
// of each fused lower loop (LowerStart) for Problem.LowerStepsVJP, and
// reports whether it can: where Problem.LowerStepsVJP is given and the
// solver runs the lower loop by Problem.LowerSteps. Otherwise the
// estimator keeps the path (KeepPath).
func (e *Env) UseLowerStepsVJP() bool {
	if e.canVJP && e.start.Y == nil {
		e.useVJP, e.start.Y = true, e.NewY()
	}
	return e.useVJP
}

// LowerStart returns the start y^0 of the epoch's lower loop, with the
// current x, and its number of steps S (0 when the estimate is at a point
// reached by no steps): the arguments of LowerStepsVJP.
func (e *Env) LowerStart() (*Point, int) { return &e.start, e.startSteps }

// LowerStepsVJP sets dx and dy by Problem.LowerStepsVJP at pt for n steps
// of η_y, counting n Hessian and n cross products. A non-finite result
// from finite arguments is an error wrapping numerr.ErrNotFinite.
func (e *Env) LowerStepsVJP(dx, dy []float64, pt *Point, n int, lam []float64) error {
	e.stats.HessVecs += n
	e.stats.CrossVecs += n
	if err := e.p.LowerStepsVJP(dx, dy, pt, n, e.etaY, lam); err != nil {
		return numerr.Errorf("%v: %w", TermLowerStepsVJP, err)
	}
	for _, v := range [2][]float64{dx, dy} {
		if i := firstNotFinite(v); i >= 0 && allFinite(pt.X, pt.Y, lam) {
			return numerr.Errorf("%v: %w: a result's entry %d = %v at finite x, y and lam", TermLowerStepsVJP, numerr.ErrNotFinite, i, v[i])
		}
	}
	return nil
}

// AddIterations adds n to the estimate's iteration count (CG iterations,
// series terms, reverse steps).
func (e *Env) AddIterations(n int) { e.stats.Iterations += n }

// SetResidual records the estimate's residual (see EstimatorStats).
func (e *Env) SetResidual(r float64) { e.stats.Residual = r }

// batch returns pt with the batch sel of the current draw (pt itself when
// nothing is sampled).
func (e *Env) batch(pt *Point, sel batchSel) *Point {
	if e.smp == nil {
		return pt
	}
	e.at = *pt
	e.at.Batch, e.at.BatchID = e.smp.get(sel)
	return &e.at
}

// GradFx sets dst = grad_x f at pt, on the batch B2.
func (e *Env) GradFx(dst []float64, pt *Point) error {
	e.stats.UpperGrads++
	if err := e.p.GradFx(dst, e.batch(pt, upperBatch)); err != nil {
		return numerr.Errorf("%v: %w", OracleGradFx, err)
	}
	return nil
}

// GradFy sets dst = grad_y f at pt, on the batch B2.
func (e *Env) GradFy(dst []float64, pt *Point) error {
	if err := e.p.GradFy(dst, e.batch(pt, upperBatch)); err != nil {
		return numerr.Errorf("%v: %w", OracleGradFy, err)
	}
	return nil
}

// GradGy sets dst = grad_y g at pt, on the lower batch B1 (counted in
// Stats.LowerGrads), for estimators that move lower iterates of their
// own (FirstOrder's z).
func (e *Env) GradGy(dst []float64, pt *Point) error {
	e.stats.LowerGrads++
	if err := e.p.GradGy(dst, e.batch(pt, lowerBatch)); err != nil {
		return numerr.Errorf("%v: %w", OracleGradGy, err)
	}
	return nil
}

// GradGx sets dst = grad_x g at pt, on the batch B3 of the cross
// derivative it stands in for (counted in EstimatorStats.GradGx).
func (e *Env) GradGx(dst []float64, pt *Point) error {
	e.stats.LowerXGrads++
	if err := e.p.GradGx(dst, e.batch(pt, crossBatch)); err != nil {
		return numerr.Errorf("%v: %w", OracleGradGx, err)
	}
	return nil
}

// gradFyOnly is GradFy counted on its own (EstimatorStats.GradFy), for a
// grad_y f without its grad_x f.
func (e *Env) gradFyOnly(dst []float64, pt *Point) error {
	e.stats.UpperYGrads++
	return e.GradFy(dst, pt)
}

// sampled reports whether the run draws any minibatch at random.
func (e *Env) sampled() bool {
	if e.smp == nil {
		return false
	}
	for i := range e.smp.b {
		if e.smp.b[i].sampled {
			return true
		}
	}
	return false
}

// redraw draws fresh batches B1 and B2 for one step of an estimator's own
// lower iterate; nothing when the run does not sample.
func (e *Env) redraw() {
	if e.smp != nil {
		e.smp.draw(lowerBatch)
		e.smp.draw(upperBatch)
	}
}

// HessGy sets dst = H_y g[v] at pt, on the batch B4.
func (e *Env) HessGy(dst []float64, pt *Point, v []float64) error {
	e.stats.HessVecs++
	if err := e.p.HessGy(dst, e.batch(pt, hessBatch), v); err != nil {
		return numerr.Errorf("%v: %w", OracleHessGy, err)
	}
	return nil
}

// HasHessGyBatch reports whether the problem has HessGyBatch, the
// Hessian applied to many vectors in one call.
func (e *Env) HasHessGyBatch() bool { return e.p.HessGyBatch != nil }

// HessGyBatch sets the k rows of dst (k×My.Len(), row-major) to H_y g
// applied to the k rows of v at pt, on the batch B4, in one call of the
// problem's HessGyBatch (see HasHessGyBatch); it counts k products, as k
// HessGy calls would.
func (e *Env) HessGyBatch(dst []float64, pt *Point, v []float64, k int) error {
	e.stats.HessVecs += k
	if err := e.p.HessGyBatch(dst, e.batch(pt, hessBatch), v, k); err != nil {
		return numerr.Errorf("%v: %w", OracleHessGyBatch, err)
	}
	return nil
}

// HessGyInv sets dst = H_y g⁻¹[v] at pt, on the batch B4.
func (e *Env) HessGyInv(dst []float64, pt *Point, v []float64) error {
	if err := e.p.HessGyInv(dst, e.batch(pt, hessBatch), v); err != nil {
		return numerr.Errorf("%v: %w", OracleHessGyInv, err)
	}
	return nil
}

// CrossGxy sets dst = G_xy g[v] at pt, on the batch B3.
func (e *Env) CrossGxy(dst []float64, pt *Point, v []float64) error {
	e.stats.CrossVecs++
	if err := e.p.CrossGxy(dst, e.batch(pt, crossBatch), v); err != nil {
		return numerr.Errorf("%v: %w", OracleCrossGxy, err)
	}
	return nil
}

// Hyper sets dst = grad_x f − G_xy g[v] at pt: Proposition 1's
// hypergradient for v ≈ H_y g⁻¹[grad_y f].
func (e *Env) Hyper(dst []float64, pt *Point, v []float64) error {
	if err := e.GradFx(dst, pt); err != nil {
		return err
	}
	if err := e.CrossGxy(e.bx, pt, v); err != nil {
		return err
	}
	for i := range dst {
		dst[i] -= e.bx[i]
	}
	if e.info.wantNorms {
		e.info.vnorm, e.info.cvnorm = e.My.Norm(pt.Y, v), e.Mx.Norm(pt.X, e.bx)
	}
	return nil
}

package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Settings control a run of RHGD. The zero value works: every field's
// default is stated beside it.
type Settings struct {
	// EtaX and EtaY are the upper and lower step sizes η_x and η_y;
	// default 0.1 each.
	EtaX, EtaY float64
	// InnerIters is S, the lower-level steps per epoch; default 20.
	InnerIters int
	// Epochs is K, the epoch (outer iteration) limit; default 200.
	Epochs int
	// GradTol stops the run once ‖ĝrad F(x_k)‖ ≤ GradTol; zero disables.
	GradTol float64
	// Runtime stops the run once it has taken this long; zero disables.
	Runtime time.Duration
	// DivergeFactor declares the lower level diverged when ‖grad_y g‖
	// exceeds DivergeFactor times the larger of its values at the run's
	// first step and at the epoch's first step (a run started at the lower
	// solution has a first value near zero); default 1e8. Slower growth
	// ends at a non-finite value, also reported as divergence.
	DivergeFactor float64
	// FDStep is the relative step of the finite differences filling a
	// missing HessGy or CrossGxy; default DefaultFDStep.
	FDStep float64
	// Recorder receives each epoch's statistics; nil records nothing.
	Recorder Recorder
	// Seed seeds the random numbers some estimators use (power-iteration
	// starts); runs are reproducible from it.
	Seed uint64
}

func (s *Settings) withDefaults() Settings {
	var o Settings
	if s != nil {
		o = *s
	}
	if o.EtaX == 0 {
		o.EtaX = 0.1
	}
	if o.EtaY == 0 {
		o.EtaY = 0.1
	}
	if o.InnerIters <= 0 {
		o.InnerIters = 20
	}
	if o.Epochs <= 0 {
		o.Epochs = 200
	}
	if o.DivergeFactor <= 0 {
		o.DivergeFactor = 1e8
	}
	return o
}

// Stats counts the work of a run.
type Stats struct {
	Epochs      int
	UpperGrads  int // grad_x f and grad_y f evaluations (pairs)
	LowerGrads  int // grad_y g evaluations
	HessVecs    int
	CrossVecs   int
	Iterations  int     // CG iterations, Neumann terms or AD steps, summed
	Residual    float64 // the last estimate's residual (see EstimatorStats)
	Runtime     time.Duration
	bestEpoch   int
	startedWall time.Time
}

// EpochStats is what a Recorder receives after each epoch.
type EpochStats struct {
	Epoch         int     // k, from 0
	F             float64 // f(x_k, y_{k+1})
	HyperGradNorm float64 // ‖ĝrad F(x_k)‖_{x_k}
	LowerGradNorm float64 // ‖grad_y g(x_k, y_k^{S−1})‖, the last lower step's gradient at its point
	Elapsed       time.Duration
	Stats         Stats // cumulative counts
	Estimate      EstimatorStats
}

// Recorder receives per-epoch statistics. Record returning an error stops
// the run with status Failure.
type Recorder interface {
	Record(*EpochStats) error
}

// Result is the outcome of Run.
type Result struct {
	// X and Y are the final iterates: after the last completed epoch, or,
	// when the run failed, the best iterates seen (never a corrupted one).
	X, Y []float64
	// BestX and BestY are the iterates of the epoch with the lowest
	// finite f(x_k, y_{k+1}), and BestF that value.
	BestX, BestY []float64
	BestF        float64
	// F and HyperGradNorm are from the last completed epoch.
	F, HyperGradNorm float64
	Status           Status
	// Err is the error that stopped a Diverged or Failure run.
	Err   error
	Stats Stats
}

// RHGD is Riemannian hypergradient descent (paper, Algorithm 1): each epoch
// takes S retraction steps y ← R_y(−η_y grad_y g(x, y)), estimates the
// hypergradient at (x, y) and steps x ← R_x(−η_x ĝrad F(x)). An RHGD owns
// all its buffers: after construction an epoch allocates nothing. It is
// not safe for concurrent use.
type RHGD struct {
	p      Problem
	mx, my Manifold
	est    Estimator
	s      Settings
	pcg    *rand.PCG
	rnd    *rand.Rand
	smp    *sampler // RSHGD's batches; nil for RHGD

	x, y       []float64
	hg, gy     []float64
	bx         []float64   // x-sized scratch
	by         [][]float64 // y-sized scratch
	bestX      []float64
	bestY      []float64
	bestF      float64
	keepPath   bool
	path       [][]float64 // y^0..y^S for AD
	pathLen    int
	stats      Stats
	epoch      int
	gy0        float64 // first lower gradient norm, for divergence
	es         EpochStats
	lastF      float64
	lastHGNorm float64
}

// New returns an RHGD on mx × my for p with estimator est (nil means CG
// with its defaults). It fills missing HessGy and CrossGxy by finite
// differences when the gradients they need are there, and returns an error
// wrapping ErrMissing when an oracle the estimator needs is still missing.
func New(p Problem, mx, my Manifold, est Estimator, s *Settings) (*RHGD, error) {
	if est == nil {
		est = &CG{}
	}
	st := s.withDefaults()
	fdFill(&p, mx, my, st.FDStep)
	if err := p.need(append([]string{"F", "GradGy"}, est.needs()...)...); err != nil {
		return nil, fmt.Errorf("%s estimator: %w", est.Name(), err)
	}
	pcg := rand.NewPCG(0, 0) // seeded by Reset
	r := &RHGD{p: p, mx: mx, my: my, est: est, s: st, pcg: pcg, rnd: rand.New(pcg),
		x: make([]float64, mx.Len()), y: make([]float64, my.Len()),
		hg: make([]float64, mx.Len()), gy: make([]float64, my.Len()), bx: make([]float64, mx.Len()),
		bestX: make([]float64, mx.Len()), bestY: make([]float64, my.Len())}
	r.by = make([][]float64, 6)
	for i := range r.by {
		r.by[i] = r.newY()
	}
	if err := est.init(r); err != nil {
		return nil, err
	}
	if r.keepPath {
		r.path = make([][]float64, st.InnerIters+1)
		for i := range r.path {
			r.path[i] = r.newY()
		}
	}
	return r, nil
}

func (r *RHGD) newY() []float64 {
	return make([]float64, r.my.Len())
}

// Reset validates and sets the starting point, clearing the statistics.
func (r *RHGD) Reset(x0, y0 []float64) error {
	if err := checkStart("x0", r.mx, x0); err != nil {
		return err
	}
	if err := checkStart("y0", r.my, y0); err != nil {
		return err
	}
	copy(r.x, x0)
	copy(r.y, y0)
	copy(r.bestX, x0)
	copy(r.bestY, y0)
	r.bestF = math.Inf(1)
	r.stats = Stats{startedWall: time.Now()}
	r.epoch, r.gy0 = 0, 0
	r.pcg.Seed(r.s.Seed, estimatorStream)
	if r.smp != nil {
		r.smp.reset()
	}
	if c, ok := r.est.(*CG); ok {
		c.hasPrev = false
	}
	return nil
}

// X returns the current upper iterate (the RHGD's own slice).
func (r *RHGD) X() []float64 { return r.x }

// Y returns the current lower iterate (the RHGD's own slice).
func (r *RHGD) Y() []float64 { return r.y }

// estimatorStream and samplerStream keep the random numbers of the
// estimators (power-iteration starts) and of RSHGD's batches apart.
const (
	estimatorStream = 0x7b6d
	samplerStream   = 0x5a3b1e
)

// errDiverged wraps the status sentinel.
var errDiverged = statusTable[Diverged].err

// Step runs one epoch. On an error the iterates are left as they were at
// the start of the epoch's failing part; Run then falls back to the best.
func (r *RHGD) Step() (Status, error) {
	gyNorm, status, err := r.lower()
	if err != nil {
		return status, err
	}
	before := r.stats
	if err := r.estimate(); err != nil {
		return Failure, fmt.Errorf("epoch %d: %w", r.epoch, err)
	}
	r.stats.UpperGrads++
	x, y := r.x, r.y
	f := r.p.F(x, y)
	hgNorm := r.mx.Norm(x, r.hg)
	if math.IsNaN(f) || math.IsInf(f, 0) || math.IsNaN(hgNorm) || math.IsInf(hgNorm, 0) {
		return Diverged, fmt.Errorf("%w: f = %v, ‖hypergradient‖ = %v at epoch %d", errDiverged, f, hgNorm, r.epoch)
	}
	if f < r.bestF {
		r.bestF = f
		copy(r.bestX, x)
		copy(r.bestY, y)
		r.stats.bestEpoch = r.epoch
	}
	r.lastF, r.lastHGNorm = f, hgNorm
	r.stats.Epochs = r.epoch + 1
	r.stats.Runtime = time.Since(r.stats.startedWall)
	if r.s.Recorder != nil {
		r.es = EpochStats{Epoch: r.epoch, F: f, HyperGradNorm: hgNorm, LowerGradNorm: gyNorm,
			Elapsed: r.stats.Runtime, Stats: r.stats, Estimate: EstimatorStats{
				HessVecs: r.stats.HessVecs - before.HessVecs, CrossVecs: r.stats.CrossVecs - before.CrossVecs,
				Iterations: r.stats.Iterations - before.Iterations, Residual: r.stats.Residual}}
		if err := r.s.Recorder.Record(&r.es); err != nil {
			return Failure, fmt.Errorf("recorder at epoch %d: %w", r.epoch, err)
		}
	}
	r.epoch++
	if r.s.GradTol > 0 && hgNorm <= r.s.GradTol {
		return GradientThreshold, nil
	}
	if err := r.mx.Retract(r.bx, x, r.hg, -r.s.EtaX); err != nil {
		return Failure, fmt.Errorf("upper retraction at epoch %d: %w", r.epoch-1, err)
	}
	copy(x, r.bx)
	return NotTerminated, nil
}

// lower takes the S lower-level steps from the current y, keeping the path
// for AD, and returns the Riemannian norm of the last lower gradient when
// a Recorder will report it (zero otherwise).
// Divergence is watched through the ambient Frobenius norm of the gradient,
// which costs no metric evaluation per step.
func (r *RHGD) lower() (float64, Status, error) {
	S := r.s.InnerIters
	my, x, y := r.my, r.x, r.y
	ref := 0.0 // the larger of the run's first gradient norm and the epoch's
	gyNorm := 0.0
	for s := 0; s < S; s++ {
		if r.keepPath {
			copy(r.path[s], y)
		}
		if r.smp != nil {
			r.smp.lowerStep()
		}
		r.p.GradGy(r.gy, x, y)
		r.stats.LowerGrads++
		g := frob(r.gy)
		if r.gy0 == 0 {
			r.gy0 = g
		}
		if s == 0 {
			ref = max(r.gy0, g)
		}
		switch {
		case math.IsNaN(g) || math.IsInf(g, 0):
			return 0, Diverged, fmt.Errorf("%w: lower gradient not finite at epoch %d, step %d", errDiverged, r.epoch, s)
		case ref > 0 && g > r.s.DivergeFactor*ref:
			return 0, Diverged, fmt.Errorf("%w: lower gradient norm %.3g, %.0e× its reference value, at epoch %d", errDiverged, g, g/ref, r.epoch)
		}
		if s == S-1 && r.s.Recorder != nil {
			gyNorm = my.Norm(y, r.gy) // only reported
		}
		if err := my.Retract(r.by[0], y, r.gy, -r.s.EtaY); err != nil {
			return 0, Failure, fmt.Errorf("lower retraction at epoch %d, step %d: %w", r.epoch, s, err)
		}
		copy(y, r.by[0])
	}
	if r.keepPath {
		copy(r.path[S], y)
		r.pathLen = S + 1
	}
	return gyNorm, NotTerminated, nil
}

// Hypergradient estimates the hypergradient at the current iterates
// without moving x: after S lower steps when lower is set (the forward pass
// AD differentiates), at the current y otherwise. The returned slice is the
// RHGD's own. It skips Reset's validation: call Reset first.
func (r *RHGD) Hypergradient(lower bool) ([]float64, error) {
	if lower {
		if _, _, err := r.lower(); err != nil {
			return nil, err
		}
	} else if r.keepPath {
		copy(r.path[0], r.y)
		r.pathLen = 1
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
	return r.est.estimate(r, r.hg)
}

// Run resets to (x0, y0) and runs epochs until a stopping rule fires. It
// returns the result and, for the Diverged and Failure statuses, the error
// that stopped the run (also in Result.Err); the result then carries the
// best iterates seen.
func (r *RHGD) Run(ctx context.Context, x0, y0 []float64) (*Result, error) {
	if err := r.Reset(x0, y0); err != nil {
		return nil, err
	}
	status := NotTerminated
	var err error
	for status == NotTerminated {
		switch {
		case ctx != nil && ctx.Err() != nil:
			status = Cancelled
		case r.epoch >= r.s.Epochs:
			status = IterationLimit
		case r.s.Runtime > 0 && time.Since(r.stats.startedWall) >= r.s.Runtime:
			status = RuntimeLimit
		default:
			status, err = r.Step()
		}
	}
	r.stats.Runtime = time.Since(r.stats.startedWall)
	res := &Result{X: append([]float64(nil), r.x...), Y: append([]float64(nil), r.y...),
		BestX: append([]float64(nil), r.bestX...), BestY: append([]float64(nil), r.bestY...),
		BestF: r.bestF, F: r.lastF, HyperGradNorm: r.lastHGNorm, Status: status, Err: err, Stats: r.stats}
	if err != nil {
		copy(res.X, r.bestX)
		copy(res.Y, r.bestY)
	}
	return res, err
}

// Minimize runs RHGD on p from (x0, y0) with estimator est (nil: CG) and
// settings s (nil: defaults). ctx may be nil.
func Minimize(ctx context.Context, p Problem, mx, my Manifold, x0, y0 []float64, est Estimator, s *Settings) (*Result, error) {
	r, err := New(p, mx, my, est, s)
	if err != nil {
		return nil, err
	}
	return r.Run(ctx, x0, y0)
}

// Estimate returns the estimator's hypergradient at (x, y) as it stands,
// without lower-level steps; AD differentiates through a path of one
// point there (its G_x f term alone). It validates x and y.
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

// LastHyper returns the hypergradient estimate of the last epoch (the
// RHGD's own slice).
func (r *RHGD) LastHyper() []float64 { return r.hg }

// IsDiverged reports whether err is a divergence.
func IsDiverged(err error) bool { return errors.Is(err, errDiverged) }

package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// epochRow is one line of history.csv. NaN means "not available".
type epochRow struct {
	Epoch         int
	Seconds       float64 // wall clock since the run started, at the end of the epoch's step
	F             float64 // upper objective f(x_k, y_{k+1})
	HyperGradNorm float64
	HyperGradErr  float64 // ‖ĝ − ĝ_HINV‖/‖ĝ_HINV‖ at (x_k, y_{k+1}), above the noise floor
	LowerGradNorm float64
	Accuracy      float64 // percent
	MinEig        float64 // Lanczos estimate of λ_min of the lower Hessian
	ErrBound      float64 // a-posteriori estimate of ‖ĝ − grad F‖ (EpochStats.HyperGradErrBound)
	TrueGradNorm  float64 // ‖grad F(x_k)‖ at the exact lower solution (trueHyperGrad)
	// SolverSeconds is Seconds less the time the recorder spent measuring
	// before the end of the epoch's step: the solver's own time.
	SolverSeconds float64
}

// noiseFloor is the size of ĝ_HINV, relative to ‖grad_x f‖, below which
// the error against HINV is not reported. The hypergradient is grad_x f
// minus the implicit term, which cancel near a solution; once ‖ĝ‖ is
// below √ε·‖grad_x f‖, fewer than half of its digits are left, and the
// "relative error" would divide one estimator's rounding or tolerance
// noise by the other's (CG to 1e−10 showed 1.00 at ‖ĝ‖ = 2.7e−15).
var noiseFloor = math.Sqrt(0x1p-52)

// history records a run's epochs. What it measures at each epoch (the
// accuracy, the HINV reference and the true hypergradient when asked
// for) takes time of the run's wall clock, which the seconds include;
// overhead says how much, and each row's SolverSeconds leaves it out.
type history struct {
	mx       solver.Manifold
	gradFx   func(dst []float64, pt *solver.Point) error
	ref      *solver.RHGD // HINV at the same points; nil when not measured
	isHINV   bool         // the run is HINV's own, measured: its error is zero
	accuracy func(x, y []float64) (float64, error)
	rows     []epochRow
	overhead time.Duration
	diff, gx []float64
	// truth sets its first argument to the true hypergradient at x (the
	// exact lower solution from y); nil when not measured.
	truth    func(dst, x, y []float64) error
	tg       []float64
	progress func(epoch int)
}

// newHistory returns a recorder for runs of in with the estimator est;
// with reference it also measures the error against HINV at each epoch's
// point, which needs the problem's HessGyInv, and with truth the norm of
// the true hypergradient at x_k where the problem gives one
// (trueHyperGrad).
func newHistory(in *problems.Instance, est solver.Estimator, reference, truth bool) (*history, error) {
	p := in.Problem
	h := &history{mx: p.Mx, gradFx: p.GradFx, accuracy: in.Accuracy}
	if truth {
		f, err := trueHyperGrad(in)
		if err != nil {
			return nil, err
		}
		if f != nil {
			h.truth, h.tg = f, make([]float64, p.Mx.Len())
		}
	}
	switch {
	case !reference:
	case p.HessGyInv == nil:
		return nil, usagef("-hinv-error: this problem has no HINV estimator (no inverse Hessian)")
	case est.Name() == "hinv":
		h.isHINV = true
	default:
		set := in.Settings
		set.Estimator, set.Recorder, set.Batches = solver.HInv{}, nil, solver.Batches{}
		ref, err := solver.New(p, &set)
		if err != nil {
			return nil, fmt.Errorf("HINV reference: %w", err)
		}
		h.ref = ref
		h.diff, h.gx = make([]float64, p.Mx.Len()), make([]float64, p.Mx.Len())
	}
	return h, nil
}

// measured reports whether the history has the error against HINV.
func (h *history) measured() bool { return h.isHINV || h.ref != nil }

// trueHyperGrad returns a function that sets dst to the true
// hypergradient grad F(x) = ĝ_HINV(x, y*(x)), y*(x) the exact lower
// solution from y: the instance's own TrueHyperGrad when it has one, else
// HINV (a solver of its own, whose oracle counts are not the run's) at
// Problem.LowerSolve's point when the problem has both; nil otherwise.
// It measures a run and is no part of it: the recorder calls it outside
// the solver's counts, and its time is taken out of solver_seconds.
func trueHyperGrad(in *problems.Instance) (func(dst, x, y []float64) error, error) {
	if in.TrueHyperGrad != nil {
		return in.TrueHyperGrad, nil
	}
	p := in.Problem
	if p.LowerSolve == nil || p.HessGyInv == nil {
		return nil, nil
	}
	set := in.Settings
	set.Estimator, set.Recorder, set.Batches, set.Lanczos = solver.HInv{}, nil, solver.Batches{}, 0
	ref, err := solver.New(p, &set)
	if err != nil {
		return nil, fmt.Errorf("true hypergradient (HINV): %w", err)
	}
	ystar := make([]float64, p.My.Len())
	return func(dst, x, y []float64) error {
		if err := p.LowerSolve(ystar, &solver.Point{X: x, Y: y}); err != nil {
			return err
		}
		g, err := ref.Estimate(x, ystar)
		if err != nil {
			return err
		}
		copy(dst, g)
		return nil
	}, nil
}

// hasTruth reports whether the history has the true hypergradient's norm.
func (h *history) hasTruth() bool { return h.truth != nil }

// Record implements solver.Recorder.
func (h *history) Record(s *solver.EpochStats) error {
	t0 := time.Now()
	row := epochRow{Epoch: s.Epoch, Seconds: s.Elapsed.Seconds(), F: s.F,
		HyperGradNorm: s.HyperGradNorm, LowerGradNorm: s.LowerGradNorm, HyperGradErr: math.NaN(), Accuracy: math.NaN(),
		MinEig: s.Estimate.MinEig, ErrBound: s.HyperGradErrBound, TrueGradNorm: math.NaN(),
		SolverSeconds: (s.Elapsed - h.overhead).Seconds()}
	if h.truth != nil {
		if err := h.truth(h.tg, s.X, s.Y); err != nil {
			return fmt.Errorf("true hypergradient at epoch %d: %w", s.Epoch, err)
		}
		row.TrueGradNorm = h.mx.Norm(s.X, h.tg)
	}
	if h.isHINV {
		row.HyperGradErr = 0
	}
	if h.ref != nil {
		e, err := h.hinvError(s)
		if err != nil {
			return fmt.Errorf("HINV reference at epoch %d: %w", s.Epoch, err)
		}
		row.HyperGradErr = e
	}
	if h.accuracy != nil {
		acc, err := h.accuracy(s.X, s.Y)
		if err != nil {
			return fmt.Errorf("accuracy at epoch %d: %w", s.Epoch, err)
		}
		row.Accuracy = acc
	}
	h.rows = append(h.rows, row)
	if h.progress != nil {
		h.progress(s.Epoch)
	}
	h.overhead += time.Since(t0)
	return nil
}

// hinvError returns ‖ĝ − ĝ_HINV‖/‖ĝ_HINV‖ at the epoch's point, or NaN
// when ĝ_HINV is below the noise floor.
func (h *history) hinvError(s *solver.EpochStats) (float64, error) {
	exact, err := h.ref.Estimate(s.X, s.Y)
	if err != nil {
		return 0, err
	}
	if err := h.gradFx(h.gx, &solver.Point{X: s.X, Y: s.Y}); err != nil {
		return 0, err
	}
	norm := h.mx.Norm(s.X, exact)
	if !(norm > noiseFloor*h.mx.Norm(s.X, h.gx)) {
		return math.NaN(), nil
	}
	for i := range h.diff {
		h.diff[i] = s.HyperGrad[i] - exact[i]
	}
	return h.mx.Norm(s.X, h.diff) / norm, nil
}

// writeCSV writes the history as CSV with a header; unavailable values
// are empty fields, numbers are in the shortest form that reads back to
// the same float64.
func (h *history) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"epoch", "seconds", "upper_objective", "hypergradient_norm", "hypergradient_error_vs_hinv", "lower_gradient_norm", "accuracy",
		"lower_hessian_min_eig", "hypergradient_error_bound", "true_hypergrad_norm", "solver_seconds"})
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, r := range h.rows {
		cw.Write([]string{strconv.Itoa(r.Epoch), num(r.Seconds), num(r.F), num(r.HyperGradNorm), num(r.HyperGradErr), num(r.LowerGradNorm), num(r.Accuracy),
			num(r.MinEig), num(r.ErrBound), num(r.TrueGradNorm), num(r.SolverSeconds)})
	}
	cw.Flush()
	return cw.Error()
}

// saveCSV writes the history to path.
func (h *history) saveCSV(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := h.writeCSV(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

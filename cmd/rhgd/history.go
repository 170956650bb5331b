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
	Seconds       float64 // solver time, without the recorder's own work
	F             float64 // upper objective f(x_k, y_{k+1})
	HyperGradNorm float64
	HyperGradErr  float64 // ‖ĝ − ĝ_HINV‖/‖ĝ_HINV‖ at (x_k, y_{k+1})
	LowerGradNorm float64
	Accuracy      float64 // percent
}

// history records a run's epochs. Its own work (the HINV reference
// estimate, the accuracy) is timed and left out of Seconds.
type history struct {
	mx       solver.Manifold
	ref      *solver.RHGD // HINV at the same points; nil when the problem has none
	isHINV   bool         // the run is HINV's own: its error is zero, not computed
	accuracy func(x, y []float64) (float64, error)
	rows     []epochRow
	overhead time.Duration
	diff     []float64
	progress func(epoch int)
}

// newHistory returns a recorder for runs of in with the estimator est;
// it estimates HINV hypergradients at each epoch's point when the problem
// has HessGyInv and reference is set (and est is not HINV itself).
func newHistory(in *problems.Instance, est solver.Estimator, reference bool) (*history, error) {
	h := &history{mx: in.Problem.Mx, accuracy: in.Accuracy, diff: make([]float64, in.Problem.Mx.Len())}
	if _, ok := est.(solver.HInv); ok && reference && in.Problem.HessGyInv != nil {
		h.isHINV = true
	} else if reference && in.Problem.HessGyInv != nil {
		set := in.Settings
		set.Estimator, set.Recorder, set.Batches = solver.HInv{}, nil, solver.Batches{}
		ref, err := solver.New(in.Problem, &set)
		if err != nil {
			return nil, fmt.Errorf("HINV reference: %w", err)
		}
		h.ref = ref
	}
	return h, nil
}

// Record implements solver.Recorder.
func (h *history) Record(s *solver.EpochStats) error {
	t0 := time.Now()
	row := epochRow{Epoch: s.Epoch, Seconds: (s.Elapsed - h.overhead).Seconds(), F: s.F,
		HyperGradNorm: s.HyperGradNorm, LowerGradNorm: s.LowerGradNorm, HyperGradErr: math.NaN(), Accuracy: math.NaN()}
	if h.isHINV {
		row.HyperGradErr = 0
	}
	if h.ref != nil {
		exact, err := h.ref.Estimate(s.X, s.Y)
		if err != nil {
			return fmt.Errorf("HINV reference at epoch %d: %w", s.Epoch, err)
		}
		for i := range h.diff {
			h.diff[i] = s.HyperGrad[i] - exact[i]
		}
		row.HyperGradErr = h.mx.Norm(s.X, h.diff) / h.mx.Norm(s.X, exact)
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

// writeCSV writes the history as CSV with a header; unavailable values
// are empty fields.
func (h *history) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"epoch", "seconds", "upper_objective", "hypergradient_norm", "hypergradient_error_vs_hinv", "lower_gradient_norm", "accuracy"})
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 17, 64)
	}
	for _, r := range h.rows {
		cw.Write([]string{strconv.Itoa(r.Epoch), num(r.Seconds), num(r.F), num(r.HyperGradNorm), num(r.HyperGradErr), num(r.LowerGradNorm), num(r.Accuracy)})
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

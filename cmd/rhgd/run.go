package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// summary is summary.json: what was run and how it ended.
type summary struct {
	Problem       string          `json:"problem"`
	Describe      string          `json:"describe"`
	Estimator     string          `json:"estimator"`
	Settings      summarySettings `json:"settings"`
	Status        string          `json:"status"`
	Error         string          `json:"error,omitempty"`
	Epochs        int             `json:"epochs"`
	Seconds       float64         `json:"seconds"`
	Objective     *float64        `json:"final_objective"`
	BestObjective *float64        `json:"best_objective"`
	HyperGradNorm *float64        `json:"final_hypergradient_norm"`
	HyperGradErr  *float64        `json:"final_hypergradient_error_vs_hinv,omitempty"`
	Accuracy      *float64        `json:"accuracy,omitempty"`
	Baseline      string          `json:"baseline,omitempty"`
	BaselineAcc   *float64        `json:"baseline_accuracy,omitempty"`
	Backend       string          `json:"backend"`
	// RetractionsRetried counts the retractions that failed and were
	// retried with half the step (solver.Stats.RetractFailures).
	RetractionsRetried int `json:"retractions_retried,omitempty"`
}

type summarySettings struct {
	Preset     string
	EtaX, EtaY float64
	InnerIters int
	Epochs     int
	GradTol    float64 `json:",omitempty"`
	Runtime    string  `json:",omitempty"`
	Batches    solver.Batches
	Seed       uint64
	RetrX      string `json:",omitempty"`
	RetrY      string `json:",omitempty"`
	Data       string `json:",omitempty"`
}

// finite returns &v, or nil for NaN and ±Inf (JSON has no such numbers).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// outcome is one finished run.
type outcome struct {
	name string // the estimator's name
	est  string // its spec
	hist *history
	res  *solver.Result
	err  error
	sum  summary
}

// runOne runs the instance with one estimator, recording its history.
// The error is the run's (res then holds the best iterates) or a set-up
// error (res nil).
func runOne(ctx context.Context, spec *problems.Spec, in *problems.Instance, o *runFlags, estSpec string, reference bool, progress *progress) (*outcome, error) {
	est, err := o.estimator(in, estSpec)
	if err != nil {
		return nil, err
	}
	h, err := newHistory(in, est, reference)
	if err != nil {
		return nil, err
	}
	set := in.Settings
	set.Estimator, set.Recorder = est, h
	if progress != nil {
		h.progress = progress.bar(fmt.Sprintf("%s %s", spec.Name, est.Name()), set.Epochs)
		defer progress.done()
	}
	r, err := solver.New(in.Problem, &set)
	if err != nil {
		if errors.Is(err, numerr.ErrInvalid) {
			return nil, usagef("%s with %s: %v", spec.Name, est, err)
		}
		return nil, err
	}
	res, runErr := r.Run(ctx, in.X0, in.Y0)
	if res == nil { // a bad start: nothing ran
		return nil, usagef("%s: %v", spec.Name, runErr)
	}
	out := &outcome{name: est.Name(), est: fmt.Sprint(est), hist: h, res: res, err: runErr}
	s := summary{Problem: spec.Name, Describe: in.Describe, Estimator: out.est, Status: res.Status.String(),
		Epochs: res.Stats.Epochs, Seconds: res.Stats.Runtime.Seconds() - h.overhead.Seconds(),
		Objective: finite(res.F), BestObjective: finite(res.BestF), HyperGradNorm: finite(res.HyperGradNorm),
		Backend: info().Backend,
		Settings: summarySettings{Preset: o.preset, EtaX: set.EtaX, EtaY: set.EtaY, InnerIters: set.InnerIters, Epochs: set.Epochs,
			GradTol: set.GradTol, Batches: set.Batches, Seed: set.Seed, RetrX: o.retrX, RetrY: o.retrY, Data: o.data}}
	if set.Runtime > 0 {
		s.Settings.Runtime = set.Runtime.String()
	}
	s.RetractionsRetried = res.Stats.RetractFailures
	if runErr != nil {
		s.Error = runErr.Error()
	}
	if res.Stats.Epochs == 0 { // no epoch finished: there is no last value
		s.Objective, s.HyperGradNorm, s.BestObjective = nil, nil, nil
	}
	if n := len(h.rows); n > 0 {
		s.HyperGradErr = finite(h.rows[n-1].HyperGradErr)
	}
	if in.Accuracy != nil {
		// The accuracy of the iterates the run returns (the best ones when
		// it failed).
		acc, err := in.Accuracy(res.X, res.Y)
		if err != nil {
			return nil, fmt.Errorf("accuracy: %w", err)
		}
		s.Accuracy = finite(acc)
	}
	out.sum = s
	return out, nil
}

// addBaseline runs the instance's baseline into the summary.
func addBaseline(in *problems.Instance, s *summary) error {
	if in.Baseline == nil {
		return nil
	}
	name, acc, err := in.Baseline()
	if err != nil {
		return fmt.Errorf("baseline %s: %w", name, err)
	}
	s.Baseline, s.BaselineAcc = name, finite(acc)
	return nil
}

// runCmd is rhgd run <problem> [flags].
func runCmd(w io.Writer, args []string) error {
	var o runFlags
	var est string
	spec, mk, err := problemFlags(w, "run", args, &o, func(fs *flag.FlagSet) {
		fs.StringVar(&est, "estimator", "cg", `hypergradient estimator: hinv, cg, ns, ad, gda, optionally with settings ("cg:tol=1e-6,maxiter=20")`)
	})
	if err != nil || spec == nil {
		return err
	}
	in, err := o.build(mk)
	if err != nil {
		return asUsage(err)
	}
	dir := o.out
	if dir == "" {
		dir = filepath.Join("out", spec.Name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out, err := runOne(ctx, spec, in, &o, est, true, newProgress(o.quiet))
	if err != nil {
		return err
	}
	if err := addBaseline(in, &out.sum); err != nil {
		return err
	}
	if err := writeRun(dir, out); err != nil {
		return err
	}
	printSummary(w, dir, []*outcome{out})
	if out.err != nil {
		return fmt.Errorf("%s: %w (wrote the run so far to %s)", spec.Name, out.err, dir)
	}
	return nil
}

// writeRun writes history.csv, summary.json and the plots of one run.
func writeRun(dir string, out *outcome) error {
	if err := out.hist.saveCSV(filepath.Join(dir, "history.csv")); err != nil {
		return err
	}
	if err := saveJSON(filepath.Join(dir, "summary.json"), out.sum); err != nil {
		return err
	}
	return plotRun(dir, out)
}

func saveJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// asUsage reports bad data (an invalid argument, a malformed file) as a
// user error.
func asUsage(err error) error {
	var u usageError
	if errors.As(err, &u) || !errors.Is(err, numerr.ErrInvalid) && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return usagef("%v", err)
}

// printSummary prints one line per run.
func printSummary(w io.Writer, dir string, outs []*outcome) {
	fmt.Fprintf(w, "%-32s %-16s %6s %14s %14s %12s %9s %9s\n", "estimator", "status", "epochs", "final f", "‖hypergrad‖", "err vs HINV", "seconds", "accuracy")
	for _, o := range outs {
		s := o.sum
		fmt.Fprintf(w, "%-32s %-16s %6d %14s %14s %12s %9.3f %9s\n", o.est, s.Status, s.Epochs,
			fmtPtr(s.Objective, "%.6g"), fmtPtr(s.HyperGradNorm, "%.3e"), fmtPtr(s.HyperGradErr, "%.2e"), s.Seconds, fmtPtr(s.Accuracy, "%.2f"))
	}
	if s := outs[0].sum; s.Baseline != "" {
		fmt.Fprintf(w, "baseline %s: accuracy %s\n", s.Baseline, fmtPtr(s.BaselineAcc, "%.2f"))
	}
	fmt.Fprintf(w, "wrote %s\n", dir)
}

func fmtPtr(v *float64, format string) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf(format, *v)
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// stderr receives the notes on an instance's data (warnings).
var stderr io.Writer = os.Stderr

// job is one estimator's run of an instance, set up and validated before
// anything is written: a mistake in the command line leaves no output
// directory behind.
type job struct {
	spec *problems.Spec
	in   *problems.Instance
	o    *runFlags
	est  solver.Estimator
	set  solver.Settings // as the run uses them, defaults filled in
	r    *solver.RHGD
	h    *history
	// ck is the run's checkpoint (-checkpoint; nil without), and resumed
	// says that the solver holds its state, which run continues.
	ck      *solver.CheckpointFile
	resumed bool
}

// newJob sets up the instance's run with the estimator estSpec names.
func newJob(spec *problems.Spec, in *problems.Instance, o *runFlags, estSpec string) (*job, error) {
	est, err := o.estimator(in, estSpec)
	if err != nil {
		return nil, err
	}
	h, err := newHistory(in, est, o.hinvError, o.headToHead)
	if err != nil {
		return nil, asUsage(err)
	}
	set := in.Settings
	set.Estimator, set.Recorder = est, h
	var ck *solver.CheckpointFile
	if o.checkpoint != "" {
		ck = &solver.CheckpointFile{Path: filepath.Join(o.checkpoint, checkpointName), Every: o.checkpointEvery,
			Problem: o.problemDesc(spec, in), App: h.marshal}
		set.Checkpoint = ck
	}
	bad := func(err error) error {
		if errors.Is(err, numerr.ErrInvalid) {
			return usagef("%s with %s: %v", spec.Name, est, err)
		}
		return err
	}
	r, err := solver.New(in.Problem, &set)
	if err != nil {
		return nil, bad(err)
	}
	if err := r.Reset(in.X0, in.Y0); err != nil { // a bad start
		return nil, bad(err)
	}
	eff, err := set.WithDefaults()
	if err != nil { // New accepted them
		return nil, err
	}
	return &job{spec: spec, in: in, o: o, est: est, set: eff, r: r, h: h, ck: ck}, nil
}

// outcome is one finished run.
type outcome struct {
	name string // the estimator's name
	est  string // its spec
	hist *history
	res  *solver.Result
	err  error // the run's
	sum  summary
	// mx and my give the iterates' shapes (iterates.npz).
	mx, my solver.Manifold
}

// run runs the job from the instance's start, or from its checkpoint
// when resumed. The outcome's err is the run's (res then holds the best
// iterates); the error returned is a failure to measure the result.
func (j *job) run(ctx context.Context, progress *progress) (*outcome, error) {
	if progress != nil {
		j.h.progress = progress.bar(fmt.Sprintf("%s %s", j.spec.Name, j.est.Name()), j.set.Epochs)
		defer progress.done()
	}
	var res *solver.Result
	var runErr error
	if j.resumed {
		res, runErr = j.r.Resume(ctx)
	} else {
		res, runErr = j.r.Run(ctx, j.in.X0, j.in.Y0)
	}
	if res == nil { // the start, which newJob checked
		return nil, fmt.Errorf("%s: %w", j.spec.Name, runErr)
	}
	out := &outcome{name: j.est.Name(), est: fmt.Sprint(j.est), hist: j.h, res: res, err: runErr,
		mx: j.in.Problem.Mx, my: j.in.Problem.My}
	s := summary{Problem: j.spec.Name, Describe: j.in.Describe, Notes: j.in.Notes, Estimator: out.est,
		Settings: newSettings(j.set, j.in, j.o), ProblemFlags: j.o.problemFlags(),
		Status: res.Status.String(), Epochs: res.Stats.Epochs,
		Seconds: res.Stats.Runtime.Seconds(), MeasureSeconds: j.h.overhead.Seconds(),
		Objective: finite(res.F), BestObjective: finite(res.BestF), HyperGradNorm: finite(res.HyperGradNorm),
		Backend: info().Backend, RetractionsRetried: res.Stats.RetractFailures, Oracles: newOracles(&res.Stats)}
	if j.o.headToHead {
		s.Target = j.h.reach(headToHeadTol)
	}
	if runErr != nil {
		s.Error = runErr.Error()
	}
	if res.Stats.Epochs == 0 { // no epoch finished: there is no last value
		s.Objective, s.HyperGradNorm, s.BestObjective = nil, nil, nil
	}
	if n := len(j.h.rows); n > 0 {
		s.HyperGradErr = finite(j.h.rows[n-1].HyperGradErr)
	}
	if j.in.Accuracy != nil {
		// The accuracy of the iterates the run returns (the best ones when
		// it failed).
		acc, err := j.in.Accuracy(res.X, res.Y)
		if err != nil {
			return nil, fmt.Errorf("accuracy: %w", err)
		}
		s.Accuracy = finite(acc)
	}
	out.sum = s
	return out, nil
}

// baseline returns the instance's baseline accuracy for the summaries,
// or nothing when it has none.
func baseline(in *problems.Instance) (name string, acc *float64, err error) {
	if in.Baseline == nil {
		return "", nil, nil
	}
	name, a, err := in.Baseline()
	if err != nil {
		return "", nil, fmt.Errorf("baseline %s: %w", name, err)
	}
	return name, finite(a), nil
}

// prepare builds the instance of a run or compare and prints its notes.
func prepare(o *runFlags, mk func(problems.Options) (*problems.Instance, error)) (*problems.Instance, error) {
	in, err := o.build(mk)
	if err != nil {
		return nil, asUsage(err)
	}
	for _, n := range in.Notes {
		fmt.Fprintf(stderr, "rhgd: note: %s\n", n)
	}
	return in, nil
}

// outDir is the output directory of a command.
func outDir(o *runFlags, spec *problems.Spec) string {
	if o.out != "" {
		return o.out
	}
	return filepath.Join("out", spec.Name)
}

// runCmd is rhgd run <problem> [flags].
func runCmd(w io.Writer, args []string) error {
	var o runFlags
	var est string
	spec, mk, err := problemFlags(w, "run", args, &o, func(fs *flag.FlagSet) {
		fs.StringVar(&est, "estimator", "cg", estimatorUsage("hypergradient estimator"))
		o.registerCheckpoint(fs)
	})
	if err != nil || spec == nil {
		return err
	}
	if err := o.checkCheckpoint(); err != nil {
		return err
	}
	in, err := prepare(&o, mk)
	if err != nil {
		return err
	}
	j, err := newJob(spec, in, &o, est)
	if err != nil {
		return err
	}
	if err := o.checkUsed([]solver.Estimator{j.est}); err != nil {
		return err
	}
	if j.ck != nil {
		if err := j.resume(); err != nil {
			return err
		}
	}
	dir := outDir(&o, spec)
	// Ctrl-C and SIGTERM stop the run after its epoch: it writes its
	// checkpoint, then the history, summary and iterates.
	ctx, signalled, stop := stopSignals()
	defer stop()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	out, err := j.run(ctx, newProgress(o.quiet))
	if err != nil {
		return err
	}
	if ctx.Err() == nil {
		if out.sum.Baseline, out.sum.BaselineAcc, err = baseline(in); err != nil {
			return err
		}
	}
	if err := writeRun(dir, out); err != nil {
		return err
	}
	printSummary(w, dir, []*outcome{out})
	switch sig := signalled(); {
	case sig != nil && j.ck != nil:
		return fmt.Errorf("%w: wrote the run so far to %s and its checkpoint to %s (run the same command to resume)", sig, dir, j.ck.Path)
	case sig != nil:
		return fmt.Errorf("%w: wrote the run so far to %s", sig, dir)
	case out.err != nil:
		return fmt.Errorf("%s: %w (wrote the run so far to %s)", spec.Name, out.err, dir)
	}
	return nil
}

// writeRun writes history.csv, summary.json, iterates.npz and the plots
// of one run.
func writeRun(dir string, out *outcome) error {
	if err := out.hist.saveCSV(filepath.Join(dir, "history.csv")); err != nil {
		return err
	}
	if err := saveJSON(filepath.Join(dir, "summary.json"), out.sum); err != nil {
		return err
	}
	if err := saveIterates(filepath.Join(dir, "iterates.npz"), out); err != nil {
		return err
	}
	return plotRun(dir, out)
}

// saveIterates writes the run's final and best iterates (x, y, best_x,
// best_y), shaped as the manifolds' points where they are matrices.
func saveIterates(path string, out *outcome) error {
	shape := func(m solver.Manifold) []int {
		if d, ok := m.(interface{ Dims() (int, int) }); ok {
			r, c := d.Dims()
			if r*c == m.Len() {
				return []int{r, c}
			}
		}
		return nil
	}
	sx, sy := shape(out.mx), shape(out.my)
	r := out.res
	return problems.WriteNPZ(path, map[string][]float64{"x": r.X, "y": r.Y, "best_x": r.BestX, "best_y": r.BestY},
		map[string][]int{"x": sx, "y": sy, "best_x": sx, "best_y": sy})
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

// printSummary prints one line per run; the columns of the error against
// HINV and of the accuracy only when some run has them.
func printSummary(w io.Writer, dir string, outs []*outcome) {
	var hasErr, hasAcc bool
	for _, o := range outs {
		hasErr = hasErr || o.hist.measured()
		hasAcc = hasAcc || o.sum.Accuracy != nil
	}
	var head strings.Builder
	fmt.Fprintf(&head, "%-32s %-16s %6s %14s %14s", "estimator", "status", "epochs", "final f", "‖hypergrad‖")
	if hasErr {
		fmt.Fprintf(&head, " %12s", "err vs HINV")
	}
	fmt.Fprintf(&head, " %9s", "solver s")
	if hasAcc {
		fmt.Fprintf(&head, " %9s", "accuracy")
	}
	fmt.Fprintln(w, head.String())
	for _, o := range outs {
		s := o.sum
		fmt.Fprintf(w, "%-32s %-16s %6d %14s %14s", o.est, s.Status, s.Epochs, fmtPtr(s.Objective, "%.6g"), fmtPtr(s.HyperGradNorm, "%.3e"))
		if hasErr {
			fmt.Fprintf(w, " %12s", fmtPtr(s.HyperGradErr, "%.2e"))
		}
		fmt.Fprintf(w, " %9.3f", s.Seconds-s.MeasureSeconds) // measuring excluded, as in headtohead.md
		if hasAcc {
			fmt.Fprintf(w, " %9s", fmtPtr(s.Accuracy, "%.2f"))
		}
		fmt.Fprintln(w)
	}
	if len(outs) > 0 && outs[0].sum.Baseline != "" {
		s := outs[0].sum
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

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// compareCmd is rhgd compare <problem> [flags]: the estimators on the same
// data, one after the other, with the paper's Figure 1 panels. Each run's
// history.csv and summary.json go to a directory of its own, named after
// the estimator, and the list of summaries, the figures and the
// head-to-head table (headtohead.md, writeHeadToHead) to the output
// directory. Each run also records its true hypergradient's norm where
// the problem has one (trueHyperGrad).
func compareCmd(w io.Writer, args []string) error {
	var o runFlags
	var list string
	spec, mk, err := problemFlags(w, "compare", args, &o, func(fs *flag.FlagSet) {
		fs.StringVar(&list, "estimators", "", estimatorUsage(`estimators to run, comma-separated ("hinv,cg:tol=1e-6,maxiter=20,ns"); default: every one the problem has paper settings for`))
	})
	if err != nil || spec == nil {
		return err
	}
	in, err := prepare(&o, mk)
	if err != nil {
		return err
	}
	var names []string
	if list == "" {
		for _, n := range solver.EstimatorNames() {
			if _, ok := in.Estimators[n]; !ok {
				continue
			}
			if why := cannotRun(in, &o, n); why != nil {
				fmt.Fprintf(w, "compare %s: leaving out %s under -preset %s: %v\n", spec.Name, n, o.preset, why)
				continue
			}
			names = append(names, n)
		}
	} else {
		names = splitEstimators(list)
	}
	if len(names) == 0 {
		return usagef("compare %s: no estimators to run", spec.Name)
	}
	o.headToHead = true
	var jobs []*job
	var ests []solver.Estimator
	for _, name := range names {
		j, err := newJob(spec, in, &o, name)
		if err != nil {
			return err
		}
		jobs, ests = append(jobs, j), append(ests, j.est)
	}
	if err := o.checkUsed(ests); err != nil {
		return err
	}
	labels := runLabels(ests)

	dir := outDir(&o, spec)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s := jobs[0].set
	fmt.Fprintf(w, "rhgd compare %s: %s\n", spec.Name, in.Describe)
	fmt.Fprintf(w, "η_x = %g, η_y = %g, S = %d, %d epochs, preset %s, backend %s\n\n", s.EtaX, s.EtaY, s.InnerIters, s.Epochs, o.preset, info().Backend)
	prog := newProgress(o.quiet)
	var outs []*outcome
	var failed []string
	for i, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		out, err := j.run(ctx, prog)
		if err != nil {
			return err
		}
		out.name = labels[i]
		outs = append(outs, out)
		if out.err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", out.est, out.err))
		}
		sub := filepath.Join(dir, labels[i])
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		if err := out.hist.saveCSV(filepath.Join(sub, "history.csv")); err != nil {
			return err
		}
	}
	var bname string
	var bacc *float64
	if ctx.Err() == nil {
		if bname, bacc, err = baseline(in); err != nil {
			return err
		}
	}
	var sums []summary
	for i, out := range outs {
		out.sum.Baseline, out.sum.BaselineAcc = bname, bacc
		if err := saveJSON(filepath.Join(dir, labels[i], "summary.json"), out.sum); err != nil {
			return err
		}
		sums = append(sums, out.sum)
	}
	if err := saveJSON(filepath.Join(dir, "summary.json"), sums); err != nil {
		return err
	}
	if err := plotCompare(dir, outs); err != nil {
		return err
	}
	if err := saveHeadToHead(filepath.Join(dir, "headtohead.md"), outs); err != nil {
		return err
	}
	printSummary(w, dir, outs)
	fmt.Fprintf(w, "head to head (time to 1e-3 of the true hypergradient, oracle counts by kind): %s\n", filepath.Join(dir, "headtohead.md"))
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%w: wrote the runs so far to %s", errInterrupted, dir)
	case len(failed) > 0:
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}

// runLabels names the estimators' output directories: the estimator's
// name, numbered from the second run of the same name on ("cg", "cg-2").
func runLabels(ests []solver.Estimator) []string {
	seen := map[string]int{}
	out := make([]string, len(ests))
	for i, e := range ests {
		n := e.Name()
		seen[n]++
		out[i] = n
		if seen[n] > 1 {
			out[i] = n + "-" + strconv.Itoa(seen[n])
		}
	}
	return out
}

// cannotRun returns why the settings reject the named estimator (AD
// differentiates the paper's fixed lower steps, which -preset adaptive
// replaces), or nil; the run reports every other error.
func cannotRun(in *problems.Instance, o *runFlags, name string) error {
	est, err := o.estimator(in, name)
	if err != nil {
		return nil
	}
	set := in.Settings
	set.Estimator = est
	if _, err := solver.New(in.Problem, &set); errors.Is(err, solver.ErrBadSetting) {
		return err
	}
	return nil
}

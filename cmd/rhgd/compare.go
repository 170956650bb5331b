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
	"strings"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// compareCmd is rhgd compare <problem> [flags]: the estimators on the same
// data, one after the other, with the paper's Figure 1 panels.
func compareCmd(w io.Writer, args []string) error {
	var o runFlags
	var list string
	spec, mk, err := problemFlags(w, "compare", args, &o, func(fs *flag.FlagSet) {
		fs.StringVar(&list, "estimators", "", "comma-separated estimators to run (default: every one the problem has paper settings for)")
	})
	if err != nil || spec == nil {
		return err
	}
	in, err := o.build(mk)
	if err != nil {
		return asUsage(err)
	}
	var names []string
	if list == "" {
		for _, n := range []string{"hinv", "cg", "ns", "ad", "gda"} {
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
		names = strings.Split(list, ",")
	}
	if len(names) == 0 {
		return usagef("compare %s: no estimators to run", spec.Name)
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
	fmt.Fprintf(w, "rhgd compare %s: %s\n", spec.Name, in.Describe)
	fmt.Fprintf(w, "η_x = %g, η_y = %g, S = %d, %d epochs, backend %s\n\n", in.Settings.EtaX, in.Settings.EtaY, in.Settings.InnerIters, in.Settings.Epochs, info().Backend)
	prog := newProgress(o.quiet)
	var outs []*outcome
	var failed []string
	for _, name := range names {
		out, err := runOne(ctx, spec, in, &o, strings.TrimSpace(name), true, prog)
		if err != nil {
			return err
		}
		outs = append(outs, out)
		if out.err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", out.est, out.err))
		}
		if err := out.hist.saveCSV(filepath.Join(dir, "history-"+out.name+".csv")); err != nil {
			return err
		}
	}
	var sums []summary
	for _, o := range outs {
		if err := addBaseline(in, &o.sum); err != nil {
			return err
		}
		sums = append(sums, o.sum)
	}
	if err := saveJSON(filepath.Join(dir, "summary.json"), sums); err != nil {
		return err
	}
	if err := plotCompare(dir, outs); err != nil {
		return err
	}
	printSummary(w, dir, outs)
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
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

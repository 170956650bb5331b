// Command rhgd runs rhgd's demos and reports its numerical backend.
//
//	rhgd run <problem>     run RHGD on a ready-made problem; write history, summary, plots
//	rhgd compare <problem> run the estimators side by side (the paper's Figure 1)
//	rhgd info              print the BLAS/LAPACK backend, CPU and threads as JSON
//	rhgd kernels           run the matrix-function kernels with independent checks
//	rhgd tune              measure where OpenBLAS's threads pay off here; save the profile
//
// Help (-h) goes to standard output with exit status 0; a user error (an
// unknown command, flag or argument, a bad setting) is one line on
// standard error with exit status 2; a failure of the work itself exits
// with 1, an interrupt (Ctrl-C) with 130 and SIGTERM with 143, after
// writing what the run has (and its checkpoint, with -checkpoint).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/numerr"
)

func main() {
	// The backend is set up first, so that a bad RHGD_BLAS, RHGD_THREADS or
	// RHGD_SHARED stops the program with a message instead of a warning.
	cfg, err := blas.ConfigFromEnv(blas.Config{})
	if err == nil {
		err = blas.Init(cfg)
	}
	if err == nil {
		err = run(os.Args[1:], os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rhgd:", numerr.Render(err, cliSpell))
		os.Exit(exitCode(err))
	}
}

// exitCode is the exit status for err: 2 for a user error, 130 (the
// shell's 128 + SIGINT) for an interrupt, 143 (128 + SIGTERM) for a
// termination, 1 for anything else.
func exitCode(err error) int {
	var u usageError
	switch {
	case errors.As(err, &u) || errors.Is(err, blas.ErrBadSetting):
		return 2
	case errors.Is(err, errInterrupted):
		return 130
	case errors.Is(err, errTerminated):
		return 143
	}
	return 1
}

// errInterrupted signifies a run stopped by an interrupt (Ctrl-C).
var errInterrupted = errors.New("interrupted")

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg + " (rhgd -h for help)" }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// run runs the command line args, writing results and help to w.
func run(args []string, w io.Writer) error {
	if len(args) == 0 {
		return usagef("no command")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(w, usageText)
		return nil
	case "info":
		var cores, core bool
		fs, err := parse(w, "info", args[1:], func(fs *flag.FlagSet) {
			fs.BoolVar(&core, "core", false, "print only the OpenBLAS kernel set in use")
			fs.BoolVar(&cores, "cores", false, "print only the OpenBLAS kernel sets this CPU can execute (values of OPENBLAS_CORETYPE)")
		})
		if err != nil || fs == nil {
			return err
		}
		inf := info()
		switch {
		case core:
			fmt.Fprintln(w, inf.Core)
			return nil
		case cores:
			fmt.Fprintln(w, strings.Join(inf.RunnableCores, " "))
			return nil
		}
		b, err := json.MarshalIndent(inf, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
		return nil
	case "run":
		return runCmd(w, args[1:])
	case "compare":
		return compareCmd(w, args[1:])
	case "tune":
		return tuneCmd(w, args[1:])
	case "kernels":
		if fs, err := parse(w, "kernels", args[1:]); err != nil || fs == nil {
			return err
		}
		return kernels(w)
	}
	return usagef("unknown command %q", args[0])
}

// parse parses a command's flags, declared by the setup functions, and
// rejects positional arguments and non-finite numbers. On -h it prints the
// command's help to w and returns a nil FlagSet and a nil error.
func parse(w io.Writer, name string, args []string, setup ...func(*flag.FlagSet)) (*flag.FlagSet, error) {
	return parseHelp(w, name, args, nil, setup...)
}

// parseHelp is parse with a function that, on -h, may complete the flags'
// defaults and usage before they are printed.
func parseHelp(w io.Writer, name string, args []string, beforeHelp func(*flag.FlagSet), setup ...func(*flag.FlagSet)) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by main
	for _, f := range setup {
		f(fs)
	}
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		if beforeHelp != nil {
			beforeHelp(fs)
		}
		fmt.Fprintf(w, "usage: rhgd %s", name)
		fs.VisitAll(func(f *flag.Flag) { fmt.Fprintf(w, " [-%s %s]", f.Name, f.DefValue) })
		fmt.Fprintln(w)
		fs.SetOutput(w)
		fs.PrintDefaults()
		return nil, nil
	case err != nil:
		return nil, usagef("%s: %v", name, err)
	case fs.NArg() > 0:
		return nil, usagef("%s: unexpected argument %q", name, fs.Arg(0))
	}
	if err := finiteFloats(fs); err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	return fs, nil
}

// finiteFloats rejects a float flag given as NaN or ±Inf, which
// strconv.ParseFloat, and so the flag package, accepts: no setting of
// rhgd takes them, and a NaN would pass every range check unnoticed.
func finiteFloats(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok || err != nil {
			return
		}
		if v, ok := g.Get().(float64); ok && (math.IsNaN(v) || math.IsInf(v, 0)) {
			err = fmt.Errorf("-%s %v: want a finite number", f.Name, v)
		}
	})
	return err
}

const usageText = `usage: rhgd <command> [flags]

commands:
  run       run RHGD on one of the ready-made problems and write history.csv,
            summary.json and plots (rhgd run <problem> -h for its flags)
  compare   run the estimators on one problem and draw the paper's Figure 1 panels
            (make demo: rhgd compare synthetic)
  info      print the numerical backend (BLAS/LAPACK, kernel set, CPU features, threads)
            as JSON; -core prints the kernel set alone, -cores the ones the CPU runs
  kernels   run the matrix-function kernels with independent checks of each
  tune      measure from which order each BLAS/LAPACK call gains from all threads on this
            machine, quiet and beside a busy thread, and save the profile rhgd then uses
            (a few minutes; -quick about one; rhgd info shows the table in use)

rhgd <command> -h describes a command's flags.

environment:
  RHGD_BLAS=auto|openblas|gonum   the backend (default: openblas when built with cgo)
  RHGD_THREADS=N                  OpenBLAS threads for the calls that gain from them (default: physical cores)
  RHGD_SHARED=1                   leave OpenBLAS's kernel set and threads as the process has them
  RHGD_PROFILE=path|off           the thread profile rhgd tune writes (default: $XDG_CACHE_HOME/rhgd/threads.json)
`

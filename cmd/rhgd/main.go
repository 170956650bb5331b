// Command rhgd runs rhgd's demos and reports its numerical backend.
//
//	rhgd run <problem>     run RHGD on a ready-made problem; write history, summary, plots
//	rhgd compare <problem> run the estimators side by side (the paper's Figure 1)
//	rhgd info              print the BLAS/LAPACK backend, CPU and threads as JSON
//	rhgd demo [-epochs K]  run RHGD on the paper's synthetic problem with each estimator
//	rhgd kernels           run the matrix-function kernels with independent checks
//
// Help (-h) goes to standard output with exit status 0; a user error (an
// unknown command, flag or argument, a bad setting) is one line on
// standard error with exit status 2; a failure of the work itself exits
// with 1.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rhgd/rhgd/blas"
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
		fmt.Fprintln(os.Stderr, "rhgd:", flagNames.Replace(err.Error()))
		var u usageError
		if errors.As(err, &u) || errors.Is(err, blas.ErrBadSetting) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

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
		if _, err := parse(w, "info", args[1:]); err != nil {
			return err
		}
		b, err := json.MarshalIndent(info(), "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
		return nil
	case "demo":
		var epochs int
		fs, err := parse(w, "demo", args[1:], func(fs *flag.FlagSet) {
			fs.IntVar(&epochs, "epochs", 200, "epochs per estimator")
		})
		if err != nil || fs == nil {
			return err
		}
		if epochs < 1 {
			return usagef("demo: -epochs must be positive, have %d", epochs)
		}
		return demo(w, epochs)
	case "run":
		return runCmd(w, args[1:])
	case "compare":
		return compareCmd(w, args[1:])
	case "kernels":
		if fs, err := parse(w, "kernels", args[1:]); err != nil || fs == nil {
			return err
		}
		return kernels(w)
	}
	return usagef("unknown command %q", args[0])
}

// parse parses a command's flags, declared by the setup functions, and
// rejects positional arguments. On -h it prints the command's help to w
// and returns a nil FlagSet and a nil error.
func parse(w io.Writer, name string, args []string, setup ...func(*flag.FlagSet)) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by main
	for _, f := range setup {
		f(fs)
	}
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
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
	return fs, nil
}

const usageText = `usage: rhgd <command> [flags]

commands:
  run       run RHGD on one of the ready-made problems and write history.csv,
            summary.json and plots (rhgd run <problem> -h for its flags)
  compare   run the estimators on one problem and draw the paper's Figure 1 panels
  info      print the numerical backend (BLAS/LAPACK, CPU features, threads) as JSON
  demo      run RHGD on the paper's synthetic problem with the HINV, CG, NS and AD
            estimators (-epochs K, default 200) and print a table of the results
  kernels   run the matrix-function kernels with independent checks of each

rhgd <command> -h describes a command's flags.

environment:
  RHGD_BLAS=auto|openblas|gonum   the backend (default: openblas when built with cgo)
  RHGD_THREADS=N                  OpenBLAS thread count (default: physical cores)
  RHGD_SHARED=1                   leave OpenBLAS's kernel set and threads as the process has them
`

// Command rhgd runs rhgd's demos and reports its numerical backend.
//
//	rhgd info              print the BLAS/LAPACK backend, CPU and threads as JSON
//	rhgd demo [-epochs K]  run RHGD on the paper's synthetic problem with each estimator
//	rhgd kernels           run the matrix-function kernels with independent checks
package main

import (
	"encoding/json"
	"flag"
	"fmt"
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
	if err != nil {
		fmt.Fprintln(os.Stderr, "rhgd:", err)
		os.Exit(2)
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "rhgd:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		usage()
		return fmt.Errorf("no command")
	}
	switch args[0] {
	case "info":
		b, err := json.MarshalIndent(info(), "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(b))
		return nil
	case "demo":
		fs := flag.NewFlagSet("demo", flag.ContinueOnError)
		epochs := fs.Int("epochs", 200, "epochs per estimator")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *epochs < 1 {
			return fmt.Errorf("demo: -epochs must be positive, have %d", *epochs)
		}
		return demo(os.Stdout, *epochs)
	case "kernels":
		return kernels(os.Stdout)
	case "help", "-h", "--help":
		usage()
		return nil
	}
	usage()
	return fmt.Errorf("unknown command %q", args[0])
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage: rhgd <command>

commands:
  info      print the numerical backend (BLAS/LAPACK, CPU features, threads) as JSON
  demo      run RHGD on the paper's synthetic problem with the HINV, CG, NS and AD
            estimators (-epochs K, default 200) and print a table of the results
  kernels   run the matrix-function kernels with independent checks of each

environment:
  RHGD_BLAS=openblas|gonum   choose the backend (default: openblas when built with cgo)
  RHGD_THREADS=N             OpenBLAS thread count (default: physical cores)
  RHGD_SHARED=1              leave OpenBLAS's kernel set and threads as the process has them`)
}

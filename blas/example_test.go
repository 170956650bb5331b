package blas_test

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rhgd/rhgd/blas"
)

// A program that wants rhgd to own the process's numerical set-up (tuned
// OpenBLAS kernels and threads, rhgd's BLAS under gonum/mat) asks once,
// first thing, with the settings from the environment; a library user who
// does not ask keeps its own blas64 and thread count.
func ExampleInit() {
	cfg, err := blas.ConfigFromEnv(blas.Config{})
	if err == nil {
		err = blas.Init(cfg)
	}
	if err != nil {
		fmt.Println("rhgd:", err)
		return
	}
	fmt.Println(blas.Impl() == blas64.Implementation())
	// Output: true
}

// Package blastest holds the TestMain of test binaries that must run as
// the rhgd command does, with the backend set up by blas.Init.
package blastest

import (
	"fmt"
	"os"
	"testing"

	"github.com/rhgd/rhgd/blas"
)

// Main runs m after blas.Init with the environment's configuration
// (RHGD_BLAS still picks the backend), as the rhgd command does: gonum's
// LAPACK routines, which reach BLAS only through blas64, then call rhgd's
// implementation too. On the pure-Go backend that is GoBLAS, whose Dgemm
// allocates nothing; gonum's own starts goroutines on large products, and
// zero-allocation tests would count them. A bad environment exits 2.
func Main(m *testing.M) {
	cfg, err := blas.ConfigFromEnv(blas.Config{})
	if err == nil {
		err = blas.Init(cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

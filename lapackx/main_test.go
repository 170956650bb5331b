package lapackx

import (
	"fmt"
	"os"
	"testing"

	"github.com/rhgd/rhgd/blas"
)

// TestMain runs the tests as a program that calls blas.Init does (and as
// rhgd did on first use before the start-up policy of blas's package doc):
// gonum's LAPACK routines, which reach BLAS only through blas64, then call
// rhgd's implementation too. On the pure-Go backend that is GoBLAS, whose
// Dgemm allocates nothing; gonum's own starts goroutines on large
// products, and TestZeroAllocs would count them. RHGD_BLAS still picks the
// backend, as for `rhgd`.
func TestMain(m *testing.M) {
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

package synthetic_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/rhgd/rhgd/blas"
)

// TestMain runs the tests as a program that calls blas.Init does: gonum's
// LAPACK routines, which reach BLAS only through blas64, then call rhgd's
// implementation too. On the pure-Go backend that is GoBLAS, whose Dgemm
// allocates nothing; gonum's own starts goroutines on large products (in
// Dsyev's Dorgtr at d = 200), and TestEpochAllocsScaled would count them.
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

package coupling_test

import (
	"fmt"
	"os"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/coupling"
)

// TestMain checks, before any test runs, that importing rhgd's packages
// sets nothing up, and that a program whose first rhgd call is coupling's
// constructor computes on rhgd's backend, not gonum's reference BLAS,
// while gonum's blas64 stays the program's (blas's package doc).
func TestMain(m *testing.M) {
	if _, ok := blas64.Implementation().(gonum.Implementation); !ok {
		fmt.Fprintf(os.Stderr, "the BLAS backend changed at import time: %T\n", blas64.Implementation())
		os.Exit(1)
	}
	if _, err := coupling.New([]float64{1, 1}, []float64{2}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, ok := blas.Impl().(gonum.Implementation); ok {
		fmt.Fprintln(os.Stderr, "coupling computes on gonum's reference BLAS, not rhgd's backend")
		os.Exit(1)
	}
	if _, ok := blas64.Implementation().(gonum.Implementation); !ok {
		fmt.Fprintf(os.Stderr, "coupling.New replaced the program's blas64 with %T\n", blas64.Implementation())
		os.Exit(1)
	}
	os.Exit(m.Run())
}

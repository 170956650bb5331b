package lapackx

import (
	"testing"

	"github.com/rhgd/rhgd/internal/blastest"
)

// TestMain runs the tests as rhgd runs, after blas.Init: TestZeroAllocs
// counts the gonum LAPACK routines' BLAS calls, allocation-free only on
// rhgd's implementation.
func TestMain(m *testing.M) { blastest.Main(m) }

package synthetic_test

import (
	"testing"

	"github.com/rhgd/rhgd/internal/blastest"
)

// TestMain runs the tests as rhgd runs, after blas.Init: on the pure-Go
// backend gonum's LAPACK (Dsyev's Dorgtr at d = 200) would otherwise reach
// gonum's own goroutine-starting Dgemm, and TestEpochAllocsScaled would
// count its allocations.
func TestMain(m *testing.M) { blastest.Main(m) }

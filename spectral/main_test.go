package spectral

import (
	"testing"

	"github.com/rhgd/rhgd/internal/blastest"
)

// TestMain runs the tests as rhgd runs, after blas.Init: on the pure-Go
// backend gonum's LAPACK (Batch's LAPACK path) then calls rhgd's GoBLAS,
// whose Dgemm allocates nothing, and not gonum's global one, which starts
// goroutines on large products (TestAllocsEveryPath at n = 140).
func TestMain(m *testing.M) { blastest.Main(m) }

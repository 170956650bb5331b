package lapackx

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/blas"
)

// TestLapackWindows: a LAPACK call runs on all threads from its kind's
// order in blas's table in use (blas's tests check the table itself) and
// on one below; Never keeps it on one at every order.
func TestLapackWindows(t *testing.T) {
	require.False(t, threaded(1023, 1024))
	require.True(t, threaded(1024, 1024))
	require.False(t, threaded(1<<30, blas.Never))
	for _, c := range []blas.Call{blas.CallPotrf, blas.CallPotri, blas.CallGetrf, blas.CallSygst, blas.CallSyevd, blas.CallQR, blas.CallGees} {
		require.Equal(t, blas.Order, c.Measure(), "%s is bounded by its order", c)
	}
}

// TestSquareOrder: a rectangular factorization counts as the square one of
// the same work, m·n·min(m, n).
func TestSquareOrder(t *testing.T) {
	require.Equal(t, 1000, squareOrder(1000, 1000))
	require.Equal(t, 271, squareOrder(2000, 100)) // ∛(2·10⁷) = 271.4
	require.Equal(t, squareOrder(2000, 100), squareOrder(100, 2000))
	require.Equal(t, 0, squareOrder(0, 5))
}

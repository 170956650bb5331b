package lapackx

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLapackWindows: LAPACK calls run on one OpenBLAS thread at the orders
// of rhgd's problems, where threaded LAPACK loses badly beside busy
// processes (backend_native.go has the table), and on all threads only
// where they win clearly on a quiet machine and keep up beside busy ones.
func TestLapackWindows(t *testing.T) {
	for _, c := range []struct {
		name     string
		order    int
		from     int
		threaded bool
	}{
		// Domain adaptation's SPD(128) and the synthetic problem at d = 1000.
		{"dpotrf 128", 128, potrfThreadsFrom, false},
		{"dpotrf 1000", 1000, potrfThreadsFrom, false},
		{"dsyevd 1000", 1000, eigThreadsFrom, false},
		{"dpotri 1000", 1000, potriThreadsFrom, false},
		{"dsygst 1000", 1000, sygstThreadsFrom, false},
		// Stiefel(2000, 100)'s QR.
		{"QR 2000×100", squareOrder(2000, 100), qrThreadsFrom, false},
		{"dgees 500", 500, schurThreadsFrom, false},
		// The largest orders measured: dpotrf still loses badly there,
		// dgetrf and dsygst qualify.
		{"dpotrf 3072", 3072, potrfThreadsFrom, false},
		{"dgetrf 2048", 2048, getrfThreadsFrom, false},
		{"dgetrf 3072", 3072, getrfThreadsFrom, true},
		{"dsygst 2048", 2048, sygstThreadsFrom, false},
		{"dsygst 3072", 3072, sygstThreadsFrom, true},
	} {
		require.Equal(t, c.threaded, threaded(c.order, c.from), c.name)
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

package manifold_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/manifold"
)

// TestCheckLen: slices of length n pass, without allocating; any other
// length panics with the message given.
func TestCheckLen(t *testing.T) {
	a, b := make([]float64, 3), make([]float64, 3)
	require.NotPanics(t, func() { manifold.CheckLen("m: dimension mismatch", 3, a, b) })
	require.NotPanics(t, func() { manifold.CheckLen("m: dimension mismatch", 3) })
	require.PanicsWithValue(t, "m: dimension mismatch", func() { manifold.CheckLen("m: dimension mismatch", 3, a, b[:2]) })
	require.PanicsWithValue(t, "m: dimension mismatch", func() { manifold.CheckLen("m: dimension mismatch", 3, nil) })
	if !race.Enabled {
		require.Zero(t, testing.AllocsPerRun(10, func() { manifold.CheckLen("m: dimension mismatch", 3, a, b, a) }))
	}
}

package manifold_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/manifold"
)

// TestSnapped: an accepted point is copied and done; the error snapping
// corrects (wrapped too) leaves the work to the caller, dst untouched;
// any other error is returned, done.
func TestSnapped(t *testing.T) {
	fixable, other := errors.New("fixable"), errors.New("other")
	x := []float64{1, 2}
	dst := make([]float64, 2)
	done, err := manifold.Snapped(dst, x, nil, fixable)
	require.True(t, done)
	require.NoError(t, err)
	require.Equal(t, x, dst)

	dst = make([]float64, 2)
	done, err = manifold.Snapped(dst, x, fmt.Errorf("m: %w", fixable), fixable)
	require.False(t, done)
	require.NoError(t, err)
	require.Equal(t, []float64{0, 0}, dst)

	done, err = manifold.Snapped(dst, x, other, fixable)
	require.True(t, done)
	require.ErrorIs(t, err, other)
	require.Equal(t, []float64{0, 0}, dst)
}

package allocs

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
)

var sink []byte

// TestSteady: an allocation on every call is counted; none is zero.
func TestSteady(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	require.GreaterOrEqual(t, Steady(5, func() { sink = make([]byte, 64) }), 1.0)
	buf := make([]byte, 64)
	require.Zero(t, Steady(5, func() { sink = buf[:32] }))
}

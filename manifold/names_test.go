package manifold_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/manifold"
)

// TestEnumNames: EnumName reads the table and names what it lacks;
// ParseName reads names and aliases case-insensitively and lists the
// names in its error.
func TestEnumNames(t *testing.T) {
	names := []string{"qr", "polar", "exp"}
	require.Equal(t, "polar", manifold.EnumName(names, "Retraction", 1))
	require.Equal(t, "Retraction(3)", manifold.EnumName(names, "Retraction", 3))
	require.Equal(t, "Retraction(-1)", manifold.EnumName(names, "Retraction", -1))
	aliases := map[string]int{"exponential": 2}
	for name, want := range map[string]int{"qr": 0, " Polar ": 1, "EXP": 2, "Exponential": 2} {
		v, err := manifold.ParseName("m: unknown retraction", name, names, aliases)
		require.NoError(t, err, name)
		require.Equal(t, want, v, name)
	}
	_, err := manifold.ParseName("m: unknown retraction", "cayley", names, aliases)
	require.EqualError(t, err, `m: unknown retraction "cayley" (want qr, polar or exp)`)
	_, err = manifold.ParseName("m: unknown transport", "x", []string{"identity", "parallel"}, nil)
	require.EqualError(t, err, `m: unknown transport "x" (want identity or parallel)`)
	_, err = manifold.ParseName("m: unknown method", "x", []string{"only"}, nil)
	require.EqualError(t, err, `m: unknown method "x" (want only)`)
}

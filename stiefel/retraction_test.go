package stiefel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/stiefel"
)

func TestParseRetraction(t *testing.T) {
	for _, r := range []stiefel.Retraction{stiefel.QR, stiefel.Polar, stiefel.Cayley, stiefel.Exponential} {
		got, err := stiefel.ParseRetraction(r.String())
		require.NoError(t, err)
		require.Equal(t, r, got)
	}
	for name, want := range map[string]stiefel.Retraction{"QR": stiefel.QR, " Cayley": stiefel.Cayley, "exponential": stiefel.Exponential} {
		got, err := stiefel.ParseRetraction(name)
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
	}
	_, err := stiefel.ParseRetraction("householder")
	require.ErrorContains(t, err, `"householder"`)
	require.Equal(t, "Retraction(9)", stiefel.Retraction(9).String())
}

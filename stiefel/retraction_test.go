package stiefel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/solver"
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

var _ solver.RetractionChooser = (*stiefel.Stiefel)(nil)

// TestRetractionChooser: the names are String's, in the enum's order, and
// SetRetraction sets the Retraction field; manifoldtest checks the rest
// (each name reads back and retracts, an unknown one changes nothing).
func TestRetractionChooser(t *testing.T) {
	m := stiefel.New(4, 2)
	for i, r := range []stiefel.Retraction{stiefel.QR, stiefel.Polar, stiefel.Cayley, stiefel.Exponential} {
		require.Equal(t, r.String(), m.Retractions()[i])
		require.NoError(t, m.SetRetraction(r.String()))
		require.Equal(t, r, m.Retraction)
	}
	require.Len(t, m.Retractions(), 4)
}

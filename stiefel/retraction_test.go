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

// TestRetractionChooser: the names are String's, in the enum's order;
// SetRetraction sets the Retraction field by ParseRetraction's rule and
// RetractionName reads it back; an unknown name leaves it as it was; the
// slice returned is the caller's.
func TestRetractionChooser(t *testing.T) {
	m := stiefel.New(4, 2)
	names := m.Retractions()
	require.Equal(t, []string{"qr", "polar", "cayley", "exp"}, names)
	for i, r := range []stiefel.Retraction{stiefel.QR, stiefel.Polar, stiefel.Cayley, stiefel.Exponential} {
		require.Equal(t, r.String(), names[i])
		require.NoError(t, m.SetRetraction(names[i]))
		require.Equal(t, r, m.Retraction)
		require.Equal(t, names[i], m.RetractionName())
	}
	require.NoError(t, m.SetRetraction(" Cayley"))
	require.Equal(t, "cayley", m.RetractionName())
	require.ErrorContains(t, m.SetRetraction("householder"), `householder`)
	require.Equal(t, "cayley", m.RetractionName(), "an unknown name changes nothing")
	names[0] = "changed"
	require.Equal(t, []string{"qr", "polar", "cayley", "exp"}, m.Retractions())
	c, ok := solver.AsRetractionChooser(m)
	require.True(t, ok)
	require.Equal(t, m, c)
}

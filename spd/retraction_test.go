package spd_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

func TestParseRetraction(t *testing.T) {
	for _, r := range []spd.Retraction{spd.SecondOrder, spd.Exponential} {
		got, err := spd.ParseRetraction(r.String())
		require.NoError(t, err)
		require.Equal(t, r, got)
	}
	for name, want := range map[string]spd.Retraction{"SecondOrder": spd.SecondOrder, "exponential": spd.Exponential} {
		got, err := spd.ParseRetraction(name)
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
	}
	_, err := spd.ParseRetraction("cayley")
	require.ErrorContains(t, err, `"cayley"`)
	require.Equal(t, "Retraction(7)", spd.Retraction(7).String())
}

func TestParseTransport(t *testing.T) {
	for _, tr := range []spd.TransportMethod{spd.Identity, spd.Parallel} {
		got, err := spd.ParseTransport(tr.String())
		require.NoError(t, err)
		require.Equal(t, tr, got)
	}
	_, err := spd.ParseTransport("schild")
	require.ErrorContains(t, err, `"schild"`)
	require.Equal(t, "TransportMethod(5)", spd.TransportMethod(5).String())
}

var _ solver.RetractionChooser = (*spd.SPD)(nil)

// TestRetractionChooser: the names are String's, in the enum's order;
// SetRetraction sets the Retraction field by ParseRetraction's rule and
// RetractionName reads it back; an unknown name leaves it as it was; the
// slice returned is the caller's.
func TestRetractionChooser(t *testing.T) {
	m := spd.New(3)
	names := m.Retractions()
	require.Equal(t, []string{"second-order", "exp"}, names)
	for i, r := range []spd.Retraction{spd.SecondOrder, spd.Exponential} {
		require.Equal(t, r.String(), names[i])
		require.NoError(t, m.SetRetraction(names[i]))
		require.Equal(t, r, m.Retraction)
		require.Equal(t, names[i], m.RetractionName())
	}
	require.NoError(t, m.SetRetraction("Exponential"))
	require.Equal(t, "exp", m.RetractionName())
	require.ErrorContains(t, m.SetRetraction("cayley"), `cayley`)
	require.Equal(t, "exp", m.RetractionName(), "an unknown name changes nothing")
	names[0] = "changed"
	require.Equal(t, []string{"second-order", "exp"}, m.Retractions())
	c, ok := solver.AsRetractionChooser(m)
	require.True(t, ok)
	require.Equal(t, m, c)
}

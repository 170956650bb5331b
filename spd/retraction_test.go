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

// TestRetractionChooser: the names are String's, in the enum's order, and
// SetRetraction sets the Retraction field; manifoldtest checks the rest
// (each name reads back and retracts, an unknown one changes nothing).
func TestRetractionChooser(t *testing.T) {
	m := spd.New(3)
	for i, r := range []spd.Retraction{spd.SecondOrder, spd.Exponential} {
		require.Equal(t, r.String(), m.Retractions()[i])
		require.NoError(t, m.SetRetraction(r.String()))
		require.Equal(t, r, m.Retraction)
	}
	require.Len(t, m.Retractions(), 2)
}

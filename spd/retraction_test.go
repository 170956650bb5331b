package spd_test

import (
	"testing"

	"github.com/stretchr/testify/require"

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

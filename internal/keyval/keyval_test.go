package keyval

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplit(t *testing.T) {
	p, err := Split(" Eta_X = 0.5 ,inner=3")
	require.NoError(t, err)
	require.Equal(t, []Pair{{"eta_x", "0.5"}, {"inner", "3"}}, p)
	require.Equal(t, "eta_x=0.5,inner=3", Join(p))

	p, err = Split("  ")
	require.NoError(t, err)
	require.Nil(t, p)

	for _, bad := range []string{"a", "a=1,", "=1", "a=1,b"} {
		_, err := Split(bad)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "is not key=value", bad)
	}

	p, _ = Split("a=1,b=2,A=3")
	k, dup := Dup(p)
	require.True(t, dup)
	require.Equal(t, "a", k)
	_, dup = Dup(p[:2])
	require.False(t, dup)
}

package stagetime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestClock(t *testing.T) {
	Mark("ignored") // no clock in use: nothing happens
	var c Clock
	for range 2 {
		stop := Use(&c)
		time.Sleep(2 * time.Millisecond)
		Mark("a")
		Mark("b")
		Mark("b")
		stop()
		Mark("after") // stopped: not counted
	}
	s := c.Stages()
	require.Len(t, s, 2)
	require.Equal(t, 2, c.Calls())
	require.Equal(t, "a", s[0].Name)
	require.Equal(t, 1.0, s[0].PerCall)
	require.GreaterOrEqual(t, s[0].Seconds, 2e-3, "the sleep is a's")
	require.Equal(t, "b", s[1].Name)
	require.Equal(t, 2.0, s[1].PerCall)
	require.Less(t, s[1].Seconds, s[0].Seconds)
	c.Reset()
	require.Nil(t, c.Stages())
}

func TestMarkAllocs(t *testing.T) {
	require.Zero(t, testing.AllocsPerRun(100, func() { Mark("x") }))
	var c Clock
	stop := Use(&c)
	defer stop()
	Mark("x")
	require.Zero(t, testing.AllocsPerRun(100, func() { Mark("x") }), "a known stage")
}

func TestClockAdd(t *testing.T) {
	var c Clock
	for range 2 {
		c.Count()
		Mark("unseen") // Count does not make c the clock in use
		c.Add("x", 3*time.Millisecond)
	}
	require.Equal(t, []Stage{{Name: "x", Seconds: 3e-3, PerCall: 1}}, c.Stages())
}

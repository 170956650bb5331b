package main

import (
	"bytes"
	"flag"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// TestSettingFlags: every key of the solver's settings table is a flag,
// and the table's flags reach the run's settings, over the preset.
func TestSettingFlags(t *testing.T) {
	var o runFlags
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	o.register(fs, &synthetic.Spec)
	for _, e := range solver.SettingsTable() {
		require.NotNil(t, fs.Lookup(flagName(e.Key)), e.Key)
	}
	require.NoError(t, fs.Parse([]string{"-lower-tol", "0.3", "-upper-bb", "-diverge", "1e6", "-lower-tol", "0.25", "-rel-grad-tol=1e-3"}))
	o.preset = "adaptive"
	in, err := o.build(func(opt problems.Options) (*problems.Instance, error) {
		return synthetic.Spec.Flags(flag.NewFlagSet("p", flag.ContinueOnError))(opt)
	})
	require.NoError(t, err)
	s := in.Settings
	require.Equal(t, 0.25, s.Lower.Tol)
	require.True(t, s.Upper.BB)
	require.True(t, s.Lower.BB) // the preset's
	require.Equal(t, 1e6, s.DivergeFactor)
	require.Equal(t, 1e-3, s.RelGradTol)

	err = fs.Parse([]string{"-lower-maxiter", "1.5"})
	require.ErrorContains(t, err, "lower-maxiter")
	require.Equal(t, "-upper-max-step = 3", flagNames.Replace("Settings.Upper.MaxStep = 3"))
}

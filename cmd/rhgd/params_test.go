package main

import (
	"errors"
	"flag"
	"io"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/catalog"
)

// toyParams is a Params struct with one field of each kind a parameter
// may be.
type toyParams struct {
	problems.Options
	N         int     `rhgd:"n" doc:"samples"`
	Nu        float64 `rhgd:"nu" doc:"ridge"`
	StartSeed uint64  `rhgd:"start-seed" doc:"seed of the start"`
	Name      string  `rhgd:"name" doc:"a name"`
	Verbose   bool    `rhgd:"verbose" doc:"say more"`
	Lambda    float64 `rhgd:"lambda" zero:"the paper's" doc:"λ > 0"`
	Untagged  int
}

func toyDefaults() toyParams {
	return toyParams{N: 10, Nu: 0.01, StartSeed: 7, Name: "toy", Untagged: 2}
}

var toySpec = problems.Define(problems.Spec{Name: "toy"}, toyDefaults, func(p toyParams) (*problems.Instance, error) {
	if p.N < 1 {
		return nil, errors.New("-n must be positive")
	}
	return &problems.Instance{Describe: p.Data + "|" + p.Name + "|" + strconv.Itoa(p.N)}, nil
})

// TestBindParams: a problem's parameters are flags named and documented
// by their tags, bound to the fields, with their values as defaults; one
// whose zero stands for a default refuses 0 (issue 27).
func TestBindParams(t *testing.T) {
	p := toyDefaults()
	fs := flag.NewFlagSet("toy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bindParams(fs, &p)
	f := fs.Lookup("start-seed")
	require.NotNil(t, f)
	require.Equal(t, "7", f.DefValue)
	require.Equal(t, "seed of the start", f.Usage)
	require.Nil(t, fs.Lookup("Untagged"))
	require.NoError(t, fs.Parse([]string{"-n", "4", "-verbose", "-name", "y"}))
	require.Equal(t, 4, p.N)
	require.True(t, p.Verbose)
	require.Equal(t, "y", p.Name)

	err := fs.Parse([]string{"-lambda", "0"})
	require.ErrorContains(t, err, `invalid value "0" for flag -lambda: 0 would mean the default, not 0; leave it out for the default (the paper's)`)
	require.NoError(t, fs.Parse([]string{"-lambda", "2"}))
	require.Equal(t, 2.0, p.Lambda)
	require.Equal(t, "λ > 0 (default: the paper's)", fs.Lookup("lambda").Usage)

	// specFlags: the command line's way, the Options given at build time.
	fs = flag.NewFlagSet("toy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mk := specFlags(&toySpec, fs)
	require.NoError(t, fs.Parse([]string{"-name", "z", "-n", "2"}))
	in, err := mk(problems.Options{Data: "d"})
	require.NoError(t, err)
	require.Equal(t, "d|z|2", in.Describe)
	require.NoError(t, fs.Parse([]string{"-n", "0"}))
	_, err = mk(problems.Options{})
	require.EqualError(t, err, "-n must be positive")

	// Every problem's parameters bind.
	for _, name := range catalog.Names() {
		spec, err := catalog.Lookup(name)
		require.NoError(t, err)
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		require.NotPanics(t, func() { specFlags(spec, fs) }, name)
		require.Len(t, problems.Fields(spec.New()), func() (n int) { fs.VisitAll(func(*flag.Flag) { n++ }); return }(), name)
	}
}

package main

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/catalog"
	"github.com/rhgd/rhgd/problems/domainadapt"
	"github.com/rhgd/rhgd/problems/synthetic"
)

// TestBindParams: a problem's parameters are flags named and documented
// by their tags, bound to the fields, with their values as defaults; one
// whose zero stands for a default refuses 0 (issue 27).
func TestBindParams(t *testing.T) {
	p := synthetic.DefaultParams()
	fs := flag.NewFlagSet("synthetic", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bindParams(fs, &p)
	f := fs.Lookup("start-seed")
	require.NotNil(t, f)
	require.Equal(t, "7", f.DefValue)
	require.Contains(t, f.Usage, "seed of the random starting W")
	require.Nil(t, fs.Lookup("Options"))
	require.NoError(t, fs.Parse([]string{"-n", "40", "-nu", "0.5", "-save", "x.npz"}))
	require.Equal(t, 40, p.N)
	require.Equal(t, 0.5, p.Nu)
	require.Equal(t, "x.npz", p.Save)

	q := domainadapt.DefaultParams()
	fs = flag.NewFlagSet("domainadapt", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bindParams(fs, &q)
	err := fs.Parse([]string{"-baseline-lambda", "0"})
	require.ErrorContains(t, err, `invalid value "0" for flag -baseline-lambda: 0 would mean the default, not 0; leave it out for the default (the paper's`)
	require.NoError(t, fs.Parse([]string{"-baseline-lambda", "2"}))
	require.Equal(t, 2.0, q.BaselineLambda)
	require.Contains(t, fs.Lookup("baseline-lambda").Usage, "(default: the paper's")

	// specFlags: the command line's way, the Options given at build time.
	fs = flag.NewFlagSet("synthetic", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mk := specFlags(&synthetic.Spec, fs)
	require.NoError(t, fs.Parse([]string{"-n", "20", "-d", "5", "-r", "2"}))
	in, err := mk(problems.Options{Seed: 3})
	require.NoError(t, err)
	require.Contains(t, in.Describe, "St(5,2) × SPD(5), n = 20, ν = 0.01, data generated from seed 3")
	require.NoError(t, fs.Parse([]string{"-d", "50"}))
	_, err = mk(problems.Options{})
	require.ErrorContains(t, err, "need n ≥ d ≥ r")

	// Every problem's parameters bind, each as one flag.
	for _, name := range catalog.Names() {
		spec, err := catalog.Lookup(name)
		require.NoError(t, err)
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		require.NotPanics(t, func() { specFlags(spec, fs) }, name)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		require.Len(t, problems.Fields(spec.New()), n, name)
	}
}

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	mspec "github.com/rhgd/rhgd/manifold/spec"
	"github.com/rhgd/rhgd/numerr"
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
		return specFlags(&synthetic.Spec, flag.NewFlagSet("p", flag.ContinueOnError))(opt)
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
	_, err = (&solver.Settings{Upper: solver.UpperRule{BB: true, MaxStep: math.Inf(1)}}).WithDefaults()
	require.Equal(t, "solver: bad setting: -upper-max-step = +Inf", numerr.Render(err, cliSpell))
}

// TestExplicitZeroFlags: a flag given as 0 whose zero would stand for
// the problem's value is a usage error that names the flag and that
// value, never silently the problem's (issue 27); -grad-tol 0 and
// -batch-lower 0, whose zero means off and the whole sum, set it over
// the problem's and -stochastic's.
func TestExplicitZeroFlags(t *testing.T) {
	parse := func(args ...string) (*runFlags, *problems.Instance, error) {
		o := &runFlags{}
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.register(fs, &synthetic.Spec)
		mk := specFlags(&synthetic.Spec, fs)
		if err := fs.Parse(append([]string{"-n", "20", "-d", "5", "-r", "2"}, args...)); err != nil {
			return nil, nil, err
		}
		o.fs = fs
		in, err := o.build(func(opt problems.Options) (*problems.Instance, error) {
			in, err := mk(opt)
			if err == nil {
				in.Settings.GradTol = 1e-3
				in.Stochastic = &solver.Batches{Lower: 5, Upper: 6, Cross: 7, Hess: 8}
			}
			return in, err
		})
		return o, in, err
	}
	_, in, err := parse()
	require.NoError(t, err)
	require.Equal(t, 200, in.Settings.Epochs)
	require.Equal(t, 1e-3, in.Settings.GradTol)
	_, in, err = parse("-grad-tol", "0", "-stochastic", "-batch-lower", "0", "-batch-hess", "3")
	require.NoError(t, err)
	require.Zero(t, in.Settings.GradTol)
	require.Equal(t, solver.Batches{Lower: 0, Upper: 6, Cross: 7, Hess: 3}, in.Settings.Batches)

	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-epochs", "0"}, "-epochs 0 would mean the problem's value, not 0; leave -epochs out for the problem's (200)"},
		{[]string{"-inner", "0"}, "leave -inner out for the problem's (20)"},
		{[]string{"-eta-x", "0"}, "leave -eta-x out for the problem's (0.5)"},
		{[]string{"-eta-y", "0.0"}, "leave -eta-y out for the problem's (0.5)"},
	} {
		_, _, err := parse(c.args...)
		require.ErrorAs(t, err, new(usageError), c.args)
		require.ErrorContains(t, err, c.msg, c.args)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-lower-maxiter", "0"}, "-lower-maxiter 0 would mean the default, not 0; leave -lower-maxiter out for the default (10·inner)"},
		{[]string{"-upper-min-step", "0e0"}, "leave -upper-min-step out for the default (eta-x/1000)"},
		{[]string{"-diverge", "-0"}, "leave -diverge out for the default (1e8)"},
	} {
		_, _, err := parse(c.args...)
		require.ErrorContains(t, err, c.msg, c.args)
	}

	for _, c := range []struct {
		args      []string
		est, want string
	}{
		{[]string{"-cg-maxiter", "0"}, "cg", "-cg-maxiter 0 would mean the problem's value, not 0; leave -cg-maxiter out for the problem's (50)"},
		{[]string{"-cg-tol", "0"}, "cg", "leave -cg-tol out for the problem's (1e-10)"},
		{[]string{"-ns-gamma", "0"}, "ns", "leave -ns-gamma out for the problem's (1)"},
		{[]string{"-ns-terms", "0"}, "ns", "leave -ns-terms out for the problem's (50)"},
		{[]string{"-ns-gamma", "0"}, "ns:terms=9", "leave -ns-gamma out for the problem's (1/λ̂_max by power iteration)"},
	} {
		o, in, err := parse(c.args...)
		require.NoError(t, err, c.args)
		_, err = o.estimator(in, c.est)
		require.ErrorAs(t, err, new(usageError), c.args)
		require.ErrorContains(t, err, c.want, c.args)
	}
	o, in, err := parse("-cg-maxiter", "7")
	require.NoError(t, err)
	e, err := o.estimator(in, "cg")
	require.NoError(t, err)
	require.Equal(t, 7, e.(*solver.CG).MaxIter)
}

// TestEstimatorHelp: the help of -estimator and -estimators is the
// solver's table of estimators and options (solver.EstimatorHelp), fo and
// damping included.
func TestEstimatorHelp(t *testing.T) {
	for _, args := range [][]string{{"run", "synthetic", "-h"}, {"compare", "karcher", "-h"}} {
		var out bytes.Buffer
		require.NoError(t, run(args, &out))
		_, help, ok := strings.Cut(out.String(), "spec with options stands for itself")
		require.True(t, ok, args)
		for _, l := range strings.Split(strings.TrimRight(solver.EstimatorHelp(), "\n"), "\n") {
			require.Contains(t, help, "\n    \t"+l, args)
		}
		require.Contains(t, help, "  damping=X|auto", args)
		require.Contains(t, help, "\tfo (firstorder)", args)
		require.Contains(t, out.String(), "upper retraction: "+mspec.RetractionUsage(), args) // the manifolds' table
	}
}

// TestEstimatorSpecRule: the command line's specs follow the one rule of
// problems.Instance.Estimator, as C and Python do: a name alone (or an
// alias) is the problem's paper spec, and a spec with options, written
// in -estimator or given by the option flags, stands for itself, so that
// -estimator ns -ns-terms 20 and -estimator ns:terms=20 are the same run
// (issue 30: the flags merged the paper's γ = 1, the spec did not).
func TestEstimatorSpecRule(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // the run's estimator, summary.json's
	}{
		{[]string{"-estimator", "ns"}, "ns:gamma=1,terms=50,power=10"},
		{[]string{"-estimator", "neumann"}, "ns:gamma=1,terms=50,power=10"},
		{[]string{"-estimator", "ns", "-ns-terms", "20"}, "ns:terms=20,power=10"},
		{[]string{"-estimator", "ns:terms=20"}, "ns:terms=20,power=10"},
		{[]string{"-estimator", "ns:terms=5", "-ns-terms", "20"}, "ns:terms=20,power=10"},
		{[]string{"-estimator", "ns:gamma=1,terms=50", "-ns-terms", "20"}, "ns:gamma=1,terms=20,power=10"},
		{[]string{"-estimator", "cg", "-cg-warm"}, "cg:maxiter=50,tol=1e-10,warm=true"},
	} {
		dir := t.TempDir()
		args := append([]string{"run", "karcher", "-epochs", "1", "-quiet", "-out", dir}, c.args...)
		require.NoError(t, run(args, io.Discard), c.args)
		require.Equal(t, c.want, readSummary(t, dir).Estimator, c.args)
		e, err := solver.ParseEstimator(c.want) // what the run records runs it again
		require.NoError(t, err)
		require.Equal(t, c.want, fmt.Sprint(e))
	}
	// A paper's CG capped at 200 iterations (domain adaptation's): a spec
	// with options, from the flags too, takes CG's own cap of 50.
	o := &runFlags{}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.register(fs, &synthetic.Spec)
	require.NoError(t, fs.Parse([]string{"-cg-tol", "1e-6"}))
	o.fs = fs
	in := &problems.Instance{Estimators: map[string]string{"cg": "cg:maxiter=200,tol=1e-10"}}
	e, err := o.estimator(in, "cg")
	require.NoError(t, err)
	require.Equal(t, "cg:maxiter=50,tol=1e-06", fmt.Sprint(e))
	e, err = (&runFlags{}).estimator(in, "cg")
	require.NoError(t, err)
	require.Equal(t, "cg:maxiter=200,tol=1e-10", fmt.Sprint(e))
}

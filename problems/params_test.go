package problems_test

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// toyParams is a Params struct with one field of each kind Bind binds.
type toyParams struct {
	problems.Options
	N         int     `rhgd:"n" doc:"samples"`
	Nu        float64 `rhgd:"nu" doc:"ridge"`
	StartSeed uint64  `rhgd:"start-seed" doc:"seed of the start"`
	Name      string  `rhgd:"name" doc:"a name"`
	Verbose   bool    `rhgd:"verbose" doc:"say more"`
	hidden    int
	Untagged  int
}

func toyDefaults() toyParams {
	return toyParams{N: 10, Nu: 0.01, StartSeed: 7, Name: "toy", hidden: 1, Untagged: 2}
}

// toyBuild records what it was built from in Describe.
func toyBuild(p toyParams) (*problems.Instance, error) {
	if p.N < 1 {
		return nil, errors.New("-n must be positive")
	}
	return &problems.Instance{Describe: flagString(p)}, nil
}

func flagString(p toyParams) string {
	return p.Data + "|" + p.Name + "|" + strconv.Itoa(p.N)
}

var toySpec = problems.Define(problems.Spec{Name: "toy"}, toyDefaults, toyBuild)

func TestFields(t *testing.T) {
	p := toyDefaults()
	fields := problems.Fields(&p)
	var names, keys, defaults []string
	var kinds []reflect.Kind
	for _, f := range fields {
		names, keys, defaults, kinds = append(names, f.Name), append(keys, f.Key), append(defaults, f.Default), append(kinds, f.Kind)
	}
	// Sorted by name, as the flag package lists them; untagged fields and
	// the embedded Options are left out.
	require.Equal(t, []string{"n", "name", "nu", "start-seed", "verbose"}, names)
	require.Equal(t, []string{"n", "name", "nu", "start_seed", "verbose"}, keys)
	require.Equal(t, []string{"10", "toy", "0.01", "7", "false"}, defaults)
	require.Equal(t, []reflect.Kind{reflect.Int, reflect.String, reflect.Float64, reflect.Uint64, reflect.Bool}, kinds)
	require.Equal(t, "seed of the start", fields[3].Doc)
	require.NoError(t, fields[3].Set("9"))
	require.Equal(t, uint64(9), p.StartSeed)
}

func TestSetParams(t *testing.T) {
	p := toyDefaults()
	require.NoError(t, problems.SetParams(&p, "n=3", "start_seed=4", "start-seed=5", "nu=0.5", "name=x", "verbose=true"))
	want := toyDefaults()
	want.N, want.StartSeed, want.Nu, want.Name, want.Verbose = 3, 5, 0.5, "x", true
	require.Equal(t, want, p)

	for _, c := range []struct{ kv, msg string }{
		{"n", `parameter "n" is not key=value`},
		{"-n=3", `parameter "-n=3" is not key=value`},
		{"=3", `parameter "=3" is not key=value`},
		{"bogus=1", `unknown parameter "bogus"; its parameters are n, name, nu, start_seed, verbose`},
		{"n=abc", `invalid value "abc" for parameter n (samples, default 3): parse error`},
		{"start_seed=-1", `invalid value "-1" for parameter start_seed (seed of the start, default 5): parse error`},
	} {
		err := problems.SetParams(&p, c.kv)
		require.ErrorIs(t, err, problems.ErrBadParam, c.kv)
		require.ErrorIs(t, err, numerr.ErrInvalid, c.kv)
		require.EqualError(t, err, c.msg)
	}
	require.Equal(t, want, p, "a failed SetParams leaves the fields it did not set")
}

// TestFieldsPanics: a tagged field of a kind no parameter can be, or a
// zero tag on a string, is a mistake in the problem's code.
func TestFieldsPanics(t *testing.T) {
	type bad struct {
		problems.Options
		X []int `rhgd:"x"`
	}
	require.Panics(t, func() { problems.Fields(&bad{}) })
	type badZero struct {
		problems.Options
		S string `rhgd:"s" zero:"x" doc:"a string"`
	}
	require.Panics(t, func() { problems.Fields(&badZero{}) })
}

func TestDefine(t *testing.T) {
	p := toySpec.New()
	require.IsType(t, &toyParams{}, p)
	require.Equal(t, toyDefaults(), *p.(*toyParams))
	p.Common().Data = "f.npz"
	in, err := toySpec.Build(p)
	require.NoError(t, err)
	require.Equal(t, "f.npz|toy|10", in.Describe)

	// Another problem's Params, or none, are an error, not a panic.
	_, err = toySpec.Build(&struct{ problems.Options }{})
	require.ErrorIs(t, err, problems.ErrBadParam)
	_, err = toySpec.Build((*toyParams)(nil))
	require.ErrorIs(t, err, problems.ErrBadParam)
}

func TestPaper(t *testing.T) {
	p := problems.Paper{
		Settings:   solver.Settings{EtaX: 0.5, Epochs: 3},
		Estimators: []string{"hinv", "cg:maxiter=50,tol=1e-10", "ns:gamma=1,terms=50", "ad"},
		Batches:    &solver.Batches{Lower: 2, Upper: 3},
	}
	require.Equal(t, []string{"hinv", "cg", "ns", "ad"}, p.Names())
	require.Equal(t, map[string]string{"hinv": "hinv", "cg": "cg:maxiter=50,tol=1e-10", "ns": "ns:gamma=1,terms=50", "ad": "ad"}, p.Specs())
	e, err := p.Estimator("cg")
	require.NoError(t, err)
	require.Equal(t, "cg:maxiter=50,tol=1e-10", fmt.Sprint(e))
	_, err = p.Estimator("gda")
	require.ErrorIs(t, err, solver.ErrBadSetting)
	require.ErrorContains(t, err, `unknown estimator "gda" (want one of [hinv cg ns ad])`)

	in := p.Instance()
	require.Equal(t, p.Settings, in.Settings)
	require.Equal(t, p.Specs(), in.Estimators)
	require.Equal(t, *p.Batches, *in.Stochastic)
	in.Stochastic.Lower = 9
	require.Equal(t, 2, p.Batches.Lower, "the Instance's batches are a copy")
	require.Nil(t, problems.Paper{}.Instance().Stochastic)
}

// zeroParams has numbers whose zero stands for a default (zero tags).
type zeroParams struct {
	problems.Options
	Lambda float64 `rhgd:"lambda" zero:"the paper's" doc:"λ > 0"`
	Steps  int     `rhgd:"steps" zero:"S" doc:"steps"`
	Seed2  uint64  `rhgd:"seed2" zero:"the seed" doc:"another seed"`
	Nu     float64 `rhgd:"nu" doc:"ridge, 0 for none"`
}

// TestZeroTag: a parameter whose zero stands for a default refuses 0,
// from the command line and from key=value alike, with a message that
// says to leave it out (issue 27), and lists no default while zero; a
// number without the tag takes 0 as 0.
func TestZeroTag(t *testing.T) {
	p := zeroParams{Nu: 1}
	for _, kv := range []string{"lambda=0", "lambda=-0", "lambda=0e3", "steps=0", "steps=0x0", "seed2=0"} {
		err := problems.SetParams(&p, kv)
		require.ErrorIs(t, err, problems.ErrBadParam, kv)
		require.ErrorContains(t, err, "0 would mean the default, not 0; leave it out for the default (", kv)
	}
	require.EqualError(t, problems.SetParams(&p, "lambda=0"),
		`invalid value "0" for parameter lambda (λ > 0 (default: the paper's)): 0 would mean the default, not 0; leave it out for the default (the paper's)`)
	require.EqualError(t, problems.SetParams(&p, "steps=x"), `invalid value "x" for parameter steps (steps (default: S)): parse error`)
	require.Equal(t, zeroParams{Nu: 1}, p)
	for _, f := range problems.Fields(&p) {
		if f.Name != "nu" {
			require.Empty(t, f.Default, f.Name)
			require.NotEmpty(t, f.Zero, f.Name)
		}
	}
	require.NoError(t, problems.SetParams(&p, "lambda=0.5", "steps=3", "seed2=9", "nu=0"))
	require.Equal(t, zeroParams{Lambda: 0.5, Steps: 3, Seed2: 9}, p)
	require.Equal(t, []string{"0.5", "0", "9", "3"}, defaults(problems.Fields(&p)))

}

func defaults(fields []problems.Field) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.Default)
	}
	return out
}

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKernels runs the kernel checks and requires every reported error
// measure to be small: the checks are independent of the kernels.
func TestKernels(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, kernels(&out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var rows int
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		v, err := strconv.ParseFloat(f[len(f)-2], 64)
		if err != nil || !strings.Contains(f[len(f)-2], "e") {
			continue
		}
		rows++
		require.Less(t, v, 1e-6, l)
	}
	require.Equal(t, 7, rows, out.String())
}

// TestDemo runs a short demo: every estimator lowers f from −0.019 to
// below −0.2 in 30 epochs and allocates nothing per epoch; CG (to 1e−10)
// agrees with HINV, and the truncated NS and AD estimates stay within
// their expected bias.
func TestDemo(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, demo(&out, 30))
	t.Log(out.String())
	rows := 0
	for _, l := range strings.Split(out.String(), "\n") {
		f := strings.Fields(l)
		if len(f) != 7 || f[1] != "IterationLimit" {
			continue
		}
		rows++
		fin, _ := strconv.ParseFloat(f[2], 64)
		errHINV, _ := strconv.ParseFloat(f[4], 64)
		allocs, _ := strconv.ParseFloat(f[6], 64)
		require.Less(t, fin, -0.2, l)
		bound := map[string]float64{"hinv": 1e-12, "cg": 1e-8, "ns": 0.5, "ad": 0.5}[f[0]]
		require.Less(t, errHINV, bound, l)
		require.Zero(t, allocs, l)
	}
	require.Equal(t, 4, rows, out.String())
}

func TestRunCommands(t *testing.T) {
	require.NoError(t, run([]string{"info"}, io.Discard))
	// -core names the kernel set in use, one of those -cores lists (on
	// x86-64 with OpenBLAS), as the Makefile's sweep expects.
	var core, cores bytes.Buffer
	require.NoError(t, run([]string{"info", "-core"}, &core))
	require.NoError(t, run([]string{"info", "-cores"}, &cores))
	if c := strings.TrimSpace(core.String()); c != "" && strings.TrimSpace(cores.String()) != "" {
		require.Contains(t, strings.Fields(cores.String()), c)
	}
	require.Error(t, run([]string{"frobnicate"}, io.Discard))
	require.Error(t, run(nil, io.Discard))
	require.Error(t, run([]string{"demo", "-epochs", "0"}, io.Discard))
}

// TestCommandLine runs the command as a user would: help on standard
// output with status 0, each user error as one line on standard error
// with status 2.
func TestCommandLine(t *testing.T) {
	for _, c := range []struct {
		args       string
		code       int
		stdout     string // a substring of standard output
		stderrLine string // a substring of the one line on standard error
	}{
		{"-h", 0, "usage: rhgd <command>", ""},
		{"demo -h", 0, "-epochs", ""},
		{"info -h", 0, "usage: rhgd info", ""},
		{"", 2, "", "no command"},
		{"frobnicate", 2, "", `unknown command "frobnicate"`},
		{"demo -epochs", 2, "", "flag needs an argument"},
		{"demo -bogus", 2, "", "flag provided but not defined: -bogus"},
		{"demo -epochs 0", 2, "", "-epochs must be positive"},
		{"info extra", 2, "", `info: unexpected argument "extra"`},
		{"kernels now", 2, "", `kernels: unexpected argument "now"`},
		{"run -h", 0, "usage: rhgd run <problem>", ""},
		{"compare --help", 0, "synthetic", ""},
		{"run synthetic -h", 0, "-estimator", ""},
		{"compare synthetic -h", 0, "-estimators", ""},
		{"run", 2, "", "name a problem first"},
		{"run -epochs 3", 2, "", "name a problem first"},
		{"run nosuch", 2, "", `unknown problem "nosuch"`},
		{"compare nosuch", 2, "", `unknown problem "nosuch"`},
		{"run synthetic -eta-x -1", 2, "", "-eta-x must not be negative"},
		{"run synthetic -epochs -2", 2, "", "-epochs must not be negative"},
		{"run synthetic -estimator bogus", 2, "", `unknown estimator "bogus"`},
		{"run synthetic -estimator cg:tol=x", 2, "", `tol="x"`},
		{"run synthetic -retr-x bogus", 2, "", "Stiefel retractions are"},
		{"run synthetic -retr-y qr", 2, "", "SPD retractions are"},
		{"run synthetic -stochastic", 2, "", "not a finite sum"},
		{"run synthetic -n 5 -d 10", 2, "", "need n ≥ d ≥ r"},
		{"run synthetic -nu -1", 2, "", "ν = -1"},
		{"run synthetic -data /nonexistent/x.npz", 2, "", "/nonexistent/x.npz"},
		{"run synthetic extra", 2, "", `unexpected argument "extra"`},
		{"run synthetic -preset fast", 2, "", `-preset is paper or adaptive, not "fast"`},
		{"run synthetic -preset adaptive -estimator ad", 2, "", "fixed lower steps"},
	} {
		stdout, stderr, code := asMainOut(t, c.args)
		require.Equal(t, c.code, code, "%q: %s", c.args, stderr)
		require.Contains(t, stdout, c.stdout, c.args)
		if c.stderrLine == "" {
			require.Empty(t, stderr, c.args)
			continue
		}
		require.Equal(t, 1, strings.Count(stderr, "\n"), "%q: %q", c.args, stderr)
		require.Contains(t, stderr, c.stderrLine, c.args)
	}
}

// TestMain lets a test run this binary as the rhgd command itself, so the
// start-up in main is exercised with the environment a user would set.
func TestMain(m *testing.M) {
	if os.Getenv("RHGD_TEST_AS_MAIN") == "1" {
		os.Args = append([]string{"rhgd"}, strings.Fields(os.Getenv("RHGD_TEST_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// asMain runs the command with args and extra environment variables and
// returns its standard error and exit code.
func asMain(t *testing.T, args string, env ...string) (string, int) {
	_, stderr, code := asMainOut(t, args, env...)
	return stderr, code
}

// asMainOut is asMain with standard output too.
func asMainOut(t *testing.T, args string, env ...string) (stdout, stderr string, code int) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "RHGD_TEST_AS_MAIN=1", "RHGD_TEST_ARGS="+args)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errb.String(), code
}

// TestBadEnvironment: a bad backend setting stops the command with exit
// status 2 and one line naming the value, before any work.
func TestBadEnvironment(t *testing.T) {
	msg, code := asMain(t, "info", "RHGD_THREADS=zero", "RHGD_BLAS=fortran")
	require.Equal(t, 2, code, msg)
	require.Equal(t, 1, strings.Count(strings.TrimSpace(msg), "\n")+1, msg)
	require.Contains(t, msg, `RHGD_THREADS="zero"`)
	require.Contains(t, msg, `RHGD_BLAS="fortran"`)
	msg, code = asMain(t, "info", "RHGD_THREADS=1")
	require.Zero(t, code, msg)
}

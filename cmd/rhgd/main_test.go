package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/npztest"
	"github.com/rhgd/rhgd/problems/catalog"
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
	require.Error(t, run([]string{"demo"}, io.Discard)) // compare synthetic is the demo
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
		{"info -h", 0, "usage: rhgd info", ""},
		{"", 2, "", "no command"},
		{"frobnicate", 2, "", `unknown command "frobnicate"`},
		{"run synthetic -epochs", 2, "", "flag needs an argument"},
		{"run synthetic -bogus", 2, "", "flag provided but not defined: -bogus"},
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
		// An explicit 0 is never silently the default (issue 27).
		{"run synthetic -epochs 0", 2, "", "-epochs 0 would mean the problem's value, not 0; leave -epochs out for the problem's (200)"},
		{"compare synthetic -cg-maxiter 0", 2, "", "leave -cg-maxiter out for the problem's (50)"},
		{"run synthetic -lower-maxiter 0", 2, "", "leave -lower-maxiter out for the default (10·inner)"},
		{"run domainadapt -baseline-lambda 0", 2, "", "leave it out for the default (the paper's, 1e-3 for W→D and 5e-3 otherwise)"},
		{"run synthetic -estimator cg:maxiter=0", 2, "", "leave maxiter out for the default (50)"},
		{"run synthetic -estimator bogus", 2, "", `unknown estimator "bogus"`},
		{"run meta -baseline xyz", 2, "", `-baseline "xyz" (want phgd`}, // a problem's parameter, by its flag
		{"run synthetic -estimator cg:tol=x", 2, "", `tol="x"`},
		{"run synthetic -retr-x bogus", 2, "", "Stiefel retractions are"},
		{"run synthetic -retr-y qr", 2, "", "SPD retractions are"},
		{"run synthetic -stochastic", 2, "", "not a finite sum"},
		{"run synthetic -n 5 -d 10", 2, "", "need n ≥ d ≥ r"},
		{"run synthetic -nu -1", 2, "", "ν = -1"},
		{"run synthetic -data /nonexistent/x.npz", 2, "", "/nonexistent/x.npz"},
		{"run synthetic extra", 2, "", `unexpected argument "extra"`},
		{"run synthetic -preset fast", 2, "", `-preset is paper, adaptive or adarhd, not "fast"`},
		{"run synthetic -preset adaptive -estimator ad", 2, "", "fixed lower steps"},
		// Non-finite numbers are user errors, whichever flag takes them.
		{"run synthetic -eta-x NaN", 2, "", "-eta-x NaN: want a finite number"},
		{"run synthetic -eta-y NaN", 2, "", "-eta-y NaN: want a finite number"},
		{"run synthetic -grad-tol NaN", 2, "", "-grad-tol NaN: want a finite number"},
		{"run synthetic -cg-tol NaN", 2, "", "-cg-tol NaN: want a finite number"},
		{"run synthetic -ns-gamma NaN", 2, "", "-ns-gamma NaN: want a finite number"},
		{"run synthetic -eta-x Inf", 2, "", "-eta-x +Inf: want a finite number"},
		{"compare synthetic -nu -Inf", 2, "", "-nu -Inf: want a finite number"},
		{"run synthetic -estimator cg:tol=-1", 2, "", `tol="-1" is not a positive number`},
		// Flags that would do nothing, or give wrong results.
		{"run karcher -estimator gda", 2, "", "min-max"},
		{"run synthetic -ns-gamma 0.5", 2, "", "-ns-gamma is a setting of the ns estimator, and this run has cg"},
		{"run synthetic -estimator hinv -cg-tol 1e-6", 2, "", "-cg-tol is a setting of the cg estimator"},
		{"compare synthetic -estimators hinv,ad -ns-terms 5", 2, "", "-ns-terms is a setting of the ns estimator, and this run has hinv, ad"},
		{"compare synthetic -estimators hinv,bogus", 2, "", `unknown estimator "bogus"`},
		{"run meta -data digits.npz", 2, "", "flag provided but not defined: -data"},
		{"run synthetic -hinv-error -estimator ad -preset adaptive", 2, "", "fixed lower steps"},
	} {
		dir := t.TempDir()
		stdout, stderr, code := asMainIn(t, dir, c.args)
		require.Equal(t, c.code, code, "%q: %s", c.args, stderr)
		require.Contains(t, stdout, c.stdout, c.args)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Empty(t, entries, "%q left files behind", c.args)
		if c.stderrLine == "" {
			require.Empty(t, stderr, c.args)
			continue
		}
		require.Equal(t, 1, strings.Count(stderr, "\n"), "%q: %q", c.args, stderr)
		require.Contains(t, stderr, c.stderrLine, c.args)
	}
}

// TestMissingDataNamedOnce: a missing data file is one line that names
// it once.
func TestMissingDataNamedOnce(t *testing.T) {
	_, stderr, code := asMainOut(t, "run synthetic -data /nonexistent/x.npz")
	require.Equal(t, 2, code, stderr)
	require.Equal(t, 1, strings.Count(stderr, "/nonexistent/x.npz"), stderr)
	require.Contains(t, stderr, "no such file or directory")
}

// helpDefault returns the default that the help text shows for a flag
// (flag.PrintDefaults' "(default X)"), or "" when it shows none.
func helpDefault(t *testing.T, help, name string) string {
	t.Helper()
	lines := strings.Split(help, "\n")
	for i, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "-"+name && i+1 < len(lines) {
			// The usage is the lines indented by a tab; the default ends
			// the last (a usage may also speak of defaults).
			text := l
			for _, u := range lines[i+1:] {
				if !strings.HasPrefix(u, "    \t") {
					break
				}
				text = u
			}
			if j := strings.LastIndex(text, "(default "); j >= 0 && strings.HasSuffix(text, ")") {
				return strings.Trim(text[j+len("(default "):len(text)-1], `"`)
			}
			return ""
		}
	}
	t.Fatalf("no flag -%s in the help:\n%s", name, help)
	return ""
}

// TestHelpShowsDefaults: a problem's help shows the values its zero
// defaults stand for (the problem's own: domain adaptation's η_y = 0.25
// and CG cap of 200), and what -data takes; meta and plstiefel, which
// take no data file, have no -data.
func TestHelpShowsDefaults(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"run", "domainadapt", "-h"}, &out))
	help := out.String()
	for name, want := range map[string]string{"epochs": "100", "inner": "20", "eta-x": "0.5", "eta-y": "0.25",
		"cg-maxiter": "200", "cg-tol": "1e-10", "ns-gamma": "0.1", "ns-terms": "50", "estimator": "cg", "seed": "42",
		"retr-x": "", "retr-y": "second-order"} { // Π(μ, ν) has one retraction
		require.Equal(t, want, helpDefault(t, help, name), name)
	}
	for _, name := range catalog.Names() {
		spec, err := catalog.Lookup(name)
		require.NoError(t, err)
		out.Reset()
		require.NoError(t, run([]string{"compare", name, "-h"}, &out))
		help := out.String()
		require.NotEmpty(t, helpDefault(t, help, "epochs"), name)
		// meta and plstiefel take no data file: meta's tasks and
		// plstiefel's few dozen numbers are generated from -seed, and a
		// file format for either would have no user.
		if name == "meta" || name == "plstiefel" {
			require.Empty(t, spec.Data)
			require.NotContains(t, help, "-data", name)
			continue
		}
		require.NotEmpty(t, spec.Data, name)
		require.Contains(t, strings.Join(strings.Fields(help), " "), spec.Data, name)
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

// asMainOut is asMain with standard output too, run in a directory of
// its own, so that a default output directory (out/<problem>) lands
// there and not in the source tree.
func asMainOut(t *testing.T, args string, env ...string) (stdout, stderr string, code int) {
	return asMainIn(t, t.TempDir(), args, env...)
}

// asMainIn is asMainOut in the working directory dir.
func asMainIn(t *testing.T, dir, args string, env ...string) (stdout, stderr string, code int) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
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

// TestInterrupt: Ctrl-C (SIGINT) stops a run, which writes what it has
// and exits with status 130, with one line on standard error.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RHGD_TEST_AS_MAIN=1",
		"RHGD_TEST_ARGS=run synthetic -epochs 1000000 -runtime 2m -quiet -out "+out)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	require.NoError(t, cmd.Start())
	// The output directory is made once the interrupt is handled.
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(out); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "no output directory after a minute")
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, errb.String())
	require.Equal(t, 130, ee.ExitCode(), errb.String())
	require.Equal(t, 1, strings.Count(errb.String(), "\n"), errb.String())
	require.Contains(t, errb.String(), "interrupted")
	s := readSummary(t, out)
	require.Equal(t, "Cancelled", s.Status)
	_, rows := readHistory(t, filepath.Join(out, "history.csv"))
	require.Len(t, rows, s.Epochs)
}

// TestRunHostileNPZ: `rhgd run synthetic -data F` on a hostile or broken
// .npz file (npztest.Synthetic: a header claiming 80 GB, a directory
// claiming 8 GiB, a deflate bomb, a pickled object array, a missing or
// misshapen array, a short or truncated member) exits with status 2 and
// one line on standard error that names the file and the array, never a
// crash, and writes nothing; so does an array over the limit that
// RHGD_NPZ_MAX_BYTES sets, whose message names the variable, and a limit
// that does not parse.
func TestRunHostileNPZ(t *testing.T) {
	files := t.TempDir()
	// check runs rhgd on path with env and requires the error line to
	// contain each of want.
	check := func(t *testing.T, path string, env []string, want ...string) {
		t.Helper()
		dir := t.TempDir()
		_, stderr, code := asMainIn(t, dir, "run synthetic -quiet -data "+path, env...)
		require.Equal(t, 2, code, stderr)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "%q", stderr)
		require.NotContains(t, stderr, "fatal error")
		for _, w := range want {
			require.Contains(t, stderr, w)
		}
		if _, after, ok := strings.Cut(stderr, path); ok {
			require.Contains(t, after, want[len(want)-1], "the message, not the file's name, says what is wrong")
		}
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Empty(t, entries, "wrote files")
	}
	for _, c := range npztest.Synthetic() {
		t.Run(c.Name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data.npz")
			require.NoError(t, os.WriteFile(path, c.File, 0o644))
			check(t, path, nil, path, c.Array, c.Msg)
		})
	}
	t.Run("limit", func(t *testing.T) {
		path := filepath.Join(files, "big.npz")
		y := npztest.NPY("<f8", []int{4096, 1}, npztest.Float64s(npztest.Values(4096, 2)...))
		require.NoError(t, npztest.Write(path, npztest.Member{Name: "X.npy", Data: npztest.BigX(), Deflate: true},
			npztest.Member{Name: "Y.npy", Data: y, Deflate: true}))
		check(t, path, []string{"RHGD_NPZ_MAX_BYTES=1MiB"}, path+": X: ", "over the limit of 1048576", "RHGD_NPZ_MAX_BYTES")
		check(t, path, []string{"RHGD_NPZ_MAX_BYTES=-1"}, `RHGD_NPZ_MAX_BYTES="-1"`)
	})
}

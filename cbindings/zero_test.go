//go:build cgo

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	"github.com/rhgd/rhgd/solver"
)

// TestExplicitZero: 0 for a setting or option whose zero would stand for
// its default is RHGD_EINVAL with a message naming the key and saying to
// leave it out, never silently the default (issue 27): rhgd_solver_new's
// settings and estimator, rhgd_manifold_coupling's options and
// rhgd_problem_check's tol.
func TestExplicitZero(t *testing.T) {
	p, rc := ctest.Builtin("synthetic", []string{"n=20", "d=5", "r=2"}, "", 5)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)
	newSolver := func(est, settings string) func() int {
		return func() int {
			s, rc := ctest.SolverNew(p, est, settings)
			if rc == okC {
				ctest.SolverFree(s)
			}
			return rc
		}
	}
	// The synthetic problem's paper settings are the base: 200 epochs, η_x = 0.5.
	wantCode(t, "epochs=0", einval, newSolver("cg", "epochs=0"),
		"epochs=0 would mean the default, not 0; leave epochs out for the default (200)")
	wantCode(t, "eta_x=0.0", einval, newSolver("cg", "eta_x=0.0"), "leave eta_x out for the default (0.5)")
	for _, e := range solver.SettingsTable() {
		if e.ZeroIsDefault {
			wantCode(t, e.Key+"=0", einval, newSolver("cg", "preset=adaptive,"+e.Key+"=0"), e.Key+"=0", "leave "+e.Key+" out")
		}
	}
	for _, ok := range []string{"grad_tol=0", "runtime=0", "lanczos=0", "seed=0", "batch_report=0", "lower_tol=0"} {
		wantCode(t, ok, okC, newSolver("cg", ok))
	}
	for _, est := range []string{"cg:maxiter=0", "cg:tol=0", "ns:gamma=0", "ns:terms=0", "ns:power=0", "fo:lambda=0", "fo:zsteps=0"} {
		key := est[strings.Index(est, ":")+1 : strings.Index(est, "=")]
		wantCode(t, est, einval, newSolver(est, ""), key+"=0 would mean the default", "leave "+key+" out")
	}
	wantCode(t, "cg:damping=0", okC, newSolver("cg:damping=0", ""))

	for _, c := range []struct{ opts, msg string }{
		{"maxiter=0", "leave maxiter out for the default (10000)"},
		{"tol=0", "leave tol out for the default (1e-13)"},
		{"maxiter=0.5", "maxiter"},
	} {
		wantCode(t, "coupling "+c.opts, einval, func() int {
			h, rc := ctest.ManifoldCoupling(2, 2, []float64{0.5, 0.5}, []float64{0.5, 0.5}, c.opts)
			if rc == okC {
				ctest.ManifoldFree(h)
			}
			return rc
		}, c.msg)
	}

	wantCode(t, "baseline_lambda=0", einval, func() int {
		h, rc := ctest.Builtin("domainadapt", []string{"baseline_lambda=0"}, "", 5)
		if rc == okC {
			ctest.ProblemFree(h)
		}
		return rc
	}, `invalid value "0" for parameter baseline_lambda`, "leave it out for the default (the paper's")

	wantCode(t, "check tol=0", einval, func() int { rc, _ := ctest.ProblemCheck(p, nil, nil, "tol=0", 64); return rc },
		"tol=0 would mean the default, not 0; leave tol out for the default (1e-6)")
}

// TestZeroKeysDocs: rhgd.h's and the Python Solver docstring's lists of
// the settings that are never 0 are the table's ZeroIsDefault keys.
func TestZeroKeysDocs(t *testing.T) {
	var want []string
	for _, e := range solver.SettingsTable() {
		if e.ZeroIsDefault {
			want = append(want, e.Key)
		}
	}
	for _, c := range []struct{ file, intro string }{
		{"rhgd.h", "(never silently the default). These are:"},
		{"../python/rhgd/solver.py", "Those never 0:"},
	} {
		b, err := os.ReadFile(c.file)
		require.NoError(t, err)
		_, list, ok := strings.Cut(string(b), c.intro)
		require.True(t, ok, "%s: the list of settings that are never 0", c.file)
		list, _, _ = strings.Cut(list, ".")
		var got []string
		for _, k := range strings.Split(strings.ReplaceAll(list, "*", ""), ",") {
			got = append(got, strings.TrimSpace(k))
		}
		require.Equal(t, want, got, c.file)
	}
}

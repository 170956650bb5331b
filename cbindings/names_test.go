//go:build cgo

package main

import (
	"strings"
	"testing"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	"github.com/rhgd/rhgd/problems"
)

// TestDefaultSeed: rhgd_default_seed is the rhgd command's seed.
func TestDefaultSeed(t *testing.T) {
	if got := ctest.DefaultSeed(); got != problems.DefaultSeed {
		t.Errorf("rhgd_default_seed() = %d, want problems.DefaultSeed = %d", got, problems.DefaultSeed)
	}
}

// TestParamNames: problem parameters are listed and taken as C
// identifiers (start_seed), the command line's spelling is taken too,
// and errors name parameters, never flags.
func TestParamNames(t *testing.T) {
	_, params := ctest.ProblemParams("synthetic", 1<<14)
	if !strings.Contains(params, "\nstart_seed=7\t") || strings.Contains(params, "start-seed") {
		t.Errorf("synthetic's parameters:\n%s", params)
	}
	var starts [2][]float64
	for i, kv := range []string{"start_seed=3", "start-seed=3"} {
		p, rc := ctest.Builtin("synthetic", []string{"n=30", "d=8", "r=3", kv}, "", 1)
		if rc != okC {
			t.Fatalf("%s: %d", kv, rc)
		}
		starts[i] = make([]float64, 24)
		ctest.ProblemStart(p, starts[i], nil)
		ctest.ProblemFree(p)
	}
	p, _ := ctest.Builtin("synthetic", []string{"n=30", "d=8", "r=3"}, "", 1)
	x7 := make([]float64, 24)
	ctest.ProblemStart(p, x7, nil)
	ctest.ProblemFree(p)
	if !equal(starts[0], starts[1]) || equal(starts[0], x7) {
		t.Errorf("start_seed=3 and start-seed=3 give different starts, or the same as the default 7")
	}
	for _, c := range []struct {
		name   string
		params []string
		want   []string
	}{
		{"synthetic", []string{"bogus=1"}, []string{`unknown parameter "bogus"; its parameters are `, "start_seed"}},
		{"synthetic", []string{"n=abc"}, []string{`invalid value "abc" for parameter n (`, "default 100"}},
		{"meta", []string{"baseline=xyz"}, []string{`baseline "xyz"`}},
	} {
		rc, msg := call(func() int { _, rc := ctest.Builtin(c.name, c.params, "", 1); return rc })
		if rc != einval {
			t.Errorf("%s %v: code %d, want RHGD_EINVAL", c.name, c.params, rc)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s %v: message %q does not contain %q", c.name, c.params, msg, w)
			}
		}
		if strings.Contains(msg, "flag") || strings.Contains(msg, " -") {
			t.Errorf("%s %v: message %q speaks of command-line flags", c.name, c.params, msg)
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestABITerms: the solver's Go names of settings and oracles reach C
// (and Python) as the C ABI's names.
func TestABITerms(t *testing.T) {
	for in, want := range map[string]string{
		"GradGy at epoch 3, lower step 5: callback failed: grad_gy returned 1":                       "grad_gy at epoch 3, lower step 5: callback failed: grad_gy returned 1",
		"solver: bad setting: Settings.EtaX = -1":                                                    "solver: bad setting: eta_x = -1",
		"solver: missing oracle: Settings.Lower.BB needs the lower objective G":                      "solver: missing oracle: preset=adaptive needs the lower objective g",
		"the ad estimator differentiates the paper's fixed lower steps; Settings.Lower must be zero": "the ad estimator differentiates the paper's fixed lower steps; it needs preset=paper",
		"hinv estimator: solver: missing oracle: [HessGyInv]":                                        "hinv estimator: solver: missing oracle: [hess_gy_inv]",
		"F at epoch 2: Frobenius norm of GradFx, HessGy and CrossGyx":                                "f at epoch 2: Frobenius norm of grad_fx, hess_gy and cross_gyx",
		"Settings.Upper.MaxStep = 0.5.":                                                              "preset=adaptive = 0.5.",
		// Hints that named Go's API reached C and Python untranslated (issue 27).
		"too long for this g: take a smaller Settings.EtaY, or the adaptive lower steps of AdaptiveSettings": "too long for this g: take a smaller eta_y, or the adaptive lower steps of preset=adaptive",
		"the gda estimator is for min-max problems (Problem.ZeroSum, made by MinMax); use hinv":              "the gda estimator is for min-max problems (such as the built-in minmax); use hinv",
	} {
		if got := abiTerms(in); got != want {
			t.Errorf("abiTerms(%q)\n = %q\nwant %q", in, got, want)
		}
	}

	// Through the exports: a callback problem without g or hess_gy_inv.
	k, m := 2, 3
	q := ctest.NewQuad(k, m, 0.1, []float64{1, 2, 3}, []float64{1, 0, 0, 1, 1, 1}, []float64{1, 2, 3}, 0)
	defer q.Free()
	mx, _ := ctest.ManifoldNew("euclid:r=2")
	my, _ := ctest.ManifoldNew("euclid:r=3")
	defer ctest.ManifoldFree(mx)
	defer ctest.ManifoldFree(my)
	p, rc := ctest.QuadProblem(q, mx, my, 0, 1, false)
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.ProblemFree(p)
	noop, rc := ctest.NoopProblem(mx, my) // f, grad_fx, grad_fy, grad_gy only
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.ProblemFree(noop)
	for _, c := range []struct {
		p                   int64
		est, settings, want string
	}{
		{noop, "cg", "preset=adaptive", "preset=adaptive needs the lower objective g"},
		{p, "ad", "preset=adaptive", "it needs preset=paper"},
		{p, "hinv", "", "[hess_gy_inv]"},
		{p, "cg", "eta_x=-1", "eta_x"},
	} {
		var s int64
		rc, msg := call(func() int { var rc int; s, rc = ctest.SolverNew(c.p, c.est, c.settings); return rc })
		if rc == okC {
			ctest.SolverFree(s)
		}
		if rc != einval || !strings.Contains(msg, c.want) || strings.Contains(msg, "Settings.") {
			t.Errorf("%s %s: %d %q, want RHGD_EINVAL saying %q", c.est, c.settings, rc, msg, c.want)
		}
	}
}

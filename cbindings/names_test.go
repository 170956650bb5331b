//go:build cgo

package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
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
// (and Python) as the C ABI's names: the solver's errors carry them as
// terms (numerr.Term), which the C ABI spells (cSpell) in the message
// rhgd_last_error gives and marks in rhgd_last_error_terms's.
func TestABITerms(t *testing.T) {
	quad := func(withG bool) solver.Problem { // g = ½‖y‖² on R²×R²
		p := solver.Problem{Mx: euclid.New(2, 1), My: euclid.New(2, 1),
			F:        func(*solver.Point) (float64, error) { return 0, nil },
			GradFx:   func(dst []float64, _ *solver.Point) error { clear(dst); return nil },
			GradFy:   func(dst []float64, _ *solver.Point) error { clear(dst); return nil },
			GradGy:   func(dst []float64, pt *solver.Point) error { copy(dst, pt.Y); return nil },
			HessGy:   func(dst []float64, _ *solver.Point, v []float64) error { copy(dst, v); return nil },
			CrossGxy: func(dst []float64, _ *solver.Point, _ []float64) error { clear(dst); return nil }}
		if withG {
			p.G = func(pt *solver.Point) (float64, error) { return (pt.Y[0]*pt.Y[0] + pt.Y[1]*pt.Y[1]) / 2, nil }
		}
		return p
	}
	newErr := func(p solver.Problem, s solver.Settings) error {
		_, err := solver.New(p, &s)
		return err
	}
	_, badEta := (&solver.Settings{EtaX: -1}).WithDefaults()
	_, badMax := (&solver.Settings{Upper: solver.UpperRule{BB: true, MaxStep: -0.5}}).WithDefaults()
	diverged := func() error {
		p := quad(true)
		r, err := solver.New(p, &solver.Settings{EtaY: 5, Epochs: 5}) // y ← −4y
		require.NoError(t, err)
		_, err = r.Run(context.Background(), []float64{1, 1}, []float64{1, 1})
		return err
	}()
	for _, c := range []struct {
		err  error
		want string
	}{
		{numerr.Errorf("%v at epoch %d, lower step %d: %w", solver.OracleGradGy, 3, 5, callbackErr("grad_gy", 1)),
			"grad_gy at epoch 3, lower step 5: callback failed: grad_gy returned 1"},
		{badEta, "solver: bad setting: eta_x = -1"},
		{newErr(quad(false), solver.AdaptiveSettings()), "solver: missing oracle: lower_bb needs the lower objective g"},
		{newErr(quad(true), solver.Settings{Estimator: solver.AD{}, Lower: solver.LowerRule{BB: true}}),
			"the ad estimator differentiates the paper's fixed lower steps; it needs preset=paper"},
		{newErr(quad(true), solver.Settings{Estimator: solver.HInv{MaxDim: 1}}),
			"hinv estimator: solver: missing oracle: [hess_gy_inv] (the inverse Hessian is derived from hess_gy only on a lower manifold of dimension at most hinv:maxdim = 1"},
		{numerr.Errorf("%v at epoch 2: Frobenius norm of %v, %v and %v", solver.OracleF, solver.OracleGradFx, solver.OracleHessGy, solver.OracleCrossGyx),
			"f at epoch 2: Frobenius norm of grad_fx, hess_gy and cross_gyx"},
		{badMax, "upper_max_step = -0.5"},
		// Hints that named Go's API reached C and Python untranslated (issue 27).
		{diverged, "too long for this g: take a smaller eta_y, or the adaptive lower steps of preset=adaptive"},
		{newErr(quad(true), solver.Settings{Estimator: solver.GDA{}}), "the gda estimator is for min-max problems (such as the built-in minmax); use hinv"},
	} {
		require.Error(t, c.err, c.want)
		got := numerr.Render(c.err, cSpell)
		require.Contains(t, got, c.want)
		require.NotContains(t, got, "Settings.")
		// The marked message is the same text with its terms marked.
		marked := numerr.Render(c.err, markedSpell)
		require.Equal(t, got, regexp.MustCompile("\x01[a-z]+:[^\x02]*\x02|\x03").ReplaceAllString(marked, ""))
	}

	// Through the exports: a callback problem without g or hess_gy_inv.
	k, m := 2, 3
	q := ctest.NewQuad(k, m, 0.1, []float64{1, 2, 3}, []float64{1, 0, 0, 1, 1, 1}, []float64{1, 2, 3}, 0)
	defer q.Free()
	mx := testManifold(t, "euclid:r=2")
	my := testManifold(t, "euclid:r=3")
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
		{noop, "cg", "preset=adaptive", "lower_bb needs the lower objective g"},
		{p, "ad", "preset=adaptive", "it needs preset=paper"},
		{p, "hinv:maxdim=2", "", "[hess_gy_inv] (the inverse Hessian is derived from hess_gy only"},
		{p, "cg", "eta_x=-1", "eta_x"},
		{p, "cg", "preset=adarhd,lower_bb=true", "lower_adagrad and lower_bb are two lower rules: choose one"},
		{p, "cg", "preset=adarhd,upper_bb=true", "upper_adagrad and upper_bb are two upper rules: choose one"},
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
	// rhgd_last_error_terms marks the names: the kinds and keys a binding
	// spells, around rhgd_last_error's text.
	for _, c := range []struct {
		f    func() int
		want string
	}{
		{func() int { _, rc := ctest.SolverNew(noop, "cg", "preset=adaptive"); return rc },
			"\x01setting:lower_bb\x02lower_bb\x03 needs the lower objective \x01oracle:g\x02g\x03"},
		{func() int { _, rc := ctest.SolverNew(p, "hinv:maxdim=2", ""); return rc },
			"[\x01oracle:hess_gy_inv\x02hess_gy_inv\x03] (the inverse Hessian is derived from \x01oracle:hess_gy\x02hess_gy\x03 only"},
		{func() int { _, rc := ctest.Builtin("meta", []string{"baseline=xyz"}, "", 1); return rc }, "\x01param:baseline\x02baseline\x03 \"xyz\""},
	} {
		rc, marked := ctest.DoTerms(c.f)
		require.Equal(t, einval, rc)
		require.Contains(t, marked, c.want)
		_, plain := call(c.f)
		require.Equal(t, plain, regexp.MustCompile("\x01[a-z]+:[^\x02]*\x02|\x03").ReplaceAllString(marked, ""))
	}
}

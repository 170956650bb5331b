//go:build cgo

package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	mspec "github.com/rhgd/rhgd/manifold/spec"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// abiSettingKeys are rhgd_solver_new's settings keys: the solver's table,
// its preset and the C ABI's batches.
func abiSettingKeys() []string {
	keys := []string{solver.PresetKey, batchesKey}
	for _, e := range solver.SettingsTable() {
		keys = append(keys, e.Key)
	}
	return keys
}

// TestSettingsDocs: rhgd.h's list of rhgd_solver_new's settings and the
// Python Solver's docstring name exactly the keys the solver's table has.
func TestSettingsDocs(t *testing.T) {
	h, err := os.ReadFile("rhgd.h")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(h), " * settings is NULL or comma-separated key=value pairs")
	require.True(t, ok, "rhgd.h: the settings list of rhgd_solver_new")
	block, _, _ = strings.Cut(block, "*/")
	line := regexp.MustCompile(`(?m)^ \*   ([a-z_]+(?:, [a-z_]+)*)(?: |$)`)
	var got []string
	for _, m := range line.FindAllStringSubmatch(block, -1) {
		got = append(got, strings.Split(m[1], ", ")...)
	}
	require.ElementsMatch(t, abiSettingKeys(), got, "rhgd.h")

	py, err := os.ReadFile("../python/rhgd/solver.py")
	require.NoError(t, err)
	_, doc, ok := strings.Cut(string(py), "the keys of rhgd_solver_new (see rhgd.h):")
	require.True(t, ok, "solver.py: the Solver docstring's settings")
	doc, _, _ = strings.Cut(doc, `."""`)
	got = nil
	for _, k := range strings.Split(doc, ",") {
		got = append(got, strings.TrimSpace(k))
	}
	require.ElementsMatch(t, abiSettingKeys(), got, "solver.py")
}

// TestSettingsEveryKey: every key of the table reaches the solver through
// rhgd_solver_new, and the effective settings read back the same.
func TestSettingsEveryKey(t *testing.T) {
	p, rc := ctest.Builtin("synthetic", []string{"n=30", "d=8", "r=3"}, "", 5)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)
	spec := "rel_grad_tol=1e-06,lower_tol=0.2,lower_maxiter=7,lower_solve=true,lower_bb=true,upper_bb=true," +
		"upper_min_step=0.001,upper_max_step=9,runtime=1m30s,diverge=1e+06,fd_step=1e-05"
	var s int64
	rc, msg := call(func() int { var rc int; s, rc = ctest.SolverNew(p, "cg", spec); return rc })
	require.Equal(t, okC, rc, msg)
	defer ctest.SolverFree(s)
	_, desc := ctest.SolverSettings(s, 4096)
	_, set, _ := strings.Cut(desc, ";")
	require.True(t, strings.HasPrefix(set, "preset=adaptive,"), set)
	for _, kv := range strings.Split(strings.ReplaceAll(spec, "1m30s", "90"), ",") {
		require.Contains(t, set+",", ","+kv+",")
	}
	for _, k := range abiSettingKeys() {
		if k != batchesKey {
			require.Contains(t, set, k+"=")
		}
	}
	s2 := testSolver(t, p, "cg", set)
	_, desc2 := ctest.SolverSettings(s2, 4096)
	require.Equal(t, desc, desc2)
	for spec, msg := range map[string]string{"lower_bb=maybe": "lower_bb", "upper_max_step=-1": "upper_max_step",
		"eta_x=1,eta_x=2": "twice", "batches=some": "batches"} {
		wantCode(t, spec, einval, func() int { _, rc := ctest.SolverNew(p, "cg", spec); return rc }, msg)
	}
}

// TestOracleKeys: rhgd_oracles' fields and Python's oracle keywords are
// the solver's oracle keys; rhgd_oracles also has lower_steps, the fused
// lower loop (Problem.LowerSteps, not an oracle), which cSpell names.
func TestOracleKeys(t *testing.T) {
	var want []string
	for _, o := range abiOracles() {
		want = append(want, o.Key())
	}
	h, err := os.ReadFile("rhgd.h")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(h), "typedef struct rhgd_oracles {")
	require.True(t, ok)
	block, _, _ = strings.Cut(block, "}")
	var got []string
	for _, m := range regexp.MustCompile(`rhgd_(\w+)_fn (\w+);`).FindAllStringSubmatch(block, -1) {
		if m[1] == "steps" {
			require.Equal(t, lowerStepsKey, m[2])
			continue
		}
		if m[1] == "vjp" {
			require.Equal(t, lowerStepsVJPKey, m[2])
			continue
		}
		got = append(got, m[2])
	}
	require.ElementsMatch(t, want, got, "rhgd.h") // the struct keeps its ABI order
	require.Contains(t, block, "rhgd_steps_fn "+lowerStepsKey+";")
	require.Equal(t, "lower_steps at epoch 3", numerr.Render(numerr.Errorf("%v at epoch 3", solver.TermLowerSteps), cSpell))
	require.Equal(t, "lower_steps_vjp: boom", numerr.Render(numerr.Errorf("%v: boom", solver.TermLowerStepsVJP), cSpell))

	py, err := os.ReadFile("../python/rhgd/problems.py")
	require.NoError(t, err)
	_, tuple, ok := strings.Cut(string(py), "_ORACLES = (")
	require.True(t, ok)
	tuple, _, _ = strings.Cut(tuple, ")")
	got = nil
	for _, m := range regexp.MustCompile(`"(\w+)"`).FindAllStringSubmatch(tuple, -1) {
		got = append(got, m[1])
	}
	require.ElementsMatch(t, want, got, "problems.py")
}

// TestResultCounts: the result and the history carry the lower steps,
// upper step sizes and exact lower solves of the run.
func TestResultCounts(t *testing.T) {
	p, rc := ctest.Builtin("synthetic", []string{"n=30", "d=8", "r=3"}, "", 5)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)
	for _, c := range []struct {
		settings string
		solves   bool
	}{{"epochs=4,inner=7", false}, {"preset=adaptive,epochs=4", true}} {
		s, rc := ctest.SolverNew(p, "hinv", c.settings)
		require.Equal(t, okC, rc, c.settings)
		require.Equal(t, okC, ctest.SolverRun(s, nil, nil, nil), c.settings)
		r, rc := ctest.SolverResult(s)
		require.Equal(t, okC, rc)
		rows, n, rc := ctest.SolverHistory(s, 4)
		require.Equal(t, okC, rc)
		require.EqualValues(t, 4, n)
		last := rows[3*histCols:]
		if c.solves {
			require.EqualValues(t, 5, r.LowerSolves, c.settings) // and the final one at x_4
			require.EqualValues(t, 4, last[13], c.settings)
			require.Zero(t, last[11], c.settings)
		} else {
			require.Zero(t, r.LowerSolves, c.settings)
			require.EqualValues(t, 7, last[11], c.settings)
			require.Equal(t, 0.5, last[12], c.settings) // the paper's η_x
		}
		require.Zero(t, r.RetractFailures, c.settings)
		ctest.SolverFree(s)
	}
}

// TestEstimatorDocs: rhgd.h's list of the estimators and their options
// under rhgd_solver_new, and the Python Solver's docstring, are the
// solver's table as solver.EstimatorHelp writes it, line for line (fo
// and damping included): a new estimator or option reaches both docs or
// fails here.
func TestEstimatorDocs(t *testing.T) {
	block := func(prefix string) string { return prefixLines(solver.EstimatorHelp(), prefix) }
	for _, c := range []struct{ file, intro, prefix string }{
		{"rhgd.h", " * naming the key, since it would be the default, not 0):\n", " *   "},
		{"../python/rhgd/solver.py", "    estimators and their options (as rhgd.h lists them):\n\n", "    "},
	} {
		b, err := os.ReadFile(c.file)
		require.NoError(t, err)
		want := c.intro + block(c.prefix)
		require.Contains(t, string(b), want, "%s: the estimators' list is not solver.EstimatorHelp's; it should read\n%s", c.file, want)
	}
	for _, e := range solver.EstimatorTable() { // what the docs must name
		require.Contains(t, block(""), e.Name)
		for _, o := range e.Options {
			require.Contains(t, block(""), "  "+o.Key+"=")
		}
	}
}

// TestEstimatorSpecRule: rhgd_solver_new reads an estimator spec by the
// one rule of every front end (problems.Instance.Estimator, as the CLI's
// -estimator and Python's estimator=): on a built-in problem a name
// alone, or an alias, is the paper's spec for it, and a spec with options
// stands for itself, the same spec as Go's ParseEstimator reads anywhere.
func TestEstimatorSpecRule(t *testing.T) {
	p, rc := ctest.Builtin("karcher", nil, "", 5)
	require.Equal(t, okC, rc)
	defer ctest.ProblemFree(p)
	for spec, want := range map[string]string{
		"ns":                 "ns:gamma=1,terms=50,power=10", // karcher's paper spec
		"neumann":            "ns:gamma=1,terms=50,power=10",
		"ns:terms=20":        "ns:terms=20,power=10", // γ from the power iteration
		"ns:gamma=1,terms=5": "ns:gamma=1,terms=5,power=10",
		"cg:warm=true":       "cg:maxiter=50,tol=1e-10,warm=true",
	} {
		s, rc := ctest.SolverNew(p, spec, "")
		require.Equal(t, okC, rc, spec)
		_, desc := ctest.SolverSettings(s, 4096)
		ctest.SolverFree(s)
		est, _, _ := strings.Cut(desc, ";")
		require.Equal(t, want, est, spec)
		if strings.Contains(spec, ":") {
			e, err := solver.ParseEstimator(spec)
			require.NoError(t, err)
			require.Equal(t, want, fmt.Sprint(e), spec)
		}
	}
}

// prefixLines is text with each line prefixed, as a doc holds a block
// (trailing spaces trimmed).
func prefixLines(text, prefix string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(strings.TrimRight(prefix+l, " ") + "\n")
	}
	return b.String()
}

// TestEstimatorReadme: python/README.md's table of estimators has a row
// for each estimator of the solver's table, naming each of its options
// with its default where that is a number.
func TestEstimatorReadme(t *testing.T) {
	b, err := os.ReadFile("../python/README.md")
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(b), "\n### Estimators\n")
	require.True(t, ok, "python/README.md: the Estimators section")
	sec, _, _ = strings.Cut(sec, "\n\n- ")
	for _, e := range solver.EstimatorTable() {
		_, row, ok := strings.Cut(sec, "\n| `"+e.Name+"` |")
		require.True(t, ok, "python/README.md: no row for %s", e.Name)
		row, _, _ = strings.Cut(row, "\n")
		if len(e.Options) == 0 {
			require.True(t, strings.HasSuffix(row, "| none |"), e.Name)
		}
		for _, o := range e.Options {
			want := "`" + o.Key + "` ("
			if _, err := strconv.ParseFloat(o.Default, 64); err == nil {
				want += o.Default + ")"
			}
			require.Contains(t, row, want, e.Name)
		}
	}
}

// TestManifoldDocs: rhgd.h's list of rhgd_manifold_new's specs is
// manifold/spec's Help, line for line, and the Python manifolds'
// docstrings name each retraction and transport, mark the default one,
// and give the coupling's defaults, as the table has them.
func TestManifoldDocs(t *testing.T) {
	h, err := os.ReadFile("rhgd.h")
	require.NoError(t, err)
	want := prefixLines(mspec.Help(), " *   ")
	require.Contains(t, string(h), " * options are the last line's:\n"+want+" */\nRHGD_API int rhgd_manifold_new(",
		"rhgd.h: rhgd_manifold_new's specs are not manifold/spec's Help; they should read\n%s", want)

	py, err := os.ReadFile("../python/rhgd/manifolds.py")
	require.NoError(t, err)
	kernels, err := os.ReadFile("../python/rhgd/kernels.py")
	require.NoError(t, err)
	doc := func(src []byte, class string) string {
		_, d, ok := strings.Cut(string(src), "\nclass "+class+"(")
		require.True(t, ok, class)
		_, d, _ = strings.Cut(d, `"""`)
		d, _, _ = strings.Cut(d, `"""`)
		return strings.Join(strings.Fields(d), " ")
	}
	for _, c := range []struct{ class, manifold string }{{"SPD", "spd"}, {"Stiefel", "stiefel"}} {
		d := doc(py, c.class)
		info, ok := mspec.Lookup(c.manifold)
		require.True(t, ok)
		for _, o := range info.Options {
			for _, name := range o.Names {
				require.Contains(t, d, "'"+name+"'", c.class)
			}
			if o.Type == "name" {
				require.Contains(t, d, "'"+o.Default+"' (default)", c.class)
			}
		}
	}
	info, _ := mspec.Lookup("coupling")
	require.Contains(t, strings.Join(strings.Fields(string(h)), " "),
		"relative L1 marginal error of "+info.Options[1].Default+" in "+info.Options[0].Default+" iterations", "rhgd.h: rhgd_coupling_retr")
	for _, o := range info.Options {
		require.Contains(t, doc(py, "Coupling"), "(default "+o.Default+")", o.Key)
		_, kdoc, _ := strings.Cut(string(kernels), "def coupling_retr(")
		require.Contains(t, strings.Join(strings.Fields(kdoc), " "), "(default "+o.Default+")", o.Key)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/catalog"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// historyColumns are history.csv's columns, in order: the new ones are
// appended, the old ones keep their places.
var historyColumns = []string{"epoch", "seconds", "upper_objective", "hypergradient_norm", "hypergradient_error_vs_hinv",
	"lower_gradient_norm", "accuracy", "lower_hessian_min_eig", "hypergradient_error_bound", "true_hypergrad_norm", "solver_seconds"}

// TestCompareHeadToHead: compare runs the first-order method and the
// damped estimators by their specs like any other; every run's
// history.csv has the true hypergradient's norm and the solver's own
// seconds (at most the wall clock) on every row, its summary.json the
// oracle counts by kind and when it reached 1e-3 of its first true norm,
// and the table lists them all. The first-order method calls no second
// order oracle, and the others no grad_x g.
func TestCompareHeadToHead(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	ests := []string{"hinv", "cg", "cg:damping=auto", "ns:damping=auto", "ad", "fo"}
	require.NoError(t, compareCmd(&out, []string{"synthetic", "-n", "20", "-d", "10", "-r", "4", "-epochs", "5", "-quiet",
		"-out", dir, "-estimators", strings.Join(ests, ",")}))
	table, err := os.ReadFile(filepath.Join(dir, "headtohead.md"))
	require.NoError(t, err)
	require.Contains(t, out.String(), filepath.Join(dir, "headtohead.md")) // the console names the table
	lines := strings.Split(strings.TrimSpace(string(table)), "\n")
	require.Len(t, lines, 2+len(ests))
	for i, lbl := range runLabels(parsed(t, ests)) {
		header, rows := readHistory(t, filepath.Join(dir, lbl, "history.csv"))
		require.Equal(t, historyColumns, header, lbl)
		require.Len(t, rows, 5, lbl)
		tc, sc, wc := col(t, header, "true_hypergrad_norm"), col(t, header, "solver_seconds"), col(t, header, "seconds")
		for _, r := range rows {
			require.Greater(t, num(t, r[tc]), 0.0, lbl)
			require.LessOrEqual(t, num(t, r[sc]), num(t, r[wc]), lbl)
		}
		var s summary
		b, err := os.ReadFile(filepath.Join(dir, lbl, "summary.json"))
		require.NoError(t, err)
		requireSnakeCase(t, b)
		require.NoError(t, json.Unmarshal(b, &s))
		require.NotNil(t, s.Target, lbl)
		require.Equal(t, "true_hypergradient", s.Target.Against, lbl)
		require.Equal(t, 1e-3, s.Target.RelTol)
		require.Greater(t, s.Oracles.UpperGrads, 0, lbl)
		require.Greater(t, s.Oracles.LowerGrads, 0, lbl)
		require.Contains(t, lines[2+i], "`"+s.Estimator+"`")
		if lbl == "fo" {
			require.Zero(t, s.Oracles.HessVecs)
			require.Zero(t, s.Oracles.CrossVecs)
			require.Positive(t, s.Oracles.LowerXGrads)
		} else {
			require.Zero(t, s.Oracles.LowerXGrads, lbl)
		}
	}
}

func parsed(t *testing.T, specs []string) []solver.Estimator {
	t.Helper()
	var out []solver.Estimator
	for _, s := range specs {
		e, err := solver.ParseEstimator(s)
		require.NoError(t, err, s)
		out = append(out, e)
	}
	return out
}

// TestTrueHyperGradNorm: at epoch 0 the true hypergradient is HINV at
// the exact lower solution y*(x_0) (synthetic.LowerSolve): its norm in
// history.csv is that of HINV's estimate there, and the adaptive preset's
// HINV run, which solves the lower level exactly, reports its own ĝ equal
// to it.
func TestTrueHyperGradNorm(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	args := []string{"synthetic", "-n", "20", "-d", "10", "-r", "4", "-epochs", "1", "-quiet", "-out", dir, "-estimators", "cg,hinv"}
	require.NoError(t, compareCmd(&out, args))

	p := synthetic.DefaultParams()
	p.N, p.D, p.R = 20, 10, 4
	in, err := synthetic.Build(p)
	require.NoError(t, err)
	pr := in.Problem
	ystar := make([]float64, pr.My.Len())
	require.NoError(t, pr.LowerSolve(ystar, &solver.Point{X: in.X0, Y: in.Y0}))
	ref, err := solver.New(pr, &solver.Settings{Estimator: solver.HInv{}})
	require.NoError(t, err)
	g, err := ref.Estimate(in.X0, ystar)
	require.NoError(t, err)
	want := pr.Mx.Norm(in.X0, g)
	for _, lbl := range []string{"cg", "hinv"} {
		header, rows := readHistory(t, filepath.Join(dir, lbl, "history.csv"))
		require.InEpsilon(t, want, num(t, rows[0][col(t, header, "true_hypergrad_norm")]), 1e-10, lbl)
	}

	require.NoError(t, compareCmd(&out, append(args[:len(args)-1], "hinv", "-preset", "adaptive")))
	header, rows := readHistory(t, filepath.Join(dir, "hinv", "history.csv"))
	require.InEpsilon(t, want, num(t, rows[0][col(t, header, "true_hypergrad_norm")]), 1e-10)
	require.InEpsilon(t, want, num(t, rows[0][col(t, header, "hypergradient_norm")]), 1e-10)
}

// TestComparePLStiefel: the PL problem runs from the catalog; its true
// hypergradient is the problem's closed form (no HINV there), and
// undamped CG stops with its singular-Hessian error while the damped CG
// (the problem's own "cg") and the first-order method run through.
func TestComparePLStiefel(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := compareCmd(&out, []string{"plstiefel", "-epochs", "3", "-quiet", "-out", dir, "-estimators", "cg:damping=auto,fo,cg:damping=0"})
	require.ErrorContains(t, err, "damping=auto") // undamped CG's error names the remedy
	spec, err := catalog.Lookup("plstiefel")
	require.NoError(t, err)
	in, err := spec.Build(spec.New())
	require.NoError(t, err)
	g := make([]float64, in.Problem.Mx.Len())
	require.NoError(t, in.TrueHyperGrad(g, in.X0, in.Y0))
	for _, lbl := range []string{"cg", "fo"} {
		header, rows := readHistory(t, filepath.Join(dir, lbl, "history.csv"))
		require.Len(t, rows, 3, lbl)
		require.InEpsilon(t, in.Problem.Mx.Norm(in.X0, g), num(t, rows[0][col(t, header, "true_hypergrad_norm")]), 1e-12, lbl)
	}
	table, err := os.ReadFile(filepath.Join(dir, "headtohead.md"))
	require.NoError(t, err)
	require.Contains(t, string(table), "| `fo:")
}

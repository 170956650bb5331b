package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/keyval"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// readHistory parses a history.csv into its header and rows.
func readHistory(t *testing.T, path string) ([]string, [][]string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	return recs[0], recs[1:]
}

func col(t *testing.T, header []string, name string) int {
	t.Helper()
	for i, h := range header {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %q in %v", name, header)
	return -1
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err, s)
	return v
}

// TestRunWritesOutputs: rhgd run writes one history row per epoch with
// the objective falling, CG's error against HINV at CG's own points below
// its tolerance's reach, numbers in their shortest round-trip form, a
// summary in snake_case with the settings in effect that agrees with the
// rows, and the plots.
func TestRunWritesOutputs(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"run", "synthetic", "-epochs", "12", "-estimator", "cg", "-hinv-error", "-out", dir, "-quiet"}, &out))
	require.Contains(t, out.String(), "IterationLimit")
	require.Contains(t, out.String(), "err vs HINV")
	header, rows := readHistory(t, filepath.Join(dir, "history.csv"))
	require.Len(t, rows, 12)
	fi, ei, si := col(t, header, "upper_objective"), col(t, header, "hypergradient_error_vs_hinv"), col(t, header, "seconds")
	prevSec := 0.0
	for _, r := range rows {
		require.Less(t, num(t, r[ei]), 1e-8, r)
		sec := num(t, r[si])
		require.Greater(t, sec, prevSec)
		prevSec = sec
		for _, f := range r[1:] {
			if f != "" {
				require.Equal(t, strconv.FormatFloat(num(t, f), 'g', -1, 64), f, "not the shortest form")
			}
		}
	}
	require.Less(t, num(t, rows[11][fi]), num(t, rows[0][fi]))
	require.Equal(t, "", rows[0][col(t, header, "accuracy")]) // the synthetic problem is no classifier

	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	requireSnakeCase(t, b)
	var s map[string]any
	require.NoError(t, json.Unmarshal(b, &s))
	require.Equal(t, "synthetic", s["problem"])
	require.Equal(t, "IterationLimit", s["status"])
	require.Equal(t, 12.0, s["epochs"])
	// The final objective is f at the returned x_12 with the final lower
	// solve's y (solver.Result.F), one step beyond the last row's
	// f(x_11, y_12); the best is the least of them all.
	best := s["final_objective"].(float64)
	for _, r := range rows {
		best = min(best, num(t, r[fi]))
	}
	require.Equal(t, best, s["best_objective"])
	require.GreaterOrEqual(t, s["seconds"], num(t, rows[11][si]))
	require.True(t, strings.HasPrefix(s["estimator"].(string), "cg:maxiter=50,tol=1e-10"), s["estimator"])
	set := s["settings"].(map[string]any)
	for k, v := range map[string]any{"preset": "paper", "eta_x": 0.5, "eta_y": 0.5, "inner_iters": 20.0, "epochs": 12.0,
		"grad_tol": 0.0, "diverge_factor": 1e8, "seed": 42.0, "retraction_x": "qr", "retraction_y": "second-order", "hinv_error": true} {
		require.Equal(t, v, set[k], k)
	}
	require.NotContains(t, set, "batches") // RHGD, not RSHGD
	require.NotContains(t, set, "lower")   // the paper's fixed steps
	require.Equal(t, map[string]any{"n": "100", "d": "50", "r": "20", "nu": "0.01", "start_seed": "7", "save": "", "lower_float32_steps": "0"}, s["problem_flags"])
	for _, f := range []string{"run.png", "run.svg"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(1000), f)
	}
}

// requireSnakeCase requires every key of the JSON document b to be
// snake_case.
func requireSnakeCase(t *testing.T, b []byte) {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				require.Regexp(t, snake, k, "key %q at %s", k, path)
				walk(e, path+"."+k)
			}
		case []any:
			for i, e := range v {
				walk(e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(v, "$")
}

// TestRunHINVErrorOptIn: without -hinv-error no reference is computed:
// the column is empty and the table has none.
func TestRunHINVErrorOptIn(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"run", "synthetic", "-epochs", "3", "-out", dir, "-quiet"}, &out))
	require.NotContains(t, out.String(), "err vs HINV")
	header, rows := readHistory(t, filepath.Join(dir, "history.csv"))
	for _, r := range rows {
		require.Equal(t, "", r[col(t, header, "hypergradient_error_vs_hinv")])
	}
}

// recorderFunc is a solver.Recorder.
type recorderFunc func(*solver.EpochStats) error

func (f recorderFunc) Record(s *solver.EpochStats) error { return f(s) }

// TestHINVErrorNoiseFloor: the error against HINV is reported exactly at
// the epochs where ‖ĝ_HINV‖ stands above the noise floor √ε‖grad_x f‖,
// checked at each epoch's point by a second reference. The adaptive
// preset drives ‖ĝ‖ down to rounding level (10⁻¹⁵ to 10⁻¹¹, by backend),
// far below the floor, where CG's error showed 1.00 (noise over noise):
// the run has epochs on both sides.
func TestHINVErrorNoiseFloor(t *testing.T) {
	o := runFlags{preset: "adaptive", settings: []keyval.Pair{{Key: "epochs", Value: "150"}}, seed: 42, hinvError: true}
	in, err := o.build(specFlags(&synthetic.Spec, flag.NewFlagSet("t", flag.ContinueOnError)))
	require.NoError(t, err)
	est, err := o.estimator(in, "cg")
	require.NoError(t, err)
	h, err := newHistory(in, est, true, false)
	require.NoError(t, err)
	refSet := in.Settings
	refSet.Estimator = solver.HInv{}
	ref, err := solver.New(in.Problem, &refSet)
	require.NoError(t, err)
	mx := in.Problem.Mx
	gx := make([]float64, mx.Len())
	var above []bool
	set := in.Settings
	set.Estimator = est
	set.RelGradTol = 0 // run on below the floor, past the preset's stop
	set.Recorder = recorderFunc(func(s *solver.EpochStats) error {
		if err := h.Record(s); err != nil {
			return err
		}
		exact, err := ref.Estimate(s.X, s.Y)
		if err != nil {
			return err
		}
		if err := in.Problem.GradFx(gx, &solver.Point{X: s.X, Y: s.Y}); err != nil {
			return err
		}
		above = append(above, mx.Norm(s.X, exact) > math.Sqrt(0x1p-52)*mx.Norm(s.X, gx))
		return nil
	})
	r, err := solver.New(in.Problem, &set)
	require.NoError(t, err)
	_, err = r.Run(context.Background(), in.X0, in.Y0)
	require.NoError(t, err)
	require.Len(t, h.rows, len(above))
	var n [2]int
	for k, row := range h.rows {
		require.Equal(t, above[k], !math.IsNaN(row.HyperGradErr), "epoch %d: ‖ĝ‖ = %g, error %g", k, row.HyperGradNorm, row.HyperGradErr)
		if above[k] {
			n[0]++
		} else {
			n[1]++
		}
	}
	require.Positive(t, n[0], "no epoch above the floor")
	require.Positive(t, n[1], "no epoch below the floor: ‖ĝ‖ = %g at the end", h.rows[len(h.rows)-1].HyperGradNorm)
	require.Less(t, h.rows[0].HyperGradErr, 1e-8)
}

// TestRunSecondsWallClock: the seconds reported are the run's wall
// clock, the HINV reference's time included: a run stopped by -runtime
// reports at least that long, and no more than it took.
func TestRunSecondsWallClock(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	require.NoError(t, run([]string{"run", "synthetic", "-epochs", "1000000", "-runtime", "1s", "-hinv-error", "-out", dir, "-quiet"}, &bytes.Buffer{}))
	took := time.Since(start).Seconds()
	s := readSummary(t, dir)
	require.Equal(t, "RuntimeLimit", s.Status)
	require.GreaterOrEqual(t, s.Seconds, 1.0)
	require.Less(t, s.Seconds, took)
	require.Greater(t, s.MeasureSeconds, 0.0)
	require.Less(t, s.MeasureSeconds, s.Seconds)
}

// TestRunFromNPZ: data saved with synthetic.Save and run with -data gives
// the run on the generated data, to the last bit.
func TestRunFromNPZ(t *testing.T) {
	dir := t.TempDir()
	data, err := synthetic.Generate(60, 12, 5, 0.01, 3)
	require.NoError(t, err)
	p, err := synthetic.New(data)
	require.NoError(t, err)
	w0, m0 := p.Start(7)
	path := filepath.Join(dir, "d.npz")
	require.NoError(t, synthetic.Save(path, data, problems.Start{X: w0, Y: m0}))
	args := []string{"run", "synthetic", "-epochs", "5", "-estimator", "hinv", "-quiet"}
	require.NoError(t, run(append(args, "-n", "60", "-d", "12", "-r", "5", "-seed", "3", "-out", filepath.Join(dir, "gen")), &bytes.Buffer{}))
	require.NoError(t, run(append(args, "-data", path, "-out", filepath.Join(dir, "npz")), &bytes.Buffer{}))
	_, gen := readHistory(t, filepath.Join(dir, "gen", "history.csv"))
	_, fromFile := readHistory(t, filepath.Join(dir, "npz", "history.csv"))
	for i := range gen {
		require.Equal(t, gen[i][2:4], fromFile[i][2:4], "epoch %d", i) // f and ‖ĝ‖
	}
}

// TestRunBadNPZ: a file with the wrong shapes is a user error naming the
// array.
func TestRunBadNPZ(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.npz")
	require.NoError(t, problems.WriteNPZ(path, map[string][]float64{"X": make([]float64, 20), "Y": make([]float64, 9)},
		map[string][]int{"X": {10, 2}, "Y": {9, 1}}))
	err := run([]string{"run", "synthetic", "-data", path, "-quiet", "-out", t.TempDir()}, &bytes.Buffer{})
	var u usageError
	require.ErrorAs(t, err, &u)
	require.Contains(t, err.Error(), "Y has shape [9 1]")
}

// TestRunTrouble: a diverging run exits with status 1, one line on
// standard error, and writes what it has.
func TestRunTrouble(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := asMainOut(t, "run synthetic -quiet -epochs 30 -eta-y 100 -out "+dir)
	require.Equal(t, 1, code, stderr)
	require.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	require.Contains(t, stderr, "diverged")
	s := readSummary(t, dir)
	require.Equal(t, "Diverged", s.Status)
	require.NotEmpty(t, s.Error)
	require.Nil(t, s.Objective) // no epoch finished
}

// TestRunUnscaledData: data on another scale than the paper's (standard
// normal X and Y, where the generated data have unit Frobenius norm) make
// the paper's fixed lower steps diverge at once; the error says which
// flags to change, and the adaptive preset runs.
func TestRunUnscaledData(t *testing.T) {
	dir := t.TempDir()
	rnd := rand.New(rand.NewPCG(1, 2))
	x, y := make([]float64, 100*50), make([]float64, 100*20)
	for _, v := range [][]float64{x, y} {
		for i := range v {
			v[i] = rnd.NormFloat64()
		}
	}
	path := filepath.Join(dir, "normal.npz")
	require.NoError(t, problems.WriteNPZ(path, map[string][]float64{"X": x, "Y": y}, map[string][]int{"X": {100, 50}, "Y": {100, 20}}))
	stderr, code := asMain(t, "run synthetic -quiet -data "+path+" -out "+filepath.Join(dir, "paper"))
	require.Equal(t, 1, code, stderr)
	require.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	require.Contains(t, stderr, "diverged")
	require.Contains(t, stderr, "fixed lower steps of η_y = 0.5 are too long for this g: take a smaller -eta-y, or the adaptive lower steps of -preset adaptive")
	stderr, code = asMain(t, "run synthetic -quiet -preset adaptive -epochs 20 -data "+path+" -out "+filepath.Join(dir, "adaptive"))
	require.Equal(t, 0, code, stderr)
}

// TestRunAdaptiveLongSteps: the adaptive preset on domain adaptation D→W
// goes on past BB steps that Sinkhorn cannot balance (by epoch 20 with
// -eta-x 2; at epoch 74 with the paper's 0.5, where it used to stop with
// exit status 1).
func TestRunAdaptiveLongSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 21 domain adaptation epochs at d = 128")
	}
	dir := t.TempDir()
	stderr, code := asMain(t, "run domainadapt -source dslr -target webcam -features decaf6 -preset adaptive -eta-x 2 -epochs 21 -quiet -out "+dir)
	require.Equal(t, 0, code, stderr)
	s := readSummary(t, dir)
	require.Equal(t, "IterationLimit", s.Status)
	t.Logf("%d retractions retried", s.RetractionsRetried)
}

// TestRunAdaptiveStops: the adaptive preset stops by itself once the
// hypergradient is down to 1e-8 of its first norm, instead of running its
// 200 epochs at ‖ĝ‖ ≈ 1e-15.
func TestRunAdaptiveStops(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, run([]string{"run", "synthetic", "-preset", "adaptive", "-quiet", "-out", dir}, &bytes.Buffer{}))
	s := readSummary(t, dir)
	require.Equal(t, "GradientThreshold", s.Status)
	require.Less(t, s.Epochs, 200)
	header, rows := readHistory(t, filepath.Join(dir, "history.csv"))
	c := col(t, header, "hypergradient_norm")
	require.LessOrEqual(t, num(t, rows[len(rows)-1][c]), 1e-8*num(t, rows[0][c]))
}

// TestCompare: rhgd compare runs the listed estimators on the same data
// (the same first objective), writes each one's history.csv and
// summary.json in a directory named after it (numbered when a name
// repeats), the list of summaries, and the Figure 1 panels.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"compare", "synthetic", "-epochs", "6", "-estimators", "hinv,ns,ad,ns:terms=5,gamma=0.5", "-out", dir, "-quiet"}, &out))
	var first []string
	labels := []string{"hinv", "ns", "ad", "ns-2"}
	for _, e := range labels {
		header, rows := readHistory(t, filepath.Join(dir, e, "history.csv"))
		require.Len(t, rows, 6, e)
		first = append(first, rows[0][col(t, header, "upper_objective")])
		s := readSummary(t, filepath.Join(dir, e))
		require.Equal(t, 6, s.Epochs, e)
	}
	for _, f := range first[1:] {
		require.Equal(t, first[0], f)
	}
	var sums []summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	requireSnakeCase(t, b)
	require.NoError(t, json.Unmarshal(b, &sums))
	require.Len(t, sums, 4)
	require.Equal(t, "ns:gamma=0.5,terms=5,power=10", sums[3].Estimator)
	for _, f := range []string{"figure1.png", "figure1.svg", "progress.png", "progress.svg"} {
		_, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
	}
	require.Contains(t, out.String(), "ns:gamma=1")
}

// TestCompareErrorsVsHINV: with -hinv-error, CG to 1e−10 agrees with
// HINV at its own points, and the truncated NS and AD estimates stay
// within their bias (the paper's Lemma 1), as the demo that compare
// replaced checked.
func TestCompareErrorsVsHINV(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"compare", "synthetic", "-epochs", "30", "-hinv-error", "-out", dir, "-quiet"}, &out))
	var sums []summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &sums))
	require.Len(t, sums, 4)
	bound := map[string]float64{"hinv": 0, "cg": 1e-8, "ns": 0.5, "ad": 0.8}
	for _, s := range sums {
		name, _, _ := strings.Cut(s.Estimator, ":")
		require.NotNil(t, s.HyperGradErr, name)
		require.LessOrEqual(t, *s.HyperGradErr, bound[name], name)
		require.Less(t, *s.Objective, -0.2, name) // from −0.019
	}
}

// TestSplitEstimators: a list of estimator specs splits at the commas
// between specs, not at those between a spec's settings.
func TestSplitEstimators(t *testing.T) {
	require.Equal(t, []string{"hinv", "cg:tol=1e-6,maxiter=20", "ns", "ad"}, splitEstimators("hinv, cg:tol=1e-6,maxiter=20,ns,ad"))
	require.Equal(t, []string{"cg"}, splitEstimators("cg"))
}

// TestNoDirectoryOnError: a command-line mistake found only when the
// estimators are set up leaves no output directory behind.
func TestNoDirectoryOnError(t *testing.T) {
	for _, args := range [][]string{
		{"compare", "synthetic", "-estimators", "hinv,bogus"},
		{"compare", "synthetic", "-estimators", "hinv,cg", "-ns-gamma", "2"},
		{"run", "synthetic", "-estimator", "cg:tol=-1"},
		{"run", "karcher", "-estimator", "gda"},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		var u usageError
		require.ErrorAs(t, run(append(args, "-out", dir, "-quiet"), &bytes.Buffer{}), &u, "%v", args)
		_, err := os.Stat(dir)
		require.ErrorIs(t, err, os.ErrNotExist, "%v", args)
	}
}

// TestNotes: the notes an instance carries on its data are warnings on
// standard error and part of summary.json.
func TestNotes(t *testing.T) {
	var warn bytes.Buffer
	stderr = &warn
	defer func() { stderr = os.Stderr }()
	o := runFlags{preset: "paper", settings: []keyval.Pair{{Key: "epochs", Value: "1"}}}
	in, err := prepare(&o, func(opt problems.Options) (*problems.Instance, error) {
		in, err := specFlags(&synthetic.Spec, flag.NewFlagSet("t", flag.ContinueOnError))(opt)
		if in != nil {
			in.Notes = []string{"W0: re-orthonormalized", "M0: symmetrized"}
		}
		return in, err
	})
	require.NoError(t, err)
	require.Equal(t, "rhgd: note: W0: re-orthonormalized\nrhgd: note: M0: symmetrized\n", warn.String())
	j, err := newJob(&synthetic.Spec, in, &o, "hinv")
	require.NoError(t, err)
	res, err := j.run(context.Background(), nil)
	require.NoError(t, err)
	require.Equal(t, in.Notes, res.sum.Notes)
}

// TestCompareAdaptive: under -preset adaptive the default estimator list
// leaves out AD, which differentiates the paper's fixed lower steps, says
// so, and runs the others.
func TestCompareAdaptive(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"compare", "synthetic", "-preset", "adaptive", "-epochs", "3", "-out", dir, "-quiet"}, &out))
	require.Contains(t, out.String(), "leaving out ad under -preset adaptive")
	var sums []summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &sums))
	require.Len(t, sums, 3)
	for i, e := range []string{"hinv", "cg", "ns"} {
		require.True(t, strings.HasPrefix(sums[i].Estimator, e), sums[i].Estimator)
	}
}

// TestRunOneEpoch: a run of one epoch (one point per curve, a flat range
// on the log axes) still writes its plots.
func TestRunOneEpoch(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, run([]string{"run", "synthetic", "-epochs", "1", "-estimator", "ns", "-out", dir, "-quiet"}, &bytes.Buffer{}))
	_, err := os.Stat(filepath.Join(dir, "run.png"))
	require.NoError(t, err)
}

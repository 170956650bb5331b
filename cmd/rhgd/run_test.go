package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/synthetic"
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
// its tolerance's reach, a summary that agrees with the last row, and the
// plots.
func TestRunWritesOutputs(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"run", "synthetic", "-epochs", "12", "-estimator", "cg", "-out", dir, "-quiet"}, &out))
	require.Contains(t, out.String(), "IterationLimit")
	header, rows := readHistory(t, filepath.Join(dir, "history.csv"))
	require.Len(t, rows, 12)
	fi, ei, si := col(t, header, "upper_objective"), col(t, header, "hypergradient_error_vs_hinv"), col(t, header, "seconds")
	prevSec := 0.0
	for _, r := range rows {
		require.Less(t, num(t, r[ei]), 1e-8, r)
		sec := num(t, r[si])
		require.Greater(t, sec, prevSec)
		prevSec = sec
	}
	require.Less(t, num(t, rows[11][fi]), num(t, rows[0][fi]))
	require.Equal(t, "", rows[0][col(t, header, "accuracy")]) // the synthetic problem is no classifier

	var s summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	require.Equal(t, "synthetic", s.Problem)
	require.Equal(t, "IterationLimit", s.Status)
	require.Equal(t, 12, s.Epochs)
	require.Equal(t, 0.5, s.Settings.EtaX)
	require.Equal(t, num(t, rows[11][fi]), *s.Objective)
	require.True(t, strings.HasPrefix(s.Estimator, "cg:"), s.Estimator)
	for _, f := range []string{"run.png", "run.svg"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(1000), f)
	}
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
	require.NoError(t, synthetic.Save(path, data, w0, m0))
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
	var s summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
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
	var s summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	require.Equal(t, "IterationLimit", s.Status)
	t.Logf("%d retractions retried", s.RetractionsRetried)
}

// TestRunAdaptiveStops: the adaptive preset stops by itself once the
// hypergradient is down to 1e-8 of its first norm, instead of running its
// 200 epochs at ‖ĝ‖ ≈ 1e-15.
func TestRunAdaptiveStops(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, run([]string{"run", "synthetic", "-preset", "adaptive", "-quiet", "-out", dir}, &bytes.Buffer{}))
	var s summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	require.Equal(t, "GradientThreshold", s.Status)
	require.Less(t, s.Epochs, 200)
	header, rows := readHistory(t, filepath.Join(dir, "history.csv"))
	c := col(t, header, "hypergradient_norm")
	require.LessOrEqual(t, num(t, rows[len(rows)-1][c]), 1e-8*num(t, rows[0][c]))
}

// TestCompare: rhgd compare runs the listed estimators on the same data
// (the same first objective), writes a history per estimator, a summary
// list and the Figure 1 panels.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"compare", "synthetic", "-epochs", "6", "-estimators", "hinv,ns,ad", "-out", dir, "-quiet"}, &out))
	var first []string
	for _, e := range []string{"hinv", "ns", "ad"} {
		header, rows := readHistory(t, filepath.Join(dir, "history-"+e+".csv"))
		require.Len(t, rows, 6, e)
		first = append(first, rows[0][col(t, header, "upper_objective")])
	}
	require.Equal(t, first[0], first[1])
	require.Equal(t, first[0], first[2])
	var sums []summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &sums))
	require.Len(t, sums, 3)
	for _, f := range []string{"figure1.png", "figure1.svg", "progress.png", "progress.svg"} {
		_, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
	}
	require.Contains(t, out.String(), "ns:gamma=1")
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

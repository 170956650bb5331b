package meta_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/meta"
	"github.com/rhgd/rhgd/solver"
)

// accuracies records the test accuracy and the solver's seconds every
// `every` epochs.
type accuracies struct {
	p       *meta.Problem
	every   int
	acc     []float64
	seconds []float64
}

func (a *accuracies) Record(s *solver.EpochStats) error {
	if (s.Epoch+1)%a.every != 0 {
		return nil
	}
	v, err := a.p.Accuracy(s.X, s.Y)
	a.acc = append(a.acc, v)
	a.seconds = append(a.seconds, s.Elapsed.Seconds())
	return err
}

// TestRun: 15 epochs at the default settings on 10 meta-training tasks:
// every estimator lowers f, RHGD and PHGD (HINV) raise the test accuracy
// over 40 held-out tasks above the start's.
func TestRun(t *testing.T) {
	_, _, p0, sp0 := setup(t, defaultSpec, 10, 40, meta.DefaultP, meta.DefaultLambda, false, 1)
	th, w := p0.Start(0)
	f0, err := sp0.F(testkit.At(th, w))
	require.NoError(t, err)
	a0, err := p0.Accuracy(th, w)
	require.NoError(t, err)
	for _, ext := range []bool{false, true} {
		_, _, p, sp := setup(t, defaultSpec, 10, 40, meta.DefaultP, meta.DefaultLambda, ext, 1)
		for _, name := range meta.Paper.Names() {
			if ext && name != "hinv" {
				continue
			}
			est, err := meta.Paper.Estimator(name)
			require.NoError(t, err)
			s := meta.Paper.Settings
			s.Epochs, s.Estimator = 15, est
			res, err := solver.Minimize(context.Background(), sp, th, w, &s)
			require.NoError(t, err, "%s", name)
			acc, err := p.Accuracy(res.X, res.Y)
			require.NoError(t, err)
			t.Logf("extrinsic %v, %s: f %.4f → %.4f, test accuracy %.1f → %.1f", ext, name, f0, res.F, a0, acc)
			require.Less(t, res.F, 0.8*f0, "%s", name)
			if name == "hinv" {
				require.Greater(t, acc, a0+5, "extrinsic %v", ext)
			}
		}
	}
}

// TestPaperRuns is the experiment of the report: RHGD and PHGD with each
// estimator at the defaults (100 epochs, 50 tasks, 200 test tasks), on
// both splits, for RHGD_META_RUNS seeds, logging the test accuracy every
// 10 epochs with the solver's seconds, and the PCA baseline. Skipped
// unless the variable is set.
func TestPaperRuns(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("RHGD_META_RUNS"))
	if runs <= 0 {
		t.Skip("set RHGD_META_RUNS=N to run the experiment with N seeds")
	}
	d, err := digitsData()
	require.NoError(t, err)
	type key struct {
		split, method, est string
	}
	final := map[key][]float64{}
	for _, by := range []meta.SplitBy{meta.BySample, meta.ByClass} {
		var base, start []float64
		for seed := uint64(0); seed < uint64(runs); seed++ {
			ts, err := meta.MakeTasks(d, by, defaultSpec, meta.DefaultTasks, meta.DefaultTestTasks, seed)
			require.NoError(t, err)
			for _, ext := range []bool{false, true} {
				method := "rhgd"
				if ext {
					method = "phgd"
				}
				p, err := meta.New(d, ts, meta.Config{P: meta.DefaultP, Lambda: meta.DefaultLambda, Extrinsic: ext}, seed)
				require.NoError(t, err)
				th, w := p.Start(0)
				if !ext {
					b, err := p.BaselineAccuracy()
					require.NoError(t, err)
					a, err := p.Accuracy(th, w)
					require.NoError(t, err)
					base, start = append(base, b), append(start, a)
				}
				for _, name := range meta.Paper.Names() {
					est, err := meta.Paper.Estimator(name)
					require.NoError(t, err)
					s := meta.Paper.Settings
					rec := &accuracies{p: p, every: 10}
					s.Estimator, s.Recorder = est, rec
					res, err := solver.Minimize(context.Background(), p.Bilevel(), th, w, &s)
					require.NoError(t, err)
					var b strings.Builder
					for i, a := range rec.acc {
						fmt.Fprintf(&b, " %d:%.1f(%.2fs)", (i+1)*rec.every, a, rec.seconds[i])
					}
					t.Logf("%v seed %d %s %s: f = %.4f, test accuracy by epoch (seconds):%s", by, seed, method, name, res.F, b.String())
					k := key{by.String(), method, name}
					final[k] = append(final[k], rec.acc[len(rec.acc)-1])
				}
			}
		}
		t.Logf("%v: start %s%%, PCA baseline %s%%", by, testkit.MeanStd(start), testkit.MeanStd(base))
	}
	for _, by := range []string{"samples", "classes"} {
		for _, method := range []string{"rhgd", "phgd"} {
			for _, name := range meta.Paper.Names() {
				t.Logf("%s %s %s: final test accuracy %s%% over %d seeds", by, method, name, testkit.MeanStd(final[key{by, method, name}]), runs)
			}
		}
	}
}

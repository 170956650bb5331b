package meta_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/meta"
	"github.com/rhgd/rhgd/solver"
)

// defaultSpec is the Spec's task shape.
var defaultSpec = meta.TaskSpec{Ways: meta.DefaultWays, Shots: meta.DefaultShots, Queries: meta.DefaultQueries}

// warm returns a solver at the default sizes and settings after three
// epochs from the start, RHGD or (ext) PHGD.
func warm(tb testing.TB, name string, ext bool) (*meta.Problem, *solver.RHGD) {
	tb.Helper()
	_, _, p, sp := setup(tb, defaultSpec, meta.DefaultTasks, meta.DefaultTestTasks, meta.DefaultP, meta.DefaultLambda, ext, 42)
	th, w := p.Start(0)
	est, err := meta.Paper.Estimator(name)
	require.NoError(tb, err)
	s := meta.Paper.Settings
	s.Epochs, s.Estimator = 3, est
	r := testkit.Warm(tb, sp, s, th, w)
	return p, r
}

// TestEpochAllocs: a steady-state epoch allocates nothing, with each
// estimator, for RHGD and PHGD, and neither does the test accuracy.
func TestEpochAllocs(t *testing.T) {
	testkit.SkipRace(t)
	for _, name := range meta.Paper.Names() {
		for _, ext := range []bool{false, true} {
			p, r := warm(t, name, ext)
			if a := testkit.StepAllocs(t, r, 2); a != 0 {
				t.Errorf("%s, extrinsic %v: %v allocations per epoch", name, ext, a)
			}
			if name == "hinv" {
				require.Zero(t, testing.AllocsPerRun(1, func() {
					if _, err := p.Accuracy(r.X(), r.Y()); err != nil {
						t.Fatal(err)
					}
				}), "Accuracy")
			}
		}
	}
}

// TestOracleAllocs: every oracle allocates nothing once the problem is
// built.
func TestOracleAllocs(t *testing.T) {
	_, _, p, sp := setup(t, tiny, 4, 3, 5, 0.5, false, 8)
	th, w := p.Start(0)
	testkit.OracleAllocs(t, sp, th, randomHeads(len(w), 0.5, 1), [][]int{nil}, 3, true, nil)
}

// BenchmarkMetaEpoch is one epoch at the defaults (50 tasks, S = 30 lower
// steps, the estimate, the upper step with the features of the
// meta-training images at the new Θ), RHGD and PHGD.
func BenchmarkMetaEpoch(b *testing.B) {
	for _, method := range []string{"rhgd", "phgd"} {
		for _, name := range meta.Paper.Names() {
			b.Run("method="+method+"/estimator="+name, func(b *testing.B) {
				_, r := warm(b, name, method == "phgd")
				testkit.BenchSteps(b, r)
			})
		}
	}
}

// BenchmarkAccuracy is the test accuracy over the 200 held-out tasks: the
// features of the meta-test images and a head solve per task.
func BenchmarkAccuracy(b *testing.B) {
	b.ReportAllocs()
	p, r := warm(b, "hinv", false)
	for b.Loop() {
		if _, err := p.Accuracy(r.X(), r.Y()); err != nil {
			b.Fatal(err)
		}
	}
}

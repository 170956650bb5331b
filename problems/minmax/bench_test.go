package minmax_test

import (
	"testing"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/minmax"
	"github.com/rhgd/rhgd/solver"
)

var estimatorNames = []string{"gda", "hinv", "cg", "ns", "ad"}

// warm returns an RHGD at the default sizes after 10 epochs from the
// default start, still far from the optimum (which it reaches in about
// 35), so benchmarks and allocation tests see a representative iterate.
func warm(tb testing.TB, name string) *solver.RHGD {
	_, pr := setup(tb, minmax.DefaultParams().N, minmax.DefaultParams().P, minmax.DefaultParams().Cond, minmax.DefaultParams().Gap)
	x0, y0 := pr.Start(7)
	return testkit.WarmPaper(tb, minmax.Paper, name, 10, solver.Batches{}, pr.Bilevel(), x0, y0)
}

// TestEpochAllocs: one steady-state epoch allocates nothing, with each
// estimator.
func TestEpochAllocs(t *testing.T) {
	testkit.SkipRace(t)
	testkit.EpochAllocs(t, estimatorNames, 3, "", warm)
}

// BenchmarkMinMaxEpoch is one epoch (S = 20 ascent steps with the
// exponential map, the estimate, the upper step) at the default sizes,
// St(50, 10) × SPD(10).
func BenchmarkMinMaxEpoch(b *testing.B) {
	testkit.EpochBench(b, estimatorNames, warm)
}

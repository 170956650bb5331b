package karcher_test

import (
	"testing"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/karcher"
	"github.com/rhgd/rhgd/solver"
)

// epochEstimators are the estimators of the epoch benchmarks: each of
// Estimators on the closed-form oracles, and CG on finite differences
// ("cg-fd", the reformulation's own oracles as solver.Compositional gives
// them).
var epochEstimators = []string{"hinv", "cg", "ns", "ad", "cg-fd"}

// warm returns an RHGD at the default sizes after 5 epochs from the
// default start, still far from the optimum (which it reaches in about
// 35), so benchmarks and allocation tests see a representative iterate.
func warm(tb testing.TB, name string) *solver.RHGD {
	_, p := setup(tb, karcher.DefaultParams().N, karcher.DefaultParams().Count, karcher.DefaultParams().Spread)
	x0, y0 := p.Start(0)
	q := p.Bilevel()
	if name == "cg-fd" {
		name = "cg"
		q.HessGy, q.HessGyInv, q.CrossGxy = nil, nil, nil
	}
	return testkit.WarmPaper(tb, karcher.Paper, name, 5, solver.Batches{}, q, x0, y0)
}

// TestEpochAllocs: one steady-state epoch allocates nothing, with each
// estimator.
func TestEpochAllocs(t *testing.T) {
	testkit.SkipRace(t)
	testkit.EpochAllocs(t, epochEstimators, 3, "", warm)
}

// BenchmarkKarcherEpoch is one epoch (S = 20 lower steps, the estimate,
// ψ and its gradient over the 20 matrices, the upper step) at the default
// sizes, n = 10.
func BenchmarkKarcherEpoch(b *testing.B) {
	testkit.EpochBench(b, epochEstimators, warm)
}

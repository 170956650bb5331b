package hyperrep_test

import (
	"fmt"
	"testing"

	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/solver"
)

// warmOn returns, for testkit's loops over the estimators, the named
// estimator's solver at the paper's sizes and settings after five
// epochs from the paper's start, so that benchmarks and allocation tests
// see a representative iterate; batches, when not zero, make it RSHGD.
func warmOn(batches solver.Batches) func(testing.TB, string) *solver.RHGD {
	return func(tb testing.TB, name string) *solver.RHGD {
		_, hp, p := setup(tb, hyperrep.PaperSizes, 42)
		w0, b0 := hp.Start(0)
		return testkit.WarmPaper(tb, hyperrep.Paper, name, 5, batches, p, w0, b0)
	}
}

// TestEpochAllocs: a steady-state epoch allocates nothing, with each
// estimator, for RHGD and RSHGD.
func TestEpochAllocs(t *testing.T) {
	testkit.SkipRace(t)
	for _, b := range []solver.Batches{{}, *hyperrep.Paper.Batches} {
		testkit.EpochAllocs(t, hyperrep.Paper.Names(), 3, fmt.Sprintf(", batches %+v", b), warmOn(b))
	}
}

// TestOracleAllocs: every oracle, with and without a batch, allocates
// nothing once the problem is built (each call at a new W recomputes the
// features).
func TestOracleAllocs(t *testing.T) {
	_, hp, p := setup(t, small, 8)
	w, beta := hp.Start(0)
	testkit.OracleAllocs(t, p, w, beta, [][]int{nil, {0, 3, 3, 5}}, 5, false, nil)
}

// BenchmarkHyperrepEpoch is one RHGD epoch at the paper's sizes and
// settings (S = 50 lower steps, the estimate, the upper step), which
// includes the features of both sets at the new W.
func BenchmarkHyperrepEpoch(b *testing.B) {
	testkit.EpochBench(b, hyperrep.Paper.Names(), warmOn(solver.Batches{}))
}

// BenchmarkRSHGDEpoch is one RSHGD epoch with the paper's batches
// (StochasticBatches).
func BenchmarkRSHGDEpoch(b *testing.B) {
	testkit.EpochBench(b, hyperrep.Paper.Names(), warmOn(*hyperrep.Paper.Batches))
}

// BenchmarkFeatures is the work of one new W: the features of both sets
// (N = 200 eigendecompositions of 10×10 matrices and the products
// A_iW, WᵀA_iW), through F and GradGy at a point of unknown identity.
func BenchmarkFeatures(b *testing.B) {
	_, hp, p := setup(b, hyperrep.PaperSizes, 42)
	w := testkit.RandPoint(hp.St, 1)
	_, beta := hp.Start(0)
	testkit.BenchNewX(b, p, testkit.At(w, beta), make([]float64, len(beta)))
}

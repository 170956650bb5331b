package spdnet_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/spdnet"
	"github.com/rhgd/rhgd/solver"
)

// warmOn returns, for testkit's loops over the estimators, the named
// estimator's solver at the paper's sizes and settings after three
// epochs from the authors' start on the seed-42 split, so that benchmarks
// and allocation tests see a representative iterate; batches, when not
// zero, make it RSHGD.
func warmOn(batches solver.Batches) func(testing.TB, string) *solver.RHGD {
	return func(tb testing.TB, name string) *solver.RHGD {
		_, _, p, sp := setup(tb, spdnet.PaperConfig, spdnet.PaperTrainPerClass, 0, 42)
		w0, g0 := p.Start(0)
		return testkit.WarmPaper(tb, spdnet.Paper, name, 3, batches, sp, w0, g0)
	}
}

// TestEpochAllocs: a steady-state epoch allocates nothing, with each
// estimator, for RHGD and RSHGD, and with the exact lower solve.
func TestEpochAllocs(t *testing.T) {
	testkit.SkipRace(t)
	for _, b := range []solver.Batches{{}, *spdnet.Paper.Batches} {
		testkit.EpochAllocs(t, spdnet.Paper.Names(), 2, fmt.Sprintf(", batches %+v", b), warmOn(b))
	}
	_, _, p, sp := setup(t, spdnet.PaperConfig, spdnet.PaperTrainPerClass, 0, 42)
	w0, g0 := p.Start(0)
	s := solver.AdaptiveSettings()
	s.Estimator = solver.HInv{}
	r := testkit.Stepped(t, sp, s, w0, g0, 2)
	require.Zero(t, testkit.StepAllocs(t, r, 2), "adaptive epoch with LowerSolve")
}

// TestOracleAllocs: every oracle, with and without a batch, and the
// accuracy allocate nothing once the problem is built.
func TestOracleAllocs(t *testing.T) {
	_, _, p, sp := setup(t, small, 3, 0, 8)
	w, g := p.Start(0)
	accuracy := func() error { _, err := p.Accuracy(w, g); return err }
	testkit.OracleAllocs(t, sp, w, g, [][]int{nil, {0, 3, 3, 5}}, 3, true, accuracy)
}

// BenchmarkSPDNetEpoch is one RHGD epoch at the paper's sizes and
// settings (S = 50 lower steps, the estimate, the upper step), which
// includes the network's forward pass on both sets at the new W.
func BenchmarkSPDNetEpoch(b *testing.B) {
	testkit.EpochBench(b, spdnet.Paper.Names(), warmOn(solver.Batches{}))
}

// BenchmarkRSHGDEpoch is one RSHGD epoch with StochasticBatches.
func BenchmarkRSHGDEpoch(b *testing.B) {
	testkit.EpochBench(b, spdnet.Paper.Names(), warmOn(*spdnet.Paper.Batches))
}

// BenchmarkForward is the network on both sets at a new W (F and GradGy
// at a point of unknown identity: 80 matrices through both layers).
func BenchmarkForward(b *testing.B) {
	_, _, p, sp := setup(b, spdnet.PaperConfig, spdnet.PaperTrainPerClass, 0, 42)
	w := testkit.RandPoint(p.Mx, 1)
	_, g := p.Start(0)
	testkit.BenchNewX(b, sp, testkit.At(w, g), make([]float64, len(g)))
}

// BenchmarkBackward is one gradient in W (GradFx) at a point whose
// forward pass is cached: the backpropagation through both layers of the
// 40 validation matrices.
func BenchmarkBackward(b *testing.B) {
	b.ReportAllocs()
	_, _, p, sp := setup(b, spdnet.PaperConfig, spdnet.PaperTrainPerClass, 0, 42)
	w := testkit.RandPoint(p.Mx, 1)
	_, g := p.Start(0)
	gx := make([]float64, len(w))
	pt := &solver.Point{X: w, Y: g, XID: solver.NewID(), YID: solver.NewID()}
	for b.Loop() {
		if err := sp.GradFx(gx, pt); err != nil {
			b.Fatal(err)
		}
	}
}

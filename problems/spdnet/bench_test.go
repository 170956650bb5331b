package spdnet_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/problems/spdnet"
	"github.com/rhgd/rhgd/solver"
)

// warm returns a solver at the paper's sizes and settings after three
// epochs from the authors' start on the seed-42 split, so that benchmarks
// and allocation tests see a representative iterate; batches, when not
// zero, make it RSHGD.
func warm(tb testing.TB, name string, batches solver.Batches) *solver.RHGD {
	tb.Helper()
	_, _, p, sp := setup(tb, spdnet.PaperConfig, spdnet.PaperTrainPerClass, 0, 42)
	w0, g0 := p.Start()
	est, err := spdnet.Paper.Estimator(name)
	require.NoError(tb, err)
	s := spdnet.Paper.Settings
	s.Epochs, s.Estimator, s.Batches = 3, est, batches
	r, err := solver.New(sp, &s)
	require.NoError(tb, err)
	res, err := r.Run(context.Background(), w0, g0)
	require.NoError(tb, err)
	require.NoError(tb, r.Reset(res.X, res.Y))
	return r
}

// TestEpochAllocs: a steady-state epoch allocates nothing, with each
// estimator, for RHGD and RSHGD, and with the exact lower solve.
func TestEpochAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	for _, name := range spdnet.Paper.Names() {
		for _, b := range []solver.Batches{{}, *spdnet.Paper.Batches} {
			r := warm(t, name, b)
			if a := testing.AllocsPerRun(2, func() {
				if _, err := r.Step(); err != nil {
					t.Fatal(err)
				}
			}); a != 0 {
				t.Errorf("%s, batches %+v: %v allocations per epoch", name, b, a)
			}
		}
	}
	_, _, p, sp := setup(t, spdnet.PaperConfig, spdnet.PaperTrainPerClass, 0, 42)
	w0, g0 := p.Start()
	s := solver.AdaptiveSettings()
	s.Estimator = solver.HInv{}
	r, err := solver.New(sp, &s)
	require.NoError(t, err)
	require.NoError(t, r.Reset(w0, g0))
	for i := 0; i < 2; i++ {
		_, err := r.Step()
		require.NoError(t, err)
	}
	require.Zero(t, testing.AllocsPerRun(2, func() {
		if _, err := r.Step(); err != nil {
			t.Fatal(err)
		}
	}), "adaptive epoch with LowerSolve")
}

// TestOracleAllocs: every oracle, with and without a batch, and the
// accuracy allocate nothing once the problem is built.
func TestOracleAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	_, _, p, sp := setup(t, small, 3, 0, 8)
	w, g := p.Start()
	gx, gy, y := make([]float64, len(w)), make([]float64, len(g)), make([]float64, len(g))
	for _, batch := range [][]int{nil, {0, 3, 3, 5}} {
		pt := &solver.Point{X: w, Y: g, Batch: batch}
		if a := testing.AllocsPerRun(3, func() {
			var errs [12]error
			_, errs[0] = sp.F(pt)
			_, errs[1] = sp.G(pt)
			errs[2] = sp.GradFx(gx, pt)
			errs[3] = sp.GradFy(gy, pt)
			errs[4] = sp.GradGx(gx, pt)
			errs[5] = sp.GradGy(gy, pt)
			errs[6] = sp.HessGy(gy, pt, g)
			errs[7] = sp.HessGyInv(gy, pt, g)
			errs[8] = sp.CrossGxy(gx, pt, g)
			errs[9] = sp.CrossGyx(gy, pt, gx)
			errs[10] = sp.LowerSolve(y, pt)
			_, errs[11] = p.Accuracy(w, g)
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
		}); a != 0 {
			t.Errorf("batch %v: %v allocations", batch, a)
		}
	}
}

// BenchmarkSPDNetEpoch is one RHGD epoch at the paper's sizes and
// settings (S = 50 lower steps, the estimate, the upper step), which
// includes the network's forward pass on both sets at the new W.
func BenchmarkSPDNetEpoch(b *testing.B) {
	for _, name := range spdnet.Paper.Names() {
		b.Run("estimator="+name, func(b *testing.B) {
			b.ReportAllocs()
			r := warm(b, name, solver.Batches{})
			for b.Loop() {
				if _, err := r.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRSHGDEpoch is one RSHGD epoch with StochasticBatches.
func BenchmarkRSHGDEpoch(b *testing.B) {
	for _, name := range spdnet.Paper.Names() {
		b.Run("estimator="+name, func(b *testing.B) {
			b.ReportAllocs()
			r := warm(b, name, *spdnet.Paper.Batches)
			for b.Loop() {
				if _, err := r.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkForward is the network on both sets at a new W (F and GradGy
// at a point of unknown identity: 80 matrices through both layers).
func BenchmarkForward(b *testing.B) {
	b.ReportAllocs()
	_, _, p, sp := setup(b, spdnet.PaperConfig, spdnet.PaperTrainPerClass, 0, 42)
	w := randomW(p, 1)
	_, g := p.Start()
	gy := make([]float64, len(g))
	pt := at(w, g)
	for b.Loop() {
		if _, err := sp.F(pt); err != nil {
			b.Fatal(err)
		}
		if err := sp.GradGy(gy, pt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBackward is one gradient in W (GradFx) at a point whose
// forward pass is cached: the backpropagation through both layers of the
// 40 validation matrices.
func BenchmarkBackward(b *testing.B) {
	b.ReportAllocs()
	_, _, p, sp := setup(b, spdnet.PaperConfig, spdnet.PaperTrainPerClass, 0, 42)
	w := randomW(p, 1)
	_, g := p.Start()
	gx := make([]float64, len(w))
	pt := &solver.Point{X: w, Y: g, XID: solver.NewID(), YID: solver.NewID()}
	for b.Loop() {
		if err := sp.GradFx(gx, pt); err != nil {
			b.Fatal(err)
		}
	}
}

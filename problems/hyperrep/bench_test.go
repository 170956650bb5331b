package hyperrep_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/solver"
)

// warm returns a solver at the paper's sizes and settings after five
// epochs from the paper's start, so that benchmarks and allocation tests
// see a representative iterate; batches, when not zero, make it RSHGD.
func warm(tb testing.TB, name string, batches solver.Batches) *solver.RHGD {
	tb.Helper()
	_, hp, p := setup(tb, hyperrep.PaperSizes, 42)
	w0, b0 := hp.Start()
	est, err := hyperrep.Paper.Estimator(name)
	require.NoError(tb, err)
	s := hyperrep.Paper.Settings
	s.Epochs, s.Estimator, s.Batches = 5, est, batches
	r, err := solver.New(p, &s)
	require.NoError(tb, err)
	res, err := r.Run(context.Background(), w0, b0)
	require.NoError(tb, err)
	require.NoError(tb, r.Reset(res.X, res.Y))
	return r
}

// TestEpochAllocs: a steady-state epoch allocates nothing, with each
// estimator, for RHGD and RSHGD.
func TestEpochAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	for _, name := range hyperrep.Paper.Names() {
		for _, b := range []solver.Batches{{}, *hyperrep.Paper.Batches} {
			r := warm(t, name, b)
			if a := testing.AllocsPerRun(3, func() {
				if _, err := r.Step(); err != nil {
					t.Fatal(err)
				}
			}); a != 0 {
				t.Errorf("%s, batches %+v: %v allocations per epoch", name, b, a)
			}
		}
	}
}

// TestOracleAllocs: every oracle, with and without a batch, allocates
// nothing once the problem is built (each call at a new W recomputes the
// features).
func TestOracleAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	_, hp, p := setup(t, small, 8)
	w, beta := hp.Start()
	gx, gy := make([]float64, len(w)), make([]float64, len(beta))
	for _, batch := range [][]int{nil, {0, 3, 3, 5}} {
		pt := &solver.Point{X: w, Y: beta, Batch: batch}
		if a := testing.AllocsPerRun(5, func() {
			var errs [10]error
			_, errs[0] = p.F(pt)
			_, errs[1] = p.G(pt)
			errs[2] = p.GradFx(gx, pt)
			errs[3] = p.GradFy(gy, pt)
			errs[4] = p.GradGx(gx, pt)
			errs[5] = p.GradGy(gy, pt)
			errs[6] = p.HessGy(gy, pt, beta)
			errs[7] = p.HessGyInv(gy, pt, beta)
			errs[8] = p.CrossGxy(gx, pt, beta)
			errs[9] = p.CrossGyx(gy, pt, gx)
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

// BenchmarkHyperrepEpoch is one RHGD epoch at the paper's sizes and
// settings (S = 50 lower steps, the estimate, the upper step), which
// includes the features of both sets at the new W.
func BenchmarkHyperrepEpoch(b *testing.B) {
	for _, name := range hyperrep.Paper.Names() {
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

// BenchmarkRSHGDEpoch is one RSHGD epoch with the paper's batches
// (StochasticBatches).
func BenchmarkRSHGDEpoch(b *testing.B) {
	for _, name := range hyperrep.Paper.Names() {
		b.Run("estimator="+name, func(b *testing.B) {
			b.ReportAllocs()
			r := warm(b, name, *hyperrep.Paper.Batches)
			for b.Loop() {
				if _, err := r.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFeatures is the work of one new W: the features of both sets
// (N = 200 eigendecompositions of 10×10 matrices and the products
// A_iW, WᵀA_iW), through F and GradGy at a point of unknown identity.
func BenchmarkFeatures(b *testing.B) {
	b.ReportAllocs()
	_, hp, p := setup(b, hyperrep.PaperSizes, 42)
	w := randomW(hp, 1)
	_, beta := hp.Start()
	g := make([]float64, len(beta))
	pt := at(w, beta) // unknown identity: every call recomputes
	for b.Loop() {
		if _, err := p.F(pt); err != nil {
			b.Fatal(err)
		}
		if err := p.GradGy(g, pt); err != nil {
			b.Fatal(err)
		}
	}
}

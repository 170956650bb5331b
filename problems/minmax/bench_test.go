package minmax_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
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
	s := minmax.Paper.Settings
	s.Epochs = 10
	est, err := solver.ParseEstimator(minmax.Paper.Specs()[name])
	require.NoError(tb, err)
	s.Estimator = est
	r, err := solver.New(pr.Bilevel(), &s)
	require.NoError(tb, err)
	res, err := r.Run(context.Background(), x0, y0)
	require.NoError(tb, err)
	require.NoError(tb, r.Reset(res.X, res.Y))
	return r
}

// TestEpochAllocs: one steady-state epoch allocates nothing, with each
// estimator.
func TestEpochAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	for _, name := range estimatorNames {
		r := warm(t, name)
		if a := testing.AllocsPerRun(3, func() {
			if _, err := r.Step(); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%s: %v allocations per epoch", name, a)
		}
	}
}

// BenchmarkMinMaxEpoch is one epoch (S = 20 ascent steps with the
// exponential map, the estimate, the upper step) at the default sizes,
// St(50, 10) × SPD(10).
func BenchmarkMinMaxEpoch(b *testing.B) {
	for _, name := range estimatorNames {
		b.Run("estimator="+name, func(b *testing.B) {
			b.ReportAllocs()
			r := warm(b, name)
			for b.Loop() {
				if _, err := r.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

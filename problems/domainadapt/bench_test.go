package domainadapt_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	officecaltech "github.com/rhgd/rhgd/data/office-caltech10"
	"github.com/rhgd/rhgd/problems/domainadapt"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/solver"
)

// warm returns an RHGD on the D→W DeCAF6 pair (n = 157, m = 295, d = 128)
// with the Instance's settings and the named estimator, after a few epochs
// from the Instance's start, and its problem.
func warm(tb testing.TB, name string, epochs int) (*solver.RHGD, *domainadapt.Problem) {
	data, err := domainadapt.LoadPair(officecaltech.DSLR, officecaltech.Webcam, officecaltech.DeCAF6)
	require.NoError(tb, err)
	dp, err := domainadapt.New(data, domainadapt.PaperConfig())
	require.NoError(tb, err)
	in, err := domainadapt.NewInstance(data, domainadapt.PaperConfig(), 5e-3)
	require.NoError(tb, err)
	s := in.Settings
	s.Epochs = epochs
	if s.Estimator, err = domainadapt.Paper.Estimator(name); err != nil {
		tb.Fatal(err)
	}
	r := testkit.Warm(tb, dp.Bilevel(), s, in.X0, in.Y0)
	return r, dp
}

// TestEpochAllocs: a steady-state epoch at the D→W size allocates nothing,
// with each estimator.
func TestEpochAllocs(t *testing.T) {
	testkit.SkipRace(t)
	if testing.Short() {
		t.Skip("loads the D→W data and runs epochs at d = 128")
	}
	for _, name := range domainadapt.Paper.Names() {
		r, _ := warm(t, name, 2)
		if a := testkit.StepAllocs(t, r, 2); a != 0 {
			t.Errorf("%s: %v allocations per epoch", name, a)
		}
	}
}

// BenchmarkDomainAdaptEpoch is one epoch (S = 20 lower steps, the CG
// estimate, the upper step) on D→W with DeCAF6 features.
func BenchmarkDomainAdaptEpoch(b *testing.B) {
	b.Run("pair=DW", func(b *testing.B) {
		r, _ := warm(b, "cg", 3)
		testkit.BenchSteps(b, r)
	})
}

// BenchmarkHypergrad is one hypergradient estimate at a fixed point of
// the D→W problem, per estimator.
func BenchmarkHypergrad(b *testing.B) {
	for _, name := range []string{"hinv", "cg", "ns"} {
		b.Run("estimator="+name, func(b *testing.B) {
			b.ReportAllocs()
			r, _ := warm(b, name, 3)
			for b.Loop() {
				if _, err := r.Hypergradient(false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLowerSolution is the closed-form M*(Γ) on D→W.
func BenchmarkLowerSolution(b *testing.B) {
	b.Run("pair=DW", func(b *testing.B) {
		b.ReportAllocs()
		r, dp := warm(b, "cg", 1)
		dst := make([]float64, 128*128)
		for b.Loop() {
			if err := dp.LowerSolution(dst, r.X()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package synthetic_test

import (
	"testing"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// paperEstimators are the four estimators with the paper's settings.
func paperEstimators() map[string]func() solver.Estimator {
	m := map[string]func() solver.Estimator{}
	for _, name := range synthetic.Paper.Names() {
		m[name] = func() solver.Estimator {
			e, err := synthetic.Paper.Estimator(name)
			if err != nil {
				panic(err)
			}
			return e
		}
	}
	return m
}

var paperSettings = synthetic.Paper.Settings

// warm returns an RHGD at the paper's sizes after 20 epochs from the paper's
// start, so benchmarks and allocation tests see a representative iterate.
func warm(tb testing.TB, name string) *solver.RHGD {
	_, p, w, m := setup(tb, 100, 50, 20)
	s := paperSettings
	s.Epochs = 20
	s.Estimator = paperEstimators()[name]()
	return testkit.Warm(tb, p, s, w, m)
}

// TestEpochAllocs: one steady-state epoch allocates nothing, with each
// estimator.
func TestEpochAllocs(t *testing.T) {
	testkit.SkipRace(t)
	for name := range paperEstimators() {
		r := warm(t, name)
		if a := testkit.StepAllocs(t, r, 3); a != 0 {
			t.Errorf("%s: %v allocations per epoch", name, a)
		}
	}
}

// BenchmarkHypergrad is one hypergradient estimate at the paper's sizes
// (n=100, d=50, r=20): at a fixed (W, M) for HINV, CG and NS; the S=20
// lower steps and the reverse pass for AD.
func BenchmarkHypergrad(b *testing.B) {
	for _, name := range []string{"hinv", "cg", "ns", "ad"} {
		b.Run("estimator="+name, func(b *testing.B) {
			b.ReportAllocs()
			r := warm(b, name)
			x0, y0 := append([]float64(nil), r.X()...), append([]float64(nil), r.Y()...)
			for b.Loop() {
				if name == "ad" { // its lower steps move y: back to y0
					b.StopTimer()
					if err := r.Reset(x0, y0); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if _, err := r.Hypergradient(name == "ad"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRHGDEpoch is one epoch (S=20 lower steps, the estimate, the
// upper step) at the paper's sizes.
func BenchmarkRHGDEpoch(b *testing.B) {
	for _, name := range []string{"hinv", "cg", "ns", "ad"} {
		b.Run("estimator="+name, func(b *testing.B) {
			testkit.BenchSteps(b, warm(b, name))
		})
	}
}

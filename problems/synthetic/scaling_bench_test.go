package synthetic_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/solver"
)

// scalingSizes are the orders d of BenchmarkRHGDEpochScaling.
var scalingSizes = []int{50, 200, 500, 1000}

// warmScaled returns an RHGD with the named paper estimator on the problem
// of order d with r = d/2.5 (rounded) and n = 2d, after the given number
// of epochs from the paper's start. *hessVecs counts the calls of HessGy.
func warmScaled(tb testing.TB, name string, d, epochs int, hessVecs *int) *solver.RHGD {
	r := int(math.Round(float64(d) / 2.5))
	_, p, w, m := setup(tb, 2*d, d, r)
	hess := p.HessGy
	p.HessGy = func(dst []float64, pt *solver.Point, u []float64) error {
		*hessVecs++
		return hess(dst, pt, u)
	}
	s := paperSettings
	s.Epochs = epochs
	s.Estimator = paperEstimators()[name]()
	return testkit.Warm(tb, p, s, w, m)
}

// BenchmarkRHGDEpochScaling is one epoch (S=20 lower steps, the estimate,
// the upper step) with the paper's settings at d = 50 to 1000, r = d/2.5,
// n = 2d, for each estimator, after two warm-up epochs; hessvecs/op is the
// Hessian-vector products per epoch (CG's varies with the iterate). The
// d=1000 epoch takes seconds:
//
//	go test -run '^$' -bench RHGDEpochScaling -benchtime 3x ./problems/synthetic
func BenchmarkRHGDEpochScaling(b *testing.B) {
	for _, name := range []string{"hinv", "cg", "ns", "ad"} {
		for _, d := range scalingSizes {
			b.Run(fmt.Sprintf("estimator=%s/d=%d", name, d), func(b *testing.B) {
				b.ReportAllocs()
				var hv int
				r := warmScaled(b, name, d, 2, &hv)
				before := hv
				for b.Loop() {
					if _, err := r.Step(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(hv-before)/float64(b.N), "hessvecs/op")
			})
		}
	}
}

// TestEpochAllocsScaled: a steady-state epoch at d = 200 allocates nothing
// with any estimator, as at the paper's d = 50 (TestEpochAllocs).
func TestEpochAllocsScaled(t *testing.T) {
	testkit.SkipRace(t)
	if testing.Short() {
		t.Skip("d = 200 epochs in -short")
	}
	for name := range paperEstimators() {
		var hv int
		r := warmScaled(t, name, 200, 1, &hv)
		if a := testkit.StepAllocs(t, r, 1); a != 0 {
			t.Errorf("%s: %v allocations per epoch at d = 200", name, a)
		}
	}
}

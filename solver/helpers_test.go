package solver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// on returns p on the manifolds mx × my.
func on(p solver.Problem, mx, my solver.Manifold) solver.Problem {
	p.Mx, p.My = mx, my
	return p
}

// with returns a copy of s (nil: the zero Settings) with estimator est.
func with(est solver.Estimator, s *solver.Settings) *solver.Settings {
	var st solver.Settings
	if s != nil {
		st = *s
	}
	st.Estimator = est
	return &st
}

// withBatches returns s with the minibatch sizes b.
func withBatches(s *solver.Settings, b solver.Batches) *solver.Settings {
	s.Batches = b
	return s
}

// at is the point (x, y) with unknown identities, for calling oracles by
// hand: no cache can match it.
func at(x, y []float64) *solver.Point { return &solver.Point{X: x, Y: y} }

// must fails the test on an oracle error.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// value returns an objective's value at (x, y), failing the test on error.
func value(t testing.TB, f func(*solver.Point) (float64, error), x, y []float64) float64 {
	t.Helper()
	v, err := f(at(x, y))
	must(t, err)
	return v
}

// smallSynthetic is the synthetic problem (Stiefel × SPD) at a small size:
// n = 20 samples of dimension d, rank 4, the paper's ν, data of seed seed.
func smallSynthetic(t testing.TB, d int, seed uint64) *synthetic.Problem {
	t.Helper()
	data, err := synthetic.Generate(20, d, 4, synthetic.PaperNu, seed)
	require.NoError(t, err)
	sp, err := synthetic.New(data)
	require.NoError(t, err)
	return sp
}

// smallHyperrep is the hyper-representation problem (Stiefel × Euclidean)
// of the sizes s, data of seed 5, with the paper's λ.
func smallHyperrep(t testing.TB, s hyperrep.Sizes) *hyperrep.Problem {
	t.Helper()
	data, err := hyperrep.GenerateSizes(s, 5)
	require.NoError(t, err)
	hp, err := hyperrep.New(data, hyperrep.PaperLambda)
	require.NoError(t, err)
	return hp
}

// stepAllocs resets r to (x0, y0), takes one step to warm up, and returns
// the allocations of a step averaged over runs more (testing.AllocsPerRun).
func stepAllocs(t testing.TB, r *solver.RHGD, x0, y0 []float64, runs int) float64 {
	t.Helper()
	require.NoError(t, r.Reset(x0, y0))
	_, err := r.Step()
	require.NoError(t, err)
	return testing.AllocsPerRun(runs, func() {
		if _, err := r.Step(); err != nil {
			t.Fatal(err)
		}
	})
}

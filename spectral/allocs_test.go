package spectral

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/internal/allocs"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/lapackx"
)

// TestAllocsEveryPath: in the steady state nothing allocates on any
// eigensolver path (Go, LAPACK, Batched and Auto), under each backend, at
// orders on both sides of Auto's switch (20/21) and from lapackx's QL
// cutoff (140, where Batched is batched dsyevd): Factorize, Apply, the
// forward and backward maps for one matrix (Frechet, Backward) and for
// all (FrechetAll, BackwardAll), and the checked entry points Eig and
// Map with and without the backward map, in parallel and in chunks
// (a capacity below the count). TestAllocs and TestAPIAllocs cover the
// native backend at n ≤ 40.
func TestAllocsEveryPath(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	prev := blas.Current()
	defer func() { require.NoError(t, blas.Use(prev)) }()
	for _, be := range blas.Available() {
		require.NoError(t, blas.Use(be))
		for _, c := range []struct{ n, count int }{{3, 24}, {21, 12}, {140, 3}} {
			n, count, nn := c.n, c.count, c.n*c.n
			a, g := apiBatch(n, count, true, 7)
			w, v, out, grad := make([]float64, count*n), make([]float64, count*nn), make([]float64, count*nn), make([]float64, count*nn)
			one := make([]float64, nn)
			for _, p := range []Path{Go, LAPACK, Batched, Auto} {
				b := NewBatch(n, count)
				b.Path = p
				chunked := NewBatch(n, max(1, count/3))
				chunked.Path = p
				for name, op := range map[string]func(){
					"Factorize, Apply, Frechet, Backward, FrechetAll, BackwardAll": func() {
						if err := b.Factorize(a, count); err != nil {
							t.Fatal(err)
						}
						if err := b.Apply(out, lapackx.SqrtFunc); err != nil {
							t.Fatal(err)
						}
						b.Frechet(one, g[:nn], count-1)
						b.Backward(one, g[:nn], 0)
						b.FrechetAll(out, g, nil)
						b.BackwardAll(out, g)
					},
					"Eig, Map": func() {
						if err := chunked.Eig(w, v, a, count); err != nil {
							t.Fatal(err)
						}
						if err := chunked.Map(out, nil, a, nil, count, ReEig(1e-3)); err != nil {
							t.Fatal(err)
						}
						if err := chunked.Map(out, grad, a, g, count, lapackx.LogFunc); err != nil {
							t.Fatal(err)
						}
					},
				} {
					op()
					require.Zero(t, allocs.Steady(3, op), "%s: %s n=%d path %v", be, name, n, p)
				}
			}
		}
	}
}

// TestReEigReuse: ReEig asked for its previous threshold returns the same
// function without allocating (the C ABI's reeig entry points make one per
// call); another threshold gets its own.
func TestReEigReuse(t *testing.T) {
	f := ReEig(1e-3)
	require.Equal(t, f, ReEig(1e-3))
	g := ReEig(2e-3)
	require.Equal(t, 2e-3, g.Eval(0))
	require.Equal(t, 1e-3, f.Eval(0), "an earlier function keeps its threshold")
	require.Equal(t, math.Copysign(0, -1), ReEig(math.Copysign(0, -1)).Eval(-1))
	require.Equal(t, 0.0, ReEig(0).Eval(-1))
	require.False(t, math.Signbit(ReEig(0).Eval(-1)))
	if !race.Enabled {
		require.Zero(t, testing.AllocsPerRun(10, func() { g = ReEig(2e-3) }))
	}
}

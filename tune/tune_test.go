package tune

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/blas"
)

// tiny measures two calls at their smallest orders, briefly: the
// mechanism, not the numbers.
var tiny = Options{Load: 1, MaxOrder: 128, Rounds: 1, MinTime: time.Millisecond,
	Calls: []blas.Call{blas.CallGemm, blas.CallSyevd}}

// TestRun: a run measures the calls asked for at their orders up to
// MaxOrder, quiet and loaded, keeps the fallback's order for the others,
// and its profile saves and resolves.
func TestRun(t *testing.T) {
	if blas.Current() != blas.Native {
		_, err := Run(context.Background(), tiny)
		require.Error(t, err)
		t.Skip("pure-Go backend: nothing to tune")
	}
	if blas.Threads() < 2 {
		require.NoError(t, blas.SetThreads(2))
	}
	var progress strings.Builder
	o := tiny
	o.Progress = &progress
	p, err := Run(context.Background(), o)
	require.NoError(t, err)
	require.Equal(t, blas.CurrentKey(), p.Key)
	require.Len(t, p.Curves, 2)
	require.Equal(t, []int{64, 96, 128}, orders(p.Curves["gemm"]))
	require.Equal(t, []int{128}, orders(p.Curves["syevd"]))
	for _, pts := range p.Curves {
		for _, pt := range pts {
			require.Positive(t, pt.Quiet)
			require.Positive(t, pt.Loaded)
		}
	}
	require.Len(t, p.ThreadsFrom, int(blas.NumCalls))
	fb := blas.CurrentFallback()
	require.Equal(t, fb.From[blas.CallTrsm], p.ThreadsFrom["trsm"], "not measured: the fallback's")
	require.Contains(t, progress.String(), "syevd  n =  128")

	path := filepath.Join(t.TempDir(), "threads.json")
	require.NoError(t, blas.SaveProfile(path, p))
	f, err := blas.ReadProfileFile(path)
	require.NoError(t, err)
	require.Equal(t, p.ThreadsFrom, f.Profiles[0].ThreadsFrom)
}

func orders(pts []blas.Point) []int {
	var ns []int
	for _, p := range pts {
		ns = append(ns, p.N)
	}
	return ns
}

// TestCrossoverBeyondMeasured: a call that no measured order qualifies
// keeps the fallback's order when that lies beyond the orders measured.
func TestCrossoverBeyondMeasured(t *testing.T) {
	pts := []blas.Point{{N: 512, Quiet: 0.9}, {N: 1024, Quiet: 1.05}}
	require.Equal(t, 3072, crossover(pts, 3072))
	require.Equal(t, blas.Never, crossover(pts, 1024), "the fallback's order was measured and lost")
	require.Equal(t, blas.Never, crossover(pts, blas.Never))
	require.Equal(t, 512, crossover([]blas.Point{{N: 512, Quiet: 1.5}}, 3072))
}

func TestValidate(t *testing.T) {
	for name, o := range map[string]Options{
		"load":      {Load: -1, MaxOrder: 1, Rounds: 1, MinTime: 1},
		"max order": {MaxOrder: 0, Rounds: 1, MinTime: 1},
		"rounds":    {MaxOrder: 1, Rounds: 0, MinTime: 1},
		"min time":  {MaxOrder: 1, Rounds: 1},
	} {
		err := o.Validate()
		require.Error(t, err, name)
		require.Contains(t, err.Error(), name)
	}
	require.NoError(t, Default.Validate())
	require.NoError(t, Quick.Validate())
}

// TestCanceled: a canceled run returns the context's error.
func TestCanceled(t *testing.T) {
	if blas.Current() != blas.Native || blas.Threads() < 2 {
		t.Skip("needs the native backend on two threads")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, tiny)
	require.ErrorIs(t, err, context.Canceled)
}

// TestNearBoundMeasuredAgain: after a call's orders, each speed-up within
// a factor Near of its bound is measured again, Rounds more rounds, and
// its median taken over all its rounds; speed-ups far from their bounds
// are not. Here 96's quiet median 1.0 (below 1.1: threads from 128) is
// pooled with a later 1.3 to 1.175, which moves the crossover to 96; its
// loaded 0.9 is measured again too, 64's and 128's are not.
func TestNearBoundMeasuredAgain(t *testing.T) {
	type side struct {
		n      int
		loaded bool
	}
	answers := map[side][][]float64{
		{64, false}: {{0.5, 0.5, 0.5}}, {64, true}: {{0.1, 0.1, 0.1}},
		{96, false}: {{1.0, 1.05, 1.0}, {1.3, 1.3, 1.3}}, {96, true}: {{0.9, 0.9, 0.9}, {0.9, 0.85, 0.9}},
		{128, false}: {{2, 2, 2}}, {128, true}: {{1.5, 1.5, 1.5}},
	}
	var calls []side
	cur := 0
	pr := blas.Probe{Call: blas.CallGemm, Orders: []int{64, 96, 128, 192}, Setup: func(n int) func() {
		cur = n
		return func() {}
	}}
	loadedNext := false
	o := Options{Load: 1, MaxOrder: 128, Rounds: 3, MinTime: time.Millisecond}
	o.measure = func(f func(), o Options) []float64 {
		s := side{cur, loadedNext}
		loadedNext = !loadedNext // quiet, then loaded, at every measured order
		calls = append(calls, s)
		a := answers[s]
		require.NotEmpty(t, a, "%+v measured more often than expected", s)
		answers[s] = a[1:]
		return a[0]
	}
	var progress strings.Builder
	o.Progress = &progress
	pts, err := measureCall(context.Background(), pr, o)
	require.NoError(t, err)
	require.Equal(t, []side{{64, false}, {64, true}, {96, false}, {96, true}, {128, false}, {128, true}, {96, false}, {96, true}}, calls)
	require.Equal(t, []blas.Point{{N: 64, Quiet: 0.5, Loaded: 0.1}, {N: 96, Quiet: 1.175, Loaded: 0.9}, {N: 128, Quiet: 2, Loaded: 1.5}}, pts)
	require.Equal(t, 96, crossover(pts, blas.Never))
	require.Equal(t, 128, crossover([]blas.Point{{N: 64, Quiet: 0.5, Loaded: 0.1}, {N: 96, Quiet: 1.0, Loaded: 0.9}, {N: 128, Quiet: 2, Loaded: 1.5}}, blas.Never), "without the second measurement")
	require.Contains(t, progress.String(), "near the bound: 6 rounds")
}

// TestNear: the band around a bound.
func TestNear(t *testing.T) {
	b := 1.1 // a variable: constant arithmetic would round differently from near's
	require.True(t, near(b, b))
	require.True(t, near(b/Near, b))
	require.True(t, near(b*Near, b))
	require.False(t, near(b/Near*0.99, b))
	require.False(t, near(b*Near*1.01, b))
	require.False(t, near(0, 0.8), "not measured")
	require.Equal(t, 2.0, median([]float64{3, 1, 2}))
	require.Equal(t, 1.5, median([]float64{2, 1}))
	require.Equal(t, 0.0, median(nil))
}

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

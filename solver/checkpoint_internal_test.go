package solver

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
)

// TestCheckpointCoversRHGD: every field of RHGD is saved by a checkpoint
// or listed here as fixed by New or as scratch within an epoch, so that a
// field added to RHGD fails this test until it is classified (and, if it
// carries state from one epoch to the next, saved: appendState,
// decodeState, commit, and a new CheckpointVersion).
func TestCheckpointCoversRHGD(t *testing.T) {
	saved := strings.Fields(`epoch stats x y hg bestX bestY bestF gy0 lastF lastHGNorm hgNorm0 lastK
		lowerStep upperMax upperReach upperCalm adaAlpha2 lbb ubb gWin fWin pcg smp ready notes lsCurv lsPCG
		cur est`) // cur: the iterates, with new identities; est: its MarshalBinary
	fixed := strings.Fields(`p mx my s env exact fused lnorms lsRand dir`) // env: its per-epoch path and start are refilled each epoch; lsRand draws from lsPCG; dir: est as a lowerDirector
	// adaBeta2 restarts at each epoch's lower loop.
	scratch := strings.Fields(`gy bx by es steps trial lsAt lsU lsY lsG adaBeta2`)
	var fields []string
	rt := reflect.TypeFor[RHGD]()
	for i := range rt.NumField() {
		fields = append(fields, rt.Field(i).Name)
	}
	all := slices.Concat(saved, fixed, scratch)
	require.ElementsMatch(t, fields, all, "classify RHGD's new fields here, and save those that are state")
}

// TestCheckpointCoversStats: a checkpoint restores every count of Stats
// and its runtime, whatever fields Stats gains.
func TestCheckpointCoversStats(t *testing.T) {
	m := euclid.New(2, 1)
	zero := func(dst []float64, _ *Point) error { clear(dst); return nil }
	p := Problem{Mx: m, My: m, F: func(*Point) (float64, error) { return 1, nil }, GradFx: zero, GradFy: zero, GradGy: zero,
		HessGyInv: func(dst []float64, _ *Point, v []float64) error { copy(dst, v); return nil },
		CrossGxy:  func(dst []float64, _ *Point, _ []float64) error { clear(dst); return nil }}
	r, err := New(p, &Settings{Estimator: HInv{}})
	require.NoError(t, err)
	require.NoError(t, r.Reset([]float64{1, 2}, []float64{3, 4}))
	v := reflect.ValueOf(&r.stats).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case !v.Type().Field(i).IsExported():
		case f.Kind() == reflect.Int:
			f.SetInt(int64(100 + i))
		case f.Kind() == reflect.Float64:
			f.SetFloat(0.5 + float64(i))
		case f.Type() == reflect.TypeFor[time.Duration]():
		default:
			t.Fatalf("Stats.%s of type %v: save it in appendState and extend this test", v.Type().Field(i).Name, f.Type())
		}
	}
	r.stats.startedWall = time.Now().Add(-3 * time.Hour)
	want := r.stats
	b, err := r.appendCheckpoint(nil, "p", nil)
	require.NoError(t, err)
	r2, err := New(p, &Settings{Estimator: HInv{}})
	require.NoError(t, err)
	_, err = r2.restore(b, "p")
	require.NoError(t, err)
	got := r2.stats
	require.InDelta(t, 3*time.Hour, got.Runtime, float64(time.Minute))
	require.InDelta(t, 3*time.Hour, time.Since(got.startedWall), float64(time.Minute))
	want.Runtime, got.Runtime, want.startedWall, got.startedWall = 0, 0, time.Time{}, time.Time{}
	require.Equal(t, want, got)
}

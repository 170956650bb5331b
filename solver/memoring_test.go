package solver_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/solver"
)

// TestMemoRing: points are found in the slot they were stored in, by the
// parts On names, until Take has handed out every other slot; unknown
// identities are never found.
func TestMemoRing(t *testing.T) {
	var zero solver.MemoRing
	require.Equal(t, -1, zero.Find(&solver.Point{XID: 1, YID: 1}), "the zero MemoRing holds nothing")
	require.Panics(t, func() { zero.Resize(0) })

	r := solver.MemoRing{On: solver.OnY}
	r.Resize(3)
	require.Equal(t, 3, r.Len())
	x := solver.NewID()
	pts := make([]*solver.Point, 5)
	for i := range pts {
		pts[i] = &solver.Point{XID: x, YID: solver.NewID()}
	}
	for i, pt := range pts[:3] {
		require.Equal(t, -1, r.Find(pt))
		s := r.Take()
		require.Equal(t, i, s, "slots are handed out in turn")
		r.Store(s, pt)
	}
	for i, pt := range pts[:3] {
		require.Equal(t, i, r.Find(pt))
	}
	require.Equal(t, 1, r.Find(&solver.Point{XID: solver.NewID(), YID: pts[1].YID}), "On = OnY: x does not matter")

	// A fourth point evicts the oldest, and only it.
	s := r.Take()
	require.Equal(t, 0, s)
	require.Equal(t, -1, r.Find(pts[0]), "Take forgets the slot before it is overwritten")
	r.Store(s, pts[3])
	require.Equal(t, 0, r.Find(pts[3]))
	require.Equal(t, 1, r.Find(pts[1]))
	require.Equal(t, 2, r.Find(pts[2]))

	// Unknown identities never match, even after being stored.
	s = r.Take()
	r.Store(s, &solver.Point{})
	require.Equal(t, -1, r.Find(&solver.Point{}))
	require.Equal(t, -1, r.Find(pts[1]), "the slot the unknown point took is gone")

	r.Reset()
	for _, pt := range pts {
		require.Equal(t, -1, r.Find(pt))
	}

	// Resize forgets everything and keeps On.
	r.Store(0, pts[4])
	r.Resize(5)
	require.Equal(t, 5, r.Len())
	require.Equal(t, -1, r.Find(pts[4]))
	r.Store(4, pts[4])
	require.Equal(t, 4, r.Find(&solver.Point{YID: pts[4].YID}))
}

// TestMemoRingAllocs: Find, Take and Store allocate nothing.
func TestMemoRingAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	r := solver.MemoRing{On: solver.OnX | solver.OnY}
	r.Resize(21)
	pt := &solver.Point{XID: solver.NewID(), YID: solver.NewID()}
	if a := testing.AllocsPerRun(100, func() {
		if r.Find(pt) < 0 {
			r.Store(r.Take(), pt)
		}
		pt.YID = solver.NewID()
	}); a != 0 {
		t.Errorf("%v allocations", a)
	}
}

// TestRetain: the solver tells the problem how many points AD revisits
// (S+1) and tells it nothing for an estimator that works at one point.
func TestRetain(t *testing.T) {
	e := newQuad(rand.New(rand.NewPCG(3, 3)), 3, 4, 1, 2)
	for _, tc := range []struct {
		est  solver.Estimator
		want []int
	}{{solver.AD{}, []int{8}}, {&solver.CG{}, nil}} {
		var got []int
		p := e.problem()
		p.Retain = func(n int) { got = append(got, n) }
		_, err := solver.New(p, with(tc.est, &solver.Settings{InnerIters: 7}))
		require.NoError(t, err)
		require.Equal(t, tc.want, got, tc.est.Name())
	}
}

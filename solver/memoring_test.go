package solver_test

import (
	"errors"
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

// TestMemoFill: Memo.Fill and MemoRing.Fill compute a value only at a
// point they do not hold it for, keep nothing when the computation
// fails (the next call computes again), return its error as it is, and
// allocate nothing with a method value or closure as fill.
func TestMemoFill(t *testing.T) {
	calls := 0
	boom := errors.New("boom")
	var fail bool
	fill := func(*solver.Point) error {
		calls++
		if fail {
			return boom
		}
		return nil
	}
	m := solver.Memo{On: solver.OnX}
	pt := &solver.Point{XID: solver.NewID(), YID: solver.NewID()}
	require.NoError(t, m.Fill(pt, fill))
	require.NoError(t, m.Fill(&solver.Point{XID: pt.XID, YID: solver.NewID()}, fill), "On = OnX: y does not matter")
	require.Equal(t, 1, calls)
	require.NoError(t, m.Fill(&solver.Point{XID: pt.XID}, fill))
	require.Equal(t, 1, calls)
	require.NoError(t, m.Fill(&solver.Point{}, fill), "an unknown identity is computed afresh")
	require.Equal(t, 2, calls)
	fail = true
	other := &solver.Point{XID: solver.NewID()}
	require.ErrorIs(t, m.Fill(other, fill), boom)
	require.False(t, m.Valid(other))
	require.False(t, m.Valid(pt), "the value was overwritten in part")
	fail = false
	require.NoError(t, m.Fill(other, fill))
	require.True(t, m.Valid(other))
	require.Equal(t, 4, calls)

	r := solver.MemoRing{On: solver.OnY}
	r.Resize(2)
	slots := 0
	rfill := func(i int, _ *solver.Point) error {
		slots++
		if fail {
			return boom
		}
		return nil
	}
	p1, p2, p3 := &solver.Point{YID: solver.NewID()}, &solver.Point{YID: solver.NewID()}, &solver.Point{YID: solver.NewID()}
	for _, c := range []struct {
		pt    *solver.Point
		slot  int
		slots int
	}{{p1, 0, 1}, {p2, 1, 2}, {p1, 0, 2}, {p3, 0, 3}, {p2, 1, 3}} {
		i, err := r.Fill(c.pt, rfill)
		require.NoError(t, err)
		require.Equal(t, c.slot, i)
		require.Equal(t, c.slots, slots)
	}
	fail = true
	i, err := r.Fill(p1, rfill)
	require.ErrorIs(t, err, boom)
	require.Equal(t, -1, i)
	require.Equal(t, -1, r.Find(p1))

	if race.Enabled {
		return // allocation counts under -race
	}
	fail = false
	h := &counter{}
	require.Zero(t, testing.AllocsPerRun(100, func() {
		pt.XID, pt.YID = solver.NewID(), solver.NewID()
		_ = m.Fill(pt, h.fill)
		_, _ = r.Fill(pt, h.fillSlot)
	}))
}

// counter's methods are fills, passed as method values.
type counter struct{ n int }

func (c *counter) fill(*solver.Point) error              { c.n++; return nil }
func (c *counter) fillSlot(_ int, _ *solver.Point) error { c.n++; return nil }

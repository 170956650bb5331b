package solver

import "math/rand/v2"

// vrBlocks is a fixed partition of the components of f or g into
// contiguous blocks, SABA's memory rows: block b holds the components
// [b·size, min((b+1)·size, n)) and weighs |block|/n. A side that is not a
// finite sum (n = 0), or whose block size is 0 or at least n, is one
// block with a nil batch (the whole sum).
type vrBlocks struct {
	n, size int
	idx     [][]int
	ids     []uint64
	w       []float64
	shuffle bool
	order   []int // shuffle: the pass's order of the blocks
	next    int   // shuffle: the position in order
}

func newVRBlocks(n, size int, shuffle bool) *vrBlocks {
	if n <= 0 || size <= 0 || size >= n {
		return &vrBlocks{n: n, size: n, idx: [][]int{nil}, ids: []uint64{0}, w: []float64{1}, order: []int{0}}
	}
	nb := (n + size - 1) / size
	b := &vrBlocks{n: n, size: size, idx: make([][]int, nb), ids: make([]uint64, nb), w: make([]float64, nb),
		shuffle: shuffle, order: make([]int, nb)}
	for k := range nb {
		lo, hi := k*size, min((k+1)*size, n)
		b.idx[k] = make([]int, hi-lo)
		for i := range b.idx[k] {
			b.idx[k][i] = lo + i
		}
		b.ids[k] = NewID()
		b.w[k] = float64(hi-lo) / float64(n)
		b.order[k] = k
	}
	return b
}

// reset restarts the passes (shuffle: the first pass in order, as
// benchopt's sampler).
func (b *vrBlocks) reset() {
	for k := range b.order {
		b.order[k] = k
	}
	b.next = 0
}

// draw returns a block: with probability its weight (a uniform component's
// block), or with shuffle the next of the pass's order, the blocks
// reshuffled after each pass.
func (b *vrBlocks) draw(rnd *rand.Rand) int {
	if len(b.idx) == 1 {
		return 0
	}
	if !b.shuffle {
		return rnd.IntN(b.n) / b.size
	}
	k := b.order[b.next]
	if b.next++; b.next == len(b.order) {
		b.next = 0
		for i := len(b.order) - 1; i > 0; i-- { // Fisher–Yates, as rand.Shuffle
			j := rnd.IntN(i + 1)
			b.order[i], b.order[j] = b.order[j], b.order[i]
		}
	}
	return k
}

// vrTable is a SAGA memory of one quantity on the manifold m, one row per
// block: m_b ∈ T_{p_b}M, the value at the point p_b where block b was
// last sampled, and avg = Σ_b w_b T_{p_b→p} m_b ∈ T_pM, their weighted
// average transported to the current point p (rows never sampled are
// zero: SABA's init_memory "zero").
//
// Each step moves avg along with p (one transport, move), transports the
// sampled row from its own point to p and updates avg by the difference
// (step). On a curved manifold two transports in turn are not one
// transport (T_{q→p}∘T_{p_b→q} ≠ T_{p_b→p}), so the running avg drifts
// from the transported average by the holonomy of the path; every
// refresh steps (once per pass over the blocks) refresh recomputes avg
// from the rows, each transported from its own point, which bounds the
// drift to one pass's steps. In a Euclidean space the transports are
// identities and avg is SAGA's running average (refreshes then only
// remove the sum's rounding).
type vrTable struct {
	m        Manifold
	w        []float64
	mem, pts [][]float64
	has      []bool
	avg, tmp []float64
	since    int // steps since the last refresh
}

func newVRTable(m Manifold, blocks *vrBlocks) *vrTable {
	nb := len(blocks.w)
	t := &vrTable{m: m, w: blocks.w, mem: make([][]float64, nb), pts: make([][]float64, nb), has: make([]bool, nb),
		avg: make([]float64, m.Len()), tmp: make([]float64, m.Len())}
	for b := range nb {
		t.mem[b], t.pts[b] = make([]float64, m.Len()), make([]float64, m.Len())
	}
	return t
}

// reset forgets every row.
func (t *vrTable) reset() {
	clear(t.has)
	clear(t.avg)
	t.since = 0
}

// move transports avg from the tangent space at from to the one at to.
func (t *vrTable) move(from, to []float64) {
	t.m.Transport(t.tmp, from, to, t.avg)
	copy(t.avg, t.tmp)
}

// refresh sets avg = Σ_b w_b T_{p_b→p} m_b over the rows sampled so far.
func (t *vrTable) refresh(p []float64) {
	clear(t.avg)
	for b, ok := range t.has {
		if !ok {
			continue
		}
		t.m.Transport(t.tmp, t.pts[b], p, t.mem[b])
		for i, v := range t.tmp {
			t.avg[i] += t.w[b] * v
		}
	}
	t.since = 0
}

// step sets dir = g − T_{p_b→p} m_b + avg, SAGA's direction for block b's
// fresh value g ∈ T_pM at the current point p (avg already at p), adds
// w_b (g − T_{p_b→p} m_b) to avg, and makes g, at p, the block's row;
// dir may be g. After each len(w) steps it first refreshes avg.
func (t *vrTable) step(dir, p []float64, b int, g []float64) {
	if t.since >= len(t.w) {
		t.refresh(p)
	}
	t.since++
	if t.has[b] {
		t.m.Transport(t.tmp, t.pts[b], p, t.mem[b])
	} else {
		clear(t.tmp)
	}
	for i, v := range g {
		t.tmp[i] = v - t.tmp[i]
	}
	copy(t.mem[b], g)
	copy(t.pts[b], p)
	t.has[b] = true
	w := t.w[b]
	for i, d := range t.tmp {
		dir[i] = d + t.avg[i]
		t.avg[i] += w * d
	}
}

package solver

// MemoRing is a Memo for several points at once: it maps up to Len points
// to slots 0 … Len−1 by identity, so that a problem can keep per-point
// work (a factorization of y, products computed in the forward pass) for
// every lower iterate of an epoch, which AD visits again in reverse order
// (see Problem.Retain). The values live in the caller's buffers, one set
// per slot. The pattern, after setting On and calling Resize once, is
// Fill's:
//
//	i := r.Find(pt)
//	if i < 0 {
//		i = r.Take() // the slot is about to change
//		// compute the value from pt into slot i's buffers; on error, return
//		r.Store(i, pt)
//	}
//
// A value kept in parts, each filled on demand, stores the point at Take
// and tracks the parts it has filled itself, clearing them at Take. Take
// hands out the slots in turn, so a ring of n slots holds the last n
// points taken. A point of unknown identity is never found, as with Memo.
// Resize allocates; Find, Take and Store allocate nothing and cost O(Len).
// The zero MemoRing has no slots: Find returns −1 and Take panics.
type MemoRing struct {
	// On lists the parts of a point the values depend on; Resize reads
	// it.
	On Deps

	memos []Memo
	next  int
}

// Resize sets the number of slots to n ≥ 1, forgetting every value.
func (r *MemoRing) Resize(n int) {
	if n < 1 {
		panic("solver: MemoRing needs at least one slot")
	}
	if cap(r.memos) < n {
		r.memos = make([]Memo, n)
	}
	r.memos = r.memos[:n]
	for i := range r.memos {
		r.memos[i] = Memo{On: r.On}
	}
	r.next = 0
}

// Len returns the number of slots.
func (r *MemoRing) Len() int { return len(r.memos) }

// Find returns the slot holding a value computed at pt, in the parts On
// names, or −1.
func (r *MemoRing) Find(pt *Point) int {
	for i := range r.memos {
		if r.memos[i].Valid(pt) {
			return i
		}
	}
	return -1
}

// Take forgets the value of the slot taken least recently and returns
// that slot.
func (r *MemoRing) Take() int {
	i := r.next
	r.memos[i].Reset()
	if r.next++; r.next == len(r.memos) {
		r.next = 0
	}
	return i
}

// Fill returns the slot holding the value at pt, computing it there
// first when no slot holds it: it takes a slot, calls fill(i, pt) to
// compute the value into slot i's buffers, and stores pt in the slot when
// fill returns nil. On fill's error it returns −1 and the error, and the
// slot holds nothing. It allocates nothing.
func (r *MemoRing) Fill(pt *Point, fill func(i int, pt *Point) error) (int, error) {
	if i := r.Find(pt); i >= 0 {
		return i, nil
	}
	i := r.Take()
	if err := fill(i, pt); err != nil {
		return -1, err
	}
	r.Store(i, pt)
	return i, nil
}

// Store records that slot i's value now belongs to pt.
func (r *MemoRing) Store(i int, pt *Point) { r.memos[i].Store(pt) }

// Reset forgets every value.
func (r *MemoRing) Reset() {
	for i := range r.memos {
		r.memos[i].Reset()
	}
}

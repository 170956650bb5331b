package solver

import "sync/atomic"

// Point is where an oracle is evaluated: x ∈ Mx and y ∈ My with their
// identities, and for finite-sum problems the batch of components to
// average over. The solver owns the slices; an oracle must neither modify
// nor keep them.
//
// Identities let a problem reuse work done at a point (a factorization of
// y, a matrix that depends on x only) with an O(1) check instead of
// comparing contents; Memo is the helper. The solver gives each new
// iterate a fresh identity from NewID whenever it moves x or y, and so do
// the wrappers in this package for the points they make (the perturbed
// points of finite differences): equal nonzero identities mean equal
// contents for the life of the process. Zero means unknown and never
// matches a cache, which is what a Point built by hand gets.
type Point struct {
	X, Y     []float64
	XID, YID uint64
	// Batch lists the components (indices, possibly repeated) that the
	// oracles of a finite-sum problem (Problem.NF, NG > 0) average over; nil
	// means all of them. BatchID identifies the batch's contents like XID:
	// zero with a nil Batch, fresh for every batch the solver draws.
	Batch   []int
	BatchID uint64
}

var lastID atomic.Uint64

// NewID returns a nonzero identity that no other call in this process
// returns.
func NewID() uint64 { return lastID.Add(1) }

// Deps says which parts of a Point a cached value depends on.
type Deps uint8

// The parts of a Point.
const (
	OnX Deps = 1 << iota
	OnY
	OnBatch
)

// Memo remembers the Point a cached value was computed at, by identity.
// Fill is the whole pattern in one call, with On set once to what the
// value depends on:
//
//	if err := m.Fill(pt, p.factorY); err != nil { // p.factorY(pt) fills the buffer
//		return err
//	}
//
// which is
//
//	if !m.Valid(pt) {
//		m.Reset() // the buffer is about to change
//		// compute the value from pt into the buffer; on error, return
//		m.Store(pt)
//	}
//
// Reset before and Store after every overwrite keep the memo true even
// when a computation fails half-way or runs at a point of unknown
// identity (zero in a part the memo depends on), which never matches, so
// the value is recomputed: correct, only slower. The zero Memo holds
// nothing.
type Memo struct {
	// On lists the parts of the point the value depends on.
	On Deps

	x, y, b uint64
	valid   bool
}

// Valid reports whether the memo holds a value computed at pt, in the
// parts it depends on.
func (m *Memo) Valid(pt *Point) bool {
	switch {
	case !m.valid:
		return false
	case m.On&OnX != 0 && (pt.XID == 0 || pt.XID != m.x):
		return false
	case m.On&OnY != 0 && (pt.YID == 0 || pt.YID != m.y):
		return false
	case m.On&OnBatch != 0 && (pt.BatchID != m.b || pt.BatchID == 0 && pt.Batch != nil):
		return false
	}
	return true
}

// Store records that the value now belongs to pt.
func (m *Memo) Store(pt *Point) {
	m.x, m.y, m.b, m.valid = pt.XID, pt.YID, pt.BatchID, true
}

// Reset forgets the value.
func (m *Memo) Reset() { m.valid = false }

// Fill makes the memo's value the one at pt: unless the memo holds it
// already, it forgets the value, calls fill(pt) to compute it into the
// caller's buffers, and records pt when fill returns nil; fill's error is
// returned as it is. An oracle then starts with one call per piece of
// shared work. Fill allocates nothing (a method value or closure passed
// as fill does not escape).
func (m *Memo) Fill(pt *Point, fill func(*Point) error) error {
	if m.Valid(pt) {
		return nil
	}
	m.Reset()
	if err := fill(pt); err != nil {
		return err
	}
	m.Store(pt)
	return nil
}

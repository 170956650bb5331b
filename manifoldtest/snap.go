package manifoldtest

import (
	"slices"
	"testing"

	"github.com/rhgd/rhgd/solver"
)

// Snapper is a manifold that snaps points within float32 rounding onto
// itself (solver.Snapper).
type Snapper interface {
	solver.Manifold
	solver.Snapper
}

// Snap checks m's SnapPoint on a point x of m and on x32, x as a float32
// pipeline would give it: x is kept as it is, with no note; x32 fails
// CheckPoint (else the check exercises nothing) and is snapped, with a
// note, to a point CheckPoint accepts, and to the same point in place
// (solver.SnapPoint, dst = x). It returns the snapped point and the note,
// for the manifold's own checks of the projection; a failure stops the
// test.
func Snap(t testing.TB, m Snapper, x, x32 []float64) (got []float64, note string) {
	t.Helper()
	got = make([]float64, len(x))
	if note, err := m.SnapPoint(got, x); err != nil || note != "" || !slices.Equal(got, x) {
		t.Fatalf("a point: note %q, err %v, changed %v", note, err, !slices.Equal(got, x))
	}
	if m.CheckPoint(x32) == nil {
		t.Fatal("the float32 point passes CheckPoint: the test does not exercise the projection")
	}
	note, err := m.SnapPoint(got, x32)
	if err != nil {
		t.Fatalf("float32 point rejected: %v", err)
	}
	if note == "" {
		t.Fatal("float32 point snapped without a note")
	}
	if err := m.CheckPoint(got); err != nil {
		t.Fatalf("snapped point: %v", err)
	}
	in := slices.Clone(x32)
	if _, err := solver.SnapPoint(m, in); err != nil || !slices.Equal(in, got) {
		t.Fatalf("in place: err %v, same result %v", err, slices.Equal(in, got))
	}
	return got, note
}

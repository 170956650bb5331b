package numerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/numerr"
)

func TestNewMatchesParent(t *testing.T) {
	sub := numerr.New(numerr.ErrNotConverged, "pkg: iteration stalled")
	wrapped := fmt.Errorf("epoch 3: %w", sub)
	if !errors.Is(wrapped, sub) || !errors.Is(wrapped, numerr.ErrNotConverged) {
		t.Fatalf("%v does not match its sentinel and parent", wrapped)
	}
	if errors.Is(wrapped, numerr.ErrNotFinite) {
		t.Fatalf("%v matches an unrelated sentinel", wrapped)
	}
	if got := wrapped.Error(); got != "epoch 3: pkg: iteration stalled" {
		t.Fatalf("message %q", got)
	}
	if race.Enabled {
		return // allocation counts under -race
	}
	if a := testing.AllocsPerRun(10, func() { _ = errors.Is(sub, numerr.ErrNotConverged) }); a != 0 {
		t.Fatalf("%v allocations", a)
	}
}

// TestSentinelsDistinct: no shared sentinel matches another, so that
// errors.Is tells every condition apart (ErrDiverged, added for the
// solver's divergences, among them).
func TestSentinelsDistinct(t *testing.T) {
	all := []error{numerr.ErrInvalid, numerr.ErrNotFinite, numerr.ErrNotSymmetric, numerr.ErrNotPosDef,
		numerr.ErrSingular, numerr.ErrOverflow, numerr.ErrUnderflow, numerr.ErrNotConverged, numerr.ErrDiverged}
	for i, a := range all {
		for j, b := range all {
			if errors.Is(a, b) != (i == j) {
				t.Errorf("errors.Is(%v, %v) = %v", a, b, i != j)
			}
		}
	}
}

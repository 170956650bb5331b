package numerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rhgd/rhgd/numerr"
)

// TestRender: Errorf's message holds its terms' Go spelling; Render
// spells them by a front end's Speller wherever the error sits in a
// chain of fmt.Errorf and Errorf wrappers, and errors.Is sees through.
func TestRender(t *testing.T) {
	eta := numerr.Term{Kind: numerr.KindSetting, Key: "eta_y", Go: "Settings.EtaY"}
	gy := numerr.Term{Kind: numerr.KindOracle, Key: "grad_gy", Go: "GradGy"}
	spell := func(t numerr.Term) string { return "<" + t.Key + ">" }
	inner := numerr.Errorf("%w: %v = %g", numerr.ErrInvalid, eta, -1.0)
	err := fmt.Errorf("epoch 3: %w", numerr.Errorf("%v failed: %w", gy, inner))
	if got, want := err.Error(), "epoch 3: GradGy failed: invalid input: Settings.EtaY = -1"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := numerr.Render(err, spell), "epoch 3: <grad_gy> failed: invalid input: <eta_y> = -1"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	if !errors.Is(err, numerr.ErrInvalid) || !errors.Is(err, inner) {
		t.Error("errors.Is does not see the wrapped errors")
	}
	two := numerr.Errorf("%w and %w: %v", inner, numerr.ErrNotFinite, gy)
	if !errors.Is(two, numerr.ErrNotFinite) || !errors.Is(two, numerr.ErrInvalid) {
		t.Error("errors.Is does not see both %w")
	}
	if got, want := numerr.Render(two, spell), "invalid input: <eta_y> = -1 and non-finite value: <grad_gy>"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	plain := errors.New("no terms")
	if numerr.Render(fmt.Errorf("x: %w", plain), spell) != "x: no terms" || numerr.Render(nil, spell) != "" {
		t.Error("a message without terms changed")
	}
}

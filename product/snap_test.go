package product_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/product"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// TestSnapPointFloat32 checks that a product point rounded to float32 is
// projected factor by factor, with a note naming each factor projected,
// and that an error names the factor clearly off.
func TestSnapPointFloat32(t *testing.T) {
	st, sp, eu := stiefel.New(12, 4), spd.New(5), euclid.New(3, 1)
	p := product.New(st, sp, eu)
	x := make([]float64, p.Len())
	p.RandPoint(x, rand.New(rand.NewPCG(9, 9)))
	x32 := f32test.Round(x)
	copy(p.Part(x32, 1), f32test.Sym(p.Part(x, 1), 5))
	if p.CheckPoint(x32) == nil {
		t.Fatal("the float32 point passes CheckPoint: the test does not exercise the projection")
	}
	got := append([]float64(nil), x32...)
	note, err := solver.SnapPoint(p, got)
	if err != nil {
		t.Fatalf("float32 point rejected: %v", err)
	}
	if !strings.Contains(note, "factor 0: ‖XᵀX − I‖_F") || !strings.Contains(note, "factor 1: max|x_ij − x_ji|") || strings.Contains(note, "factor 2") {
		t.Errorf("note %q, want one for factors 0 and 1", note)
	}
	if err := p.CheckPoint(got); err != nil {
		t.Errorf("snapped point: %v", err)
	}
	for i, v := range p.Part(got, 2) {
		if v != p.Part(x32, 2)[i] {
			t.Fatalf("the Euclidean factor changed")
		}
	}

	off := append([]float64(nil), x32...)
	p.Part(off, 1)[1] += 0.1
	if _, err := solver.SnapPoint(p, off); err == nil || !strings.Contains(err.Error(), "factor 1") {
		t.Errorf("factor 1 asymmetric by 0.1: %v, want an error naming factor 1", err)
	}
}

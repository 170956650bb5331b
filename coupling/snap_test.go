package coupling_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/solver"
)

var _ solver.Snapper = (*coupling.Coupling)(nil)

// TestNewFloat32Marginals checks that New accepts uniform marginals stored
// in float32, whose masses differ by float32 rounding, rescales b to Σa and
// says so; masses clearly apart are still rejected.
func TestNewFloat32Marginals(t *testing.T) {
	const m, n = 157, 49
	a, b := make([]float64, m), make([]float64, n)
	for i := range a {
		a[i] = 1.0 / m
	}
	for j := range b {
		b[j] = 1.0 / n
	}
	a, b = f32test.Round(a), f32test.Round(b)
	sa, sb := sum(a), sum(b)
	if math.Abs(sa-sb) <= coupling.MassTol*sa {
		t.Fatalf("Σa − Σb = %.3g: the test does not exercise the rescaling", sa-sb)
	}
	c, err := coupling.New(a, b)
	if err != nil {
		t.Fatalf("float32 marginals rejected: %v", err)
	}
	if notes := c.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "rescaled") {
		t.Errorf("notes %q, want one saying b was rescaled", notes)
	}
	ca, cb := c.Marginals()
	if d := math.Abs(sum(ca) - sum(cb)); d > 1e-15*sa {
		t.Errorf("masses differ by %.3g after New", d)
	}
	for j := range cb {
		if r := cb[j]/b[j] - 1; math.Abs(r) > 1e-6 {
			t.Fatalf("b[%d] rescaled by 1%+.3g", j, r)
		}
	}
	x := make([]float64, m*n)
	c.RandPoint(x, rand.New(rand.NewPCG(1, 2)))
	if err := c.CheckPoint(x); err != nil {
		t.Errorf("a random point of the rescaled Π(a, b): %v", err)
	}

	b[0] *= 1.01
	if _, err := coupling.New(a, b); !errors.Is(err, coupling.ErrBadMarginal) || !strings.Contains(err.Error(), "beyond float32 rounding") {
		t.Errorf("b[0]·1.01: %v, want ErrBadMarginal beyond float32 rounding", err)
	}
}

// TestSnapPointFloat32 checks that a plan rounded to float32 is rebalanced
// to the marginals, moving little, with a note; a plan off its marginals
// by 1% is rejected with the defect and the bound.
func TestSnapPointFloat32(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 7))
	a, b := marginals(rnd, 30, 20)
	c, err := coupling.New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 30*20)
	c.RandPoint(x, rnd)
	got, note := manifoldtest.Snap(t, c, x, f32test.Round(x))
	if !strings.Contains(note, "Sinkhorn") {
		t.Errorf("note %q does not name the projection", note)
	}
	// Each entry moves by the row and column scalings, 1 + O(u) each.
	for k := range got {
		if r := math.Abs(got[k]/x[k] - 1); r > 1e-6 {
			t.Fatalf("entry %d moved by %.3g relative", k, r)
		}
	}

	off := append([]float64(nil), x...)
	for i := range off[:20] { // the first row, 1% heavier
		off[i] *= 1.01
	}
	_, err = c.SnapPoint(got, off)
	if !errors.Is(err, coupling.ErrMarginal) || !strings.Contains(err.Error(), "beyond float32 rounding") {
		t.Errorf("a row 1%% heavier: %v, want ErrMarginal beyond float32 rounding", err)
	}
}

func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

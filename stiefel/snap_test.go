package stiefel_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

var _ solver.Snapper = (*stiefel.Stiefel)(nil)

// TestSnapPointFloat32 checks that a point rounded to float32 is accepted
// and replaced by its polar factor, a point near the float64 original,
// with a note giving the defect; a point on the manifold is kept as it is,
// and one clearly off is rejected with the defect and the bound.
func TestSnapPointFloat32(t *testing.T) {
	const n, p = 50, 20
	s := stiefel.New(n, p)
	x := make([]float64, n*p)
	s.RandPoint(x, rand.New(rand.NewPCG(3, 1)))

	x32 := f32test.Round(x)
	got, note := manifoldtest.Snap(t, s, x, x32)
	if !strings.Contains(note, "‖XᵀX − I‖_F") || !strings.Contains(note, "polar") {
		t.Errorf("note %q does not give the defect and the projection", note)
	}
	// The polar factor of X + E, X on the manifold, is X + E − X sym(XᵀE)
	// to first order: within ‖E‖_F of X.
	if d, e := snapDist(got, x), snapDist(x32, x); d > 2*e {
		t.Errorf("snapped point is %.3g from the float64 point, the float32 one %.3g", d, e)
	}

	off := append([]float64(nil), x...)
	for i := range off {
		off[i] *= 1.01
	}
	_, err := s.SnapPoint(got, off)
	if !errors.Is(err, stiefel.ErrNotOrthonormal) || !strings.Contains(err.Error(), "beyond float32 rounding") {
		t.Errorf("X·1.01: err %v, want ErrNotOrthonormal beyond float32 rounding", err)
	}
	bad := append([]float64(nil), x32...)
	bad[3] = math.NaN()
	if _, err := s.SnapPoint(got, bad); err == nil {
		t.Error("NaN accepted")
	}
}

func snapDist(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

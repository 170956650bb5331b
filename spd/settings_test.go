package spd_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/spd"
)

// TestBadTol: a NaN, infinite or negative Tol is an error wrapping
// numerr.ErrInvalid that names it, from CheckPoint, CheckTangent and the
// symmetry check of a new point in Retract. A `Tol > 0` default test had
// turned NaN into DefaultTol silently, and +Inf accepted any asymmetry:
// Retract then factored one triangle of a non-symmetric matrix.
func TestBadTol(t *testing.T) {
	x := []float64{2, 0.5, 0.5, 1}
	skew := []float64{2, 0.5, 0.7, 1} // not symmetric
	u := []float64{0.1, 0.2, 0.2, -0.3}
	for _, tol := range []float64{math.NaN(), math.Inf(1), -1e-12} {
		m := spd.New(2)
		m.Tol = tol
		y := make([]float64, 4)
		for name, err := range map[string]error{
			"CheckPoint":              m.CheckPoint(x),
			"CheckTangent":            m.CheckTangent(x, u),
			"Retract":                 m.Retract(y, x, u, 0.5),
			"Retract at a skew point": m.Retract(y, skew, u, 0.5),
		} {
			if !errors.Is(err, numerr.ErrInvalid) || !strings.Contains(err.Error(), "Tol = ") {
				t.Errorf("Tol = %v: %s: %v, want ErrInvalid naming Tol", tol, name, err)
			}
		}
	}
	m := spd.New(2)
	m.Tol = 1e-3 // a valid loose tolerance still works
	if err := m.CheckPoint([]float64{2, 0.5, 0.5001, 1}); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckPoint(skew); !errors.Is(err, numerr.ErrNotSymmetric) {
		t.Fatalf("skew point with Tol 1e-3: %v", err)
	}
}

// TestLogDistSubnormal: Log and Dist at generalized eigenvalues below
// 2^−1022. Go's math.Log returns log 2^−1023 for all of them on amd64
// (golang/go#56600): d(I, 2^−1060·I) came out 709.09·√2, not 734.74·√2.
func TestLogDistSubnormal(t *testing.T) {
	m := spd.New(2)
	x := []float64{1, 0, 0, 1}
	s := math.Ldexp(1, -1060)
	y := []float64{s, 0, 0, 4 * s}
	want := []float64{-1060 * math.Ln2, -1058 * math.Ln2} // log of the eigenvalues
	d, err := m.Dist(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if w := math.Hypot(want[0], want[1]); math.Abs(d-w) > 1e-14*w {
		t.Errorf("Dist = %.17g, want %.17g", d, w)
	}
	l := make([]float64, 4)
	if err := m.Log(l, x, y); err != nil {
		t.Fatal(err)
	}
	if math.Abs(l[0]-want[0]) > 1e-13 || math.Abs(l[3]-want[1]) > 1e-13 || l[1] != 0 || l[2] != 0 {
		t.Errorf("Log_I(Y) = %v, want diag%v", l, want)
	}
}

// TestExpOverflow: an exponential whose e^(tλ) fits but whose result
// L·diag(e^(tλ))·Lᵀ does not is ErrOverflow; it was a matrix of +Inf with
// a nil error (FuzzRetract 4bec22d0ef3ecab8).
func TestExpOverflow(t *testing.T) {
	m := spd.New(2)
	m.Retraction = spd.Exponential
	x := []float64{192, 48, 48, 388}
	u := []float64{180224, 245760, 245760, 198656}
	y := make([]float64, 4)
	if err := m.Retract(y, x, u, 0.5); !errors.Is(err, numerr.ErrOverflow) {
		t.Fatalf("R_x(tu) = %v, error %v; want ErrOverflow", y, err)
	}
}

package spd_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

var _ solver.Snapper = (*spd.SPD)(nil)

// TestSnapPointFloat32 checks that an SPD matrix symmetric only to float32
// rounding is replaced by its symmetric part with a note; a matrix
// asymmetric by 1e-3 relative, or not positive definite, is rejected.
func TestSnapPointFloat32(t *testing.T) {
	const n = 30
	s := spd.New(n)
	x := make([]float64, n*n)
	s.RandPoint(x, rand.New(rand.NewPCG(4, 4)))
	x32 := f32test.Sym(x, n)
	got, note := manifoldtest.Snap(t, s, x, x32)
	if !strings.Contains(note, "symmetrized") {
		t.Errorf("note %q does not name the projection", note)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if want := 0.5 * (x32[i*n+j] + x32[j*n+i]); got[i*n+j] != want && got[j*n+i] != want {
				t.Fatalf("[%d,%d] = %v, want (x + xᵀ)/2 = %v", i, j, got[i*n+j], want)
			}
		}
	}

	off := append([]float64(nil), x...)
	off[1] += 1e-3 * maxAbs(x)
	if _, err := s.SnapPoint(got, off); !errors.Is(err, numerr.ErrNotSymmetric) || !strings.Contains(err.Error(), "beyond float32 rounding") {
		t.Errorf("asymmetric by 1e-3: %v, want ErrNotSymmetric beyond float32 rounding", err)
	}
	neg := f32test.Sym(x, n)
	for i := 0; i < n; i++ {
		neg[i*n+i] = -neg[i*n+i]
	}
	if _, err := s.SnapPoint(got, neg); !errors.Is(err, numerr.ErrNotPosDef) {
		t.Errorf("negative definite: %v, want ErrNotPosDef", err)
	}
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = max(m, x, -x)
	}
	return m
}

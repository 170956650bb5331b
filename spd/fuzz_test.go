package spd_test

import (
	"errors"
	"testing"

	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/spd"
)

// FuzzRetract: a retraction (second order or exponential) from any point
// along any direction either fails with a shared sentinel or returns a
// point of the manifold: symmetric, finite, positive definite.
func FuzzRetract(f *testing.F) {
	f.Add([]byte{0, 3, 0, 16, 0, 1, 0, 0, 0, 16, 0, 0, 0, 16, 0, 4, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 16})
	f.Add([]byte{0, 2, 1, 127, 10, 1, 0, 127, 10, 127, 127, 127, 127, 127, 127, 8, 8})
	f.Add([]byte{1, 2, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzing.New(data)
		n := src.Int(1, 5)
		m := spd.New(n)
		if src.Int(0, 1) == 1 {
			m.Retraction = spd.Exponential
		}
		x, u := src.Symmetric(n), src.Symmetric(n)
		tt := src.Float()
		dst := make([]float64, n*n)
		err := m.Retract(dst, x, u, tt)
		if err != nil {
			if !errors.Is(err, numerr.ErrNotFinite) && !errors.Is(err, numerr.ErrNotPosDef) &&
				!errors.Is(err, numerr.ErrNotSymmetric) && !errors.Is(err, numerr.ErrOverflow) && !errors.Is(err, numerr.ErrUnderflow) && !errors.Is(err, numerr.ErrNotConverged) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if m.CheckPoint(x) != nil {
			t.Fatalf("nil error at a point that is not one: x = %v", x)
		}
		if err := m.CheckPoint(dst); err != nil {
			t.Fatalf("R_x(tu) = %v is not a point (%v): x %v u %v t %v", dst, err, x, u, tt)
		}
	})
}

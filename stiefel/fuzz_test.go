package stiefel_test

import (
	"errors"
	"testing"

	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/stiefel"
)

// FuzzRetract: every retraction, from a point (the QR factor of fuzzed
// data) along any direction, either fails with a shared sentinel or
// returns a point with orthonormal columns.
func FuzzRetract(f *testing.F) {
	f.Add([]byte{0, 4, 2, 0, 16, 0, 3, 0, 1, 0, 8, 0, 2, 0, 5, 0, 9, 0, 4, 0, 1, 0, 16, 0, 2, 0, 3, 0, 1, 0, 2, 0, 8})
	f.Add([]byte{0, 3, 3, 3, 127, 0, 1, 127, 127, 0, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 127, 127})
	f.Add([]byte{1, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzing.New(data)
		n := src.Int(1, 6)
		p := src.Int(1, n)
		m := stiefel.New(n, p)
		m.Retraction = stiefel.Retraction(src.Int(0, 3))
		x := src.Matrix(n, p)
		if err := (stiefel.New(n, p)).Retract(x, make([]float64, n*p), x, 1); err != nil {
			return // no point to start from (QR of x itself)
		}
		u := src.Matrix(n, p)
		if m.Retraction != stiefel.QR && fuzzing.Finite(u) {
			m.Project(u, x, u) // the others take tangents; QR any full-rank X + tU
			m.Project(u, x, u) // twice: the first leaves rounding of the normal part
		}
		tt := src.Float()
		dst := make([]float64, n*p)
		err := m.Retract(dst, x, u, tt)
		if err != nil {
			if !errors.Is(err, numerr.ErrNotFinite) && !errors.Is(err, numerr.ErrSingular) &&
				!errors.Is(err, numerr.ErrNotPosDef) && !errors.Is(err, numerr.ErrOverflow) && !errors.Is(err, numerr.ErrNotConverged) {
				t.Fatalf("%v: unclassified error %v", m.Retraction, err)
			}
			return
		}
		c := m.Clone().(*stiefel.Stiefel)
		if err := c.CheckPoint(dst); err != nil {
			t.Fatalf("%v: R_x(tu) is not a point (%v): x %v u %v t %v", m.Retraction, err, x, u, tt)
		}
	})
}

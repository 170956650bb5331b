package coupling_test

import (
	"errors"
	"math"
	"testing"

	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/numerr"
)

// FuzzRetract: the Sinkhorn retraction from any matrix along any
// direction either fails with a shared sentinel (ErrSinkhornNotConverged
// too, with the best plan) or returns a plan with the marginals.
func FuzzRetract(f *testing.F) {
	f.Add([]byte{0, 2, 3, 16, 0, 20, 0, 8, 0, 4, 0, 9, 0, 3, 0, 1, 0, 16, 0, 2, 0, 30, 0, 5, 0, 1, 0, 7, 0, 16, 0})
	f.Add([]byte{0, 3, 3, 127, 0, 1, 0, 50, 1, 3, 0, 100, 0, 16, 0, 16, 0, 16, 0, 127, 8, 200, 8, 3, 0, 9, 0, 16, 0})
	f.Add([]byte{1, 1, 2, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzing.New(data)
		m, n := src.Int(1, 4), src.Int(1, 4)
		a, b := src.Matrix(m, 1), src.Matrix(n, 1)
		for _, v := range [][]float64{a, b} { // moderate positive marginals of equal mass
			for i := range v {
				v[i] = 0.1 + math.Mod(math.Abs(v[i]), 10)
				if math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
					v[i] = 1
				}
			}
		}
		var sa, sb float64
		for _, v := range a {
			sa += v
		}
		for _, v := range b {
			sb += v
		}
		for j := range b {
			b[j] *= sa / sb
		}
		c, err := coupling.New(a, b)
		if err != nil {
			return
		}
		x, u := src.Matrix(m, n), src.Matrix(m, n)
		if !src.Raw() { // mostly positive matrices, so that the balancing runs
			for i := range x {
				x[i] = math.Abs(x[i]) + 1e-3
			}
		}
		tt := src.Float()
		dst := make([]float64, m*n)
		err = c.Retract(dst, x, u, tt)
		if err != nil {
			for _, s := range []error{numerr.ErrNotFinite, numerr.ErrInvalid, numerr.ErrUnderflow, numerr.ErrNotConverged} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("unclassified error %v", err)
		}
		if err := c.CheckPoint(dst); err != nil {
			t.Fatalf("R_x(tu) is not a plan (%v): a %v b %v x %v u %v t %v", err, a, b, x, u, tt)
		}
	})
}

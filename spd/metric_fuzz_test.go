package spd_test

import (
	"errors"
	"math"
	"testing"

	"github.com/rhgd/rhgd/internal/fuzzing"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/spd"
)

// FuzzMetricMaps: under the log-Euclidean and Bures–Wasserstein metrics,
// Retract from any matrix along any direction, and Log and Dist between
// any two, either fail with a shared sentinel or return what they should:
// a point that CheckPoint accepts, from a point; a finite symmetric
// tangent vector and a finite distance ≥ 0, between points.
func FuzzMetricMaps(f *testing.F) {
	f.Add([]byte{0, 3, 0, 16, 0, 1, 0, 0, 0, 16, 0, 0, 0, 16, 0, 4, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 16})
	f.Add([]byte{0, 2, 1, 127, 10, 1, 0, 127, 10, 127, 127, 127, 127, 127, 127, 8, 8})
	f.Add([]byte{1, 2, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
	f.Add([]byte{0, 2, 1, 40, 0, 8, 0, 3, 0, 30, 0, 5, 0, 20, 0, 7, 0, 9, 0, 250, 0, 4, 0, 6, 0, 11, 0, 16, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzing.New(data)
		n := src.Int(1, 4)
		mt := spd.LogEuclidean
		if src.Int(0, 1) == 1 {
			mt = spd.BuresWasserstein
		}
		m := spd.NewMetric(n, mt)
		x, u := src.Symmetric(n), src.Symmetric(n)
		tt := src.Float()
		classified := func(err error) bool {
			for _, e := range []error{numerr.ErrNotFinite, numerr.ErrNotPosDef, numerr.ErrNotSymmetric, numerr.ErrOverflow,
				numerr.ErrUnderflow, numerr.ErrNotConverged} {
				if errors.Is(err, e) {
					return true
				}
			}
			return false
		}
		dst := make([]float64, n*n)
		if err := m.Retract(dst, x, u, tt); err != nil {
			if !classified(err) {
				t.Fatalf("%v: unclassified error %v", mt, err)
			}
		} else {
			if m.CheckPoint(x) != nil {
				t.Fatalf("%v: nil error at a point that is not one: x = %v", mt, x)
			}
			if err := m.CheckPoint(dst); err != nil {
				t.Fatalf("%v: R_x(tu) = %v is not a point (%v): x %v u %v t %v", mt, dst, err, x, u, tt)
			}
		}
		if err := m.Log(dst, x, u); err != nil {
			if !classified(err) {
				t.Fatalf("%v: Log: unclassified error %v", mt, err)
			}
		} else {
			if m.CheckPoint(x) != nil || m.CheckPoint(u) != nil {
				t.Fatalf("%v: Log: nil error between %v and %v, not both points", mt, x, u)
			}
			if err := m.CheckTangent(x, dst); err != nil {
				t.Fatalf("%v: Log = %v: %v", mt, dst, err)
			}
		}
		if d, err := m.Dist(x, u); err != nil {
			if !classified(err) {
				t.Fatalf("%v: Dist: unclassified error %v", mt, err)
			}
		} else if !(d >= 0) || math.IsInf(d, 0) {
			t.Fatalf("%v: Dist(%v, %v) = %v", mt, x, u, d)
		}
	})
}

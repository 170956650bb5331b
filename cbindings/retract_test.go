//go:build cgo

package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
)

// TestRetractBestPlanInPlace: a coupling retraction that does not converge
// leaves its best plan in out, also when out is the input point (then the
// plan is computed in scratch space and copied).
func TestRetractBestPlanInPlace(t *testing.T) {
	m, n := 4, 5
	a, b := []float64{1, 2, 3, 4}, []float64{2, 2, 2, 2, 2}
	h, rc := ctest.ManifoldCoupling(int64(m), int64(n), a, b, "maxiter=1,tol=1e-15")
	if rc != okC {
		t.Fatal(rc)
	}
	defer ctest.ManifoldFree(h)
	g, u := make([]float64, m*n), make([]float64, m*n)
	ctest.RandPoint(h, 3, g)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range u {
		u[i] = 30 * g[i] * rnd.NormFloat64()
	}
	ctest.Project(h, g, u, u)
	for _, inPlace := range []bool{false, true} {
		x := append([]float64(nil), g...)
		out := make([]float64, m*n)
		if inPlace {
			out = x
		}
		wantCode(t, "one Sinkhorn iteration", enotconv, func() int { return ctest.Retract(h, x, u, 1, out) }, "did not converge")
		changed := false
		for i, v := range out {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Fatalf("in place %v: out[%d] = %v", inPlace, i, v)
			}
			changed = changed || v != g[i]
		}
		if !changed {
			t.Errorf("in place %v: out is the input point, not the best plan", inPlace)
		}
	}
}

package lapackx

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// polyMul multiplies coefficient vectors.
func polyMul(p, q []float64) []float64 {
	r := make([]float64, len(p)+len(q)-1)
	for i, a := range p {
		for j, b := range q {
			r[i+j] += a * b
		}
	}
	return r
}

func polyAdd(p, q []float64) []float64 {
	r := make([]float64, max(len(p), len(q)))
	for i, a := range p {
		r[i] += a
	}
	for i, b := range q {
		r[i] += b
	}
	return r
}

// TestTaylorSchemeCoefficients: evaluated on scalars' coefficient vectors,
// the degree 8, 12 and 18 schemes reproduce 1/k! for k ≤ m (to the
// rounding of the coefficients).
func TestTaylorSchemeCoefficients(t *testing.T) {
	x := []float64{0, 1}
	x2 := polyMul(x, x)
	x3 := polyMul(x, x2)
	x6 := polyMul(x3, x3)
	lin := func(c0 float64, cs []float64, ps ...[]float64) []float64 {
		r := []float64{c0}
		for i, p := range ps {
			q := make([]float64, len(p))
			for k := range p {
				q[k] = cs[i] * p[k]
			}
			r = polyAdd(r, q)
		}
		return r
	}
	c := taylor8
	a4 := polyMul(x2, lin(0, []float64{c[0], c[1]}, x, x2))
	a8 := polyMul(lin(0, []float64{c[7], 1}, x2, a4), lin(c[3], []float64{c[4], c[5], c[6]}, x, x2, a4))
	t8 := polyAdd(lin(1, []float64{1, c[2]}, x, x2), a8)

	q := taylor12
	qj := func(j int) []float64 { return lin(q[j][0], q[j][1:], x, x2, x3) }
	q61 := polyAdd(qj(2), polyMul(qj(3), qj(3)))
	t12 := polyAdd(qj(0), polyMul(polyAdd(qj(1), q61), q61))

	a, b := taylor18a, taylor18b
	q31 := lin(0, a[:], x, x2, x3)
	bj := func(j int) []float64 { return lin(b[j][0], b[j][1:], x, x2, x3, x6) }
	q91 := polyAdd(polyMul(q31, bj(3)), bj(2))
	t18 := polyAdd(bj(0), polyMul(polyAdd(bj(1), q91), q91))

	for _, c := range []struct {
		m int
		p []float64
	}{{8, t8}, {12, t12}, {18, t18}} {
		f := 1.0
		for k := 0; k <= c.m; k++ {
			if k > 0 {
				f /= float64(k)
			}
			require.InEpsilon(t, f, c.p[k], 1e-13, "m=%d k=%d", c.m, k)
		}
		for k := c.m + 1; k < len(c.p); k++ {
			t.Logf("m=%d: x^%d coefficient %.3g (1/k! = %.3g)", c.m, k, c.p[k], 1/math.Gamma(float64(k+1)))
		}
	}
}

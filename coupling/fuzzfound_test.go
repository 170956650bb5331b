package coupling_test

import (
	"math"
	"testing"

	"github.com/rhgd/rhgd/coupling"
)

// TestRetractSubnormalEntry: a plan with an entry below 2^−1022 retracts
// along U = 0 to itself. The log-domain kernel takes log Γ, and Go's
// math.Log on amd64 returns log 2^−1023 for every subnormal
// (golang/go#56600): the entry came back about e^4.7 ≈ 110 times too
// large, rebalanced into the others, with a nil error.
func TestRetractSubnormalEntry(t *testing.T) {
	tiny := 1e-310
	x := []float64{tiny, 0.5, 0.25, 0.25}
	a := []float64{x[0] + x[1], x[2] + x[3]}
	b := []float64{x[0] + x[2], x[1] + x[3]}
	c, err := coupling.New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckPoint(x); err != nil {
		t.Fatal(err)
	}
	y := make([]float64, 4)
	if err := c.Retract(y, x, make([]float64, 4), 1); err != nil {
		t.Fatal(err)
	}
	for i := range y {
		if math.Abs(y[i]-x[i]) > 1e-12*x[i]+0x1p-1074 {
			t.Fatalf("R_x(0) = %v, want x = %v", y, x)
		}
	}
}

// TestRetractToleranceAfterAbsorb: the returned plan meets Sinkhorn.Tol on
// rows and columns. The stopping test measured the rows only, trusting the
// last column update, but an absorption into the log-domain kernel
// rebuilds it from exponentials of arguments near 540 with their rounding:
// this plan (FuzzRetract e795a2b976cfe724) had a relative L1 error
// 1.44e−13 against the default Tol 1e−13, with a nil error.
func TestRetractToleranceAfterAbsorb(t *testing.T) {
	a, b := []float64{2.1}, []float64{1.05, 1.05}
	c, err := coupling.New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	x, u, y := []float64{192.001, 3.001}, []float64{3, 2.125}, make([]float64, 2)
	if err := c.Retract(y, x, u, 768); err != nil {
		t.Fatal(err)
	}
	e := (math.Abs(y[0]+y[1]-a[0]) + math.Abs(y[0]-b[0]) + math.Abs(y[1]-b[1])) / a[0]
	if !(e <= 1e-13+16*0x1p-52) {
		t.Fatalf("relative L1 marginal error %.3g > Tol 1e-13: %v", e, y)
	}
	if le := c.LastMarginalError(); !(le <= 1e-13) || math.Abs(le-e) > 16*0x1p-52 {
		t.Fatalf("LastMarginalError %.3g, actual %.3g", le, e)
	}
}

// TestRetractTinyEntryPrecision: a plan entry near 2^−1028 keeps its
// precision. The plan was assembled as (u_i K_ij)·v_j, and u_i K_ij
// passed through a deeper subnormal (2^−1044, 30 bits): the entry
// 4.6e−310 of this plan (FuzzRetract 45779063993c819f) came out with a
// relative error of 3e−10 against the diagonal-scaling structure.
func TestRetractTinyEntryPrecision(t *testing.T) {
	a := []float64{0.6, 2.1, 2.1}
	b := []float64{1.2000000000000002, 1.2000000000000002, 1.2000000000000002, 1.2000000000000002}
	x := []float64{0.0023427734375, 0.0024801025390625, 192.001, 192.001, 192.001, 220.001, 0.003685546875, 192.001, 0.00301416015625, 192.001, 192.001, 192.001}
	u := []float64{3, 2, 192, 384, 192, 192, -1.5, 192, 1, 192, 192, 192}
	c, err := coupling.New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, 12)
	if err := c.Retract(y, x, u, -0.75); err != nil {
		t.Fatal(err)
	}
	// L = log R − log X − tU⊘X is f_i + g_j: its 2×2 minors vanish, to the
	// rounding of logarithms near 1000 (entries 0, 1 in row 0; 4, 5 in row 1).
	l := func(k int) float64 { return logPlain(y[k]) - logPlain(x[k]) + 0.75*u[k]/x[k] }
	if d := l(5) - l(4) - l(1) + l(0); math.Abs(d) > 1e-11 {
		t.Fatalf("minor = %.3g: R = %v", d, y)
	}
}

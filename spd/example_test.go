package spd_test

import (
	"fmt"

	"github.com/rhgd/rhgd/spd"
)

// Moving on the SPD manifold: the exponential map along a tangent, the
// logarithm back, and the affine-invariant distance, which equals the
// length of the step.
func Example() {
	m := spd.New(2)
	m.Retraction = spd.Exponential
	x := []float64{2, 0.5, 0.5, 1}
	u := []float64{0.3, -0.1, -0.1, 0.2} // symmetric: a tangent vector
	y := make([]float64, 4)
	if err := m.Retract(y, x, u, 1); err != nil {
		fmt.Println(err)
		return
	}
	back := make([]float64, 4)
	if err := m.Log(back, x, y); err != nil {
		fmt.Println(err)
		return
	}
	d, err := m.Dist(x, y)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("Log_x(Exp_x(u)) = [%.4f %.4f %.4f %.4f]\n", back[0], back[1], back[2], back[3])
	fmt.Printf("d(x, y) = %.6f = ‖u‖_x = %.6f\n", d, m.Norm(x, u))
	fmt.Println("y is a point:", m.CheckPoint(y) == nil)
	// Output:
	// Log_x(Exp_x(u)) = [0.3000 -0.1000 -0.1000 0.2000]
	// d(x, y) = 0.389662 = ‖u‖_x = 0.389662
	// y is a point: true
}

// The distance between diag(1, 4) and diag(4, 1) under each metric: √2·log 4
// under the affine-invariant and log-Euclidean metrics (the matrices
// commute), and (tr X + tr Y − 2 tr (X^½ Y X^½)^½)^½ = (10 − 8)^½ = √2
// under Bures–Wasserstein.
func ExampleNewMetric() {
	x, y := []float64{1, 0, 0, 4}, []float64{4, 0, 0, 1}
	for _, m := range []spd.Metric{spd.AffineInvariant, spd.LogEuclidean, spd.BuresWasserstein} {
		d, err := spd.NewMetric(2, m).Dist(x, y)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-17v %.6f\n", m, d)
	}
	// Output:
	// affine-invariant  1.960516
	// log-euclidean     1.960516
	// bures-wasserstein 1.414214
}

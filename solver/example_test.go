package solver_test

import (
	"context"
	"fmt"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/solver"
)

// A bilevel problem given by Euclidean oracles: the lower level
// g(x, y) = ½‖y − x‖² makes y*(x) = x, so F(x) = ½‖x − c‖² + ½‖x‖² is
// minimized at x* = c/2.
func ExampleMinimize() {
	c := []float64{1, 2}
	p := solver.Euclidean(solver.EuclideanProblem{
		Mx: euclid.New(2, 1), My: euclid.New(2, 1),
		F: func(pt *solver.Point) (float64, error) {
			var f float64
			for i := range c {
				f += 0.5*(pt.Y[i]-c[i])*(pt.Y[i]-c[i]) + 0.5*pt.X[i]*pt.X[i]
			}
			return f, nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error { copy(dst, pt.X); return nil },
		GradFy: func(dst []float64, pt *solver.Point) error {
			for i := range dst {
				dst[i] = pt.Y[i] - c[i]
			}
			return nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			for i := range dst {
				dst[i] = pt.Y[i] - pt.X[i]
			}
			return nil
		},
		HessGy: func(dst []float64, _ *solver.Point, v []float64) error { copy(dst, v); return nil },
		CrossGxy: func(dst []float64, _ *solver.Point, v []float64) error {
			for i := range dst {
				dst[i] = -v[i]
			}
			return nil
		},
	})
	est, err := solver.ParseEstimator("cg:tol=1e-12")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := solver.Minimize(context.Background(), p, []float64{0, 0}, []float64{0, 0},
		&solver.Settings{Estimator: est, EtaX: 0.5, EtaY: 0.5, GradTol: 1e-9})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: x = [%.6f %.6f]\n", res.Status, res.X[0], res.X[1])
	// Output: GradientThreshold: x = [0.500000 1.000000]
}

// Estimators are found by name, with their settings in the spec.
func ExampleParseEstimator() {
	for _, spec := range []string{"hinv", "cg", "ns:gamma=1,terms=50", "ad"} {
		est, err := solver.ParseEstimator(spec)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-20s → %v\n", spec, est)
	}
	// Output:
	// hinv                 → hinv
	// cg                   → cg:maxiter=50,tol=1e-10
	// ns:gamma=1,terms=50  → ns:gamma=1,terms=50,power=10
	// ad                   → ad
}

// Settings read from a spec, as the C ABI and Python take them, and
// written back.
func ExampleParseSettings() {
	s, err := solver.ParseSettings("eta_x=0.5, epochs=100, runtime=1m30s", solver.Settings{InnerIters: 40})
	if err != nil {
		panic(err)
	}
	fmt.Println(s.EtaX, s.Epochs, s.InnerIters, s.Runtime)
	fmt.Println(s.String()[:46])
	_, err = solver.ParseSettings("eta_x=-1", s)
	fmt.Println(err)
	// Output:
	// 0.5 100 40 1m30s
	// eta_x=0.5,inner=40,epochs=100,grad_tol=0,rel_g
	// solver: bad setting: settings "eta_x=-1": eta_x="-1" is not a finite number ≥ 0
}

package solver_test

import (
	"context"
	"fmt"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/solver"
)

// ridgeHead is a ridge head on features A x: g(x, y) = ½‖y − Ax‖² +
// (λ/2)‖y‖², so y*(x) = Ax/(1+λ), under f(x, y) = ½‖y − c‖² + ½‖x‖².
// GradGy and LowerSolve both need A x, computed once per x: the Memo
// remembers the x it was computed at, and Fill is the whole check.
type ridgeHead struct {
	a, c   []float64 // A (2×2, row-major) and c
	lambda float64
	ax     []float64   // A x at the point axAt holds
	axAt   solver.Memo // On: solver.OnX
	fills  int         // how often A x was computed
}

// fillAx computes A x at pt into ax; Fill calls it only for a new x.
func (r *ridgeHead) fillAx(pt *solver.Point) error {
	r.fills++
	for i := range r.ax {
		r.ax[i] = r.a[2*i]*pt.X[0] + r.a[2*i+1]*pt.X[1]
	}
	return nil
}

func (r *ridgeHead) problem() solver.Problem {
	return solver.Euclidean(solver.EuclideanProblem{
		Mx: euclid.New(2, 1), My: euclid.New(2, 1),
		F: func(pt *solver.Point) (float64, error) {
			var f float64
			for i := range r.c {
				f += 0.5*(pt.Y[i]-r.c[i])*(pt.Y[i]-r.c[i]) + 0.5*pt.X[i]*pt.X[i]
			}
			return f, nil
		},
		GradFx: func(dst []float64, pt *solver.Point) error { copy(dst, pt.X); return nil },
		GradFy: func(dst []float64, pt *solver.Point) error {
			for i := range dst {
				dst[i] = pt.Y[i] - r.c[i]
			}
			return nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			if err := r.axAt.Fill(pt, r.fillAx); err != nil {
				return err
			}
			for i := range dst {
				dst[i] = (1+r.lambda)*pt.Y[i] - r.ax[i]
			}
			return nil
		},
		HessGy: func(dst []float64, _ *solver.Point, v []float64) error {
			for i := range dst {
				dst[i] = (1 + r.lambda) * v[i]
			}
			return nil
		},
		CrossGxy: func(dst []float64, _ *solver.Point, v []float64) error { // −Aᵀv
			dst[0], dst[1] = -(r.a[0]*v[0] + r.a[2]*v[1]), -(r.a[1]*v[0] + r.a[3]*v[1])
			return nil
		},
		HessGyInv: func(dst []float64, _ *solver.Point, v []float64) error {
			for i := range dst {
				dst[i] = v[i] / (1 + r.lambda)
			}
			return nil
		},
		LowerSolve: func(dst []float64, pt *solver.Point) error {
			if err := r.axAt.Fill(pt, r.fillAx); err != nil {
				return err
			}
			for i := range dst {
				dst[i] = r.ax[i] / (1 + r.lambda)
			}
			return nil
		},
	})
}

// Work an oracle shares with others at the same point goes in a Memo,
// and Memo.Fill is its check, computation and record in one call. Here
// LowerSolve computes A x at each new x, and the run's check of its point
// (one GradGy there) reuses it. F is minimized at
// x* = (AᵀA/(1+λ)² + I)⁻¹ Aᵀc/(1+λ) = (9/11, 7/11).
func ExampleMemo_Fill() {
	r := &ridgeHead{a: []float64{2, 0, 1, 1}, c: []float64{1, 2}, lambda: 1,
		ax: make([]float64, 2), axAt: solver.Memo{On: solver.OnX}}
	s := solver.Settings{Estimator: solver.HInv{}, EtaX: 0.3, GradTol: 1e-10}
	s.Lower.UseLowerSolve = true
	res, err := solver.Minimize(context.Background(), r.problem(), []float64{0, 0}, []float64{0, 0}, &s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: x = [%.6f %.6f]\n", res.Status, res.X[0], res.X[1])
	fmt.Printf("A x computed %d times for %d lower solves and %d lower gradients\n",
		r.fills, res.Stats.LowerSolves, res.Stats.LowerGrads)
	// Output:
	// GradientThreshold: x = [0.818182 0.636364]
	// A x computed 52 times for 52 lower solves and 53 lower gradients
}

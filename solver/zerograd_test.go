package solver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

// TestAdaptiveStartAtLowerSolution: a start whose y is y*(x) exactly
// (grad_y g = 0) is a solved lower level, not a failed BB step, under every
// SPD metric: under the log-Euclidean and Bures–Wasserstein ones a
// retraction along zero moves y by rounding and raises g from 0, which the
// line search took for "no decrease after 60 halvings".
//
// g(x, Y) = ½‖Y − B − xI‖², f = ½‖Y − B − 0.7 I‖² (Frobenius), so
// y*(x) = B + xI and x* = 0.7.
func TestAdaptiveStartAtLowerSolution(t *testing.T) {
	const n = 2
	b := []float64{3, 1, 1, 2}
	for _, metric := range []spd.Metric{spd.AffineInvariant, spd.LogEuclidean, spd.BuresWasserstein} {
		my := spd.NewMetric(n, metric)
		eg, eh := make([]float64, n*n), make([]float64, n*n)
		diff := func(y []float64, shift float64) {
			for i := range eg {
				eg[i] = y[i] - b[i]
			}
			for i := 0; i < n; i++ {
				eg[i*n+i] -= shift
			}
		}
		half2 := func() float64 {
			var s float64
			for _, v := range eg {
				s += 0.5 * v * v
			}
			return s
		}
		p := solver.Problem{
			Mx: euclid.New(1, 1), My: my,
			F:      func(pt *solver.Point) (float64, error) { diff(pt.Y, 0.7); return half2(), nil },
			G:      func(pt *solver.Point) (float64, error) { diff(pt.Y, pt.X[0]); return half2(), nil },
			GradFx: func(dst []float64, _ *solver.Point) error { dst[0] = 0; return nil },
			GradFy: func(dst []float64, pt *solver.Point) error {
				diff(pt.Y, 0.7)
				my.EGradToRGrad(dst, pt.Y, eg)
				return nil
			},
			GradGy: func(dst []float64, pt *solver.Point) error {
				diff(pt.Y, pt.X[0])
				my.EGradToRGrad(dst, pt.Y, eg)
				return nil
			},
			HessGy: func(dst []float64, pt *solver.Point, u []float64) error {
				diff(pt.Y, pt.X[0])
				copy(eh, u)
				my.EHessToRHess(dst, pt.Y, eg, eh, u)
				return nil
			},
			CrossGxy: func(dst []float64, _ *solver.Point, v []float64) error {
				dst[0] = -(v[0] + v[3]) // ⟨D_x grad_y g, v⟩ = ⟨−I, v⟩_F
				return nil
			},
		}
		s := solver.Settings{Estimator: &solver.CG{}, Epochs: 300}
		s.ApplyAdaptive()
		s.Lower.UseLowerSolve = false
		y0 := []float64{3.2, 1, 1, 2.2} // B + 0.2 I: y*(0.2)
		res, err := solver.Minimize(t.Context(), p, []float64{0.2}, y0, &s)
		require.NoError(t, err, "%v", metric)
		require.InDelta(t, 0.7, res.X[0], 1e-6, "%v", metric)
	}
}

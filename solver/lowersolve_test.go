package solver_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// TestLowerSolveChecked: a run that uses Problem.LowerSolve checks each
// of its points with one GradGy. A LowerSolve that returns 2y* (or y*
// 1% off) stops the run with an error naming LowerSolve and wrapping
// ErrLowerSolve, under the paper's settings and the adaptive preset;
// before, the run trusted it and returned a wrong F with a nil error.
// A correct closed form passes, also where its rounding is all there is
// to measure: started at the lower solution (the warm start's gradient
// is rounding too), and with κ(A) = 10⁸.
func TestLowerSolveChecked(t *testing.T) {
	for _, c := range []struct {
		name    string
		mu      float64 // A's least eigenvalue (the largest is 3)
		scale   float64 // LowerSolve returns scale·y*
		atYStar bool    // start at y*(x0)
		wrong   bool
	}{
		{"correct", 1, 1, false, false},
		{"correct, started at y*", 1, 1, true, false},
		{"correct, κ = 1e8", 3e-8, 1, false, false},
		{"correct, κ = 1e8, started at y*", 3e-8, 1, true, false},
		{"doubled", 1, 2, false, true},
		{"doubled, started at y*", 1, 2, true, true},
		{"1% off", 1, 1.01, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(71, 71))
			e := newQuad(rnd, 4, 6, c.mu, 3)
			p := e.withHINV(e.problem())
			p.Mx, p.My = euclid.New(4, 1), euclid.New(6, 1)
			x0, y0 := make([]float64, 4), make([]float64, 6)
			for i := range x0 {
				x0[i] = rnd.NormFloat64()
			}
			if c.atYStar {
				copy(y0, e.ystar(x0))
			}
			p.LowerSolve = func(dst []float64, pt *solver.Point) error {
				for i, v := range e.ystar(pt.X) {
					dst[i] = c.scale * v
				}
				return nil
			}
			// F's curvature grows as 1/μ²: the upper step shrinks with it.
			paper := solver.Settings{Estimator: solver.HInv{}, Epochs: 20, EtaX: 0.1 * c.mu * c.mu}
			paper.Lower.UseLowerSolve = true
			adaptive := solver.AdaptiveSettings()
			adaptive.Estimator, adaptive.Epochs, adaptive.EtaX = solver.HInv{}, 20, paper.EtaX
			for _, s := range []solver.Settings{paper, adaptive} {
				res, err := solver.Minimize(context.Background(), p, x0, y0, &s)
				if !c.wrong {
					require.NoError(t, err)
					require.Positive(t, res.Stats.LowerSolves)
					continue
				}
				require.ErrorIs(t, err, solver.ErrLowerSolve)
				require.ErrorIs(t, err, numerr.ErrNotConverged)
				require.ErrorContains(t, err, "LowerSolve at epoch 0: ")
				require.Equal(t, solver.Failure, res.Status)
				require.Equal(t, y0, res.Y, "the rejected point is not taken")
			}
		})
	}
}

// TestLowerSolveEpochAllocs: the check of LowerSolve's point leaves an
// epoch with an exact lower solve allocation-free, with and without a
// Recorder.
func TestLowerSolveEpochAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	for _, rec := range []solver.Recorder{nil, nopRecorder{}} {
		d := newDquad(3, 5, 4)
		p := d.problem(false)
		zero, calls := make([]float64, 5), 0
		p.LowerSolve = func(dst []float64, pt *solver.Point) error {
			calls++
			d.grad(dst, pt.X, zero) // −Bx
			for i := range dst {
				dst[i] /= -d.a[i] // y* = (Bx)/a
			}
			return nil
		}
		s := solver.Settings{Estimator: &solver.CG{}, Recorder: rec}
		s.Lower.UseLowerSolve = true
		r, err := solver.New(p, &s)
		require.NoError(t, err)
		require.Zero(t, stepAllocs(t, r, []float64{0.5, -1, 2}, []float64{1, 0, -1, 0.5, 2}, 20))
		require.GreaterOrEqual(t, calls, 21)
	}
}

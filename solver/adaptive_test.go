package solver_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/solver"
)

// concaveStart is the bilevel problem on R² × R²
//
//	f(x, y) = ¼(‖y‖² − 1)²,   g(x, y) = ½ yᵀAy − yᵀx,   A = diag(1, 2),
//
// so that y*(x) = A⁻¹x and F(x) = ¼(‖A⁻¹x‖² − 1)², with an exact
// LowerSolve. F is a quartic with a local maximum at 0 and minima on the
// ellipse ‖A⁻¹x‖ = 1; from near 0 the descent path runs outwards through
// the region ‖A⁻¹x‖² < 1/3 where F curves downwards along it (along
// u = A⁻¹s, ∇²F gives (‖y‖² − 1)‖u‖² + 2(yᵀu)² < 0 for small ‖y‖), so
// there ⟨s, z⟩ < 0 for the BB rule's step s and gradient change z.
func concaveStart() solver.Problem {
	a := [2]float64{1, 2}
	p := solver.Euclidean(solver.EuclideanProblem{
		Mx: euclid.New(2, 1), My: euclid.New(2, 1),
		F: func(pt *solver.Point) (float64, error) {
			r := pt.Y[0]*pt.Y[0] + pt.Y[1]*pt.Y[1] - 1
			return r * r / 4, nil
		},
		GradFx: func(dst []float64, _ *solver.Point) error {
			clear(dst)
			return nil
		},
		GradFy: func(dst []float64, pt *solver.Point) error {
			r := pt.Y[0]*pt.Y[0] + pt.Y[1]*pt.Y[1] - 1
			dst[0], dst[1] = r*pt.Y[0], r*pt.Y[1]
			return nil
		},
		G: func(pt *solver.Point) (float64, error) {
			y, x := pt.Y, pt.X
			return 0.5*(a[0]*y[0]*y[0]+a[1]*y[1]*y[1]) - y[0]*x[0] - y[1]*x[1], nil
		},
		GradGy: func(dst []float64, pt *solver.Point) error {
			dst[0], dst[1] = a[0]*pt.Y[0]-pt.X[0], a[1]*pt.Y[1]-pt.X[1]
			return nil
		},
		GradGx: func(dst []float64, pt *solver.Point) error {
			dst[0], dst[1] = -pt.Y[0], -pt.Y[1]
			return nil
		},
		HessGy: func(dst []float64, _ *solver.Point, v []float64) error {
			dst[0], dst[1] = a[0]*v[0], a[1]*v[1]
			return nil
		},
		CrossGxy: func(dst []float64, _ *solver.Point, v []float64) error {
			dst[0], dst[1] = -v[0], -v[1]
			return nil
		},
	})
	p.LowerSolve = func(dst []float64, pt *solver.Point) error {
		dst[0], dst[1] = pt.X[0]/a[0], pt.X[1]/a[1]
		return nil
	}
	return p
}

// upperSteps records each epoch's upper step, x and f.
type upperSteps struct {
	steps, f []float64
	x        [][]float64
}

func (u *upperSteps) Record(s *solver.EpochStats) error {
	u.steps = append(u.steps, s.UpperStep)
	u.f = append(u.f, s.F)
	u.x = append(u.x, append([]float64(nil), s.X...))
	return nil
}

// TestUpperBBNegativeCurvature: where F curves downwards along the path
// (⟨s, z⟩ ≤ 0), the BB upper step grows instead of keeping its last
// length, so that the adaptive settings with the exact lower solution
// cross the concave region in a few epochs, not at the fixed η_x's pace
// (issue 27: 355 epochs against 45 without the exact solution); the
// nonmonotone safeguard still bounds the step once f rises, and the run
// ends at a minimizer of F.
func TestUpperBBNegativeCurvature(t *testing.T) {
	p := concaveStart()
	x0, y0 := []float64{0.01, 0.02}, []float64{0, 0}
	const etaX = 0.1
	run := func(adaptive bool) (*solver.Result, *upperSteps) {
		rec := &upperSteps{}
		s := solver.Settings{Estimator: &solver.CG{}, EtaX: etaX, Epochs: 5000, Recorder: rec}
		s.ApplyAdaptive()
		if !adaptive {
			s.Upper = solver.UpperRule{} // the paper's fixed η_x, with the same lower solve and tolerance
		}
		res, err := solver.Minimize(context.Background(), p, x0, y0, &s)
		require.NoError(t, err)
		require.Equal(t, solver.GradientThreshold, res.Status)
		return res, rec
	}
	fixed, _ := run(false)
	res, rec := run(true)
	t.Logf("epochs to ‖ĝ‖ ≤ 1e-8‖ĝ₀‖: fixed η_x = %g: %d, BB: %d; BB steps %.3g f %.3g", etaX, fixed.Stats.Epochs, res.Stats.Epochs, rec.steps, rec.f)

	// The run ends at a minimizer: ‖A⁻¹x‖ = 1, F = 0 (the truth, from
	// the closed form, not the solver's f).
	r := math.Hypot(res.X[0], res.X[1]/2)
	assert.InDelta(t, 1, r, 1e-8)
	assert.Less(t, res.F, 1e-15)

	// In the concave region the step grew beyond η_x, and the run took a
	// fraction of the fixed step's epochs.
	grew := false
	for k, x := range rec.x {
		if math.Hypot(x[0], x[1]/2) < 1/math.Sqrt(3) && rec.steps[k] > 2*etaX {
			grew = true
		}
	}
	assert.True(t, grew, "the BB step never grew in the concave region: %.3g", rec.steps)
	assert.Less(t, 4*res.Stats.Epochs, fixed.Stats.Epochs)

	// The safeguard: after f rose above the last ten values, no step is
	// longer than half the step that preceded the rise, and none exceeds
	// MaxStep (1000 η_x).
	// Here the growth overshoots once (f rises twentyfold), and the
	// safeguard and BB bring the step back.
	limit, rises := 1000*etaX, 0
	for k := range rec.steps {
		assert.LessOrEqual(t, rec.steps[k], limit, "epoch %d", k)
		if k >= 1 && rec.f[k] > maxOf(rec.f[max(0, k-10):k]) {
			rises++
			limit = min(limit, rec.steps[k-1]/2)
			assert.LessOrEqual(t, rec.steps[k], limit, "epoch %d: f rose, the step stays below half the last", k)
		}
	}
	assert.Positive(t, rises, "the safeguard was not exercised")
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

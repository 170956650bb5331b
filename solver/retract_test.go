package solver_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// shortReach is a manifold whose retraction fails for steps longer than
// reach, as a Sinkhorn balancing fails to converge on a long step of the
// coupling manifold, and with err once calls exceed after.
type shortReach struct {
	solver.Manifold
	reach float64
	calls *int
	err   error // returned for every step when set
}

// errTooFar is shortReach's error for a step too long.
var errTooFar = numerr.New(numerr.ErrNotConverged, "step too long")

func (m shortReach) Retract(dst, x, u []float64, t float64) error {
	*m.calls++
	if m.err != nil {
		return m.err
	}
	if math.Abs(t)*m.Norm(x, u) > m.reach {
		return errTooFar
	}
	return m.Manifold.Retract(dst, x, u, t)
}

// TestUpperStepShortened: a step that the upper rule chose, fixed or BB,
// and that the manifold cannot retract is halved until it can, counted,
// and recorded as the step taken; the run converges as before instead of
// failing at its first long step.
func TestUpperStepShortened(t *testing.T) {
	const reach = 0.05
	for name, s := range map[string]solver.Settings{
		"fixed": {EtaX: 0.3},
		"bb":    {EtaX: 0.3, Upper: solver.UpperRule{BB: true}},
	} {
		t.Run(name, func(t *testing.T) {
			_, p, mx, my, x0, y0 := quadSetup(5)
			calls := 0
			rec := &recorder{}
			s.Estimator, s.Recorder, s.InnerIters, s.EtaY, s.Epochs, s.GradTol = solver.HInv{}, rec, 40, 0.3, 5000, 1e-9
			res, err := solver.Minimize(context.Background(), on(p, shortReach{mx, reach, &calls, nil}, my), x0, y0, &s)
			require.NoError(t, err)
			require.Equal(t, solver.GradientThreshold, res.Status)
			require.Positive(t, res.Stats.RetractFailures)
			first := rec.epochs[0].HyperGradNorm * s.EtaX
			require.Greater(t, first, reach, "the first step must be too long")
			if s.Upper.BB {
				// The BB steps stay within the length the retraction
				// reached: after the first epoch's halvings, at most one
				// more (a length equal to the reach, up to rounding).
				require.LessOrEqual(t, res.Stats.RetractFailures, int(math.Ceil(math.Log2(first/reach)))+1)
			}
			for _, e := range rec.epochs[:len(rec.epochs)-1] {
				require.LessOrEqual(t, e.UpperStep*e.HyperGradNorm, reach, "epoch %d", e.Epoch)
				require.Positive(t, e.UpperStep, "epoch %d", e.Epoch)
			}
		})
	}
}

// TestUpperRetractionErrors: a retraction that fails for every step ends
// the run after a bounded number of halvings with the cause, and one that
// reports invalid input (not a matter of step length) ends it at once.
func TestUpperRetractionErrors(t *testing.T) {
	_, p, mx, my, x0, y0 := quadSetup(5)
	calls := 0
	refused := errors.New("retraction refused")
	res, err := solver.Minimize(context.Background(), on(p, shortReach{mx, 0, &calls, refused}, my), x0, y0,
		&solver.Settings{Estimator: solver.HInv{}, Epochs: 10})
	require.ErrorIs(t, err, refused)
	require.ErrorContains(t, err, "upper retraction at epoch 0: no step from 0.1 down to")
	require.Equal(t, solver.Failure, res.Status)
	require.Equal(t, calls-1, res.Stats.RetractFailures)
	require.Less(t, calls, 100)

	calls = 0
	bad := fmt.Errorf("point off the manifold: %w", numerr.ErrInvalid)
	res, err = solver.Minimize(context.Background(), on(p, shortReach{mx, 0, &calls, bad}, my), x0, y0,
		&solver.Settings{Estimator: solver.HInv{}, Epochs: 10})
	require.ErrorIs(t, err, numerr.ErrInvalid)
	require.Equal(t, solver.Failure, res.Status)
	require.Equal(t, 1, calls)
	require.Zero(t, res.Stats.RetractFailures)
}

// TestShortenedStepAllocs: an epoch whose upper step is shortened
// allocates nothing.
func TestShortenedStepAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	s, mx, my, x0, y0 := squadSetup(15) // its oracles allocate nothing
	calls := 0
	r, err := solver.New(on(s.problem(), shortReach{mx, 1e-6, &calls, nil}, my), &solver.Settings{Estimator: &solver.CG{}, InnerIters: 3})
	require.NoError(t, err)
	require.Zero(t, stepAllocs(t, r, x0, y0, 10))
	require.Greater(t, calls, 20, "every step was shortened")
}

package solver_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/solver"
)

// trueGrad returns ‖∇F(x)‖ of squad's averaged problem, from its closed
// forms.
func (s *squad) trueGrad(x []float64) float64 {
	return norm2(s.mean.exactHyper(x, s.mean.ystar(x)))
}

func TestSABAExplore(t *testing.T) {
	s, mx, my, x0, y0 := squadSetup(21)
	for _, est := range []solver.Estimator{&solver.SABA{}, &solver.CG{}} {
		r, err := solver.New(on(s.problem(), mx, my), withBatches(&solver.Settings{Estimator: est, InnerIters: 1, EtaX: 0.05, EtaY: 0.1, Seed: 3}, solver.Batches{Lower: 4, Upper: 4, Report: 4}))
		require.NoError(t, err)
		require.NoError(t, r.Reset(x0, y0))
		for k := 0; k <= 4000; k++ {
			if k%250 == 0 {
				t.Logf("%s %d %.3g", est.Name(), k, s.trueGrad(r.X()))
			}
			_, err := r.Step()
			require.NoError(t, err)
		}
	}
	_ = math.Inf
}

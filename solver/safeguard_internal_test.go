package solver

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
)

// bbUpper returns an RHGD with BB upper steps (η_x = 0.1, so MaxStep =
// 100), reset, whose last upper step was 1.
func bbUpper(t *testing.T) *RHGD {
	t.Helper()
	m := euclid.New(1, 1)
	zero := func(dst []float64, _ *Point) error { clear(dst); return nil }
	p := Problem{Mx: m, My: m, F: func(*Point) (float64, error) { return 0, nil }, GradFx: zero, GradFy: zero, GradGy: zero,
		HessGyInv: func(dst []float64, _ *Point, v []float64) error { copy(dst, v); return nil },
		CrossGxy:  func(dst []float64, _ *Point, _ []float64) error { clear(dst); return nil }}
	s := Settings{Estimator: HInv{}, EtaX: 0.1}
	s.Upper.BB = true
	r, err := New(p, &s)
	require.NoError(t, err)
	require.NoError(t, r.Reset([]float64{1}, []float64{0}))
	require.Equal(t, 100.0, r.upperMax)
	r.ubb.prevStep = 1
	return r
}

// TestUpperSafeguardRounding: a rise of f within its rounding (a few
// ulps of its size) is no rise: the safeguard keeps the cap. Before, any
// rise of the rounded values halved it, and near a solution, where a
// step's true change of f is below f's rounding, the cap fell to MinStep
// by chance and the run stalled (issue 31 §3). A rise beyond the rounding
// still halves it.
func TestUpperSafeguardRounding(t *testing.T) {
	const f0 = 1234.5678
	ulp := math.Nextafter(f0, math.Inf(1)) - f0
	r := bbUpper(t)
	r.upperStepSize(f0, 1)
	for i := 1; i <= 8; i++ {
		r.upperStepSize(f0+float64(i%3)*ulp, 1) // up to 2 ulps above the window's worst
		require.Equal(t, 100.0, r.upperMax, "a rise of %d ulps halved the cap", i%3)
	}
	r.upperStepSize(f0*(1+1e-9), 1)
	require.Equal(t, 0.5, r.upperMax, "a rise of 1e-9·f halves the cap to half the last step")

	// risen on its own: the bound is relative to the larger magnitude,
	// and zero rises nothing.
	require.False(t, risen(0, 0))
	require.False(t, risen(-f0+ulp, -f0))
	require.True(t, risen(-f0*(1-1e-9), -f0))
	require.True(t, risen(1e-300, 0))
}

// TestUpperSafeguardRecovers: a cap lowered by one rise of f doubles
// after every upperWindow epochs without a rise, up to MaxStep, instead of
// bounding every later step. Before, the cap only ever fell: each rise
// (a too long step, or a noisy estimate) ratcheted it down for the rest
// of the run, towards MinStep.
func TestUpperSafeguardRecovers(t *testing.T) {
	r := bbUpper(t)
	f := 10.0
	r.upperStepSize(f, 1)
	r.upperStepSize(f+1, 1)
	require.Equal(t, 0.5, r.upperMax)
	caps := []float64{}
	for k := 1; k <= 12*upperWindow; k++ {
		f /= 2 // decreasing: no rise
		r.upperStepSize(f, 1)
		if k%upperWindow == 0 {
			caps = append(caps, r.upperMax)
		}
	}
	require.Equal(t, []float64{1, 2, 4, 8, 16, 32, 64, 100, 100, 100, 100, 100}, caps)

	// A rise restarts the count: the cap falls and recovers anew.
	r.ubb.prevStep = 8
	r.upperStepSize(1e6, 1)
	require.Equal(t, 4.0, r.upperMax)
	for range upperWindow - 1 {
		r.upperStepSize(0, 1)
	}
	require.Equal(t, 4.0, r.upperMax)
	r.upperStepSize(0, 1)
	require.Equal(t, 8.0, r.upperMax)
}

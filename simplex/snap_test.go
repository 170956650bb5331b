package simplex_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/simplex"
	"github.com/rhgd/rhgd/solver"
)

var _ solver.Snapper = (*simplex.Simplex)(nil)

// TestSnapPointFloat32: a point of Δ(n) rounded to float32 fails
// CheckPoint (its sum is off one by about float32's unit roundoff), and
// SnapPoint divides it by its sum: a point, each entry within float32
// rounding of the float64 original (relative, the small ones too), with a
// note giving the defect. A point is kept as it is; a vector whose sum is
// 1% off, or with a zero, negative or NaN entry, is refused, naming what
// is wrong.
func TestSnapPointFloat32(t *testing.T) {
	const n = 200
	m := simplex.New(n)
	x, _, _, _ := randState(m, 11)
	x[0], x[1] = 1e-30, 3e-9 // small probabilities keep their relative accuracy
	var sum float64
	for _, a := range x {
		sum += a
	}
	for i := range x {
		x[i] /= sum
	}
	require.NoError(t, m.CheckPoint(x))

	got := make([]float64, n)
	note, err := m.SnapPoint(got, x)
	require.NoError(t, err)
	require.Empty(t, note)
	require.Equal(t, x, got)

	x32 := f32test.Round(x)
	require.Error(t, m.CheckPoint(x32), "the float32 point passes CheckPoint: the test does not exercise the projection")
	note, err = m.SnapPoint(got, x32)
	require.NoError(t, err)
	require.Contains(t, note, "Σx − 1")
	require.Contains(t, note, "divided by its sum")
	require.NoError(t, m.CheckPoint(got))
	for i := range x {
		require.InDelta(t, 1, got[i]/x[i], 4*lapackx.F32Unit, "entry %d", i)
	}

	// In place, through solver.SnapPoint.
	in := append([]float64(nil), x32...)
	_, err = solver.SnapPoint(m, in)
	require.NoError(t, err)
	require.Equal(t, got, in)

	for name, bad := range map[string]func(v []float64){
		"sum 1% off":     func(v []float64) { v[5] += 0.01 },
		"a zero entry":   func(v []float64) { v[3] = 0 },
		"a negative one": func(v []float64) { v[3] = -1e-9 },
		"a NaN":          func(v []float64) { v[3] = math.NaN() },
	} {
		v := append([]float64(nil), x32...)
		bad(v)
		_, err := m.SnapPoint(got, v)
		require.Error(t, err, name)
		switch name {
		case "sum 1% off":
			require.ErrorIs(t, err, simplex.ErrNotPoint, name)
			require.True(t, strings.Contains(err.Error(), "beyond float32 rounding"), "%s: %v", name, err)
		case "a NaN":
			require.ErrorIs(t, err, numerr.ErrNotFinite, name)
		default:
			require.ErrorIs(t, err, simplex.ErrNotPoint, name)
			require.True(t, errors.Is(err, numerr.ErrInvalid), name)
			require.Contains(t, err.Error(), "point[3]", name)
		}
	}
}

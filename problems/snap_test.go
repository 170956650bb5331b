package problems_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// TestSnapStart: the parts of a file's start within float32 rounding of
// their manifolds are projected, with a note each, in order; absent parts
// and parts without a manifold are left alone; a part clearly off is an
// error naming it.
func TestSnapStart(t *testing.T) {
	st, m := stiefel.New(3, 2), spd.New(2)
	x := []float64{1, 0, 0, 1 + 1e-7, 0, 0}
	y := []float64{2, 1, 1 + 1e-7, 2}
	var notes []string
	require.NoError(t, problems.SnapStart(&notes, problems.Start{X: x, Y: y}, st, m, "X0", "Y0"))
	require.Len(t, notes, 2)
	require.Contains(t, notes[0], "X0: ")
	require.Contains(t, notes[1], "Y0: ")
	require.Equal(t, y[1], y[2])
	require.NoError(t, st.CheckPoint(x))

	notes = nil
	off := []float64{1, 0.5, 0.5 + 1e-7, 1}
	require.NoError(t, problems.SnapStart(&notes, problems.Start{X: off}, nil, m, "x0", "y0"))
	require.Empty(t, notes)
	require.Equal(t, 0.5+1e-7, off[2], "a part without a manifold is left as it is")
	require.NoError(t, problems.SnapStart(&notes, problems.Start{}, st, m, "X0", "Y0"))
	require.Empty(t, notes)

	bad := []float64{1, 0, 0, 1.1, 0, 0}
	err := problems.SnapStart(&notes, problems.Start{X: bad, Y: []float64{1, 0, 0, -1}}, st, m, "X0", "Y0")
	require.ErrorIs(t, err, problems.ErrBadData)
	require.ErrorContains(t, err, "X0")
	require.ErrorIs(t, err, stiefel.ErrNotOrthonormal)
}

// TestStartOr: a start's parts win over the defaults, which fill the parts
// it lacks.
func TestStartOr(t *testing.T) {
	a, b, c, d := []float64{1}, []float64{2}, []float64{3}, []float64{4}
	x, y := problems.Start{X: a}.Or(c, d)
	require.Equal(t, a, x)
	require.Equal(t, d, y)
	x, y = problems.Start{X: a, Y: b}.Or(c, d)
	require.Equal(t, [][]float64{a, b}, [][]float64{x, y})
	x, y = problems.Start{}.Or(c, d)
	require.Equal(t, [][]float64{c, d}, [][]float64{x, y})
}

package batch

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWeigh(t *testing.T) {
	w := make([]float64, 4)
	Weigh(w, nil, "p", "training")
	require.Equal(t, []float64{0.25, 0.25, 0.25, 0.25}, w)
	Weigh(w, []int{3, 1, 3, 3}, "p", "training")
	require.Equal(t, []float64{0, 0.25, 0, 0.75}, w)
	require.PanicsWithValue(t, "p: empty batch", func() { Weigh(w, []int{}, "p", "training") })
	require.PanicsWithValue(t, "p: batch index 4 out of the training set's range [0, 4)", func() { Weigh(w, []int{4}, "p", "training") })
	require.Zero(t, testing.AllocsPerRun(10, func() { Weigh(w, []int{0, 2}, "p", "training") }))
}

package testkit

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRel(t *testing.T) {
	require.Equal(t, 0.0, Rel([]float64{1, 2}, []float64{1, 2}))
	require.InDelta(t, 0.16, Rel([]float64{3, 4.8}, []float64{3, 4}), 1e-15) // ‖(0, 0.8)‖/‖(3, 4)‖
}

func TestRelOrAbs(t *testing.T) {
	require.InDelta(t, 0.16, RelOrAbs([]float64{3, 4.8}, []float64{3, 4}), 1e-15)
	require.InDelta(t, 5.0, RelOrAbs([]float64{3, 4}, []float64{0, 0}), 1e-15)
}

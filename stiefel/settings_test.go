package stiefel_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/numerr"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/stiefel"
)

// TestBadTol: a NaN, infinite or negative Tol is an error wrapping
// numerr.ErrInvalid that names it, from CheckPoint and CheckTangent. A
// `Tol > 0` default test had turned NaN into DefaultTol silently, and +Inf
// accepted any matrix as a point.
func TestBadTol(t *testing.T) {
	x := []float64{1, 0, 0, 1, 0, 0}
	notPoint := []float64{2, 0, 0, 1, 0, 0}
	u := []float64{0, 1, -1, 0, 0.5, 0.5}
	for _, tol := range []float64{math.NaN(), math.Inf(1), -1e-10} {
		m := stiefel.New(3, 2)
		m.Tol = tol
		for name, err := range map[string]error{
			"CheckPoint":                  m.CheckPoint(x),
			"CheckPoint off the manifold": m.CheckPoint(notPoint),
			"CheckTangent":                m.CheckTangent(x, u),
		} {
			if !errors.Is(err, numerr.ErrInvalid) || !strings.Contains(err.Error(), "Tol = ") {
				t.Errorf("Tol = %v: %s: %v, want ErrInvalid naming Tol", tol, name, err)
			}
		}
	}
	m := stiefel.New(3, 2)
	m.Tol = 1e-3
	if err := m.CheckPoint([]float64{1, 0, 0, 1 + 1e-4, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckPoint(notPoint); !errors.Is(err, stiefel.ErrNotOrthonormal) {
		t.Fatal(err)
	}
}

// TestCheckTangentHuge: a vector of 1e167 along x is not tangent; its norm
// once overflowed to +Inf, and Inf > tol·Inf passed it.
func TestCheckTangentHuge(t *testing.T) {
	m := stiefel.New(2, 1)
	x := []float64{0, 1}
	require.Error(t, m.CheckTangent(x, []float64{1e-76, -4.7e167}))
	require.NoError(t, m.CheckTangent(x, []float64{4.7e167, 0}))
	require.Error(t, m.CheckTangent(x, []float64{1e-300, 1e-170})) // underflowing squares
	require.NoError(t, m.CheckTangent(x, []float64{1e-170, 0}))
}

package manifold_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/manifold"
)

// TestInners: the Frobenius and Fisher inner products on small vectors.
func TestInners(t *testing.T) {
	x, u, v := []float64{0.5, 0.25, 0.25}, []float64{1, -2, 3}, []float64{4, 5, -6}
	require.Equal(t, 4.0-10-18, manifold.FrobeniusInner(u, v))
	require.Equal(t, 4/0.5-10/0.25-18/0.25, manifold.FisherInner(x, u, v))
	require.Zero(t, manifold.FrobeniusInner(nil, nil))
}

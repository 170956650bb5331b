package solver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/product"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

// TestHasMethod: HasMethod answers as AsExper, AsLogger and AsDistancer
// do, a product's methods by its factors (Partial); an unknown method is
// not had.
func TestHasMethod(t *testing.T) {
	e, s := euclid.New(2, 1), stiefel.New(3, 2)
	for _, c := range []struct {
		name string
		m    solver.Manifold
	}{{"euclid", e}, {"stiefel", s}, {"euclid×euclid", product.New(e, euclid.New(3, 1))}, {"euclid×stiefel", product.New(e, s)}} {
		_, exp := solver.AsExper(c.m)
		_, log := solver.AsLogger(c.m)
		_, dist := solver.AsDistancer(c.m)
		require.Equal(t, exp, solver.HasMethod(c.m, solver.MethodExp), c.name)
		require.Equal(t, log, solver.HasMethod(c.m, solver.MethodLog), c.name)
		require.Equal(t, dist, solver.HasMethod(c.m, solver.MethodDist), c.name)
		require.False(t, solver.HasMethod(c.m, solver.Method(9)), c.name)
	}
	require.True(t, solver.HasMethod(e, solver.MethodLog))
	require.False(t, solver.HasMethod(product.New(e, s), solver.MethodLog), "stiefel has no Log")
}

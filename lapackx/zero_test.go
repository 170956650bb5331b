package lapackx

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestZeroSize: every workspace takes 0×0 matrices (a problem with an
// empty factor, a batch of nothing) and does nothing, under each backend.
func TestZeroSize(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		var z []float64
		require.NoError(t, NewEigSym(0).Factorize(z))
		require.NoError(t, NewEigSym(0).FactorizeLower(z))
		require.NoError(t, NewEigSym(0).FactorizeValues(z))
		sf := NewSymFunc(0)
		require.NoError(t, sf.Exp(z, z))
		require.NoError(t, sf.Log(z, z))
		require.NoError(t, sf.SqrtInvSqrt(z, z, z))
		require.NoError(t, sf.Frechet(z, z, ExpFunc))
		require.NoError(t, NewExpm(0).Exp(z, z))
		require.NoError(t, NewLyapSym(0).Solve(z, z, z))
		require.NoError(t, NewSylvester(0, 0).Solve(z, z, z, z))
		require.NoError(t, NewSylvester(2, 0).Solve(z, []float64{1, 0, 0, 1}, z, z))
		lu := NewLU(0)
		require.NoError(t, lu.Factorize(z))
		lu.Solve(z, 3)
		q := NewQR(0, 0)
		require.NoError(t, q.Factorize(z))
		q.QTo(z)
		q.RTo(z)
		q3 := NewQR(3, 0)
		require.NoError(t, q3.Factorize(z))
		CholInverse(z, z, z, 0)
		InvLower(z, z, 0)
		ReduceSym(z, z, 0)
		Symmetrize(z, 0)
	})
}

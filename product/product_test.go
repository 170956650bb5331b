package product_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/product"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// stiefelPiece returns an ambient vector that is zero but in factor i,
// where it is x's own piece (not tangent to a Stiefel manifold at x), and
// a point whose factor i is pushed off its manifold.
func stiefelPiece(p *product.Product, i int) manifoldtest.Options {
	return manifoldtest.Options{
		NotTangent: func(x []float64) []float64 {
			v := make([]float64, len(x))
			copy(p.Part(v, i), p.Part(x, i))
			return v
		},
		BadPoint: func(x []float64) []float64 {
			b := append([]float64(nil), x...)
			p.Part(b, i)[0] += 1e-3
			return b
		},
	}
}

// TestConformance runs the manifold suite on products of every manifold:
// with Exp, Log and Dist in every factor (SPD × Stiefel × R^{2×2}), and
// without (Stiefel × coupling, where they report ErrUnsupported), and on a
// product of Euclidean spaces, which is one.
func TestConformance(t *testing.T) {
	t.Run("spd×stiefel×euclid", func(t *testing.T) {
		p := product.New(spd.New(3), stiefel.New(5, 2), euclid.New(2, 2))
		o := stiefelPiece(p, 1)
		o.RetractionOrder, o.Seed = 1, 3
		manifoldtest.Run(t, p, o)
	})
	t.Run("spd×euclid", func(t *testing.T) {
		p := product.New(spd.New(4), euclid.New(3, 2))
		manifoldtest.Run(t, p, manifoldtest.Options{RetractionOrder: 2, Seed: 5,
			NotTangent: func(x []float64) []float64 {
				v := make([]float64, len(x))
				p.Part(v, 0)[1] = 1 // not symmetric
				return v
			}})
	})
	t.Run("euclid×euclid", func(t *testing.T) {
		// A product of Euclidean spaces is one (the suite checks the
		// claim); one factor that is not makes the product not one.
		p := product.New(euclid.New(3, 2), euclid.New(4, 1))
		require.True(t, solver.IsEuclideanSpace(p))
		manifoldtest.Run(t, p, manifoldtest.Options{RetractionOrder: 2, IsometricTransport: true, Seed: 6})
		require.False(t, solver.IsEuclideanSpace(product.New(euclid.New(3, 2), spd.New(2))))
		require.False(t, solver.IsEuclideanSpace(spd.New(2)))
	})
	t.Run("stiefel×coupling", func(t *testing.T) {
		c, err := coupling.New([]float64{0.2, 0.3, 0.5}, []float64{0.4, 0.6})
		require.NoError(t, err)
		p := product.New(stiefel.New(4, 2), c)
		o := stiefelPiece(p, 0)
		o.RetractionOrder, o.Seed = 1, 4
		manifoldtest.Run(t, p, o)
		_, ok := solver.AsLogger(p)
		require.False(t, ok)
		x, y := make([]float64, p.Len()), make([]float64, p.Len())
		rnd := rand.New(rand.NewPCG(1, 2))
		p.RandPoint(x, rnd)
		p.RandPoint(y, rnd)
		err = p.Log(make([]float64, p.Len()), x, y)
		require.ErrorIs(t, err, product.ErrUnsupported)
		require.Contains(t, err.Error(), "factor 0 (*stiefel.Stiefel), 1 (*coupling.Coupling)")
	})
}

// TestAgreesWithFactors: the product's metric, retraction and distance are
// the factors', assembled; a failure names its factor.
func TestAgreesWithFactors(t *testing.T) {
	s, e := spd.New(3), euclid.New(4, 1)
	p := product.New(s, e)
	require.Equal(t, 9+4, p.Len())
	require.Equal(t, 6+4, p.Dim())
	rnd := rand.New(rand.NewPCG(5, 6))
	x, u, v, y := make([]float64, p.Len()), make([]float64, p.Len()), make([]float64, p.Len()), make([]float64, p.Len())
	p.RandPoint(x, rnd)
	p.RandTangent(u, x, rnd)
	p.RandTangent(v, x, rnd)
	want := s.Inner(p.Part(x, 0), p.Part(u, 0), p.Part(v, 0)) + e.Inner(p.Part(x, 1), p.Part(u, 1), p.Part(v, 1))
	require.InDelta(t, want, p.Inner(x, u, v), 1e-15)

	require.NoError(t, p.Retract(y, x, u, 0.3))
	ys := make([]float64, 9)
	require.NoError(t, s.Retract(ys, p.Part(x, 0), p.Part(u, 0), 0.3))
	require.Equal(t, ys, p.Part(y, 0))

	d, err := p.Dist(x, y)
	require.NoError(t, err)
	d0, _ := s.Dist(p.Part(x, 0), p.Part(y, 0))
	d1, _ := e.Dist(p.Part(x, 1), p.Part(y, 1))
	require.InDelta(t, math.Hypot(d0, d1), d, 1e-14)

	bad := append([]float64(nil), x...)
	bad[0] = math.NaN() // the SPD factor
	err = p.CheckPoint(bad)
	require.ErrorIs(t, err, numerr.ErrNotFinite)
	require.Contains(t, err.Error(), "product: factor 0: spd:")
	require.ErrorIs(t, p.CheckPoint(x[:3]), numerr.ErrInvalid)

	// A failing factor retraction is an error naming the factor, with its
	// cause.
	neg := append([]float64(nil), x...)
	for i := range 9 {
		neg[i] = 0
	}
	err = p.Retract(y, neg, u, 1)
	require.Error(t, err)
	require.True(t, errors.Is(err, numerr.ErrNotPosDef) || errors.Is(err, numerr.ErrNotFinite), "%v", err)
	require.Contains(t, err.Error(), "product: factor 0")
}

package manifoldtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestSpanInvariant: the column-space test functions (Options.ColumnSpace)
// are functions of the column space, f(XO) = f(X) for a random orthogonal
// O to rounding, and their gradients move with the basis,
// ∇f(XO) = ∇f(X)O, as the chain rule through XXᵀ says; they are not
// constant (another subspace gives another value).
func TestSpanInvariant(t *testing.T) {
	const r, c = 6, 3
	rnd := rand.New(rand.NewPCG(1, 2))
	orth := func(rows, cols int) []float64 {
		var qr mat.QR
		qr.Factorize(mat.NewDense(rows, cols, randVec(rnd, rows*cols)))
		var q mat.Dense
		qr.QTo(&q)
		out := make([]float64, 0, rows*cols)
		for i := 0; i < rows; i++ {
			out = append(out, q.RawRowView(i)[:cols]...)
		}
		return out
	}
	x, y, o := orth(r, c), orth(r, c), orth(c, c)
	xo := make([]float64, r*c)
	mul(xo, x, r, c, false, o, c)
	for _, h := range []testFunc{newCubic(r, r, rnd), newQuartic(r, r, rnd)} {
		f := newSpan(h, r, c)
		fx := f.F(x)
		require.InDelta(t, fx, f.F(xo), 1e-12*math.Abs(fx), "f(XO) ≠ f(X)")
		assert.Greater(t, math.Abs(f.F(y)-fx), 1e-3*math.Abs(fx), "f constant")
		g, gx, gxo := make([]float64, r*c), make([]float64, r*c), make([]float64, r*c)
		f.EGrad(g, x)
		mul(gx, g, r, c, false, o, c) // ∇f(X)O
		f.EGrad(gxo, xo)
		assert.Less(t, floats.Distance(gx, gxo, 2), 1e-12*floats.Norm(gx, 2), "∇f(XO) ≠ ∇f(X)O")
	}
}

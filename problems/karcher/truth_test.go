package karcher_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// The truths the tests compare against, computed with gonum's
// eigendecomposition alone (no lapackx, spd or package karcher code):
// spectral functions of symmetric matrices, the affine-invariant
// geometry, and the Karcher mean by its fixed-point iteration.

// sym returns the n×n symmetric part of the row-major a.
func sym(a []float64, n int) *mat.SymDense {
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 0.5*(a[i*n+j]+a[j*n+i]))
		}
	}
	return s
}

// fn returns f(A) for symmetric A.
func fn(t testing.TB, a mat.Symmetric, f func(float64) float64) *mat.SymDense {
	var e mat.EigenSym
	require.True(t, e.Factorize(a, true))
	var v mat.Dense
	e.VectorsTo(&v)
	n := a.SymmetricDim()
	d := mat.NewDiagDense(n, nil)
	for i, l := range e.Values(nil) {
		d.SetDiag(i, f(l))
	}
	var r mat.Dense
	r.Product(&v, d, v.T())
	return sym(r.RawMatrix().Data, n)
}

// congr returns V A V for symmetric V.
func congr(v, a mat.Symmetric) *mat.SymDense {
	var r mat.Dense
	r.Product(v, a, v)
	return sym(r.RawMatrix().Data, v.SymmetricDim())
}

// logAt returns Log_Y(B) = Y^½ log(Y^{−½} B Y^{−½}) Y^½.
func logAt(t testing.TB, y, b mat.Symmetric) *mat.SymDense {
	h, hi := fn(t, y, math.Sqrt), fn(t, y, func(x float64) float64 { return 1 / math.Sqrt(x) })
	return congr(h, fn(t, congr(hi, b), math.Log))
}

// expAt returns Exp_Y(U) = Y^½ exp(Y^{−½} U Y^{−½}) Y^½.
func expAt(t testing.TB, y, u mat.Symmetric) *mat.SymDense {
	h, hi := fn(t, y, math.Sqrt), fn(t, y, func(x float64) float64 { return 1 / math.Sqrt(x) })
	return congr(h, fn(t, congr(hi, u), math.Exp))
}

// dist2 returns d²(Y, B) = ‖log(Y^{−½} B Y^{−½})‖²_F.
func dist2(t testing.TB, y, b mat.Symmetric) float64 {
	hi := fn(t, y, func(x float64) float64 { return 1 / math.Sqrt(x) })
	var e mat.EigenSym
	require.True(t, e.Factorize(congr(hi, b), false))
	var s float64
	for _, l := range e.Values(nil) {
		s += math.Log(l) * math.Log(l)
	}
	return s
}

// normAt returns ‖U‖_Y.
func normAt(t testing.TB, y, u mat.Symmetric) float64 {
	hi := fn(t, y, func(x float64) float64 { return 1 / math.Sqrt(x) })
	return mat.Norm(congr(hi, u), 2)
}

// mats splits the stacked n×n matrices.
func mats(b []float64, n int) []*mat.SymDense {
	var out []*mat.SymDense
	for k := 0; k+n*n <= len(b); k += n * n {
		out = append(out, sym(b[k:k+n*n], n))
	}
	return out
}

// psiTruth returns ψ(Y) = ½ Σ w_i d²(Y, B_i).
func psiTruth(t testing.TB, y mat.Symmetric, bs []*mat.SymDense, w []float64) float64 {
	var s float64
	for i, b := range bs {
		s += 0.5 * w[i] * dist2(t, y, b)
	}
	return s
}

// gradTruth returns grad ψ(Y) = −Σ w_i Log_Y B_i.
func gradTruth(t testing.TB, y mat.Symmetric, bs []*mat.SymDense, w []float64) *mat.SymDense {
	n := y.SymmetricDim()
	g := mat.NewSymDense(n, nil)
	for i, b := range bs {
		g.AddSym(g, scaled(-w[i], logAt(t, y, b)))
	}
	return g
}

func scaled(c float64, a *mat.SymDense) *mat.SymDense {
	var r mat.SymDense
	r.ScaleSym(c, a)
	return &r
}

// meanTruth returns the Karcher mean by the fixed-point iteration
// M ← Exp_M(Σ w_i Log_M B_i) from the arithmetic mean, until the step
// falls below 1e−14 in ‖·‖_M.
func meanTruth(t testing.TB, bs []*mat.SymDense, w []float64) *mat.SymDense {
	n := bs[0].SymmetricDim()
	m := mat.NewSymDense(n, nil)
	for i, b := range bs {
		m.AddSym(m, scaled(w[i], b))
	}
	for it := 0; it < 500; it++ {
		g := scaled(-1, gradTruth(t, m, bs, w))
		if normAt(t, m, g) <= 1e-14 {
			return m
		}
		m = expAt(t, m, g)
	}
	t.Fatal("fixed-point iteration did not converge")
	return nil
}

// relSym returns ‖a − b‖_F/‖b‖_F.
func relSym(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2) / mat.Norm(b, 2)
}

package lapackx

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/numerr"
)

func sylvesterResidual(a, b, c, x []float64, m, n int) float64 {
	var ax, xb, r mat.Dense
	X := mat.NewDense(m, n, x)
	ax.Mul(mat.NewDense(m, m, a), X)
	xb.Mul(X, mat.NewDense(n, n, b))
	r.Add(&ax, &xb)
	r.Sub(&r, mat.NewDense(m, n, c))
	return mat.Norm(&r, 2)
}

func TestSylvesterResidual(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(8)
		for _, mn := range [][2]int{{1, 1}, {1, 4}, {5, 1}, {2, 3}, {7, 7}, {20, 13}, {64, 90}} {
			m, n := mn[0], mn[1]
			a := randGeneral(rnd, m, m, 1)
			b := randGeneral(rnd, n, n, 1)
			for i := 0; i < m; i++ {
				a[i*m+i] += 3 // keep λ(A) away from −λ(B)
			}
			c := randGeneral(rnd, m, n, 1)
			x := make([]float64, m*n)
			require.NoError(t, NewSylvester(m, n).Solve(x, a, b, c), "m=%d n=%d", m, n)
			xn := mat.Norm(mat.NewDense(m, n, x), 2)
			an, bn := mat.Norm(mat.NewDense(m, m, a), 2), mat.Norm(mat.NewDense(n, n, b), 2)
			bound := 50 * float64(m+n) * eps * (an + bn) * xn
			require.Less(t, sylvesterResidual(a, b, c, x, m, n), bound, fmt.Sprintf("m=%d n=%d", m, n))
		}
	})
}

func TestSylvesterSingular(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		a := []float64{1, 5, 0, 2}
		b := []float64{-1, 0, 3, 7}
		x := make([]float64, 4)
		err := NewSylvester(2, 2).Solve(x, a, b, []float64{1, 2, 3, 4})
		require.ErrorIs(t, err, numerr.ErrSingular)
	})
}

func TestSylvesterLyapunovAgree(t *testing.T) {
	// With B = A symmetric the two solvers must agree.
	rnd := newRand(9)
	n := 30
	a := withSpectrum(rnd, logSpaced(n, 0.1, 10))
	c := randSym(rnd, n, 1)
	x1, x2 := make([]float64, n*n), make([]float64, n*n)
	require.NoError(t, NewLyapSym(n).Solve(x1, a, c))
	require.NoError(t, NewSylvester(n, n).Solve(x2, a, a, c))
	require.Less(t, relErr(x2, x1), 1e-12)
}

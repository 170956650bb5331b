package lapackx

import (
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

func TestQR(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(10)
		for _, mn := range [][2]int{{1, 1}, {5, 3}, {8, 8}, {100, 7}, {300, 50}} {
			m, n := mn[0], mn[1]
			a := randGeneral(rnd, m, n, 1)
			qr := NewQR(m, n)
			require.NoError(t, qr.Factorize(a))
			q, r := make([]float64, m*n), make([]float64, n*n)
			qr.QTo(q)
			qr.RTo(r)
			Q := mat.NewDense(m, n, q)
			var qtq, qrp mat.Dense
			qtq.Mul(Q.T(), Q)
			for i := 0; i < n; i++ {
				qtq.Set(i, i, qtq.At(i, i)-1)
				require.GreaterOrEqual(t, r[i*n+i], 0.0)
				for j := 0; j < i; j++ {
					require.Zero(t, r[i*n+j])
				}
			}
			require.Less(t, mat.Norm(&qtq, 2), 50*float64(m)*eps)
			qrp.Mul(Q, mat.NewDense(n, n, r))
			require.Less(t, relErr(qrp.RawMatrix().Data, a), 50*float64(m)*eps)
		}
	})
}

func TestLUSolve(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		rnd := newRand(15)
		for _, n := range []int{1, 3, 17, 80} {
			a := randGeneral(rnd, n, n, 1)
			lu := NewLU(n)
			require.NoError(t, lu.Factorize(a))
			for _, nrhs := range []int{1, 4} {
				x := randGeneral(rnd, n, nrhs, 1)
				var b mat.Dense
				b.Mul(mat.NewDense(n, n, a), mat.NewDense(n, nrhs, x))
				got := append([]float64(nil), b.RawMatrix().Data...)
				lu.Solve(got, nrhs)
				require.Less(t, relErr(got, x), 1e-10, "n=%d nrhs=%d", n, nrhs)
			}
		}
	})
}

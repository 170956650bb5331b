package domainadapt

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	officecaltech "github.com/rhgd/rhgd/data/office-caltech10"
)

// TestPreprocessDeCAF: rows are scaled to unit norm, then every PoolWidth
// columns averaged, on a hand-made 2×64 set (two pooled features).
func TestPreprocessDeCAF(t *testing.T) {
	x := make([]float64, 2*64)
	x[0], x[40] = 3, 4 // row 0: norm 5 → 0.6 in block 0, 0.8 in block 1
	x[64+1] = 2        // row 1: norm 2 → 1 in block 0
	s := &officecaltech.Set{Features: officecaltech.DeCAF6, N: 2, D: 64, X: x}
	px, py, d, err := Preprocess(s, s)
	require.NoError(t, err)
	require.Equal(t, 2, d)
	want := []float64{0.6 / 32, 0.8 / 32, 1.0 / 32, 0}
	require.InDeltaSlice(t, want, px, 1e-15)
	require.InDeltaSlice(t, want, py, 1e-15)
	x[64+1] = 0 // a zero row
	_, _, _, err = Preprocess(s, s)
	require.ErrorIs(t, err, ErrBadData)
}

// TestPrincipal: data of rank 3 (plus the mean) in 40 dimensions keep their
// pairwise distances on 5 principal axes, and the coordinates are centred.
func TestPrincipal(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	const n, m, d, r, k = 7, 9, 40, 3, 5
	basis := make([]float64, r*d)
	for i := range basis {
		basis[i] = rnd.NormFloat64()
	}
	gen := func(cnt int) []float64 {
		z := make([]float64, cnt*d)
		for i := 0; i < cnt; i++ {
			for c := 0; c < r; c++ {
				w := rnd.NormFloat64()
				for j := 0; j < d; j++ {
					z[i*d+j] += w * basis[c*d+j]
				}
			}
			for j := 0; j < d; j++ {
				z[i*d+j] += 5
			}
		}
		return z
	}
	x, y := gen(n), gen(m)
	px, py, err := principal(x, y, n, m, d, k)
	require.NoError(t, err)
	all, pall := append(append([]float64(nil), x...), y...), append(append([]float64(nil), px...), py...)
	sq := func(z []float64, w, i, j int) float64 {
		var s float64
		for c := 0; c < w; c++ {
			v := z[i*w+c] - z[j*w+c]
			s += v * v
		}
		return s
	}
	for i := 0; i < n+m; i++ {
		for j := 0; j < i; j++ {
			require.InEpsilon(t, sq(all, d, i, j), sq(pall, k, i, j), 1e-10, "pair %d, %d", i, j)
		}
	}
	for c := 0; c < k; c++ {
		var s float64
		for i := 0; i < n+m; i++ {
			s += pall[i*k+c]
		}
		require.InDelta(t, 0, s, 1e-9)
	}
}

func TestZscore(t *testing.T) {
	z := []float64{1, 7, 2, 3, 7, 4, 5, 7, 9}
	zscore(z, 3, 3)
	for j := 0; j < 3; j++ {
		var s, ss float64
		for i := 0; i < 3; i++ {
			s += z[i*3+j]
			ss += z[i*3+j] * z[i*3+j]
		}
		require.InDelta(t, 0, s, 1e-14)
		if j == 1 { // the constant column
			require.Equal(t, 0.0, ss)
		} else {
			require.InDelta(t, 3, ss, 1e-13)
		}
	}
	require.InDelta(t, -2/math.Sqrt(8.0/3), z[0], 1e-15) // (1 − 3)/√(8/3)
}

// TestPreprocessSURF: 64 components of norm SURFNorm, on the real D→W pair;
// an empty histogram is an error.
func TestPreprocessSURF(t *testing.T) {
	data, err := LoadPair(officecaltech.DSLR, officecaltech.Webcam, officecaltech.SURF)
	require.NoError(t, err)
	require.Equal(t, SURFComponents, data.D)
	for i := 0; i < data.N; i++ {
		row := data.X[i*data.D : (i+1)*data.D]
		require.InDelta(t, SURFNorm, math.Sqrt(floats.Dot(row, row)), 1e-15)
	}
	s := &officecaltech.Set{Features: officecaltech.SURF, N: 2, D: 800, X: make([]float64, 1600)}
	s.X[3] = 1
	_, _, _, err = Preprocess(s, s)
	require.ErrorIs(t, err, ErrBadData)
	require.ErrorContains(t, err, "row 1 sums to 0")
}

// TestDeCAFOneNN: plain 1-NN (Euclidean, no transport) on the pooled DeCAF6
// features classifies 276 of 295 webcam images from DSLR and 154 of 157
// DSLR images from webcam, the 0.936 and 0.981 that the data's README
// reports from its own (numpy) pipeline.
func TestDeCAFOneNN(t *testing.T) {
	for _, c := range []struct {
		s, g  officecaltech.Domain
		right int
	}{{officecaltech.DSLR, officecaltech.Webcam, 276}, {officecaltech.Webcam, officecaltech.DSLR, 154}} {
		data, err := LoadPair(c.s, c.g, officecaltech.DeCAF6)
		require.NoError(t, err)
		require.Equal(t, 128, data.D)
		id := make([]float64, 128*128)
		for i := 0; i < 128; i++ {
			id[i*128+i] = 1
		}
		dist := make([]float64, data.N*data.M)
		pairwise(dist, data.X, data.Y, id, make([]float64, data.N*128), make([]float64, data.M*128),
			make([]float64, data.N), make([]float64, data.M), data.N, data.M, 128)
		acc, err := nearest(dist, data.SourceLabels, data.TargetLabels, data.N, data.M)
		require.NoError(t, err)
		require.Equal(t, 100*float64(c.right)/float64(data.M), acc, "%v→%v", c.s, c.g)
	}
}

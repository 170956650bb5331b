package spdnet_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/race"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/spdnet"
)

// TestAccuracy: the validation accuracy is the share of the reference
// features' largest logits at the labels.
func TestAccuracy(t *testing.T) {
	data, split, p, _ := setup(t, small, 5, 0, 21)
	w := testkit.RandPoint(p.Mx, 9)
	_, g := p.Start(0)
	phi := refFeatures(data, small, w, split.Val)
	c := data.Classes
	var ok int
	for r, i := range split.Val {
		best, bz := -1, math.Inf(-1)
		for k := 0; k < c; k++ {
			var z float64
			for a := 0; a < 6; a++ {
				z += phi.At(r, a) * g[a*c+k]
			}
			if z > bz {
				best, bz = k, z
			}
		}
		if best == data.Labels[i]-1 {
			ok++
		}
	}
	got, err := p.Accuracy(w, g)
	require.NoError(t, err)
	require.Equal(t, 100*float64(ok)/float64(len(split.Val)), got)
}

// TestBaseline: the log-Euclidean 1-NN accuracy matches a brute-force
// computation with lapackx's matrix logarithm; over ten random splits its
// mean is near the README's 0.89.
func TestBaseline(t *testing.T) {
	data := ethData(t)
	d := data.D
	logs := make([]float64, data.N*d*d)
	sf := lapackx.NewSymFunc(d)
	for i := 0; i < data.N; i++ {
		require.NoError(t, sf.Log(logs[i*d*d:(i+1)*d*d], data.A[i*d*d:(i+1)*d*d]))
	}
	var sum float64
	splits := 10
	if race.Enabled {
		splits = 2
	}
	for seed := uint64(0); seed < uint64(splits); seed++ {
		split, err := spdnet.RandomSplit(data.Labels, data.Classes, 5, seed)
		require.NoError(t, err)
		var ok int
		for _, i := range split.Val {
			best, bd := -1, math.Inf(1)
			for _, j := range split.Train {
				var dist float64
				for k := 0; k < d*d; k++ {
					x := logs[i*d*d+k] - logs[j*d*d+k]
					dist += x * x
				}
				if dist < bd {
					best, bd = j, dist
				}
			}
			if data.Labels[best] == data.Labels[i] {
				ok++
			}
		}
		want := 100 * float64(ok) / float64(len(split.Val))
		p, err := spdnet.New(data, split, small, seed)
		require.NoError(t, err)
		got, err := p.BaselineAccuracy()
		require.NoError(t, err)
		require.Equal(t, want, got, "seed %d", seed)
		sum += got
	}
	mean := sum / float64(splits)
	t.Logf("log-Euclidean 1-NN, mean over %d splits: %.1f%%", splits, mean)
	if !race.Enabled {
		require.InDelta(t, 89, mean, 5)
	}
}

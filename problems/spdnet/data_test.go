package spdnet_test

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/data/eth80"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/spdnet"
)

// TestETH80Covariance: the covariances are numpy's cov of the scaled
// pixels plus εI, recomputed here by the textbook double sum from the raw
// images, and have the README's rank 40 without the εI.
func TestETH80Covariance(t *testing.T) {
	data := ethData(t)
	raw, err := eth80.Load()
	require.NoError(t, err)
	require.Equal(t, 80, data.N)
	require.Equal(t, 100, data.D)
	require.Equal(t, raw.Labels, data.Labels)
	const p, v = eth80.Pixels, eth80.Views
	for _, s := range []int{0, 57} {
		img := raw.Set(s)
		var mean [p]float64
		for i := 0; i < v; i++ {
			for j := 0; j < p; j++ {
				mean[j] += img[i*p+j] / v
			}
		}
		want := make([]float64, p*p)
		for a := 0; a < p; a++ {
			for b := 0; b < p; b++ {
				var c float64
				for i := 0; i < v; i++ {
					c += (img[i*p+a] - mean[a]) * (img[i*p+b] - mean[b])
				}
				want[a*p+b] = c / (v - 1) / (spdnet.PaperScale * spdnet.PaperScale)
			}
			want[a*p+a] += spdnet.PaperEps
		}
		got := data.A[s*p*p : (s+1)*p*p]
		require.Less(t, testkit.Rel(got, want), 1e-13, "set %d", s)
		// Rank 40: 41 centred samples.
		c := slices.Clone(got)
		for a := 0; a < p; a++ {
			c[a*p+a] -= spdnet.PaperEps
		}
		var es mat.EigenSym
		require.True(t, es.Factorize(mat.NewSymDense(p, c), false))
		vals := es.Values(nil)
		var rank int
		for _, x := range vals {
			if x > 1e-10*vals[p-1] {
				rank++
			}
		}
		require.Equal(t, 40, rank, "set %d", s)
	}
	for _, bad := range [][2]float64{{0, 1e-3}, {255, 0}, {math.Inf(1), 1e-3}, {255, math.NaN()}} {
		_, err := spdnet.ETH80(bad[0], bad[1])
		require.ErrorIs(t, err, problems.ErrBadData, "%v", bad)
	}
}

// TestRandomSplit: perClass of each class train, the rest validate, every
// matrix once; the split depends on the seed alone.
func TestRandomSplit(t *testing.T) {
	data := ethData(t)
	s, err := spdnet.RandomSplit(data.Labels, data.Classes, 5, 1)
	require.NoError(t, err)
	require.Len(t, s.Train, 40)
	require.Len(t, s.Val, 40)
	counts := make([]int, data.Classes)
	for _, i := range s.Train {
		counts[data.Labels[i]-1]++
	}
	for _, c := range counts {
		require.Equal(t, 5, c)
	}
	all := append(slices.Clone(s.Train), s.Val...)
	slices.Sort(all)
	for i, x := range all {
		require.Equal(t, i, x)
	}
	again, _ := spdnet.RandomSplit(data.Labels, data.Classes, 5, 1)
	require.Equal(t, s, again)
	other, _ := spdnet.RandomSplit(data.Labels, data.Classes, 5, 2)
	require.NotEqual(t, s.Train, other.Train)
	for _, per := range []int{0, 10} {
		_, err := spdnet.RandomSplit(data.Labels, data.Classes, per, 1)
		require.ErrorIs(t, err, problems.ErrBadData, "per class %d", per)
	}
	_, err = spdnet.RandomSplit([]int{1, 2, 9}, 2, 1, 1)
	require.ErrorIs(t, err, problems.ErrBadData)
}

// tiny returns 6 SPD matrices of order 3 in 2 classes.
func tiny() *spdnet.Data {
	d := &spdnet.Data{N: 6, D: 3, Classes: 2, A: make([]float64, 6*9), Labels: []int{1, 2, 1, 2, 1, 2}}
	for i := 0; i < 6; i++ {
		a := d.A[i*9 : (i+1)*9]
		a[0], a[4], a[8] = 2+float64(i), 1, 3
		a[1], a[3] = 0.5, 0.5
	}
	return d
}

// TestValidate: bad data are errors wrapping problems.ErrBadData, never a
// panic.
func TestValidate(t *testing.T) {
	require.NoError(t, tiny().Validate())
	cases := map[string]func(d *spdnet.Data){
		"NaN":           func(d *spdnet.Data) { d.A[4] = math.NaN() },
		"not symmetric": func(d *spdnet.Data) { d.A[1] = 0.7 },
		"not PD":        func(d *spdnet.Data) { d.A[0] = -1 },
		"label 0":       func(d *spdnet.Data) { d.Labels[2] = 0 },
		"label 3":       func(d *spdnet.Data) { d.Labels[2] = 3 },
		"lonely class":  func(d *spdnet.Data) { d.Labels[1], d.Labels[3] = 1, 1 },
		"short A":       func(d *spdnet.Data) { d.A = d.A[:10] },
		"one class":     func(d *spdnet.Data) { d.Classes = 1 },
	}
	for name, spoil := range cases {
		d := tiny()
		spoil(d)
		require.ErrorIs(t, d.Validate(), problems.ErrBadData, name)
	}
	var nilData *spdnet.Data
	require.ErrorIs(t, nilData.Validate(), problems.ErrBadData)
}

// TestNewErrors: bad configurations and splits are errors.
func TestNewErrors(t *testing.T) {
	d := tiny()
	split := spdnet.Split{Train: []int{0, 1, 2}, Val: []int{3, 4, 5}}
	good := spdnet.Config{D1: 2, D2: 1, Lambda: 0.1, Threshold: 1e-4}
	_, err := spdnet.New(d, split, good, 1)
	require.NoError(t, err)
	for name, c := range map[string]spdnet.Config{
		"D1 > D": {D1: 4, D2: 1, Lambda: 0.1}, "D2 > D1": {D1: 2, D2: 3, Lambda: 0.1}, "D2 = 0": {D1: 2, Lambda: 0.1},
		"λ = 0": {D1: 2, D2: 1}, "λ = Inf": {D1: 2, D2: 1, Lambda: math.Inf(1)}, "ε NaN": {D1: 2, D2: 1, Lambda: 0.1, Threshold: math.NaN()},
	} {
		_, err := spdnet.New(d, split, c, 1)
		require.ErrorIs(t, err, problems.ErrBadData, name)
	}
	for name, s := range map[string]spdnet.Split{
		"repeat": {Train: []int{0, 1}, Val: []int{1, 2}}, "range": {Train: []int{0, 6}, Val: []int{1}}, "empty": {Train: []int{0}},
	} {
		_, err := spdnet.New(d, s, good, 1)
		require.ErrorIs(t, err, problems.ErrBadData, name)
	}
}

// TestLoadSave: Save then Load gives the data back; malformed files are
// errors.
func TestLoadSave(t *testing.T) {
	dir := t.TempDir()
	d := tiny()
	path := filepath.Join(dir, "d.npz")
	require.NoError(t, spdnet.Save(path, d))
	back, err := spdnet.Load(path)
	require.NoError(t, err)
	require.Equal(t, d.A, back.A)
	require.Equal(t, d.Labels, back.Labels)
	require.Equal(t, 2, back.Classes)
	bad := filepath.Join(dir, "bad.npz")
	require.NoError(t, problems.WriteNPZ(bad, map[string][]float64{"A": make([]float64, 12), "labels": {1, 2}},
		map[string][]int{"A": {2, 2, 3}, "labels": {2}}))
	_, err = spdnet.Load(bad)
	require.ErrorIs(t, err, numerr.ErrInvalid)
	require.NoError(t, problems.WriteNPZ(bad, map[string][]float64{"A": d.A}, map[string][]int{"A": {6, 3, 3}}))
	_, err = spdnet.Load(bad)
	require.ErrorIs(t, err, numerr.ErrInvalid)
	require.NoError(t, problems.WriteNPZ(bad, map[string][]float64{"A": d.A, "labels": {1, 2, 1, 2, 1, 2.5}},
		map[string][]int{"A": {6, 3, 3}, "labels": {6}}))
	_, err = spdnet.Load(bad)
	require.ErrorIs(t, err, problems.ErrBadData)
	_, err = spdnet.Load(filepath.Join(dir, "missing.npz"))
	require.Error(t, err)
}

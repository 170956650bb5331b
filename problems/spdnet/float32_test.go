package spdnet_test

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/spdnet"
)

// TestFloat32Data: the ETH-80 covariances written to a .npz in float32,
// symmetric only to float32 rounding, are accepted: symmetrized, with a
// note, and a run from them agrees with the run from the float64 file to
// float32 accuracy. A matrix clearly asymmetric is still rejected, by name.
func TestFloat32Data(t *testing.T) {
	all, err := spdnet.ETH80(spdnet.PaperScale, spdnet.PaperEps)
	require.NoError(t, err)
	// Three sets per class (writing all 80 .npz matrices takes seconds).
	d := all.D
	var a, labels []float64
	per := map[int]int{}
	for i, l := range all.Labels {
		if per[l] < 3 {
			per[l]++
			a = append(a, all.A[i*d*d:(i+1)*d*d]...)
			labels = append(labels, float64(l))
		}
	}
	n := len(labels)
	data := &spdnet.Data{A: a}
	arrays := func(a []float64) map[string][]float64 { return map[string][]float64{"A": a, "labels": labels} }
	a32 := f32test.Sym(data.A, d)
	require.Greater(t, lapackx.Asymmetry(a32[:d*d], d), lapackx.SymTol, "A_0 in float32 is symmetric to float64 rounding: the test does not exercise the projection")
	off := slices.Clone(a32)
	for _, v := range off[7*d*d : 8*d*d] {
		off[7*d*d+1] = max(off[7*d*d+1], 2*math.Abs(v)) // A_7 asymmetric by about 1 relative
	}
	testkit.CheckF32(t, testkit.F32Case{Spec: spdnet.Spec, Flags: []string{"-d1", "10", "-d2", "4", "-train", "2"},
		F64: arrays(data.A), F32: arrays(a32), Shapes: map[string][]int{"A": {n, d, d}, "labels": {n}},
		Notes: []string{"A: 24 of the 24 matrices are asymmetric"}, Estimator: "hinv", Epochs: 6,
		Bad: []testkit.F32Bad{{What: "A_7 asymmetric by about 1", Arrays: map[string][]float64{"A": off},
			Is: []error{problems.ErrBadData, numerr.ErrNotSymmetric}, Contains: []string{"A_7"}}}})
}

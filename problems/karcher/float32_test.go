package karcher_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/karcher"
)

// TestFloat32Data: a .npz of float32 arrays, the B_i, C and y0 symmetric
// only to float32 rounding, is accepted: each is symmetrized, with a note,
// and a run from it agrees with the run from the float64 data to float32
// accuracy. A B_i clearly asymmetric, or a y0 that is not positive
// definite, is still rejected.
func TestFloat32Data(t *testing.T) {
	n, count := karcher.DefaultParams().N, karcher.DefaultParams().Count
	data, err := karcher.Generate(n, count, karcher.DefaultParams().Spread, 3)
	require.NoError(t, err)
	w := data.W
	if w == nil {
		w = slices.Repeat([]float64{1 / float64(count)}, count)
	}
	x0 := make([]float64, n*n)
	arrays := func(b, c, y []float64) map[string][]float64 {
		return map[string][]float64{"B": b, "C": c, "w": w, "x0": x0, "y0": y}
	}
	b32, c32 := f32test.Sym(data.B, n), f32test.Sym(data.C, n)
	require.False(t, lapackx.Asymmetry(b32[:n*n], n) <= lapackx.SymTol || lapackx.Asymmetry(c32, n) <= lapackx.SymTol,
		"B_0 or C in float32 is symmetric to float64 rounding: the test does not exercise the projection")
	off := slices.Clone(b32)
	off[3*n*n+1] += 1e-3 * off[3*n*n]
	neg := slices.Clone(c32)
	for i := 0; i < n; i++ {
		neg[i*n+i] = -neg[i*n+i]
	}
	testkit.CheckF32(t, testkit.F32Case{Spec: karcher.Spec,
		F64: arrays(data.B, data.C, data.C), F32: arrays(b32, c32, c32),
		Shapes:    map[string][]int{"B": {count, n, n}, "C": {n, n}, "x0": {n, n}, "y0": {n, n}},
		Notes:     []string{"B: 20 of the 20 matrices are asymmetric", "C is asymmetric", "y0: "},
		Estimator: "hinv", Epochs: 20,
		Bad: []testkit.F32Bad{
			{What: "B_3 asymmetric by 1e-3", Arrays: map[string][]float64{"B": off},
				Is: []error{problems.ErrBadData, numerr.ErrNotSymmetric}, Contains: []string{"B_3"}},
			{What: "y0 negative definite", Arrays: map[string][]float64{"y0": neg},
				Is: []error{numerr.ErrNotPosDef}, Contains: []string{"y0"}},
		}})
}

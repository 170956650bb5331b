package hyperrep_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/problems/internal/testkit"
)

// TestFloat32Data: a .npz of float32 arrays, the A_i symmetric only to
// float32 rounding and W0 orthonormal only to float32 rounding, as the
// authors' code writes them, is accepted: both are projected, with a
// note each, and a run from it agrees with the run from the float64 data
// to float32 accuracy. A_i or W0 clearly off are still rejected.
func TestFloat32Data(t *testing.T) {
	data, hp, _ := setup(t, small, 11)
	n, d, k := data.N, data.D, data.K
	data.W0 = testkit.RandPoint(hp.St, 5) // the identity columns are exact in float32
	arrays := func(a, w []float64) map[string][]float64 {
		return map[string][]float64{"A": a, "y": data.Y, "W0": w, "beta0": data.Beta0, "n_train": {float64(data.NTrain)}}
	}
	a32 := f32test.Sym(data.A, d)
	require.Greater(t, lapackx.Asymmetry(a32[:d*d], d), lapackx.SymTol, "A_0 is symmetric to float64 rounding: the test does not exercise the projection")
	off := slices.Clone(a32)
	off[1] += 1e-3 * off[0] // A_0 asymmetric by about 1e-3 relative
	w := slices.Clone(data.W0)
	w[0] += 0.01
	testkit.CheckF32(t, testkit.F32Case{Spec: hyperrep.Spec,
		F64: arrays(data.A, data.W0), F32: arrays(a32, data.W0), Shapes: map[string][]int{"A": {n, d, d}, "W0": {d, k}},
		Notes: []string{"W0: ‖XᵀX − I‖_F", "A: 24 of the 24 matrices are asymmetric"}, Estimator: "hinv", Epochs: 20,
		Bad: []testkit.F32Bad{
			{What: "A_0 asymmetric by 1e-3", Arrays: map[string][]float64{"A": off},
				Is: []error{problems.ErrBadData, numerr.ErrNotSymmetric}, Contains: []string{"A_0", "beyond float32 rounding"}},
			{What: "W0 off by 0.01", Arrays: map[string][]float64{"W0": w},
				Is: []error{problems.ErrBadData}, Contains: []string{"W0", "beyond float32 rounding"}},
		}})
}

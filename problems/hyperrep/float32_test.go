package hyperrep_test

import (
	"errors"
	"path/filepath"
	"strings"
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
	shapes := map[string][]int{"A": {n, d, d}, "W0": {d, k}}
	dir := t.TempDir()
	p64, p32 := filepath.Join(dir, "f64.npz"), filepath.Join(dir, "f32.npz")
	require.NoError(t, problems.WriteNPZ(p64, arrays(data.A, data.W0), shapes))
	a32 := f32test.Sym(data.A, d)
	require.Greater(t, lapackx.Asymmetry(a32[:d*d], d), lapackx.SymTol, "A_0 is symmetric to float64 rounding: the test does not exercise the projection")
	require.NoError(t, f32test.WriteNPZ(p32, arrays(a32, data.W0), shapes))

	in64, err := f32test.Build(t, hyperrep.Spec, p64)
	require.NoError(t, err)
	require.Empty(t, in64.Notes)
	in32, err := f32test.Build(t, hyperrep.Spec, p32)
	require.NoError(t, err, "float32 data rejected")
	require.Len(t, in32.Notes, 2, "%q", in32.Notes)
	require.Contains(t, in32.Notes[0], "W0: ‖XᵀX − I‖_F")
	require.Contains(t, in32.Notes[1], "A: 24 of the 24 matrices are asymmetric")
	t.Logf("notes: %q", in32.Notes)

	r64, r32 := f32test.Run(t, in64, "hinv", 20), f32test.Run(t, in32, "hinv", 20)
	diff := f32test.RelDiff(r32.F, r64.F)
	t.Logf("F after 20 epochs: float64 data %.10g, float32 data %.10g, relative difference %.2g", r64.F, r32.F, diff)
	require.Less(t, diff, f32test.Agree)

	off := append([]float64(nil), a32...)
	off[1] += 1e-3 * off[0] // A_0 asymmetric by about 1e-3 relative
	require.NoError(t, f32test.WriteNPZ(p32, arrays(off, data.W0), shapes))
	_, err = f32test.Build(t, hyperrep.Spec, p32)
	require.True(t, errors.Is(err, problems.ErrBadData) && errors.Is(err, numerr.ErrNotSymmetric), "%v", err)
	require.True(t, strings.Contains(err.Error(), "A_0") && strings.Contains(err.Error(), "beyond float32 rounding"), "%v", err)
	t.Log(err)

	w := append([]float64(nil), data.W0...)
	w[0] += 0.01
	require.NoError(t, f32test.WriteNPZ(p32, arrays(a32, w), shapes))
	_, err = f32test.Build(t, hyperrep.Spec, p32)
	require.True(t, errors.Is(err, problems.ErrBadData) && strings.Contains(err.Error(), "W0") && strings.Contains(err.Error(), "beyond float32 rounding"), "%v", err)
	t.Log(err)
}

package synthetic_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/stiefel"
)

// TestFloat32Data: a .npz of float32 arrays, with W0 orthonormal and M0
// symmetric only to float32 rounding, is accepted: both are projected,
// with a note each, and a run from it agrees with the run from the float64
// data to float32 accuracy. A W0 or M0 clearly off is still rejected.
func TestFloat32Data(t *testing.T) {
	const n, d, r = synthetic.PaperN, synthetic.PaperD, synthetic.PaperR
	data, err := synthetic.Generate(n, d, r, synthetic.PaperNu, 3)
	require.NoError(t, err)
	p, err := synthetic.New(data)
	require.NoError(t, err)
	w0, _ := p.Start(4)
	m0 := make([]float64, d*d)
	p.SPD.RandPoint(m0, rand.New(rand.NewPCG(5, 5)))
	arrays := func(w, m []float64) map[string][]float64 {
		return map[string][]float64{"X": data.X, "Y": data.Y, "W0": w, "M0": m, "nu": {data.Nu}}
	}
	m32 := f32test.Sym(m0, d)
	require.False(t, p.St.CheckPoint(f32test.Round(w0)) == nil || p.SPD.CheckPoint(m32) == nil,
		"W0 or M0 in float32 is a point to float64 rounding: the test does not exercise the projection")
	w := slices.Clone(w0)
	w[0] += 0.01
	m := slices.Clone(m32)
	m[1] += 1e-3 * m[0]
	testkit.CheckF32(t, testkit.F32Case{Spec: synthetic.Spec,
		F64: arrays(w0, m0), F32: arrays(w0, m32),
		Shapes: map[string][]int{"X": {n, d}, "Y": {n, r}, "W0": {d, r}, "M0": {d, d}},
		Notes:  []string{"W0: ‖XᵀX − I‖_F", "M0: "}, Estimator: "hinv", Epochs: 20,
		Bad: []testkit.F32Bad{
			{What: "W0 off by 0.01", Arrays: map[string][]float64{"W0": w},
				Is: []error{problems.ErrBadData, stiefel.ErrNotOrthonormal}, Contains: []string{"W0"}},
			{What: "M0 asymmetric by 1e-3", Arrays: map[string][]float64{"M0": m},
				Is: []error{problems.ErrBadData}, Contains: []string{"M0", "beyond float32 rounding"}},
		}})
}

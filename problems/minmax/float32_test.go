package minmax_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/minmax"
	"github.com/rhgd/rhgd/stiefel"
)

// TestFloat32Data: a .npz of float32 arrays, A symmetric, X0 orthonormal
// and Y0 symmetric only to float32 rounding, is accepted: each is
// projected, with a note, and a run from it agrees with the run from the
// float64 data to float32 accuracy. Inputs clearly off are still rejected.
func TestFloat32Data(t *testing.T) {
	n, p := minmax.DefaultParams().N, minmax.DefaultParams().P
	data, err := minmax.Generate(n, p, minmax.DefaultParams().Cond, minmax.DefaultParams().Gap, 3)
	require.NoError(t, err)
	pr, err := minmax.New(data)
	require.NoError(t, err)
	x0, sy := pr.Start(4)
	// Y0 = Q diag(μ) Qᵀ/λ_max(X0ᵀAX0), μ in [½, 1], Q a random rotation: a
	// full SPD matrix where the lower iteration converges (package doc).
	q := make([]float64, p*p)
	stiefel.New(p, p).RandPoint(q, rand.New(rand.NewPCG(5, 5)))
	y0 := make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			for k := 0; k < p; k++ {
				y0[i*p+j] += q[i*p+k] * (0.5 + 0.5*float64(k)/float64(p)) * q[j*p+k] * sy[0]
			}
		}
	}
	lapackx.Symmetrize(y0, p)
	arrays := func(a, x, y []float64) map[string][]float64 { return map[string][]float64{"A": a, "X0": x, "Y0": y} }
	a32, y32 := f32test.Sym(data.A, n), f32test.Sym(y0, p)
	require.False(t, lapackx.Asymmetry(a32, n) <= lapackx.SymTol || pr.St.CheckPoint(f32test.Round(x0)) == nil || pr.SPD.CheckPoint(y32) == nil,
		"A, X0 or Y0 in float32 meets its constraint to float64 rounding: the test does not exercise the projection")
	off := slices.Clone(a32)
	off[1] += 1e-3 * off[0]
	x := slices.Clone(x0)
	x[0] += 0.01
	testkit.CheckF32(t, testkit.F32Case{Spec: minmax.Spec,
		F64: arrays(data.A, x0, y0), F32: arrays(a32, x0, y32),
		Shapes: map[string][]int{"A": {n, n}, "X0": {n, p}, "Y0": {p, p}},
		Notes:  []string{"A is asymmetric", "X0: ", "Y0: "}, Estimator: "gda", Epochs: 20,
		Bad: []testkit.F32Bad{
			{What: "A asymmetric by 1e-3", Arrays: map[string][]float64{"A": off},
				Is: []error{problems.ErrBadData, numerr.ErrNotSymmetric}, Contains: []string{"beyond float32 rounding"}},
			{What: "X0 off by 0.01", Arrays: map[string][]float64{"X0": x},
				Is: []error{stiefel.ErrNotOrthonormal}, Contains: []string{"X0"}},
		}})
}

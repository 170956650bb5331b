package f32test_test

import (
	"go/build"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/f32test"
)

// TestImportsNothingOfRhgd: the package's non-test files import nothing
// of rhgd's. It used to import problems and solver (for the problems'
// float32-data check, now testkit.CheckF32), which put internal/ above
// the layers whose tests use it: the manifolds' (spd, stiefel, coupling,
// product) pulled in the problems and the solver.
func TestImportsNothingOfRhgd(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	require.NoError(t, err)
	for _, imp := range pkg.Imports {
		require.False(t, strings.HasPrefix(imp, "github.com/rhgd/rhgd/"), "f32test imports %s", imp)
	}
}

// TestRoundSymFloat32: Round and Float32 round to float32; Sym's matrices
// are asymmetric by one float32 ulp above the diagonal, no more.
func TestRoundSymFloat32(t *testing.T) {
	x := []float64{0.1, 1.0 / 3, -2.5e-9, 1e30}
	r := f32test.Round(x)
	f := f32test.Float32(map[string][]float64{"x": x})["x"]
	for i, v := range x {
		require.Equal(t, float64(float32(v)), r[i])
		require.Equal(t, float32(v), f[i])
	}
	const n = 3
	a := []float64{2, 0.3, 0.1, 0.3, 1, 0.2, 0.1, 0.2, 3}
	s := f32test.Sym(a, n)
	for i := 0; i < n; i++ {
		require.Equal(t, float64(float32(a[i*n+i])), s[i*n+i])
		for j := i + 1; j < n; j++ {
			up, lo := float32(s[i*n+j]), float32(s[j*n+i])
			require.NotEqual(t, up, lo)
			require.True(t, up == math.Nextafter32(lo, float32(math.Inf(1))) || up == math.Nextafter32(lo, float32(math.Inf(-1))))
		}
	}
}

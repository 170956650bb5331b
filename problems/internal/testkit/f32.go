package testkit

import (
	"context"
	"maps"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// AgreeF32 bounds the relative difference between the objective values
// of runs from float32 and float64 data: the data differ by float32
// rounding, about 1e-7 relative, which a run amplifies by the problem's
// conditioning (measured 4e-10 to 5e-7 on the loaders' tests); 1e-5
// leaves a factor 20 and still catches a run that went astray.
const AgreeF32 = 1e-5

// F32Case is one problem's float32-data test, which CheckF32 runs: the
// same data written to a .npz file in float64 and, rounded, in float32.
type F32Case struct {
	// Spec is the problem, built from each file with Flags as rhgd run
	// does.
	Spec  problems.Spec
	Flags []string
	// F64 are the float64 file's arrays, F32 the float32 file's (written
	// rounded to float32), typically F64 with the matrices that should be
	// symmetric replaced by their f32test.Sym; Shapes are their shapes
	// (nil: one axis).
	F64, F32 map[string][]float64
	Shapes   map[string][]int
	// Notes are the starts of the notes that building from the float32
	// file must give, in order (the float64 file must give none).
	Notes []string
	// Estimator and Epochs are the runs from both files, whose objective
	// values must agree to AgreeF32.
	Estimator string
	Epochs    int
	// Bad are inputs clearly off, which building must still reject.
	Bad []F32Bad
}

// F32Bad is an input clearly off in a float32 file: F32Case.F32 with
// Arrays replaced, which building must reject with an error that wraps
// each of Is and contains each of Contains.
type F32Bad struct {
	What     string
	Arrays   map[string][]float64
	Is       []error
	Contains []string
}

// CheckF32 runs the float32-data test c describes: both files build, the
// float64 one without notes and the float32 one with c.Notes, runs from
// them agree to AgreeF32, and each of c.Bad is rejected.
func CheckF32(t *testing.T, c F32Case) {
	t.Helper()
	dir := t.TempDir()
	p64, p32 := filepath.Join(dir, "f64.npz"), filepath.Join(dir, "f32.npz")
	require.NoError(t, problems.WriteNPZ(p64, c.F64, c.Shapes))
	require.NoError(t, problems.WriteNPZ(p32, f32test.Float32(c.F32), c.Shapes))
	build := func(path string) (*problems.Instance, error) {
		return Build(t, c.Spec, problems.Options{Data: path}, c.Flags...)
	}
	in64, err := build(p64)
	require.NoError(t, err, "float64 data")
	require.Empty(t, in64.Notes, "float64 data")
	in32, err := build(p32)
	require.NoError(t, err, "float32 data rejected")
	require.Len(t, in32.Notes, len(c.Notes), "notes %q, want ones starting %q", in32.Notes, c.Notes)
	for i, want := range c.Notes {
		require.True(t, strings.HasPrefix(in32.Notes[i], want), "note %q, want it to start %q", in32.Notes[i], want)
	}
	t.Logf("notes: %q", in32.Notes)
	r64, r32 := runF32(t, in64, c.Estimator, c.Epochs), runF32(t, in32, c.Estimator, c.Epochs)
	diff := math.Abs(r32-r64) / math.Abs(r64)
	t.Logf("F after %d epochs: float64 data %.10g, float32 data %.10g, relative difference %.2g", c.Epochs, r64, r32, diff)
	require.LessOrEqual(t, diff, AgreeF32, "the runs differ")
	for _, b := range c.Bad {
		arrays := maps.Clone(c.F32)
		maps.Copy(arrays, b.Arrays)
		require.NoError(t, problems.WriteNPZ(p32, f32test.Float32(arrays), c.Shapes))
		_, err := build(p32)
		for _, target := range b.Is {
			require.ErrorIs(t, err, target, b.What)
		}
		for _, s := range b.Contains {
			require.ErrorContains(t, err, s, b.What)
		}
		t.Logf("%s: %v", b.What, err)
	}
}

// runF32 runs in from its start with its settings, epochs epochs and the
// estimator it names est, and returns the objective value of the result.
func runF32(t testing.TB, in *problems.Instance, est string, epochs int) float64 {
	t.Helper()
	e, err := in.Estimator(est)
	require.NoError(t, err, est)
	s := in.Settings
	s.Epochs, s.Estimator = epochs, e
	res, err := solver.Minimize(context.Background(), in.Problem, in.X0, in.Y0, &s)
	require.NoError(t, err, est)
	return res.F
}

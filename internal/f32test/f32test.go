// Package f32test makes test data the way float32 pipelines (the authors'
// code, PyTorch) make it: entries rounded to float32, symmetric matrices
// symmetric only to float32 rounding, and .npz files of float32 arrays;
// Check runs a problem's float32-data test from a Case.
package f32test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio/npz"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
)

// Round returns x with every entry rounded to float32.
func Round(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(float32(v))
	}
	return out
}

// Sym returns the n×n matrices of a (one after the other) as a float32
// computation leaves symmetric matrices: rounded to float32, and each entry
// above the diagonal moved one float32 ulp (at most 2⁻²³ ≈ 1.2e-7 of it)
// away from its mirror image, up and down in turn: asymmetric at float32
// rounding, deterministically.
func Sym(a []float64, n int) []float64 {
	out := Round(a)
	for k := 0; k+n*n <= len(out); k += n * n {
		m := out[k : k+n*n]
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				v := float32(m[i*n+j])
				dir := float32(math.Inf(1))
				if (i+j)%2 == 1 {
					dir = -dir
				}
				m[i*n+j] = float64(math.Nextafter32(v, dir))
			}
		}
	}
	return out
}

// WriteNPZ writes the arrays, rounded to float32, with their shapes (nil:
// one axis) to a new .npz file at path: numpy's dtype float32 ('<f4').
func WriteNPZ(path string, arrays map[string][]float64, shapes map[string][]int) error {
	w, err := npz.Create(path)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(arrays)) {
		v := make([]float32, len(arrays[name]))
		for i, x := range arrays[name] {
			v[i] = float32(x)
		}
		if err := w.Write(name+".npy", nested(v, shapes[name])); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// nested returns v with the given shape (nil: one axis) as the nested
// slices npyio writes with that shape; at most three axes.
func nested(v []float32, shape []int) any {
	switch len(shape) {
	case 0, 1:
		return v
	case 2:
		out := make([][]float32, shape[0])
		for i := range out {
			out[i] = v[i*shape[1] : (i+1)*shape[1]]
		}
		return out
	case 3:
		out := make([][][]float32, shape[0])
		m := shape[1] * shape[2]
		for i := range out {
			out[i] = nested(v[i*m:(i+1)*m], shape[1:]).([][]float32)
		}
		return out
	}
	panic(fmt.Sprintf("f32test: WriteNPZ of a %d-axis array", len(shape)))
}

// build builds the problem spec describes from the .npz file at path with
// the given command-line flags, as rhgd run does.
func build(t testing.TB, spec problems.Spec, path string, flags ...string) (*problems.Instance, error) {
	t.Helper()
	fs := flag.NewFlagSet(spec.Name, flag.ContinueOnError)
	build := spec.Flags(fs)
	if err := fs.Parse(flags); err != nil {
		t.Fatal(err)
	}
	return build(problems.Options{Data: path})
}

// run runs in from its start with its settings, epochs epochs and the
// estimator it names est, and returns the result.
func run(t testing.TB, in *problems.Instance, est string, epochs int) *solver.Result {
	t.Helper()
	e, err := in.Estimator(est)
	if err != nil {
		t.Fatal(err)
	}
	s := in.Settings
	s.Epochs, s.Estimator = epochs, e
	res, err := solver.Minimize(context.Background(), in.Problem, in.X0, in.Y0, &s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Agree bounds the relative difference between the objective values of
// runs from float32 and float64 data: the data differ by float32 rounding,
// about 1e-7 relative, which a run amplifies by the problem's conditioning
// (measured 4e-10 to 5e-7 on the loaders' tests); 1e-5 leaves a factor
// 20 and still catches a run that went astray.
const Agree = 1e-5

// relDiff returns |a − b| / |b|.
func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Abs(b) }

// Case is one problem's float32-data test, which Check runs: the same
// data written to a .npz file in float64 and, rounded, in float32.
type Case struct {
	// Spec is the problem, built from each file with Flags as rhgd run
	// does.
	Spec  problems.Spec
	Flags []string
	// F64 are the float64 file's arrays, F32 the float32 file's (written
	// rounded to float32), typically F64 with the matrices that should be
	// symmetric replaced by their Sym; Shapes are their shapes (nil: one
	// axis).
	F64, F32 map[string][]float64
	Shapes   map[string][]int
	// Notes are the starts of the notes that building from the float32
	// file must give, in order (the float64 file must give none).
	Notes []string
	// Estimator and Epochs are the runs from both files, whose objective
	// values must agree to Agree.
	Estimator string
	Epochs    int
	// Bad are inputs clearly off, which building must still reject.
	Bad []Bad
}

// Bad is an input clearly off in a float32 file: Case.F32 with Arrays
// replaced, which building must reject with an error that wraps each of
// Is and contains each of Contains.
type Bad struct {
	What     string
	Arrays   map[string][]float64
	Is       []error
	Contains []string
}

// Check runs the float32-data test c describes: both files build, the
// float64 one without notes and the float32 one with c.Notes, runs from
// them agree to Agree, and each of c.Bad is rejected.
func Check(t *testing.T, c Case) {
	t.Helper()
	dir := t.TempDir()
	p64, p32 := filepath.Join(dir, "f64.npz"), filepath.Join(dir, "f32.npz")
	require.NoError(t, problems.WriteNPZ(p64, c.F64, c.Shapes))
	require.NoError(t, WriteNPZ(p32, c.F32, c.Shapes))
	in64, err := build(t, c.Spec, p64, c.Flags...)
	require.NoError(t, err, "float64 data")
	require.Empty(t, in64.Notes, "float64 data")
	in32, err := build(t, c.Spec, p32, c.Flags...)
	require.NoError(t, err, "float32 data rejected")
	require.Len(t, in32.Notes, len(c.Notes), "notes %q, want ones starting %q", in32.Notes, c.Notes)
	for i, want := range c.Notes {
		require.True(t, strings.HasPrefix(in32.Notes[i], want), "note %q, want it to start %q", in32.Notes[i], want)
	}
	t.Logf("notes: %q", in32.Notes)
	r64, r32 := run(t, in64, c.Estimator, c.Epochs), run(t, in32, c.Estimator, c.Epochs)
	diff := relDiff(r32.F, r64.F)
	t.Logf("F after %d epochs: float64 data %.10g, float32 data %.10g, relative difference %.2g", c.Epochs, r64.F, r32.F, diff)
	require.LessOrEqual(t, diff, Agree, "the runs differ")
	for _, b := range c.Bad {
		arrays := maps.Clone(c.F32)
		maps.Copy(arrays, b.Arrays)
		require.NoError(t, WriteNPZ(p32, arrays, c.Shapes))
		_, err := build(t, c.Spec, p32, c.Flags...)
		for _, target := range b.Is {
			require.ErrorIs(t, err, target, b.What)
		}
		for _, s := range b.Contains {
			require.ErrorContains(t, err, s, b.What)
		}
		t.Logf("%s: %v", b.What, err)
	}
}

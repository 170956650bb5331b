package problems

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/numerr"
)

// TestNPZFloat32: WriteNPZ writes float32 arrays as numpy's float32
// ('<f4'), which the loader reads back to the same values: the one .npz
// writer for float64 and float32 files (the float32 tests had a copy of
// it).
func TestNPZFloat32(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f32.npz")
	a := []float32{1.5, -2.25, 3.1e-3, 4, 5, 6}
	require.NoError(t, WriteNPZ(path, map[string][]float32{"a": a, "s": {0.1}}, map[string][]int{"a": {3, 2}}))
	z, err := OpenNPZ(path)
	require.NoError(t, err)
	defer z.Close()
	for name, want := range map[string]string{"a": "<f4", "s": "<f4"} {
		h, err := z.header(name)
		require.NoError(t, err)
		require.Equal(t, want, h.descr, name)
	}
	got, shape, err := z.Array("a")
	require.NoError(t, err)
	require.Equal(t, []int{3, 2}, shape)
	for i, v := range a {
		require.Equal(t, float64(v), got[i])
	}
	s, err := z.Scalar("s")
	require.NoError(t, err)
	require.Equal(t, float64(float32(0.1)), s)
}

func TestNPZRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.npz")
	a := []float64{1, 2, 3, 4, 5, 6}
	b := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	require.NoError(t, WriteNPZ(path, map[string][]float64{"a": a, "b": b, "s": {3.5}},
		map[string][]int{"a": {2, 3}, "b": {2, 3, 2}}))
	z, err := OpenNPZ(path)
	require.NoError(t, err)
	defer z.Close()
	require.ElementsMatch(t, []string{"a", "b", "s"}, z.Names())
	got, shape, err := z.Array("a", 2, -1)
	require.NoError(t, err)
	require.Equal(t, a, got)
	require.Equal(t, []int{2, 3}, shape)
	got, shape, err = z.Array("b")
	require.NoError(t, err)
	require.Equal(t, b, got)
	require.Equal(t, []int{2, 3, 2}, shape)
	s, err := z.Scalar("s")
	require.NoError(t, err)
	require.Equal(t, 3.5, s)

	_, _, err = z.Array("a", 3, 2)
	require.ErrorIs(t, err, ErrBadData)
	require.ErrorIs(t, err, numerr.ErrInvalid)
	_, _, err = z.Array("nope")
	require.ErrorIs(t, err, ErrBadData)
	_, err = z.Scalar("a")
	require.ErrorIs(t, err, ErrBadData)
}

func TestNPZBadInput(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.npz")
	_, err := OpenNPZ(missing)
	require.ErrorIs(t, err, ErrBadData)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Equal(t, 1, strings.Count(err.Error(), missing), "the path is named once: %v", err)
	junk := filepath.Join(dir, "junk.npz")
	require.NoError(t, os.WriteFile(junk, []byte("not a zip"), 0o644))
	_, err = OpenNPZ(junk)
	require.ErrorIs(t, err, ErrBadData)
	require.Equal(t, 1, strings.Count(err.Error(), junk), "the path is named once: %v", err)

	nan := filepath.Join(dir, "nan.npz")
	require.NoError(t, WriteNPZ(nan, map[string][]float64{"x": {1, nanValue()}}, nil))
	z, err := OpenNPZ(nan)
	require.NoError(t, err)
	defer z.Close()
	_, _, err = z.Array("x")
	require.True(t, errors.Is(err, ErrBadData), "%v", err)
}

func nanValue() float64 { var z float64; return z / z }

// fortranToRowMajor reorders column-major data of the given shape to
// row-major, as the loader does while it reads a Fortran-ordered array.
func fortranToRowMajor(v []float64, shape []int) []float64 {
	out := make([]float64, len(v))
	o := newOrder(shape, true)
	for _, x := range v {
		out[o.next()] = x
	}
	return out
}

func TestFortranToRowMajor(t *testing.T) {
	// The 2×3 matrix [[1 2 3] [4 5 6]] in column-major order.
	require.Equal(t, []float64{1, 2, 3, 4, 5, 6}, fortranToRowMajor([]float64{1, 4, 2, 5, 3, 6}, []int{2, 3}))
	// A 2×2×2 array a[i][j][k] = 100i + 10j + k, column-major (i fastest).
	var f []float64
	for k := 0; k < 2; k++ {
		for j := 0; j < 2; j++ {
			for i := 0; i < 2; i++ {
				f = append(f, float64(100*i+10*j+k))
			}
		}
	}
	require.Equal(t, []float64{0, 1, 10, 11, 100, 101, 110, 111}, fortranToRowMajor(f, []int{2, 2, 2}))
}

// TestReadSaveArrays: SaveNPZ and Read round-trip a list of arrays, with
// sizes learned from the file and checked across arrays, scalars and
// optional arrays; a shape that disagrees is an error naming the array.
func TestReadSaveArrays(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.npz")
	x, y, s := []float64{1, 2, 3, 4, 5, 6}, []float64{7, 8, 9, 10}, []float64{0.5}
	var none []float64
	list := func(x, y, s, o *[]float64) []Array {
		return []Array{{Name: "X", Shape: "n×d", Data: x}, {Name: "Y", Shape: "n×n", Data: y},
			{Name: "s", Data: s}, {Name: "o", Shape: "d", Data: o, Optional: true}}
	}
	require.NoError(t, SaveNPZ(path, Dims{"n": 2, "d": 3}, list(&x, &y, &s, &none)...))
	z, err := OpenNPZ(path)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"X", "Y", "s"}, z.Names(), "a nil optional array is left out")
	_, shape, err := z.Array("s")
	require.NoError(t, err)
	require.Equal(t, []int{1}, shape, "a scalar is written as a 1-d array")
	require.NoError(t, z.Close())

	var gx, gy, gs []float64
	go2 := []float64{1}
	dims, err := ReadNPZ(path, list(&gx, &gy, &gs, &go2)...)
	require.NoError(t, err)
	require.Equal(t, Dims{"n": 2, "d": 3}, dims)
	require.Equal(t, x, gx)
	require.Equal(t, y, gy)
	require.Equal(t, s, gs)
	require.Nil(t, go2, "an absent optional array reads as nil")

	// Sizes given beforehand are checked; so are axes named twice.
	z, err = OpenNPZ(path)
	require.NoError(t, err)
	err = z.Read(Dims{"n": 3}, list(&gx, &gy, &gs, &go2)...)
	require.NoError(t, z.Close())
	require.ErrorIs(t, err, ErrBadData)
	require.ErrorContains(t, err, "X has shape [2 3], want [3 -1]")
	bad := filepath.Join(t.TempDir(), "bad.npz")
	require.NoError(t, WriteNPZ(bad, map[string][]float64{"X": x, "Y": x, "s": s}, map[string][]int{"X": {2, 3}, "Y": {2, 3}}))
	_, err = ReadNPZ(bad, list(&gx, &gy, &gs, &go2)...)
	require.ErrorIs(t, err, ErrBadData)
	require.ErrorContains(t, err, "Y has shape [2 3], want [2 2]")
	require.NoError(t, WriteNPZ(bad, map[string][]float64{"Y": x}, map[string][]int{"Y": {3, 2}}))
	_, err = ReadNPZ(bad, Array{Name: "Y", Shape: "n×n", Data: &gy})
	require.ErrorIs(t, err, ErrBadData)
	require.ErrorContains(t, err, "Y has shape [3 2], want n×n")
	_, err = ReadNPZ(bad, Array{Name: "X", Shape: "n×d", Data: &gx})
	require.ErrorIs(t, err, ErrBadData)
	require.ErrorContains(t, err, `has no array "X"`)
}

// TestTagged: SaveTagged writes a tagged struct's arrays with the shapes
// its dim fields give, ReadTagged reads them back with the sizes, an
// embedded struct's fields in place; an absent optional array reads as
// nil, and a shape that disagrees names the array.
func TestTagged(t *testing.T) {
	type inner struct {
		N int       `dim:"n"`
		A []float64 `npz:"A" shape:"n×k"`
	}
	type file struct {
		inner
		K    int       `dim:"k"`
		B    []float64 `npz:"b,optional" shape:"k"`
		Note string
	}
	path := filepath.Join(t.TempDir(), "t.npz")
	in := file{inner: inner{N: 2, A: []float64{1, 2, 3, 4, 5, 6}}, K: 3, B: []float64{7, 8, 9}}
	require.NoError(t, SaveTagged(path, &in))
	var out file
	require.NoError(t, ReadTagged(path, &out))
	require.Equal(t, in, out)

	in.B = nil
	require.NoError(t, SaveTagged(path, &in))
	out = file{B: []float64{1}}
	require.NoError(t, ReadTagged(path, &out))
	require.Nil(t, out.B)
	require.Equal(t, 3, out.K)

	require.NoError(t, WriteNPZ(path, map[string][]float64{"A": in.A, "b": {1, 2}}, map[string][]int{"A": {2, 3}}))
	err := ReadTagged(path, &out)
	require.ErrorIs(t, err, ErrBadData)
	require.Contains(t, err.Error(), "b has shape [2]")
	require.Panics(t, func() { _ = ReadTagged(path, out) })
}

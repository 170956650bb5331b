package problems

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/internal/npztest"
	"github.com/rhgd/rhgd/numerr"
)

// fuzzLimit is FuzzNPZ's bound on one array.
const fuzzLimit = 1 << 20

// FuzzNPZ loads fuzzed .npz files: archive, a whole file (zip directory
// and members), is read as the synthetic problem's file (X n×d, Y n×r,
// optional W0 d×r, M0 d×d, nu); npy, an .npy member's bytes (header and
// data), is put in an archive as X, stored or deflated, its directory
// declaring size (0: the true size) and its compressed bytes cut short by
// cut, and read alone. Either load fails with an error of the
// invalid-argument class that names the file, or returns arrays of the
// sizes their shapes give, finite, that SaveNPZ writes and Read reads back
// the same; and a load allocates at most the array limit (1 MiB here)
// plus 2 MiB and 64 bytes per byte of the archive, whatever the file
// claims.
func FuzzNPZ(f *testing.F) {
	x := npztest.NPY("<f8", []int{4, 3}, npztest.Float64s(npztest.Values(12, 1)...))
	y := npztest.NPY("<f8", []int{4, 2}, npztest.Float64s(npztest.Values(8, 2)...))
	nu := npztest.NPY("<f8", nil, npztest.Float64s(0.5))
	m := func(name string, data []byte, deflate bool) npztest.Member {
		return npztest.Member{Name: name, Data: data, Deflate: deflate}
	}
	f.Add(npztest.Zip(m("X.npy", x, false), m("Y.npy", y, false)), []byte(nil), false, uint64(0), uint8(0))
	f.Add(npztest.Zip(m("X.npy", x, true), m("Y.npy", y, true), m("nu.npy", nu, true)), []byte(nil), false, uint64(0), uint8(0))
	written := filepath.Join(f.TempDir(), "w.npz")
	if err := WriteNPZ(written, map[string][]float64{"X": npztest.Values(12, 1), "Y": npztest.Values(8, 2),
		"W0": npztest.Values(6, 3), "M0": npztest.Values(9, 4), "nu": {0.01}},
		map[string][]int{"X": {4, 3}, "Y": {4, 2}, "W0": {3, 2}, "M0": {3, 3}}); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(written)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, []byte(nil), false, uint64(0), uint8(0))
	for _, h := range npztest.Synthetic() {
		f.Add(h.File, []byte(nil), false, uint64(0), uint8(0))
	}
	for _, npy := range [][]byte{
		x, nu,
		npztest.NPY(">f8", []int{2}, npztest.Float64s(1, 2)),
		npztest.NPY("<f4", []int{1, 2}, []byte{0, 0, 0x80, 0x3f, 0, 0, 0x40, 0xc0}),
		npztest.NPY("|u1", []int{2, 1, 2}, []byte{1, 2, 3, 4}),
		npztest.NPY("<i8", []int{1}, npztest.Float64s(1)),
		npztest.NPY("|O", []int{1}, []byte("\x80\x02N.")),
		npztest.NPY("<f8", []int{100000, 100000}, npztest.Float64s(1, 2)),
		npztest.NPY("<f8", []int{3}, npztest.Float64s(1, 2)),
		npztest.NPYHeader("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", npztest.Float64s(1, 4, 2, 5, 3, 6)),
		npztest.NPYHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1L,), }", npztest.Float64s(1)),
		append([]byte("\x93NUMPY\x02\x00\x40\x00\x00\x00"), npztest.NPY("<f8", []int{1}, npztest.Float64s(1))[10:]...),
		append([]byte("\x93NUMPY\x03\x00\x40\x00\x00\x00"), npztest.NPY("=i4", []int{1}, []byte{1, 0, 0, 0})[10:]...),
		npztest.NPYHeader(`{"shape":(2,),"fortran_order":False,"descr":"<f8"}`, npztest.Float64s(1, 2)),
		npztest.NPYHeader("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }", npztest.Float64s(1)),
		npztest.NPYHeader("{'descr': '<f8', 'fortran_order': 0, 'shape': (1,), 'x': 1}", npztest.Float64s(1)),
		npztest.NPYHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", npztest.Float64s(1)),
		[]byte("\x93NUMPY\x02\x00\xff\xff\xff\x7f"),
	} {
		f.Add([]byte(nil), npy, false, uint64(0), uint8(0))
		f.Add([]byte(nil), npy, true, uint64(0), uint8(0))
		f.Add([]byte(nil), npy, true, uint64(1<<40), uint8(0))
		f.Add([]byte(nil), npy, true, uint64(0), uint8(3))
	}
	dir := f.TempDir()

	f.Fuzz(func(t *testing.T, archive, npy []byte, deflate bool, size uint64, cut uint8) {
		if len(archive) > 0 {
			fuzzSynthetic(t, dir, archive)
		}
		if len(npy) > 0 {
			fuzzArray(t, dir, npztest.Zip(npztest.Member{Name: "X.npy", Data: npy, Deflate: deflate, Size: size, Cut: int(cut)}))
		}
	})
}

// bounded opens the archive b as "fuzz.npz" and runs load on it under
// fuzzLimit. It fails t if that allocates more than FuzzNPZ allows, or
// fails with an error that is not bad data naming the file; it reports
// whether load succeeded.
func bounded(t *testing.T, b []byte, load func(*NPZ) error) bool {
	const name = "fuzz.npz"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	z, err := newNPZ(name, bytes.NewReader(b), int64(len(b)))
	if err == nil {
		z.MaxArrayBytes = fuzzLimit
		err = load(z)
	}
	runtime.ReadMemStats(&after)
	if n, bound := after.TotalAlloc-before.TotalAlloc, uint64(fuzzLimit+2<<20+64*len(b)); n > bound {
		t.Fatalf("loading a %d-byte archive allocated %d bytes, over %d (error: %v)", len(b), n, bound, err)
	}
	if err != nil && (!errors.Is(err, ErrBadData) || !errors.Is(err, numerr.ErrInvalid) || !strings.Contains(err.Error(), name)) {
		t.Fatalf("error %v: not bad data naming %s", err, name)
	}
	return err == nil
}

// finite fails t unless every entry of v is finite and v within fuzzLimit.
func finite(t *testing.T, name string, v []float64) {
	if 8*len(v) > fuzzLimit {
		t.Fatalf("%s has %d entries, over the limit", name, len(v))
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("%s[%d] = %v", name, i, x)
		}
	}
}

// fuzzSynthetic reads the archive b as the synthetic problem's file; read,
// its arrays have the sizes n, d and r give, and (unless one is 0) write
// back and read back the same.
func fuzzSynthetic(t *testing.T, dir string, b []byte) {
	var s syntheticFile
	if !bounded(t, b, func(z *NPZ) error { return z.ReadTagged(&s) }) {
		return
	}
	for _, c := range []struct {
		name string
		v    []float64
		want int
		opt  bool
	}{{"X", s.X, s.N * s.D, false}, {"Y", s.Y, s.N * s.R, false}, {"W0", s.W0, s.D * s.R, true},
		{"M0", s.M0, s.D * s.D, true}, {"nu", s.Nu, 1, true}} {
		if (!c.opt || c.v != nil) && len(c.v) != c.want {
			t.Fatalf("%s has %d entries, want %d (n, d, r = %d, %d, %d)", c.name, len(c.v), c.want, s.N, s.D, s.R)
		}
		finite(t, c.name, c.v)
	}
	if s.N == 0 || s.D == 0 || s.R == 0 {
		return // WriteNPZ writes an empty matrix as an empty vector
	}
	path := filepath.Join(dir, "rt.npz")
	if err := SaveTagged(path, &s); err != nil {
		t.Fatal(err)
	}
	var back syntheticFile
	if err := ReadTagged(path, &back); err != nil {
		t.Fatalf("the file written back does not read: %v", err)
	}
	if !equalFile(s, back) {
		t.Fatalf("read back %+v, want %+v", back, s)
	}
}

// fuzzArray reads the array X of the archive b; read, it has the entries
// its shape gives and, for up to three axes of positive sizes (what
// WriteNPZ writes), writes back and reads back the same.
func fuzzArray(t *testing.T, dir string, b []byte) {
	var v []float64
	var shape []int
	if !bounded(t, b, func(z *NPZ) (err error) { v, shape, err = z.Array("X"); return err }) {
		return
	}
	n := 1
	for _, k := range shape {
		n *= k
	}
	if len(v) != n {
		t.Fatalf("X has %d entries for shape %v", len(v), shape)
	}
	finite(t, "X", v)
	if len(shape) == 0 || len(shape) > 3 || n == 0 {
		return
	}
	path := filepath.Join(dir, "rt.npz")
	if err := WriteNPZ(path, map[string][]float64{"X": v}, map[string][]int{"X": shape}); err != nil {
		t.Fatal(err)
	}
	z, err := OpenNPZ(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	back, bshape, err := z.Array("X")
	if err != nil {
		t.Fatalf("the file written back does not read: %v", err)
	}
	if !slices.Equal(shape, bshape) || !equalBits(v, back) {
		t.Fatalf("read back %v of shape %v, want %v of shape %v", back, bshape, v, shape)
	}
}

// equalBits reports whether u and v hold the same float64 bit patterns.
func equalBits(u, v []float64) bool {
	if len(u) != len(v) {
		return false
	}
	for i := range u {
		if math.Float64bits(u[i]) != math.Float64bits(v[i]) {
			return false
		}
	}
	return true
}

// equalFile reports whether two synthetic files hold the same sizes and
// arrays.
func equalFile(a, b syntheticFile) bool {
	return a.N == b.N && a.D == b.D && a.R == b.R && equalBits(a.X, b.X) && equalBits(a.Y, b.Y) &&
		equalBits(a.W0, b.W0) && equalBits(a.M0, b.M0) && equalBits(a.Nu, b.Nu)
}

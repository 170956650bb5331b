package problems

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/npztest"
	"github.com/rhgd/rhgd/numerr"
)

// syntheticFile is the synthetic problem's file, as problems/synthetic
// declares it (which this package cannot import).
type syntheticFile struct {
	N  int       `dim:"n"`
	D  int       `dim:"d"`
	R  int       `dim:"r"`
	X  []float64 `npz:"X" shape:"n×d"`
	Y  []float64 `npz:"Y" shape:"n×r"`
	W0 []float64 `npz:"W0,optional" shape:"d×r"`
	M0 []float64 `npz:"M0,optional" shape:"d×d"`
	Nu []float64 `npz:"nu,optional"`
}

// allocated returns the bytes that f allocates on the heap (of every
// goroutine, which the tests here do not start).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// namesArray reports whether msg names the array as the loader's errors
// do: "path: X: ...", "path: X has ..." or `no array "X"`.
func namesArray(msg, path, array string) bool {
	return strings.Contains(msg, path+": "+array+": ") || strings.Contains(msg, path+": "+array+" has ") ||
		strings.Contains(msg, "no array "+strconv.Quote(array))
}

// TestNPZHostile: each hostile or broken file (npztest.Synthetic: a header
// that claims 80 GB, a directory that claims 8 GiB, a deflate bomb, a
// pickled object array, a missing or misshapen array after a 2 MiB one, a
// header that claims more than its member holds, a truncated member) is an
// error of the invalid-argument class that names the file and the array,
// and loading it allocates less than 1 MiB: nothing is read before every
// array has been checked, and nothing is allocated that a header claims
// before the member is known to hold it.
func TestNPZHostile(t *testing.T) {
	const bound = 1 << 20
	for _, c := range npztest.Synthetic() {
		t.Run(c.Name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data.npz") // a name no message part matches
			require.NoError(t, os.WriteFile(path, c.File, 0o644))
			var f syntheticFile
			var err error
			n := allocated(func() { err = ReadTagged(path, &f) })
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrBadData)
			assert.ErrorIs(t, err, numerr.ErrInvalid)
			msg := err.Error()
			assert.Equal(t, 1, strings.Count(msg, path), "the file is named once: %s", msg)
			assert.True(t, namesArray(msg, path, c.Array), "%q does not name the array %s", msg, c.Array)
			_, after, _ := strings.Cut(msg, path)
			assert.Contains(t, after, c.Msg)
			assert.Less(t, n, uint64(bound), "loading allocated %d bytes", n)
		})
	}
}

// TestNPZLimit: an array larger than the limit (2 MiB of float64 zeros,
// deflated to about 2 KiB, under a limit of 1 MiB) is an error that says
// how to raise the limit, before its data are read; the environment
// variable RHGD_NPZ_MAX_BYTES, SetMaxArrayBytes and NPZ.MaxArrayBytes set
// the limit, in that order of precedence from last to first, and a file
// within it loads.
func TestNPZLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.npz")
	y := npztest.NPY("<f8", []int{4096, 1}, npztest.Float64s(npztest.Values(4096, 2)...))
	require.NoError(t, npztest.Write(path, npztest.Member{Name: "X.npy", Data: npztest.BigX(), Deflate: true},
		npztest.Member{Name: "Y.npy", Data: y, Deflate: true}))

	t.Setenv(EnvMaxArrayBytes, "1MiB")
	var f syntheticFile
	var err error
	n := allocated(func() { err = ReadTagged(path, &f) })
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrBadData)
	assert.ErrorIs(t, err, numerr.ErrInvalid)
	assert.True(t, namesArray(err.Error(), path, "X"), "%v", err)
	assert.Contains(t, err.Error(), "2097152 bytes")
	assert.Contains(t, err.Error(), "limit of 1048576")
	assert.Contains(t, err.Error(), EnvMaxArrayBytes)
	assert.Less(t, n, uint64(1<<20), "loading allocated %d bytes", n)

	t.Setenv(EnvMaxArrayBytes, "2MiB")
	require.NoError(t, ReadTagged(path, &f))
	assert.Equal(t, []int{4096, 64, 1}, []int{f.N, f.D, f.R})
	assert.Len(t, f.X, 4096*64)

	// SetMaxArrayBytes overrides the environment; 0 goes back to it.
	prev := SetMaxArrayBytes(1 << 20)
	t.Cleanup(func() { SetMaxArrayBytes(prev) })
	require.ErrorContains(t, ReadTagged(path, &f), "limit of 1048576")
	SetMaxArrayBytes(0)
	require.NoError(t, ReadTagged(path, &f))

	// NPZ.MaxArrayBytes is the archive's own.
	z, err := OpenNPZ(path)
	require.NoError(t, err)
	defer z.Close()
	assert.Equal(t, int64(2<<20), z.MaxArrayBytes, "OpenNPZ takes the limit in force")
	z.MaxArrayBytes = 2<<20 - 1
	_, _, err = z.Array("X")
	require.ErrorContains(t, err, "limit of 2097151")
	z.MaxArrayBytes = 2 << 20
	v, shape, err := z.Array("X")
	require.NoError(t, err)
	assert.Equal(t, []int{4096, 64}, shape)
	assert.Len(t, v, 4096*64)

	t.Setenv(EnvMaxArrayBytes, "lots")
	_, err = OpenNPZ(path)
	require.ErrorIs(t, err, ErrBadParam)
	require.ErrorContains(t, err, EnvMaxArrayBytes+`="lots"`)
}

// TestParseByteSize: sizes in bytes, with an optional binary suffix.
func TestParseByteSize(t *testing.T) {
	for s, want := range map[string]int64{"1": 1, "1048576": 1 << 20, "64KiB": 64 << 10, "1 MiB": 1 << 20,
		"4GiB": 4 << 30, "2TiB": 2 << 40, " 3 ": 3} {
		got, err := ParseByteSize(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	for _, s := range []string{"", "0", "-1", "1.5GiB", "1GB", "1g", "lots", "9223372036854775807KiB"} {
		_, err := ParseByteSize(s)
		assert.Error(t, err, s)
	}
}

// readMember writes m as the only member of a .npz file called file in a
// temporary directory and reads its array a; it returns the file's path
// and Array's results. name labels the test case.
func readMember(t *testing.T, name, file string, m npztest.Member) (path string, v []float64, shape []int, err error) {
	path = filepath.Join(t.TempDir(), file)
	require.NoError(t, npztest.Write(path, m), name)
	z, err := OpenNPZ(path)
	require.NoError(t, err, name)
	defer func() { require.NoError(t, z.Close()) }()
	v, shape, err = z.Array("a")
	return path, v, shape, err
}

// TestNPYHeaders: the loader reads what numpy (and Python 2's numpy, and
// other writers) put in an .npy header: each supported dtype in either
// byte order, Fortran order, 0-d arrays, format versions 1 to 3, long
// integers and spacing; and refuses what it cannot use with an error that
// names the array.
func TestNPYHeaders(t *testing.T) {
	be := func(bits ...uint64) []byte { // big-endian 8-byte words
		b := make([]byte, 8*len(bits))
		for i, v := range bits {
			for k := range 8 {
				b[8*i+k] = byte(v >> (56 - 8*k))
			}
		}
		return b
	}
	le := func(size int, vals ...int64) []byte {
		b := make([]byte, size*len(vals))
		for i, v := range vals {
			for k := range size {
				b[size*i+k] = byte(uint64(v) >> (8 * k))
			}
		}
		return b
	}
	v2 := func(dict string, data []byte) []byte { // format 2.0: a 4-byte header length
		b := npztest.NPYHeader(dict, data)
		hl := int(b[8]) | int(b[9])<<8
		out := append([]byte("\x93NUMPY\x02\x00"), byte(hl), byte(hl>>8), 0, 0)
		return append(out, b[10:]...)
	}
	for _, c := range []struct {
		name  string
		npy   []byte
		want  []float64
		shape []int
	}{
		{"f8", npztest.NPY("<f8", []int{2, 2}, npztest.Float64s(1, 2, 3, 4)), []float64{1, 2, 3, 4}, []int{2, 2}},
		{">f8", npztest.NPY(">f8", []int{2}, be(0x3ff0000000000000, 0xc000000000000000)), []float64{1, -2}, []int{2}},
		{"f4", npztest.NPY("<f4", []int{2}, []byte{0, 0, 0x80, 0x3f, 0, 0, 0x40, 0xc0}), []float64{1, -3}, []int{2}},
		{">f4", npztest.NPY(">f4", []int{1}, []byte{0x3f, 0x80, 0, 0}), []float64{1}, []int{1}},
		{"i8", npztest.NPY("<i8", []int{3}, le(8, -5, 0, 1<<40)), []float64{-5, 0, 1 << 40}, []int{3}},
		{"i4", npztest.NPY("<i4", []int{2}, le(4, -7, 1<<30)), []float64{-7, 1 << 30}, []int{2}},
		{">i4", npztest.NPY(">i4", []int{1}, []byte{0xff, 0xff, 0xff, 0xfe}), []float64{-2}, []int{1}},
		{"u1", npztest.NPY("|u1", []int{3}, []byte{0, 7, 255}), []float64{0, 7, 255}, []int{3}},
		{"0-d", npztest.NPY("<f8", nil, npztest.Float64s(2.5)), []float64{2.5}, nil},
		{"empty", npztest.NPY("<f8", []int{0, 3}, nil), []float64{}, []int{0, 3}},
		// The 2×3 matrix [[1 2 3] [4 5 6]] in column-major order.
		{"fortran", npztest.NPYHeader("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
			npztest.Float64s(1, 4, 2, 5, 3, 6)), []float64{1, 2, 3, 4, 5, 6}, []int{2, 3}},
		{"py2", npztest.NPYHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 1L), }",
			npztest.Float64s(1, 2)), []float64{1, 2}, []int{2, 1}},
		{"order", npztest.NPYHeader(`{"shape":(1,),"fortran_order":False,"descr":"<f8"}`, npztest.Float64s(9)), []float64{9}, []int{1}},
		{"v2", v2("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", npztest.Float64s(3)), []float64{3}, []int{1}},
	} {
		_, v, shape, err := readMember(t, c.name, c.name+".npz", npztest.Member{Name: "a.npy", Data: c.npy})
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, v, c.name)
		assert.Equal(t, c.shape, shape, c.name)
	}

	// refused: the file with m alone is refused, naming the array and
	// saying msg.
	refused := func(name string, m npztest.Member, msg string) {
		path, _, _, err := readMember(t, name, "bad.npz", m)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, ErrBadData, name)
		assert.True(t, namesArray(err.Error(), path, "a"), "%s: %v", name, err)
		assert.Contains(t, err.Error(), msg, name)
	}

	for _, c := range []struct{ name, dict, msg string }{
		{"object", "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", "object"},
		{"structured", "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }", "descr"},
		{"complex", "{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", "dtype <c16 is not supported"},
		{"negative", "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", "shape"},
		{"overflow", "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", "shape"},
		{"bigint", "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }", "shape"},
		{"no shape", "{'descr': '<f8', 'fortran_order': False, }", "shape"},
		{"twice", "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", "descr"},
		{"extra key", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1, }", "x"},
		{"order", "{'descr': '<f8', 'fortran_order': 0, 'shape': (1,), }", "fortran_order"},
		{"trailing", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), } x", "header"},
		{"unclosed", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,", "header"},
		{"not a dict", "[1, 2]", "header"},
	} {
		refused(c.name, npztest.Member{Name: "a.npy", Data: npztest.NPYHeader(c.dict, npztest.Float64s(1))}, c.msg)
	}

	// Files that are not .npy or not zip members rhgd can read.
	for _, c := range []struct {
		name string
		m    npztest.Member
		msg  string
	}{
		{"magic", npztest.Member{Name: "a.npy", Data: []byte("\x93NUMPX\x01\x00\x10\x00")}, "not an .npy"},
		{"version", npztest.Member{Name: "a.npy", Data: []byte("\x93NUMPY\x04\x00\x10\x00")}, "version"},
		{"header length", npztest.Member{Name: "a.npy", Data: []byte("\x93NUMPY\x02\x00\xff\xff\xff\x7f")}, "header"},
		{"empty", npztest.Member{Name: "a.npy"}, "not an .npy"},
		{"stored size", npztest.Member{Name: "a.npy", Data: npztest.NPY("<f8", []int{1}, npztest.Float64s(1)), Size: 1 << 40},
			"zip directory declares"},
	} {
		refused(c.name, c.m, c.msg)
	}

	// Two members of one name are ambiguous (numpy reads the last, Go's
	// archive/zip lists both).
	path := filepath.Join(t.TempDir(), "twice.npz")
	a := npztest.Member{Name: "a.npy", Data: npztest.NPY("<f8", []int{1}, npztest.Float64s(1))}
	require.NoError(t, npztest.Write(path, a, a))
	_, err := OpenNPZ(path)
	require.ErrorIs(t, err, ErrBadData)
	require.ErrorContains(t, err, `two members named "a.npy"`)
}

// TestNPZCorrupt: a member whose bytes do not match the CRC-32 its zip
// directory gives is an error, not data.
func TestNPZCorrupt(t *testing.T) {
	b := npztest.Zip(npztest.Member{Name: "a.npy", Data: npztest.NPY("<f8", []int{2}, npztest.Float64s(1, 2))})
	i := strings.Index(string(b), "\x00\x00\x00\x00\x00\x00\xf0\x3f") // the entry 1.0, stored
	require.Positive(t, i)
	b[i+7] = 0x40 // 2.0
	path := filepath.Join(t.TempDir(), "crc.npz")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	z, err := OpenNPZ(path)
	require.NoError(t, err)
	defer z.Close()
	_, _, err = z.Array("a")
	require.ErrorIs(t, err, ErrBadData)
	require.ErrorContains(t, err, "checksum")
}

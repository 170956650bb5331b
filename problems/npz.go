package problems

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"codeberg.org/sbinet/npyio/npz"
)

// DefaultMaxArrayBytes is the default bound on one array of a .npz file:
// its entries as float64, 8 bytes each, may take at most 1 GiB (2^27
// entries, a 11585 × 11585 matrix). An .npz file comes from someone
// else's pipeline; the bound keeps a file that is wrong, or made to do
// harm, from taking the process's memory. EnvMaxArrayBytes,
// SetMaxArrayBytes and NPZ.MaxArrayBytes raise or lower it.
const DefaultMaxArrayBytes int64 = 1 << 30

// EnvMaxArrayBytes names the environment variable that sets the bound on
// one array of a .npz file in place of DefaultMaxArrayBytes, as
// ParseByteSize reads it ("4GiB"), for every loader of the process: the
// rhgd command, the C ABI (which reads the host's environment at each
// rhgd_problem_builtin, so that Python's os.environ reaches it) and Go
// programs (SetMaxArrayBytes overrides it there).
const EnvMaxArrayBytes = "RHGD_NPZ_MAX_BYTES"

// maxArrayBytes is SetMaxArrayBytes's setting; 0: none.
var maxArrayBytes atomic.Int64

// SetMaxArrayBytes sets the bound on one array that OpenNPZ gives every
// archive it opens from now on (NPZ.MaxArrayBytes), in place of the
// environment's (EnvMaxArrayBytes) and the default; n ≤ 0 removes the
// setting. It returns the previous setting (0: none) and is safe for
// concurrent use. It is a program's choice, for the whole process: no
// library package calls it; the C ABI does, from its host's environment.
func SetMaxArrayBytes(n int64) (prev int64) { return maxArrayBytes.Swap(max(n, 0)) }

// MaxArrayBytes returns the bound on one array in force: SetMaxArrayBytes's
// setting, else the environment's (EnvMaxArrayBytes), else
// DefaultMaxArrayBytes. An environment value that does not parse is an
// error naming the variable, wrapping ErrBadParam.
func MaxArrayBytes() (int64, error) {
	if n := maxArrayBytes.Load(); n > 0 {
		return n, nil
	}
	if s := os.Getenv(EnvMaxArrayBytes); s != "" {
		n, err := ParseByteSize(s)
		if err != nil {
			return 0, fmt.Errorf("%w: %s=%q: %v", ErrBadParam, EnvMaxArrayBytes, s, err)
		}
		return n, nil
	}
	return DefaultMaxArrayBytes, nil
}

// ParseByteSize reads a positive number of bytes, in decimal, optionally
// followed by a binary unit KiB, MiB, GiB or TiB ("1073741824", "1GiB").
func ParseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	shift, unit := byteUnits[strings.TrimSpace(t[i:])]
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if i == 0 || !unit || err != nil || n <= 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%q is not a positive number of bytes (optionally with KiB, MiB, GiB or TiB: 4GiB) up to 2^63−1", s)
	}
	return n << shift, nil
}

// byteUnits are ParseByteSize's units, as powers of two.
var byteUnits = map[string]uint{"": 0, "KiB": 10, "MiB": 20, "GiB": 30, "TiB": 40}

// NPZ is a numpy .npz archive opened for reading float64 arrays, the
// format in which the problems exchange data with numpy-based
// implementations.
//
// The archive is untrusted: every size it declares is checked against
// the others before memory is allocated for it. An array's header (its
// dtype and shape) must be one rhgd reads and agree with the size of its
// member that the zip directory declares, which in turn must be one its
// compressed bytes can hold; its entries as float64 must fit in
// MaxArrayBytes; and Read checks the names and shapes of all the arrays
// a problem needs before it reads any. The data are then read through a
// reader limited to the declared size and must end there, with the
// directory's CRC-32. An NPZ is not safe for concurrent use.
type NPZ struct {
	// MaxArrayBytes bounds the float64 data of each array read (8 bytes
	// per entry; a Fortran-ordered array is reordered as it streams in,
	// without a second copy). OpenNPZ sets it to MaxArrayBytes(); a
	// caller may change it before reading.
	MaxArrayBytes int64

	path    string
	file    io.Closer
	members map[string]*zip.File // by member name ("X.npy")
	order   []string             // member names in the directory's order
	headers map[string]*npyHeader
}

// OpenNPZ opens the .npz file at path, reading its zip directory (and no
// member yet).
func OpenNPZ(path string) (*NPZ, error) {
	limit, err := MaxArrayBytes()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		// The os error names the path: keep the cause only, so the path
		// is named once.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrBadData, path, err)
	}
	st, err := f.Stat()
	if err == nil {
		var z *NPZ
		if z, err = newNPZ(path, f, st.Size()); err == nil {
			z.file, z.MaxArrayBytes = f, limit
			return z, nil
		}
		f.Close()
		return nil, err
	}
	f.Close()
	return nil, fmt.Errorf("%w: %s: %w", ErrBadData, path, err)
}

// newNPZ reads the zip directory of the archive r of size bytes, which
// errors call path.
func newNPZ(path string, r io.ReaderAt, size int64) (*NPZ, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadData, path, err)
	}
	z := &NPZ{MaxArrayBytes: DefaultMaxArrayBytes, path: path, members: map[string]*zip.File{}, headers: map[string]*npyHeader{}}
	for _, f := range zr.File {
		if z.members[f.Name] != nil {
			// numpy would read the last, Go's archive/zip lists both:
			// which the writer meant is not known.
			return nil, fmt.Errorf("%w: %s holds two members named %q", ErrBadData, path, f.Name)
		}
		z.members[f.Name] = f
		z.order = append(z.order, f.Name)
	}
	return z, nil
}

// Close closes the archive.
func (z *NPZ) Close() error {
	if z.file == nil {
		return nil
	}
	return z.file.Close()
}

// Has reports whether the archive holds the array name (without ".npy"),
// from its zip directory.
func (z *NPZ) Has(name string) bool { return z.members[name+".npy"] != nil }

// Names lists the arrays of the archive, in its zip directory's order.
func (z *NPZ) Names() []string {
	var out []string
	for _, k := range z.order {
		out = append(out, strings.TrimSuffix(k, ".npy"))
	}
	return out
}

// header returns the checked header of the array name, which the archive
// holds (Has), reading it on first use.
func (z *NPZ) header(name string) (*npyHeader, error) {
	h := z.headers[name]
	if h == nil {
		var err error
		if h, err = readHeader(z.members[name+".npy"]); err != nil {
			return nil, fmt.Errorf("%w: %s: %s: %v", ErrBadData, z.path, name, err)
		}
		z.headers[name] = h
	}
	if err := h.checkLimit(z.MaxArrayBytes); err != nil {
		return nil, fmt.Errorf("%w: %s: %s: %v", ErrBadData, z.path, name, err)
	}
	return h, nil
}

// Array reads the array name as float64 in row-major order (a
// Fortran-ordered array is transposed) and returns it with its shape.
// Integer and float32 arrays are converted. want, when given, is the
// expected shape, with −1 for any size in that axis; a different shape,
// a missing array, a header the member does not bear out, an array over
// MaxArrayBytes or a non-finite entry is an error wrapping ErrBadData,
// found before the array's data are read.
func (z *NPZ) Array(name string, want ...int) ([]float64, []int, error) {
	if !z.Has(name) {
		return nil, nil, z.missing(name)
	}
	h, err := z.header(name)
	if err != nil {
		return nil, nil, err
	}
	if want != nil {
		if err := z.checkWant(name, h.shape, want); err != nil {
			return nil, nil, err
		}
	}
	v, err := z.data(name, h)
	if err != nil {
		return nil, nil, err
	}
	return v, slices.Clone(h.shape), nil
}

// missing is the error for absent arrays; it lists the archive's first
// 20.
func (z *NPZ) missing(names ...string) error {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	has := fmt.Sprint(z.Names())
	if n := len(z.order); n > 20 {
		has = fmt.Sprint(z.Names()[:20]) + fmt.Sprintf(" and %d more", n-20)
	}
	return fmt.Errorf("%w: %s has no array %s (it has %s)", ErrBadData, z.path, strings.Join(q, ", "), has)
}

// checkWant checks shape against want (−1: any size in that axis).
func (z *NPZ) checkWant(name string, shape, want []int) error {
	ok := len(shape) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = want[i] < 0 || want[i] == shape[i]
	}
	if !ok {
		return fmt.Errorf("%w: %s: %s has shape %v, want %v (−1: any)", ErrBadData, z.path, name, shape, want)
	}
	return nil
}

// data reads the data of the array name, whose header is h.
func (z *NPZ) data(name string, h *npyHeader) ([]float64, error) {
	v, err := readData(z.members[name+".npy"], h)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s: %v", ErrBadData, z.path, name, err)
	}
	return v, nil
}

// Scalar reads a one-entry array (numpy's 0-d or shape (1,)) as float64.
func (z *NPZ) Scalar(name string) (float64, error) {
	if z.Has(name) {
		h, err := z.header(name)
		if err != nil {
			return 0, err
		}
		if h.entries != 1 {
			return 0, fmt.Errorf("%w: %s: %s has %d entries, want a scalar", ErrBadData, z.path, name, h.entries)
		}
	}
	v, _, err := z.Array(name)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// WriteNPZ writes arrays with their shapes (nil: one axis) to a new .npz
// file at path, for numpy-based implementations to read the same data:
// float64 arrays as numpy's dtype float64 ('<f8'), float32 arrays as
// float32 ('<f4'), the data of float32 pipelines. It is the one .npz
// writer: tests write their float32 files with it too.
func WriteNPZ[T float32 | float64](path string, arrays map[string][]T, shapes map[string][]int) error {
	w, err := npz.Create(path)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(arrays)) {
		if err := w.Write(name+".npy", denseOf(arrays[name], shapes[name])); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// denseOf returns v, of the given shape (nil: 1-d), as the nested slices
// npyio writes with that shape; at most three axes.
func denseOf[T float32 | float64](v []T, shape []int) any {
	switch len(shape) {
	case 0, 1:
		return v
	case 2:
		out := make([][]T, shape[0])
		for i := range out {
			out[i] = v[i*shape[1] : (i+1)*shape[1]]
		}
		return out
	case 3:
		out := make([][][]T, shape[0])
		m := shape[1] * shape[2]
		for i := range out {
			out[i] = denseOf(v[i*m:(i+1)*m], shape[1:]).([][]T)
		}
		return out
	}
	panic(fmt.Sprintf("problems: WriteNPZ of a %d-axis array", len(shape)))
}

// Start is a starting point (x, y) that a problem's data file may hold
// beside its data; a nil part is absent.
type Start struct{ X, Y []float64 }

// Or returns the parts of st, with x and y (a problem's own start) for
// the parts st lacks.
func (st Start) Or(x, y []float64) (x0, y0 []float64) {
	if st.X != nil {
		x = st.X
	}
	if st.Y != nil {
		y = st.Y
	}
	return x, y
}

// Array is one array of a problem's .npz file, for Read and SaveNPZ: a
// problem lists its arrays once, and both directions follow the list.
type Array struct {
	// Name is the array's name in the file, without ".npy".
	Name string
	// Shape names the array's axes by sizes, separated by '×' ("n×d"):
	// Read learns a size from the first array that has it and checks
	// every other axis of that name against it; "" is a scalar (one
	// entry, which SaveNPZ writes as a 1-d array).
	Shape string
	// Data is where Read puts the array and what SaveNPZ writes.
	Data *[]float64
	// Optional arrays may be absent: Read sets *Data to nil then, and
	// SaveNPZ leaves out a nil one.
	Optional bool
}

// Dims are the sizes that name the axes of Arrays ("n" → 100): Read
// fills in those it learns from the file, SaveNPZ takes the shapes from
// them.
type Dims map[string]int

// ReadNPZ reads arrays from the .npz file at path (OpenNPZ, then Read)
// and returns the sizes it learned.
func ReadNPZ(path string, arrays ...Array) (Dims, error) {
	z, err := OpenNPZ(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	dims := Dims{}
	return dims, z.Read(dims, arrays...)
}

// Check checks, from the zip directory and the arrays' headers alone,
// that the archive holds every array of arrays that is not Optional, that
// each header is one the member bears out, within MaxArrayBytes, and
// that the shapes agree with dims and with each other, adding the sizes
// it learns to dims. It reads no array's data: a file that is missing
// an array or contradicts itself fails before any memory is spent on it.
// Errors are Read's.
func (z *NPZ) Check(dims Dims, arrays ...Array) error {
	var missing []string
	for _, a := range arrays {
		if !a.Optional && !z.Has(a.Name) {
			missing = append(missing, a.Name)
		}
	}
	if missing != nil {
		return z.missing(missing...)
	}
	for _, a := range arrays {
		if !z.Has(a.Name) {
			continue
		}
		h, err := z.header(a.Name)
		if err != nil {
			return err
		}
		if a.Shape == "" {
			if h.entries != 1 {
				return fmt.Errorf("%w: %s: %s has %d entries, want a scalar", ErrBadData, z.path, a.Name, h.entries)
			}
			continue
		}
		axes := strings.Split(a.Shape, "×")
		want := make([]int, len(axes))
		for i, ax := range axes {
			want[i] = -1
			if n, ok := dims[ax]; ok {
				want[i] = n
			}
		}
		if err := z.checkWant(a.Name, h.shape, want); err != nil {
			return err
		}
		for i, ax := range axes {
			if n, ok := dims[ax]; ok && n != h.shape[i] {
				return fmt.Errorf("%w: %s: %s has shape %v, want %s", ErrBadData, z.path, a.Name, h.shape, a.Shape)
			}
			dims[ax] = h.shape[i]
		}
	}
	return nil
}

// Read checks arrays (Check) and then reads them in order into their
// Data, adding the sizes it learns to dims. A missing array that is not
// Optional, a shape that disagrees, a header that its member does not
// bear out (more or less data than the member holds, a member that
// expands beyond its declared size, a truncated or corrupt member), an
// array over MaxArrayBytes, a dtype that is not numeric (a pickled object
// array) or a non-finite entry is an error naming the file and the array
// and wrapping ErrBadData.
func (z *NPZ) Read(dims Dims, arrays ...Array) error {
	if err := z.Check(dims, arrays...); err != nil {
		return err
	}
	for _, a := range arrays {
		if !z.Has(a.Name) {
			*a.Data = nil
			continue
		}
		h, err := z.header(a.Name)
		if err != nil {
			return err
		}
		v, err := z.data(a.Name, h)
		if err != nil {
			return err
		}
		*a.Data = v
	}
	return nil
}

// SaveNPZ writes arrays to a new .npz file at path, each with the shape
// its axes' sizes in dims give (WriteNPZ), leaving out the Optional ones
// that are nil.
func SaveNPZ(path string, dims Dims, arrays ...Array) error {
	vals := map[string][]float64{}
	shapes := map[string][]int{}
	for _, a := range arrays {
		if a.Optional && *a.Data == nil {
			continue
		}
		vals[a.Name] = *a.Data
		if a.Shape == "" {
			continue
		}
		for _, ax := range strings.Split(a.Shape, "×") {
			shapes[a.Name] = append(shapes[a.Name], dims[ax])
		}
	}
	return WriteNPZ(path, vals, shapes)
}

// ReadTagged reads the .npz file at path into *v, a struct whose tags
// describe the file, so that a problem declares its file once, beside its
// data: each []float64 field tagged npz:"name" (npz:"name,optional" when
// it may be absent) and shape:"axes" is an Array read into the field, in
// field order (an embedded struct's fields in its place), and each int
// field tagged dim:"axis" receives that axis' size (0 when no array read
// has the axis). Errors are Read's.
// v must be a pointer to such a struct (else ReadTagged panics: a
// programming error, not bad data).
func ReadTagged(path string, v any) error {
	z, err := OpenNPZ(path)
	if err != nil {
		return err
	}
	defer z.Close()
	return z.ReadTagged(v)
}

// ReadTagged reads the archive into *v as the function ReadTagged does,
// for a problem that looks at the archive first.
func (z *NPZ) ReadTagged(v any) error {
	arrays, sizes := tagged(v)
	dims := Dims{}
	if err := z.Read(dims, arrays...); err != nil {
		return err
	}
	for ax, p := range sizes {
		*p = dims[ax]
	}
	return nil
}

// SaveTagged writes the arrays of *v, tagged as for ReadTagged, to a new
// .npz file at path (SaveNPZ), their shapes given by its dim fields.
func SaveTagged(path string, v any) error {
	arrays, sizes := tagged(v)
	dims := Dims{}
	for ax, p := range sizes {
		dims[ax] = *p
	}
	return SaveNPZ(path, dims, arrays...)
}

// tagged returns the arrays and the sizes' fields that the tags of the
// struct *v describe (ReadTagged).
func tagged(v any) ([]Array, map[string]*int) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("problems: %T is not a pointer to a struct", v))
	}
	var arrays []Array
	sizes := map[string]*int{}
	var walk func(s reflect.Value)
	walk = func(s reflect.Value) {
		for i := range s.NumField() {
			f, fv := s.Type().Field(i), s.Field(i)
			switch {
			case f.Anonymous && fv.Kind() == reflect.Struct:
				walk(fv)
			case f.Tag.Get("npz") != "":
				name, opt, _ := strings.Cut(f.Tag.Get("npz"), ",")
				arrays = append(arrays, Array{Name: name, Shape: f.Tag.Get("shape"),
					Data: fv.Addr().Interface().(*[]float64), Optional: opt == "optional"})
			case f.Tag.Get("dim") != "":
				sizes[f.Tag.Get("dim")] = fv.Addr().Interface().(*int)
			}
		}
	}
	walk(rv.Elem())
	return arrays, sizes
}

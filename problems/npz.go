package problems

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"codeberg.org/sbinet/npyio/npz"
)

// NPZ is a numpy .npz archive opened for reading float64 arrays, the
// format in which the problems exchange data with numpy-based
// implementations.
type NPZ struct {
	path string
	r    *npz.Reader
}

// OpenNPZ opens the .npz file at path.
func OpenNPZ(path string) (*NPZ, error) {
	r, err := npz.Open(path)
	if err != nil {
		// npz's message names the path, and the os error within it again:
		// keep the cause only, so the path is named once.
		cause := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			cause = pe.Err
		} else if u := errors.Unwrap(err); u != nil {
			cause = u
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrBadData, path, cause)
	}
	return &NPZ{path: path, r: r}, nil
}

// Close closes the archive.
func (z *NPZ) Close() error { return z.r.Close() }

// Has reports whether the archive holds the array name (without ".npy").
func (z *NPZ) Has(name string) bool { return slices.Contains(z.r.Keys(), name+".npy") }

// Names lists the arrays of the archive.
func (z *NPZ) Names() []string {
	var out []string
	for _, k := range z.r.Keys() {
		out = append(out, strings.TrimSuffix(k, ".npy"))
	}
	return out
}

// Array reads the array name as float64 in row-major order (a
// Fortran-ordered array is transposed) and returns it with its shape.
// Integer and float32 arrays are converted. want, when given, is the
// expected shape, with −1 for any size in that axis; a different shape,
// a missing array or a non-finite entry is an error wrapping ErrBadData.
func (z *NPZ) Array(name string, want ...int) ([]float64, []int, error) {
	key := name + ".npy"
	h := z.r.Header(key)
	if h == nil {
		return nil, nil, fmt.Errorf("%w: %s has no array %q (it has %v)", ErrBadData, z.path, name, z.Names())
	}
	shape := append([]int(nil), h.Descr.Shape...)
	if want != nil {
		ok := len(shape) == len(want)
		for i := 0; ok && i < len(want); i++ {
			ok = want[i] < 0 || want[i] == shape[i]
		}
		if !ok {
			return nil, nil, fmt.Errorf("%w: %s: %s has shape %v, want %v (−1: any)", ErrBadData, z.path, name, shape, want)
		}
	}
	v, err := z.read(key, h.Descr.Type)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %s: %v", ErrBadData, z.path, name, err)
	}
	n := 1
	for _, s := range shape {
		n *= s
	}
	if len(v) != n {
		return nil, nil, fmt.Errorf("%w: %s: %s has %d entries for shape %v", ErrBadData, z.path, name, len(v), shape)
	}
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil, fmt.Errorf("%w: %s: %s[%d] = %v", ErrBadData, z.path, name, i, x)
		}
	}
	if h.Descr.Fortran && len(shape) > 1 {
		v = fortranToRowMajor(v, shape)
	}
	return v, shape, nil
}

// Scalar reads a one-entry array (numpy's 0-d or shape (1,)) as float64.
func (z *NPZ) Scalar(name string) (float64, error) {
	v, _, err := z.Array(name)
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, fmt.Errorf("%w: %s: %s has %d entries, want a scalar", ErrBadData, z.path, name, len(v))
	}
	return v[0], nil
}

// read reads the array at key, converting numeric dtypes to float64.
func (z *NPZ) read(key, dtype string) ([]float64, error) {
	switch strings.Trim(dtype, "<>=|'") {
	case "f8":
		var v []float64
		return v, z.r.Read(key, &v)
	case "f4":
		return readAs[float32](z.r, key)
	case "i8":
		return readAs[int64](z.r, key)
	case "i4":
		return readAs[int32](z.r, key)
	case "u1":
		return readAs[uint8](z.r, key)
	}
	return nil, fmt.Errorf("dtype %s is not supported (want float64, float32, int64, int32 or uint8)", dtype)
}

func readAs[T float32 | int64 | int32 | uint8](r *npz.Reader, key string) ([]float64, error) {
	var v []T
	if err := r.Read(key, &v); err != nil {
		return nil, err
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out, nil
}

// fortranToRowMajor reorders column-major data of the given shape to
// row-major.
func fortranToRowMajor(v []float64, shape []int) []float64 {
	out := make([]float64, len(v))
	k := len(shape)
	idx := make([]int, k)
	for f := range v {
		// f is the column-major offset of idx; advance idx in that order.
		r := 0
		for a := 0; a < k; a++ {
			r = r*shape[a] + idx[a]
		}
		out[r] = v[f]
		for a := 0; a < k; a++ {
			idx[a]++
			if idx[a] < shape[a] {
				break
			}
			idx[a] = 0
		}
	}
	return out
}

// WriteNPZ writes float64 arrays with their shapes to a new .npz file at
// path, for numpy-based implementations to read the same data.
func WriteNPZ(path string, arrays map[string][]float64, shapes map[string][]int) error {
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
func denseOf(v []float64, shape []int) any {
	switch len(shape) {
	case 0, 1:
		return v
	case 2:
		out := make([][]float64, shape[0])
		for i := range out {
			out[i] = v[i*shape[1] : (i+1)*shape[1]]
		}
		return out
	case 3:
		out := make([][][]float64, shape[0])
		m := shape[1] * shape[2]
		for i := range out {
			out[i] = denseOf(v[i*m:(i+1)*m], shape[1:]).([][]float64)
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

// Read reads arrays in order into their Data, checking their shapes
// against dims and adding the sizes it learns to dims. A missing array
// that is not Optional, a shape that disagrees, or a non-finite entry is
// an error naming the array and wrapping ErrBadData.
func (z *NPZ) Read(dims Dims, arrays ...Array) error {
	for _, a := range arrays {
		if a.Optional && !z.Has(a.Name) {
			*a.Data = nil
			continue
		}
		if a.Shape == "" {
			v, err := z.Scalar(a.Name)
			if err != nil {
				return err
			}
			*a.Data = []float64{v}
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
		v, shape, err := z.Array(a.Name, want...)
		if err != nil {
			return err
		}
		for i, ax := range axes {
			if n, ok := dims[ax]; ok && n != shape[i] {
				return fmt.Errorf("%w: %s: %s has shape %v, want %s", ErrBadData, z.path, a.Name, shape, a.Shape)
			}
			dims[ax] = shape[i]
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

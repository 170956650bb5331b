// Package fuzzing turns a fuzzer's bytes into matrices for rhgd's fuzz
// targets: raw float64 bit patterns (NaN, ±Inf, subnormals, 1e308 — the
// inputs that find error-handling bugs) or moderate values (the inputs
// that find numerical ones), as the first byte chooses.
package fuzzing

import (
	"encoding/binary"
	"math"
)

// Source reads values from fuzz data; it yields zeros once the data runs
// out.
type Source struct {
	data []byte
	raw  bool
}

// New returns a Source over data: raw bit patterns when the first byte is
// odd, moderate values (multiples of 1/16 in [−8, 8), scaled by a power of
// two from the second byte) otherwise.
func New(data []byte) *Source {
	s := &Source{data: data}
	if len(data) > 0 {
		s.raw = data[0]&1 == 1
		s.data = data[1:]
	}
	return s
}

// Raw reports whether the source yields raw bit patterns.
func (s *Source) Raw() bool { return s.raw }

// Int returns a value in [lo, hi].
func (s *Source) Int(lo, hi int) int {
	var b byte
	if len(s.data) > 0 {
		b, s.data = s.data[0], s.data[1:]
	}
	return lo + int(b)%(hi-lo+1)
}

// Float returns the next value.
func (s *Source) Float() float64 {
	if s.raw {
		var b [8]byte
		n := copy(b[:], s.data)
		s.data = s.data[n:]
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	}
	var b [2]byte
	n := copy(b[:], s.data)
	s.data = s.data[n:]
	return math.Ldexp(float64(int8(b[0]))/16, int(int8(b[1]))/8)
}

// Matrix returns an r×c row-major matrix.
func (s *Source) Matrix(r, c int) []float64 {
	m := make([]float64, r*c)
	for i := range m {
		m[i] = s.Float()
	}
	return m
}

// Symmetric returns an n×n symmetric matrix (its upper triangle read,
// mirrored).
func (s *Source) Symmetric(n int) []float64 {
	m := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := s.Float()
			m[i*n+j], m[j*n+i] = v, v
		}
	}
	return m
}

// Finite reports whether every entry of v is finite.
func Finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// MaxAbs returns max |v_i|.
func MaxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// Package f32test makes test data the way float32 pipelines (the authors'
// code, PyTorch) make it: entries rounded to float32, and symmetric
// matrices symmetric only to float32 rounding. It imports nothing of
// rhgd's, so that the tests of every layer (the manifolds' as well as
// the problems' and the C ABI's) can use it; the problems' float32-data
// check is testkit.CheckF32 (problems/internal/testkit), and .npz files
// of float32 arrays are problems.WriteNPZ's, from Float32.
package f32test

import "math"

// Round returns x with every entry rounded to float32.
func Round(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(float32(v))
	}
	return out
}

// Float32 returns the arrays converted to float32 (rounded), for
// problems.WriteNPZ to write as numpy's float32 ('<f4').
func Float32(arrays map[string][]float64) map[string][]float32 {
	out := make(map[string][]float32, len(arrays))
	for name, a := range arrays {
		v := make([]float32, len(a))
		for i, x := range a {
			v[i] = float32(x)
		}
		out[name] = v
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

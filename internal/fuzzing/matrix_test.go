package fuzzing

import (
	"slices"
	"testing"
)

// TestTransposedProducts: on a 2×3 A and 3×2 B, aᵀ and the products with
// a transposed factor, against the products written out.
func TestTransposedProducts(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6} // 2×3
	b := []float64{7, 8, 9, 10, 11, 12}
	if got, want := Transpose(a, 2, 3), []float64{1, 4, 2, 5, 3, 6}; !slices.Equal(got, want) {
		t.Errorf("Transpose = %v, want %v", got, want)
	}
	// aᵀ (3×2) times b seen as 2×3: aᵀb is 3×3.
	if got, want := MulTPlain(a, b, 3, 2, 3), []float64{47, 52, 57, 64, 71, 78, 81, 90, 99}; !slices.Equal(got, want) {
		t.Errorf("MulTPlain = %v, want %v", got, want)
	}
	// a (2×3) times bᵀ with b seen as 2×3: abᵀ is 2×2.
	if got, want := MulPlainT(a, b, 2, 3, 2), []float64{50, 68, 122, 167}; !slices.Equal(got, want) {
		t.Errorf("MulPlainT = %v, want %v", got, want)
	}
}

// TestFromEigen: Qᵀ diag(λ) Q for a permutation Q and for the identity.
func TestFromEigen(t *testing.T) {
	if got, want := FromEigen([]float64{0, 1, 1, 0}, []float64{2, 3}), []float64{3, 0, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("FromEigen(swap) = %v, want %v", got, want)
	}
	if got, want := FromEigen(Eye(3), []float64{1, -2, 5}), []float64{1, 0, 0, 0, -2, 0, 0, 0, 5}; !slices.Equal(got, want) {
		t.Errorf("FromEigen(I) = %v, want %v", got, want)
	}
}

package karcher_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/karcher"
)

// TestFloat32Data: a .npz of float32 arrays, the B_i, C and y0 symmetric
// only to float32 rounding, is accepted: each is symmetrized, with a note,
// and a run from it agrees with the run from the float64 data to float32
// accuracy. A B_i clearly asymmetric, or a y0 that is not positive
// definite, is still rejected.
func TestFloat32Data(t *testing.T) {
	n, count := karcher.DefaultParams().N, karcher.DefaultParams().Count
	data, err := karcher.Generate(n, count, karcher.DefaultParams().Spread, 3)
	if err != nil {
		t.Fatal(err)
	}
	w := data.W
	if w == nil {
		w = make([]float64, count)
		for i := range w {
			w[i] = 1 / float64(count)
		}
	}
	x0 := make([]float64, n*n)
	arrays := func(b, c, y []float64) map[string][]float64 {
		return map[string][]float64{"B": b, "C": c, "w": w, "x0": x0, "y0": y}
	}
	shapes := map[string][]int{"B": {count, n, n}, "C": {n, n}, "x0": {n, n}, "y0": {n, n}}
	dir := t.TempDir()
	p64, p32 := filepath.Join(dir, "f64.npz"), filepath.Join(dir, "f32.npz")
	if err := problems.WriteNPZ(p64, arrays(data.B, data.C, data.C), shapes); err != nil {
		t.Fatal(err)
	}
	b32, c32 := f32test.Sym(data.B, n), f32test.Sym(data.C, n)
	if lapackx.Asymmetry(b32[:n*n], n) <= lapackx.SymTol || lapackx.Asymmetry(c32, n) <= lapackx.SymTol {
		t.Fatal("B_0 or C in float32 is symmetric to float64 rounding: the test does not exercise the projection")
	}
	if err := f32test.WriteNPZ(p32, arrays(b32, c32, c32), shapes); err != nil {
		t.Fatal(err)
	}

	in64, err := f32test.Build(t, karcher.Spec, p64)
	if err != nil || len(in64.Notes) != 0 {
		t.Fatalf("float64 data: err %v, notes %q", err, in64.Notes)
	}
	in32, err := f32test.Build(t, karcher.Spec, p32)
	if err != nil {
		t.Fatalf("float32 data rejected: %v", err)
	}
	if len(in32.Notes) != 3 || !strings.HasPrefix(in32.Notes[0], "B: 20 of the 20 matrices are asymmetric") ||
		!strings.HasPrefix(in32.Notes[1], "C is asymmetric") || !strings.HasPrefix(in32.Notes[2], "y0: ") {
		t.Fatalf("notes %q, want one each for B, C and y0", in32.Notes)
	}
	t.Logf("notes: %q", in32.Notes)
	r64, r32 := f32test.Run(t, in64, "hinv", 20), f32test.Run(t, in32, "hinv", 20)
	diff := f32test.RelDiff(r32.F, r64.F)
	t.Logf("F after 20 epochs: float64 data %.10g, float32 data %.10g, relative difference %.2g", r64.F, r32.F, diff)
	if diff > f32test.Agree {
		t.Errorf("the runs differ by %.3g relative", diff)
	}

	off := append([]float64(nil), b32...)
	off[3*n*n+1] += 1e-3 * off[3*n*n]
	if err := f32test.WriteNPZ(p32, arrays(off, c32, c32), shapes); err != nil {
		t.Fatal(err)
	}
	_, err = f32test.Build(t, karcher.Spec, p32)
	if !errors.Is(err, problems.ErrBadData) || !errors.Is(err, numerr.ErrNotSymmetric) || !strings.Contains(err.Error(), "B_3") {
		t.Errorf("B_3 asymmetric by 1e-3: %v", err)
	}
	t.Log(err)
	neg := append([]float64(nil), c32...)
	for i := 0; i < n; i++ {
		neg[i*n+i] = -neg[i*n+i]
	}
	if err := f32test.WriteNPZ(p32, arrays(b32, c32, neg), shapes); err != nil {
		t.Fatal(err)
	}
	if _, err = f32test.Build(t, karcher.Spec, p32); !errors.Is(err, numerr.ErrNotPosDef) || !strings.Contains(err.Error(), "y0") {
		t.Errorf("y0 negative definite: %v", err)
	}
}

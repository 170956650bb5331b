package synthetic_test

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/stiefel"
)

// TestFloat32Data: a .npz of float32 arrays, with W0 orthonormal and M0
// symmetric only to float32 rounding, is accepted: both are projected,
// with a note each, and a run from it agrees with the run from the float64
// data to float32 accuracy. A W0 or M0 clearly off is still rejected.
func TestFloat32Data(t *testing.T) {
	const n, d, r = synthetic.PaperN, synthetic.PaperD, synthetic.PaperR
	data, err := synthetic.Generate(n, d, r, synthetic.PaperNu, 3)
	if err != nil {
		t.Fatal(err)
	}
	p, err := synthetic.New(data)
	if err != nil {
		t.Fatal(err)
	}
	w0, _ := p.Start(4)
	m0 := make([]float64, d*d)
	p.SPD.RandPoint(m0, rand.New(rand.NewPCG(5, 5)))
	arrays := func(x, y, w, m []float64) map[string][]float64 {
		return map[string][]float64{"X": x, "Y": y, "W0": w, "M0": m, "nu": {data.Nu}}
	}
	shapes := map[string][]int{"X": {n, d}, "Y": {n, r}, "W0": {d, r}, "M0": {d, d}}
	dir := t.TempDir()
	p64, p32 := filepath.Join(dir, "f64.npz"), filepath.Join(dir, "f32.npz")
	if err := problems.WriteNPZ(p64, arrays(data.X, data.Y, w0, m0), shapes); err != nil {
		t.Fatal(err)
	}
	m32 := f32test.Sym(m0, d)
	if err := f32test.WriteNPZ(p32, arrays(data.X, data.Y, w0, m32), shapes); err != nil {
		t.Fatal(err)
	}
	if p.St.CheckPoint(f32test.Round(w0)) == nil || p.SPD.CheckPoint(m32) == nil {
		t.Fatal("W0 or M0 in float32 is a point to float64 rounding: the test does not exercise the projection")
	}

	in64, err := f32test.Build(t, synthetic.Spec, p64)
	if err != nil || len(in64.Notes) != 0 {
		t.Fatalf("float64 data: err %v, notes %q", err, in64.Notes)
	}
	in32, err := f32test.Build(t, synthetic.Spec, p32)
	if err != nil {
		t.Fatalf("float32 data rejected: %v", err)
	}
	if len(in32.Notes) != 2 || !strings.HasPrefix(in32.Notes[0], "W0: ‖XᵀX − I‖_F") || !strings.HasPrefix(in32.Notes[1], "M0: ") {
		t.Fatalf("notes %q, want one for W0 and one for M0", in32.Notes)
	}
	t.Logf("notes: %q", in32.Notes)
	r64, r32 := f32test.Run(t, in64, "hinv", 20), f32test.Run(t, in32, "hinv", 20)
	diff := f32test.RelDiff(r32.F, r64.F)
	t.Logf("F after 20 epochs: float64 data %.10g, float32 data %.10g, relative difference %.2g", r64.F, r32.F, diff)
	if diff > f32test.Agree {
		t.Errorf("the runs differ by %.3g relative", diff)
	}

	w := append([]float64(nil), w0...)
	w[0] += 0.01
	if err := f32test.WriteNPZ(p32, arrays(data.X, data.Y, w, m32), shapes); err != nil {
		t.Fatal(err)
	}
	_, err = f32test.Build(t, synthetic.Spec, p32)
	if !errors.Is(err, problems.ErrBadData) || !errors.Is(err, stiefel.ErrNotOrthonormal) || !strings.Contains(err.Error(), "W0") {
		t.Errorf("W0 off by 0.01: %v", err)
	}
	m := append([]float64(nil), m32...)
	m[1] += 1e-3 * m[0]
	if err := f32test.WriteNPZ(p32, arrays(data.X, data.Y, w0, m), shapes); err != nil {
		t.Fatal(err)
	}
	_, err = f32test.Build(t, synthetic.Spec, p32)
	if !errors.Is(err, problems.ErrBadData) || !strings.Contains(err.Error(), "M0") || !strings.Contains(err.Error(), "beyond float32 rounding") {
		t.Errorf("M0 asymmetric by 1e-3: %v", err)
	}
	t.Log(err)
}

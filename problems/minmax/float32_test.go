package minmax_test

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/minmax"
	"github.com/rhgd/rhgd/stiefel"
)

// TestFloat32Data: a .npz of float32 arrays, A symmetric, X0 orthonormal
// and Y0 symmetric only to float32 rounding, is accepted: each is
// projected, with a note, and a run from it agrees with the run from the
// float64 data to float32 accuracy. Inputs clearly off are still rejected.
func TestFloat32Data(t *testing.T) {
	n, p := minmax.DefaultParams().N, minmax.DefaultParams().P
	data, err := minmax.Generate(n, p, minmax.DefaultParams().Cond, minmax.DefaultParams().Gap, 3)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := minmax.New(data)
	if err != nil {
		t.Fatal(err)
	}
	x0, sy := pr.Start(4)
	// Y0 = Q diag(μ) Qᵀ/λ_max(X0ᵀAX0), μ in [½, 1], Q a random rotation: a
	// full SPD matrix where the lower iteration converges (package doc).
	q := make([]float64, p*p)
	stiefel.New(p, p).RandPoint(q, rand.New(rand.NewPCG(5, 5)))
	y0 := make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			for k := 0; k < p; k++ {
				y0[i*p+j] += q[i*p+k] * (0.5 + 0.5*float64(k)/float64(p)) * q[j*p+k] * sy[0]
			}
		}
	}
	lapackx.Symmetrize(y0, p)
	arrays := func(a, x, y []float64) map[string][]float64 { return map[string][]float64{"A": a, "X0": x, "Y0": y} }
	shapes := map[string][]int{"A": {n, n}, "X0": {n, p}, "Y0": {p, p}}
	dir := t.TempDir()
	p64, p32 := filepath.Join(dir, "f64.npz"), filepath.Join(dir, "f32.npz")
	if err := problems.WriteNPZ(p64, arrays(data.A, x0, y0), shapes); err != nil {
		t.Fatal(err)
	}
	a32, y32 := f32test.Sym(data.A, n), f32test.Sym(y0, p)
	if lapackx.Asymmetry(a32, n) <= lapackx.SymTol || pr.St.CheckPoint(f32test.Round(x0)) == nil || pr.SPD.CheckPoint(y32) == nil {
		t.Fatal("A, X0 or Y0 in float32 meets its constraint to float64 rounding: the test does not exercise the projection")
	}
	if err := f32test.WriteNPZ(p32, arrays(a32, x0, y32), shapes); err != nil {
		t.Fatal(err)
	}

	in64, err := f32test.Build(t, minmax.Spec, p64)
	if err != nil || len(in64.Notes) != 0 {
		t.Fatalf("float64 data: err %v, notes %q", err, in64.Notes)
	}
	in32, err := f32test.Build(t, minmax.Spec, p32)
	if err != nil {
		t.Fatalf("float32 data rejected: %v", err)
	}
	if len(in32.Notes) != 3 || !strings.HasPrefix(in32.Notes[0], "A is asymmetric") ||
		!strings.HasPrefix(in32.Notes[1], "X0: ") || !strings.HasPrefix(in32.Notes[2], "Y0: ") {
		t.Fatalf("notes %q, want one each for A, X0 and Y0", in32.Notes)
	}
	t.Logf("notes: %q", in32.Notes)
	r64, r32 := f32test.Run(t, in64, "gda", 20), f32test.Run(t, in32, "gda", 20)
	diff := f32test.RelDiff(r32.F, r64.F)
	t.Logf("F after 20 epochs: float64 data %.10g, float32 data %.10g, relative difference %.2g", r64.F, r32.F, diff)
	if diff > f32test.Agree {
		t.Errorf("the runs differ by %.3g relative", diff)
	}

	off := append([]float64(nil), a32...)
	off[1] += 1e-3 * off[0]
	if err := f32test.WriteNPZ(p32, arrays(off, x0, y32), shapes); err != nil {
		t.Fatal(err)
	}
	_, err = f32test.Build(t, minmax.Spec, p32)
	if !errors.Is(err, problems.ErrBadData) || !errors.Is(err, numerr.ErrNotSymmetric) || !strings.Contains(err.Error(), "beyond float32 rounding") {
		t.Errorf("A asymmetric by 1e-3: %v", err)
	}
	t.Log(err)
	x := append([]float64(nil), x0...)
	x[0] += 0.01
	if err := f32test.WriteNPZ(p32, arrays(a32, x, y32), shapes); err != nil {
		t.Fatal(err)
	}
	if _, err = f32test.Build(t, minmax.Spec, p32); !errors.Is(err, stiefel.ErrNotOrthonormal) || !strings.Contains(err.Error(), "X0") {
		t.Errorf("X0 off by 0.01: %v", err)
	}
}

package domainadapt_test

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/rhgd/rhgd/internal/f32test"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/domainadapt"
)

// TestFloat32Data: features written to a .npz in float32 load as they
// are (the problem's only constrained inputs, the marginals, are its
// own), with no note, and a run from them agrees with the run from the
// float64 file to float32 accuracy.
func TestFloat32Data(t *testing.T) {
	// Random features of 40 source and 50 target samples in R^8, labels
	// in 1..3.
	rnd := rand.New(rand.NewPCG(3, 3))
	data := &domainadapt.Data{N: 40, M: 50, D: 8}
	for range data.N * data.D {
		data.X = append(data.X, 0.25*rnd.NormFloat64())
	}
	for range data.M * data.D {
		data.Y = append(data.Y, 0.25*rnd.NormFloat64())
	}
	for range data.N {
		data.SourceLabels = append(data.SourceLabels, 1+rnd.IntN(3))
	}
	for range data.M {
		data.TargetLabels = append(data.TargetLabels, 1+rnd.IntN(3))
	}
	labels := func(l []int) []float64 {
		v := make([]float64, len(l))
		for i, x := range l {
			v[i] = float64(x)
		}
		return v
	}
	arrays := map[string][]float64{"X": data.X, "Y": data.Y, "Xlabels": labels(data.SourceLabels), "Ylabels": labels(data.TargetLabels)}
	shapes := map[string][]int{"X": {data.N, data.D}, "Y": {data.M, data.D}}
	dir := t.TempDir()
	p64, p32 := filepath.Join(dir, "f64.npz"), filepath.Join(dir, "f32.npz")
	if err := problems.WriteNPZ(p64, arrays, shapes); err != nil {
		t.Fatal(err)
	}
	if err := f32test.WriteNPZ(p32, arrays, shapes); err != nil {
		t.Fatal(err)
	}
	in64, err := f32test.Build(t, domainadapt.Spec, p64)
	if err != nil {
		t.Fatal(err)
	}
	in32, err := f32test.Build(t, domainadapt.Spec, p32)
	if err != nil || len(in32.Notes) != 0 {
		t.Fatalf("float32 data: err %v, notes %q", err, in32.Notes)
	}
	r64, r32 := f32test.Run(t, in64, "hinv", 5), f32test.Run(t, in32, "hinv", 5)
	diff := f32test.RelDiff(r32.F, r64.F)
	t.Logf("F after 5 epochs: float64 data %.10g, float32 data %.10g, relative difference %.2g", r64.F, r32.F, diff)
	if diff > f32test.Agree {
		t.Errorf("the runs differ by %.3g relative", diff)
	}
}

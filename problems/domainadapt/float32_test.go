package domainadapt_test

import (
	"math/rand/v2"
	"testing"

	"github.com/rhgd/rhgd/problems/domainadapt"
	"github.com/rhgd/rhgd/problems/internal/testkit"
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
	testkit.CheckF32(t, testkit.F32Case{Spec: domainadapt.Spec, F64: arrays, F32: arrays,
		Shapes: map[string][]int{"X": {data.N, data.D}, "Y": {data.M, data.D}}, Estimator: "hinv", Epochs: 5})
}

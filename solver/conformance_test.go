package solver_test

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/problemtest"
	"github.com/rhgd/rhgd/solver"
)

// TestConformance runs the problem suite on this package's test problems
// and on the problems its wrappers build.
func TestConformance(t *testing.T) {
	t.Run("quadratic", func(t *testing.T) {
		_, p, _, _, x0, _ := quadSetup(50)
		problemtest.Run(t, p, problemtest.Config{X: x0, Y: []float64{1, -1, 0.5, 0, 0.2, 2}, Seed: 1})
	})
	t.Run("finite-sum", func(t *testing.T) {
		s, _, _, x0, y0 := squadSetup(51)
		y0[0] = 1
		problemtest.Run(t, s.problem(), problemtest.Config{X: x0, Y: y0, Seed: 2})
	})
	t.Run("fd(spd-lower)", func(t *testing.T) {
		problemtest.Run(t, solver.FillFD(spdLower(), 0), problemtest.Config{X: []float64{0.5}, Y: []float64{2, 0.3, 0.3, 1}, EtaY: 0.3, Seed: 3})
	})
	t.Run("minmax", func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(52, 52))
		c := mat.NewDense(3, 4, nil)
		c.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, c)
		s := &saddle{P: spdMat(rnd, 3, 1, 2), C: c, Q: spdMat(rnd, 4, 1, 3), d: mat.NewVecDense(3, []float64{1, 0, -1})}
		p := solver.MinMax(on(s.problem(), euclid.New(3, 1), euclid.New(4, 1)))
		problemtest.Run(t, p, problemtest.Config{X: []float64{0.3, -0.7, 0.2}, Y: []float64{1, 2, 0, -1}, EtaY: 0.3, Seed: 5})
	})
	t.Run("compositional", func(t *testing.T) {
		c := newLogdetComp(rand.New(rand.NewPCG(53, 53)), 3, 4)
		p, err := solver.Compositional(c.problem(), euclid.New(4, 1), c.m)
		if err != nil {
			t.Fatal(err)
		}
		x := []float64{0.1, -0.2, 0.05, 0.1}
		y := make([]float64, 9)
		if err := c.phi(y, []float64{0, 0, 0, 0}); err != nil {
			t.Fatal(err)
		}
		problemtest.Run(t, p, problemtest.Config{X: x, Y: y, EtaY: 0.5, Seed: 4})
	})
}

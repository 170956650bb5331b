package bench

import (
	"math"
	"math/rand/v2"

	"github.com/rhgd/rhgd/coupling"
)

// couplingTol is the relative L1 marginal error both Sinkhorn solvers
// balance to: the retraction's default.
const couplingTol = 1e-13

// couplingCases are the Sinkhorn retraction of the doubly stochastic
// manifold Π(a, b) at a random n×n point along a random tangent (against
// POT's log-domain Sinkhorn on the same kernel) and its tangent
// projection.
func couplingCases(n int) []Case {
	setup := func(dir string) (*coupling.Coupling, []float64, []float64, *inputs, error) {
		rnd := rand.New(rand.NewPCG(uint64(n), 7))
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i], b[i] = 0.5+rnd.Float64(), 0.5+rnd.Float64()
		}
		normalize(a)
		normalize(b)
		c, err := coupling.New(a, b)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		c.Sinkhorn.Tol = couplingTol
		x, u := make([]float64, n*n), make([]float64, n*n)
		c.RandPoint(x, rnd)
		c.RandTangent(u, x, rnd)
		logK := make([]float64, n*n)
		for i := range logK {
			logK[i] = math.Log(x[i]) + u[i]/x[i]
		}
		in := newInputs(dir)
		in.add("a", a, n, 0)
		in.add("b", b, n, 0)
		in.add("logk", logK, n, n)
		return c, x, u, in, in.err
	}
	size, nn := sizeN(n), float64(n)
	return []Case{
		{Group: "coupling", Op: "sinkhorn", Size: size, N: nn, FlopCount: "k·n² (k iterations)", Exponent: 2,
			Peers: []string{"pot.sinkhorn_log"}, Params: map[string]any{"tol": couplingTol},
			Prepare: func(dir string) (*Prepared, error) {
				c, x, u, in, err := setup(dir)
				if err != nil {
					return nil, err
				}
				y := make([]float64, n*n)
				return &Prepared{Files: in.files, Output: func() []float64 { return y }, Run: func() error { return c.Retract(y, x, u, 1) }}, nil
			}},
		{Group: "coupling", Op: "project", Size: size, N: nn, FlopCount: "k·n² (k CG iterations)", Exponent: 2,
			Prepare: func(dir string) (*Prepared, error) {
				c, x, _, in, err := setup(dir)
				if err != nil {
					return nil, err
				}
				z, y := gaussian(rand.New(rand.NewPCG(uint64(n), 8)), n*n, 1), make([]float64, n*n)
				return &Prepared{Files: in.files, Run: func() error { c.Project(y, x, z); return nil }}, nil
			}},
	}
}

func normalize(v []float64) {
	var s float64
	for _, x := range v {
		s += x
	}
	for i := range v {
		v[i] /= s
	}
}

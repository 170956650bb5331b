package spectral

import (
	"math"
	"math/rand/v2"

	"github.com/rhgd/rhgd/lapackx"
)

// randSPD returns expm(sym(s·G)) for a standard normal n×n G.
func randSPD(n int, s float64, rnd *rand.Rand) []float64 {
	g := make([]float64, n*n)
	for i := range g {
		g[i] = s * rnd.NormFloat64()
	}
	lapackx.Symmetrize(g, n)
	if err := lapackx.NewSymFunc(n).Exp(g, g); err != nil {
		panic(err)
	}
	return g
}

// randSym returns a symmetric n×n matrix with standard normal entries.
func randSym(n int, rnd *rand.Rand) []float64 {
	g := make([]float64, n*n)
	for i := range g {
		g[i] = rnd.NormFloat64()
	}
	lapackx.Symmetrize(g, n)
	return g
}

// relErr returns ‖a − b‖_F / ‖b‖_F (‖a − b‖_F when b = 0).
func relErr(a, b []float64) float64 {
	var n, d float64
	for i := range a {
		n += (a[i] - b[i]) * (a[i] - b[i])
		d += b[i] * b[i]
	}
	if d == 0 {
		return math.Sqrt(n)
	}
	return math.Sqrt(n / d)
}

// frob returns ⟨a, b⟩_F.
func frob(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

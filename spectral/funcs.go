package spectral

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/rhgd/rhgd/lapackx"
)

// ReEig returns SPDNet's rectifying function x ↦ max(ε, x) (Huang and Van
// Gool, AAAI 2017), as a lapackx.Func for Batch and lapackx.SymFunc. It
// panics unless ε is finite. Asked for the threshold of its previous
// call, it returns that function again without allocating.
//
// Its divided differences are exact, so the Daleckii–Krein formula needs no
// care for close eigenvalues:
//
//	f[x, y] = 1                    for x, y > ε,
//	f[x, y] = 0                    for x, y ≤ ε,
//	f[x, y] = (x − ε)/(x − y)      for x > ε ≥ y (in (0, 1], no cancellation),
//
// and on the diagonal (x = y) the derivative f′(x) = 1 for x > ε and 0 for
// x ≤ ε. At the kink x = ε, where f has no derivative, this takes the
// subgradient 0 (any value in [0, 1] is one), the choice of the SPDNet
// code (its mask λ > ε). With it Df(A)[E] is the directional derivative
// whenever no eigenvalue equals ε exactly, and at a kink it is the
// derivative of the branch that keeps the eigenvalue at ε.
func ReEig(eps float64) lapackx.Func {
	if math.IsNaN(eps) || math.IsInf(eps, 0) {
		panic(fmt.Sprintf("spectral: ReEig threshold %v is not finite", eps))
	}
	if last := reEigLast.Load(); last != nil && math.Float64bits(last.eps) == math.Float64bits(eps) {
		return last.f
	}
	f := lapackx.Func(reEig{eps}) // boxing the threshold allocates
	reEigLast.Store(&reEigMade{eps, f})
	return f
}

// reEigLast is the last function ReEig made: a layer, or the C ABI's
// rhgd_spectral_reeig_batch, that asks for the same threshold on every
// call gets it again without allocating.
var reEigLast atomic.Pointer[reEigMade]

type reEigMade struct {
	eps float64
	f   lapackx.Func
}

type reEig struct{ eps float64 }

// Eval is max(ε, x); Positive is false: ReEig takes any real argument.
func (r reEig) Eval(x float64) float64 { return math.Max(r.eps, x) }
func (reEig) Positive() bool           { return false }

// DivDiff is the exact divided difference described at ReEig.
func (r reEig) DivDiff(x, y float64) float64 {
	xa, ya := x > r.eps, y > r.eps
	switch {
	case xa && ya:
		return 1
	case !xa && !ya:
		return 0
	case xa: // x > ε ≥ y, so x − y ≥ x − ε > 0
		return (x - r.eps) / (x - y)
	}
	return (y - r.eps) / (y - x)
}

// Threshold returns ε of a function made by ReEig, and false for any other
// function.
func Threshold(f lapackx.Func) (float64, bool) {
	r, ok := f.(reEig)
	return r.eps, ok
}

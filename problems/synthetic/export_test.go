package synthetic

import (
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/solver"
)

// Kept reports whether p holds M's Cholesky factor and A M for pt's M.
func Kept(p *Problem, pt *solver.Point) (factor, am bool) {
	i := p.ring.Find(pt)
	if i < 0 {
		return false, false
	}
	h := p.slots[i].have
	return h&hasL != 0, h&hasAM != 0
}

// SetMAMGramCutoff sets the order from which M A M is a Gram matrix and
// returns the function that restores the old one.
func SetMAMGramCutoff(n int) (restore func()) {
	old := mamGramCutoff
	mamGramCutoff = n
	return func() { mamGramCutoff = old }
}

// MAMUpper is GradGy's Gram product alone: the upper triangle of
// dst = M A M.
func MAMUpper(p *Problem, dst, m []float64) { p.mamUpper(dst, m, p.dd[0]) }

// SetMixedEig sets the eigensolver of HessGyInv with the float32 lower
// steps on: "float64" (EigSym), "refined" (RefinedEigSym: float32 refined
// to float64) or "float32" (EigSym32, the default).
func SetMixedEig(p *Problem, kind string) {
	switch kind {
	case "float64":
		p.mix.eig = nil
	case "refined":
		p.mix.eig = lapackx.NewRefinedEigSym(p.d)
	case "float32":
		p.mix.eig = lapackx.NewEigSym32(p.d)
	default:
		panic(kind)
	}
}

// HInvEig is HessGyInv's eigendecomposition of the lower triangle of k
// (hinvEig).
func HInvEig(p *Problem, k []float64) (lam, q []float64, err error) {
	lam, q, _, err = p.hinvEig(k)
	return lam, q, err
}

// SetMixedTail turns HessGyInv's float32 tail (hinvTail32) on or off.
func SetMixedTail(p *Problem, on bool) { p.mix.tail = on }

// EigSym64 returns p's float64 eigensolver.
func EigSym64(p *Problem) *lapackx.EigSym { return p.eig }

package synthetic

import "github.com/rhgd/rhgd/solver"

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

package synthetic

import "github.com/rhgd/rhgd/solver"

// mslot is the work kept for one M: its Cholesky factor L, M⁻¹ and A M,
// each filled on demand (have).
type mslot struct {
	l, minv, am []float64
	have        mparts
}

// mparts lists the parts of an mslot that hold values.
type mparts uint8

const (
	hasL mparts = 1 << iota
	hasInv
	hasAM
)

// Retain keeps the per-M work (A M, the Cholesky factor and M⁻¹) of at
// least n points, one slot (3d² floats) each, where one is kept by
// default; it is solver.Problem.Retain, which a solver calls when its
// estimator revisits the lower iterates (AD: n = S+1). The lower steps then
// also keep each iterate's factor from the SPD retraction, so the reverse
// pass neither factors nor multiplies by A again. It allocates and forgets
// every kept value when n exceeds the slots there are.
func (p *Problem) Retain(n int) {
	if n <= len(p.slots) {
		return
	}
	d := p.d
	for len(p.slots) < n {
		p.slots = append(p.slots, mslot{l: make([]float64, d*d), minv: make([]float64, d*d), am: make([]float64, d*d)})
	}
	p.ring.Resize(n)
	for i := range p.slots {
		p.slots[i].have = 0
	}
}

// slot returns the slot of pt's M, taking the oldest one (emptied) when no
// slot holds M.
func (p *Problem) slot(pt *solver.Point) *mslot {
	i := p.ring.Find(pt)
	if i < 0 {
		i = p.ring.Take()
		p.slots[i].have = 0
		p.ring.Store(i, pt)
	}
	return &p.slots[i]
}

// keepFactor copies M's Cholesky factor into its slot when the SPD
// manifold holds it (M is the last retraction's result), for a reverse
// pass that comes back to M.
func (p *Problem) keepFactor(pt *solver.Point) {
	s := p.slot(pt)
	if s.have&hasL != 0 {
		return
	}
	if cl := p.SPD.CachedFactor(pt.Y); cl != nil {
		copy(s.l, cl)
		s.have |= hasL
	}
}

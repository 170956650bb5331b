package solver

import (
	"fmt"
	"math/rand/v2"
)

// Batches are the minibatch sizes of RSHGD (paper, Algorithm 2), for
// problems with NF and NG components. Each is drawn afresh, uniformly with
// replacement, where the algorithm says; a zero size means the whole set,
// in order, without sampling. The zero value gives RHGD on the full
// averages.
type Batches struct {
	// Lower is |B1|, the components of g in each lower step's gradient.
	Lower int
	// Upper is |B2|, the components of f in grad_x f and grad_y f.
	Upper int
	// Cross is |B3|, the components of g in the cross derivative (and in
	// grad_x g where it fills the cross derivative by differences).
	Cross int
	// Hess is |B4|, the components of g in the Hessian products or the
	// inverse Hessian (and in grad_y g where it fills them by differences).
	Hess int
	// Report is the number of components of f in the objective value
	// reported each epoch and used to keep the best iterate; zero means
	// all NF, an exact value at the price of a full pass.
	Report int
}

// batchSel names one of the batches.
type batchSel int

const (
	lowerBatch  batchSel = iota // B1
	upperBatch                  // B2
	crossBatch                  // B3
	hessBatch                   // B4
	reportBatch                 // f's reported value
	numBatches
)

// batch is one batch with its identity.
type batch struct {
	idx     []int
	id      uint64
	sampled bool // drawn afresh; otherwise the whole set, fixed
	n       int  // components to draw from
}

// sampler holds the current batches of a run on a finite-sum problem. A
// batch that is not sampled is the whole set as an explicit list (nil for
// a side, f or g, that is not a finite sum).
type sampler struct {
	pcg  *rand.PCG
	rnd  *rand.Rand
	seed uint64
	b    [numBatches]batch
}

func newSampler(nf, ng int, bs Batches, seed uint64) (*sampler, error) {
	sizes := [numBatches]int{bs.Lower, bs.Upper, bs.Cross, bs.Hess, bs.Report}
	counts := [numBatches]int{ng, nf, ng, ng, nf}
	for i, n := range sizes {
		if n < 0 {
			return nil, fmt.Errorf("%w: negative batch size in %+v", ErrBadSetting, bs)
		}
		if n > 0 && counts[i] <= 0 {
			return nil, fmt.Errorf("%w: batches %+v for a problem with NF = %d, NG = %d components", ErrBadSetting, bs, nf, ng)
		}
	}
	pcg := rand.NewPCG(0, 0) // seeded by reset
	s := &sampler{pcg: pcg, rnd: rand.New(pcg), seed: seed}
	for i, size := range sizes {
		b := &s.b[i]
		b.n = counts[i]
		if size > 0 {
			b.idx, b.sampled = make([]int, size), true
			continue
		}
		if counts[i] == 0 {
			continue // not a finite sum: nil, all of it
		}
		b.idx, b.id = make([]int, counts[i]), NewID()
		for k := range b.idx {
			b.idx[k] = k
		}
	}
	return s, nil
}

// reset restarts the random stream, so that runs repeat.
func (s *sampler) reset() { s.pcg.Seed(s.seed, samplerStream) }

func (s *sampler) draw(sel batchSel) {
	b := &s.b[sel]
	if !b.sampled {
		return
	}
	for i := range b.idx {
		b.idx[i] = s.rnd.IntN(b.n)
	}
	b.id = NewID()
}

// lowerStep draws B1 for one lower step.
func (s *sampler) lowerStep() { s.draw(lowerBatch) }

// upperStep draws B2, B3, B4 and the report batch for one estimate.
func (s *sampler) upperStep() {
	s.draw(upperBatch)
	s.draw(crossBatch)
	s.draw(hessBatch)
	s.draw(reportBatch)
}

// get returns the current batch sel and its identity.
func (s *sampler) get(sel batchSel) ([]int, uint64) { return s.b[sel].idx, s.b[sel].id }

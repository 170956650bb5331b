package spdnet

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spectral"
)

// Accuracy returns the percentage of validation matrices whose largest
// logit φ_i(W)ᵀγ is their class: the upper level's classifier at (W, γ).
func (p *Problem) Accuracy(w, gamma []float64) (float64, error) {
	if len(w) != p.Mx.Len() || len(gamma) != p.Eu.Len() {
		panic("spdnet: Accuracy: dimension mismatch")
	}
	p.accPt = solver.Point{X: w, Y: gamma}
	s := p.val
	if err := p.prepare(s, &p.accPt); err != nil {
		return 0, err
	}
	return 100 * float64(correct(s, p.c)) / float64(s.n), nil
}

// correct counts the samples whose largest probability is at their label,
// after prepare on the whole set.
func correct(s *set, c int) int {
	var ok int
	for i := 0; i < s.n; i++ {
		pi := s.p[i*c : (i+1)*c]
		best := 0
		for k, x := range pi {
			if x > pi[best] {
				best = k
			}
		}
		if best == s.y[i] {
			ok++
		}
	}
	return ok
}

// BaselineAccuracy returns the percentage of validation matrices whose
// nearest training matrix in the log-Euclidean distance ‖log A − log B‖_F
// has their class (1-NN on the same split), the single-level baseline the
// data README quotes (about 89% mean over random splits). The logarithms of
// all matrices are one batch (spectral.Batch, on LAPACK at this order).
func (p *Problem) BaselineAccuracy() (float64, error) {
	d := p.d
	logs := func(s *set) ([]float64, error) {
		b := spectral.NewBatch(d, s.n)
		out := make([]float64, s.n*d*d)
		if err := b.Factorize(s.a, s.n); err != nil {
			return nil, err
		}
		if err := b.Apply(out, lapackx.LogFunc); err != nil {
			return nil, err
		}
		return out, nil
	}
	lt, err := logs(p.tr)
	if err != nil {
		return 0, fmt.Errorf("spdnet: baseline: %w", err)
	}
	lv, err := logs(p.val)
	if err != nil {
		return 0, fmt.Errorf("spdnet: baseline: %w", err)
	}
	ok := 0
	for i := 0; i < p.val.n; i++ {
		vi := lv[i*d*d : (i+1)*d*d]
		best, bestD := -1, math.Inf(1)
		for j := 0; j < p.tr.n; j++ {
			var dist float64
			for k, x := range lt[j*d*d : (j+1)*d*d] {
				dist += (x - vi[k]) * (x - vi[k])
			}
			if dist < bestD {
				best, bestD = j, dist
			}
		}
		if p.tr.y[best] == p.val.y[i] {
			ok++
		}
	}
	return 100 * float64(ok) / float64(p.val.n), nil
}

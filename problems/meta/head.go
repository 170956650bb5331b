package meta

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems/internal/softmax"
)

// The task heads: multinomial logistic regression on features φ (rows of
// q entries, the last the constant 1 of the bias) with a head W ∈ R^{q×c}
// (row-major), logits Wᵀφ, cross-entropy CE = log Σ_k exp(z_k) − z_y.
// These helpers work on the rows of one task; scale is the weight of each
// row (1/S for the support set's average, 1/(MQ) for the queries in f).

// probs sets the c probabilities of each row (pr, rows × c) and returns
// Σ CE over the rows; wt (q·c) is scratch for Wᵀ.
func probs(pr, phi []float64, rows, labels []int, w, wt []float64, q, c int) float64 {
	softmax.Transpose(wt, w, q, c)
	var loss float64
	for r, i := range rows {
		loss += softmax.Probs(pr[r*c:(r+1)*c], phi[i*q:(i+1)*q], wt, labels[r])
	}
	return loss
}

// addGrad adds scale·Σ φ (p − e_y)ᵀ to dst (q×c).
func addGrad(dst, phi []float64, rows, labels []int, pr []float64, q, c int, scale float64) {
	for r, i := range rows {
		softmax.AddGrad(dst, phi[i*q:(i+1)*q], pr[r*c:(r+1)*c], labels[r], scale)
	}
}

// addHess adds scale·Σ φ ((diag p − ppᵀ) Vᵀφ)ᵀ to dst (q×c); u and r are
// c-vector scratch.
func addHess(dst, phi []float64, rows []int, pr, v []float64, q, c int, scale float64, u, r []float64) {
	for ri, i := range rows {
		softmax.AddHess(dst, phi[i*q:(i+1)*q], pr[ri*c:(ri+1)*c], v, scale, u, r)
	}
}

// formHess sets h (qc×qc) to scale·Σ (φφᵀ) ⊗ (diag p − ppᵀ) + λI.
func formHess(h, phi []float64, rows []int, pr []float64, q, c int, scale, lambda float64) {
	clear(h)
	for ri, i := range rows {
		softmax.AddHessBlocks(h, phi[i*q:(i+1)*q], pr[ri*c:(ri+1)*c], scale)
	}
	softmax.FinishHess(h, q*c, lambda)
}

// headSolver minimizes (1/S) Σ CE + λ/2‖W‖² over one task's support rows
// by Newton's method with conjugate-gradient steps (the Hessian applied
// through addHess, O(Sqc) per product) and a backtracking line search. It
// owns its scratch; it is not safe for concurrent use.
type headSolver struct {
	q, c                          int
	lambda                        float64
	pr                            []float64 // rows × c
	g, d, r, pv, hp, w2, u, s, wt []float64
}

func newHeadSolver(q, c, maxRows int, lambda float64) *headSolver {
	qc := q * c
	h := &headSolver{q: q, c: c, lambda: lambda, pr: make([]float64, maxRows*c)}
	for _, v := range []*[]float64{&h.g, &h.d, &h.r, &h.pv, &h.hp, &h.w2, &h.wt} {
		*v = make([]float64, qc)
	}
	h.u, h.s = make([]float64, c), make([]float64, c)
	return h
}

// headMaxIter bounds the Newton iterations of a head solve.
const headMaxIter = 50

// value returns the objective at w and leaves the probabilities in h.pr.
func (h *headSolver) value(w, phi []float64, rows, labels []int) float64 {
	loss := probs(h.pr, phi, rows, labels, w, h.wt, h.q, h.c) / float64(len(rows))
	return loss + 0.5*h.lambda*floats.Dot(w, w)
}

// gradient sets h.g at w (after value at w) and returns its norm.
func (h *headSolver) gradient(w, phi []float64, rows, labels []int) float64 {
	for j, x := range w {
		h.g[j] = h.lambda * x
	}
	addGrad(h.g, phi, rows, labels, h.pr, h.q, h.c, 1/float64(len(rows)))
	return math.Sqrt(floats.Dot(h.g, h.g))
}

// solve minimizes from the w given, in place, until ‖∇‖ ≤ tol.
func (h *headSolver) solve(w, phi []float64, rows, labels []int, tol float64) error {
	f := h.value(w, phi, rows, labels)
	gn := h.gradient(w, phi, rows, labels)
	scale := 1 / float64(len(rows))
	for it := 0; gn > tol; it++ {
		if it == headMaxIter {
			return fmt.Errorf("meta: %w: head solve stopped at ‖∇‖ = %.3g", numerr.ErrNotConverged, gn)
		}
		// CG on H d = g to a relative residual of min(0.1, ‖g‖) (inexact
		// Newton: superlinear convergence), H = λI + the data term at w.
		clear(h.d)
		copy(h.r, h.g)
		copy(h.pv, h.g)
		rr := floats.Dot(h.r, h.r)
		stop := math.Min(0.1, gn) * gn
		for k := 0; k < 4*len(w) && math.Sqrt(rr) > stop; k++ {
			for j, x := range h.pv {
				h.hp[j] = h.lambda * x
			}
			addHess(h.hp, phi, rows, h.pr, h.pv, h.q, h.c, scale, h.u, h.s)
			alpha := rr / floats.Dot(h.pv, h.hp)
			for j := range h.d {
				h.d[j] += alpha * h.pv[j]
				h.r[j] -= alpha * h.hp[j]
			}
			rn := floats.Dot(h.r, h.r)
			for j := range h.pv {
				h.pv[j] = h.r[j] + rn/rr*h.pv[j]
			}
			rr = rn
		}
		slope := floats.Dot(h.g, h.d)
		copy(h.w2, w)
		// The full step where the decrease asked for is below f's rounding.
		exact := slope <= 1e-13*(1+math.Abs(f))
		for t := 1.0; ; t /= 2 {
			for j := range w {
				w[j] = h.w2[j] - t*h.d[j]
			}
			ft := h.value(w, phi, rows, labels)
			if exact || ft <= f-1e-4*t*slope || t < 1e-10 {
				f = ft
				break
			}
		}
		gn = h.gradient(w, phi, rows, labels)
		if math.IsNaN(gn) {
			return fmt.Errorf("meta: %w: head solve", numerr.ErrNotFinite)
		}
	}
	return nil
}

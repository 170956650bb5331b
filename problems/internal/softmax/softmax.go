// Package softmax is the ridge-regularized softmax classification head that
// the problems meta and spdnet put on their features: logits Wᵀφ for a
// feature vector φ of q entries and a head W ∈ R^{q×c} (row-major), class
// probabilities p = softmax(Wᵀφ) and the cross-entropy CE = log Σ_k
// exp(z_k) − z_y of the label y. Its functions work on one sample (one
// row of features) at a time, so that each problem keeps its own way of
// choosing and weighting the samples (a task's rows, a batch's weights);
// none allocates.
package softmax

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/lapackx"
)

// Hess sets r = (diag(p) − ppᵀ) u for the c-vectors p and u: the
// Hessian of the cross-entropy in the logits, applied to u.
func Hess(r, p, u []float64) {
	var pu float64
	for k, pk := range p {
		pu += pk * u[k]
	}
	for k, pk := range p {
		r[k] = pk * (u[k] - pu)
	}
}

// Transpose sets wt (c×q) to the transpose of the head w (q×c), whose
// rows make each logit a contiguous dot product in Probs.
func Transpose(wt, w []float64, q, c int) {
	for a := 0; a < q; a++ {
		for k := 0; k < c; k++ {
			wt[k*q+a] = w[a*c+k]
		}
	}
}

// Probs sets the c entries of p to the class probabilities softmax(Wᵀφ)
// of the features phi, with wt = Wᵀ (Transpose), and returns the
// cross-entropy of the label y. The logits are shifted by their maximum
// before the exponential, so that none overflows; a NaN in the input
// gives a NaN cross-entropy.
func Probs(p, phi, wt []float64, y int) float64 {
	q := len(phi)
	zmax := math.Inf(-1)
	for k := range p {
		z := floats.Dot(phi, wt[k*q:(k+1)*q])
		p[k] = z
		if z > zmax {
			zmax = z
		}
	}
	zy := p[y]
	var sum float64
	for k := range p {
		p[k] = math.Exp(p[k] - zmax)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return zmax + math.Log(sum) - zy
}

// AddGrad adds scale·φ(p − e_y)ᵀ, the gradient in W of scale·CE, to the
// q×c dst.
func AddGrad(dst, phi, p []float64, y int, scale float64) {
	c := len(p)
	for a, x := range phi {
		row := dst[a*c : (a+1)*c]
		sx := scale * x
		for k, pk := range p {
			row[k] += sx * pk
		}
		row[y] -= sx
	}
}

// MulT sets the c-vector u = Vᵀx for the row-major V with c columns and
// at least len(x) rows (the rows past len(x) are not read).
func MulT(u, v, x []float64) {
	c := len(u)
	clear(u)
	for a, f := range x {
		for k := range u {
			u[k] += v[a*c+k] * f
		}
	}
}

// AddHess adds scale·φ((diag p − ppᵀ)Vᵀφ)ᵀ, the Hessian in W of scale·CE
// applied to V (q×c), to the q×c dst; u and r are c-vector scratch.
func AddHess(dst, phi, p, v []float64, scale float64, u, r []float64) {
	c := len(p)
	MulT(u, v, phi)
	Hess(r, p, u)
	for a, x := range phi {
		row := dst[a*c : (a+1)*c]
		sx := scale * x
		for k, rk := range r {
			row[k] += sx * rk
		}
	}
}

// AddHessBlocks adds scale·(φφᵀ) ⊗ (diag p − ppᵀ), the Hessian in W of
// scale·CE, to the qc×qc h (W's entries in row-major order), on and above
// its diagonal of c×c blocks only: FinishHess mirrors them.
func AddHessBlocks(h, phi, p []float64, scale float64) {
	q, c := len(phi), len(p)
	qc := q * c
	for a := 0; a < q; a++ {
		for b := a; b < q; b++ {
			ff := scale * phi[a] * phi[b]
			for k := 0; k < c; k++ {
				row := h[(a*c+k)*qc+b*c : (a*c+k)*qc+b*c+c]
				fk := ff * p[k]
				for l, pl := range p {
					row[l] -= fk * pl
				}
				row[k] += fk
			}
		}
	}
}

// FinishHess completes the n×n h that AddHessBlocks summed into: the
// blocks below the diagonal of blocks are mirrors of those above (and the
// diagonal blocks are symmetric), and the ridge adds λ to the diagonal.
func FinishHess(h []float64, n int, lambda float64) {
	lapackx.MirrorUpper(h, n)
	for j := 0; j < n; j++ {
		h[j*n+j] += lambda
	}
}

// Upstream adds scale·W(p − e_y), the gradient of scale·CE in the
// features, to g, for the first len(g) rows of W (q×c).
func Upstream(g, w, p []float64, y int, scale float64) {
	c := len(p)
	for a := range g {
		row := w[a*c : (a+1)*c]
		var x float64
		for k, pk := range p {
			x += row[k] * pk
		}
		g[a] += scale * (x - row[y])
	}
}

// CrossUpstream adds scale·(V(p − e_y) + W(diag p − ppᵀ)Vᵀφ), the
// derivative of Upstream in W along V, to g, for the first len(g) rows
// of V and W (q×c); u and r are c-vector scratch.
func CrossUpstream(g, phi, w, v, p []float64, y int, scale float64, u, r []float64) {
	c := len(p)
	MulT(u, v, phi)
	Hess(r, p, u)
	for a := range g {
		vr, wr := v[a*c:(a+1)*c], w[a*c:(a+1)*c]
		var x float64
		for k, pk := range p {
			x += vr[k]*pk + wr[k]*r[k]
		}
		g[a] += scale * (x - vr[y])
	}
}

// AddCross adds scale·(dφ(p − e_y)ᵀ + φ((diag p − ppᵀ)Wᵀdφ)ᵀ), the
// derivative of AddGrad's gradient along a change dφ of the features, to
// the q×c dst. dphi may be shorter than phi: its missing entries are
// zero (a constant bias feature). u and r are c-vector scratch.
func AddCross(dst, w, dphi, phi, p []float64, y int, scale float64, u, r []float64) {
	c := len(p)
	MulT(u, w, dphi)
	Hess(r, p, u)
	for a, f := range phi {
		row := dst[a*c : (a+1)*c]
		var df float64
		if a < len(dphi) {
			df = dphi[a]
		}
		for k, pk := range p {
			row[k] += scale * (df*pk + f*r[k])
		}
		row[y] -= scale * df
	}
}

package domainadapt

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// HInvTol is the relative residual ‖V − H_M g[U]‖_M ≤ HInvTol·‖V‖_M to
// which HessGyInv solves.
const HInvTol = 1e-13

// HessGyInv sets dst = H_M g⁻¹[V] by preconditioned conjugate gradients in
// the frame of L (M = LLᵀ), where the metric at M becomes the Frobenius
// inner product and the Hessian the operator
//
//	T[Z] = 2α Q_A[(Q_AᵀZQ_A) ∘ H_A]Q_Aᵀ + 2(1−α) Q_B[(Q_BᵀZQ_B) ∘ H_B]Q_Bᵀ,
//
// to a relative residual of HInvTol: T Z = L⁻¹VL⁻ᵀ, then U = L Z Lᵀ. The
// preconditioner replaces the A term by the one it would be at M*, where
// log K_A and log K_B share Q_B: Q_B[(Q_BᵀRQ_B) ⊘ (2α h(ŝ_i − ŝ_j) + 2(1−α)
// h(s^B_i − s^B_j))]Q_Bᵀ with ŝ the diagonal of Q_Bᵀ log K_A Q_B (Q_A's
// basis when α = 1). Each iteration costs six d×d congruences. It returns an
// error wrapping numerr.ErrNotConverged if d(d+1)/2 + 10 iterations (the
// finite-termination bound, with room for rounding) do not reach HInvTol.
func (p *Problem) HessGyInv(dst []float64, pt *solver.Point, v []float64) error {
	fa, fb, err := p.derivedFrames(pt)
	if err != nil {
		return err
	}
	l, li, err := p.factor(pt)
	if err != nil {
		return err
	}
	pre, base := p.preconditioner(pt, fa, fb)
	d := p.d
	x, r, z, dir, ad := p.hi[0], p.hi[1], p.hi[2], p.hi[3], p.hi[4]
	copy(r, v)
	lapackx.Symmetrize(r, d)
	lapackx.Congruence(r, li, r, p.hi[5], d, false) // L⁻¹VL⁻ᵀ
	bnorm := math.Sqrt(floats.Dot(r, r))
	clear(x)
	p.hinvIters = 0
	if bnorm == 0 {
		clear(dst[:d*d])
		return nil
	}
	if math.IsNaN(bnorm) || math.IsInf(bnorm, 0) {
		return fmt.Errorf("domainadapt: HINV: %w: right-hand side norm %v", numerr.ErrNotFinite, bnorm)
	}
	p.orthSandwich(z, base.v, pre, r, true)
	copy(dir, z)
	rz := floats.Dot(r, z)
	maxIter := d*(d+1)/2 + 10
	res := 1.0
	for it := 1; it <= maxIter; it++ {
		p.frameHess(ad, fa, fb, dir)
		pap := floats.Dot(dir, ad)
		if !(pap > 0) {
			return fmt.Errorf("domainadapt: HINV: %w: ⟨p, Hp⟩ = %v at iteration %d", numerr.ErrNotPosDef, pap, it)
		}
		step := rz / pap
		for i := range x {
			x[i] += step * dir[i]
			r[i] -= step * ad[i]
		}
		p.hinvIters = it
		if res = math.Sqrt(floats.Dot(r, r)) / bnorm; res <= HInvTol {
			lapackx.Congruence(dst, l, x, p.hi[5], d, false) // L Z Lᵀ
			return nil
		}
		p.orthSandwich(z, base.v, pre, r, true)
		rz1 := floats.Dot(r, z)
		beta := rz1 / rz
		rz = rz1
		for i := range dir {
			dir[i] = z[i] + beta*dir[i]
		}
	}
	return fmt.Errorf("domainadapt: HINV: %w: relative residual %.3g after %d iterations", numerr.ErrNotConverged, res, maxIter)
}

// HInvIterations returns the conjugate gradient iterations of the last
// HessGyInv.
func (p *Problem) HInvIterations() int { return p.hinvIters }

// frameHess sets dst = T[z], the Hessian in the frame of L.
func (p *Problem) frameHess(dst []float64, fa, fb *frame, z []float64) {
	t := p.hi[6]
	p.orthSandwich(t, fb.v, fb.h, z, false)
	p.orthSandwich(dst, fa.v, fa.h, z, false)
	ca, cb := 2*p.alpha, 2*(1-p.alpha)
	for i := range dst {
		dst[i] = ca*dst[i] + cb*t[i]
	}
}

// orthSandwich sets dst = Vᵀ[(V U Vᵀ) ∘ K]V, or with ⊘ K when div is set,
// for orthogonal V (rows the eigenvectors) and symmetric u.
func (p *Problem) orthSandwich(dst, v, k, u []float64, div bool) {
	d, t := p.d, p.hi[5]
	copy(dst, u)
	lapackx.Congruence(dst, v, dst, t, d, false)
	if div {
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				dst[i*d+j] /= k[i*d+j]
			}
		}
	} else {
		hadamardUpper(dst, k, d)
	}
	lapackx.Congruence(dst, v, dst, t, d, true)
}

// preconditioner returns the divisor matrix of the preconditioner and the
// frame of its basis (Q_B, or Q_A when α = 1), once per (Γ, M).
func (p *Problem) preconditioner(pt *solver.Point, fa, fb *frame) ([]float64, *frame) {
	base, other, wb, wo := fb, fa, 2*(1-p.alpha), 2*p.alpha
	if p.alpha == 1 {
		base, other, wb, wo = fa, fb, 2*p.alpha, 2*(1-p.alpha)
	}
	if !p.preAt.Valid(pt) {
		p.preAt.Reset()
		d := p.d
		// ŝ = diag(V_base log K_other V_baseᵀ), log K_other = V_otherᵀ diag(s) V_other.
		lk, t := p.hi[5], p.hi[6]
		for i := 0; i < d; i++ {
			for j, v := range other.v[i*d : (i+1)*d] {
				t[i*d+j] = other.s[i] * v
			}
		}
		mul(gblas.Trans, gblas.NoTrans, d, d, d, 1, other.v, d, t, d, 0, lk, d)
		mul(gblas.NoTrans, gblas.NoTrans, d, d, d, 1, base.v, d, lk, d, 0, t, d)
		sh := p.sHat
		for i := 0; i < d; i++ {
			sh[i] = floats.Dot(t[i*d:(i+1)*d], base.v[i*d:(i+1)*d])
		}
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				p.pre[i*d+j] = wb*base.h[i*d+j] + wo*hcoth(sh[i]-sh[j])
			}
		}
		p.preAt.Store(pt)
	}
	if p.alpha == 1 {
		return p.pre, fa
	}
	return p.pre, fb
}

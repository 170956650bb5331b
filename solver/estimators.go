package solver

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/numerr"
)

// Estimator is a hypergradient estimator (paper, Section 3.1): HInv, CG,
// Neumann or AD. The solver calls it at (x_k, y_{k+1}) after the lower
// steps of each epoch.
type Estimator interface {
	// Name returns "hinv", "cg", "ns" or "ad".
	Name() string
	// needs lists the Problem oracles the estimator calls.
	needs() []string
	// init allocates the estimator's buffers for r.
	init(r *RHGD) error
	// estimate sets dst to the hypergradient estimate at (r.x, r.y).
	estimate(r *RHGD, dst []float64) error
}

// EstimatorStats reports one estimate's work.
type EstimatorStats struct {
	HessVecs   int     // Hessian–vector products
	CrossVecs  int     // cross-derivative products
	Iterations int     // CG iterations or Neumann terms
	Residual   float64 // CG: final relative residual; NS: γ·λ_max estimate
}

// Errors of the estimators.
var (
	// ErrNeumannStep signifies γ ≥ 2/λ_max(H): the truncated Neumann
	// series would diverge.
	ErrNeumannStep = numerr.New(numerr.ErrInvalid, "solver: Neumann step γ too large")
	// ErrNotPositive signifies a Hessian that is not positive definite
	// along a CG direction (g not strongly convex there).
	ErrNotPositive = numerr.New(numerr.ErrNotPosDef, "solver: Hessian not positive definite")
)

// hyper sets dst = grad_x f − G_xy g[v], the hypergradient formula of
// Proposition 1 with v ≈ H⁻¹ grad_y f.
func (r *RHGD) hyper(dst, v []float64) {
	r.p.GradFx(dst, r.x, r.y)
	r.p.CrossGxy(r.bx, r.x, r.y, v)
	r.stats.CrossVecs++
	for i := range dst {
		dst[i] -= r.bx[i]
	}
}

// HInv uses the problem's exact inverse Hessian: v = H⁻¹ grad_y f.
type HInv struct{}

// Name returns "hinv".
func (HInv) Name() string { return "hinv" }
func (HInv) needs() []string {
	return []string{"GradFx", "GradFy", "CrossGxy", "HessGyInv"}
}
func (HInv) init(r *RHGD) error { return nil }
func (HInv) estimate(r *RHGD, dst []float64) error {
	r.p.GradFy(r.by[0], r.x, r.y)
	if err := r.p.HessGyInv(r.by[1], r.x, r.y, r.by[0]); err != nil {
		return fmt.Errorf("HINV: %w", err)
	}
	r.hyper(dst, r.by[1])
	return nil
}

// CG solves H v = grad_y f in the tangent space T_y by conjugate gradients
// (the paper's Algorithm 4 on H v = b itself, in the metric of My), then
// forms grad_x f − G_xy g[v].
type CG struct {
	// MaxIter bounds the iterations; default 50.
	MaxIter int
	// Tol stops at ‖b − Hv‖_y ≤ Tol·‖b‖_y; default 1e−10.
	Tol float64
	// WarmStart starts from the previous epoch's solution, transported to
	// the new y, instead of from zero.
	WarmStart bool

	prev    []float64 // previous solution (tangent at prevY)
	prevY   []float64
	hasPrev bool
}

// Name returns "cg".
func (*CG) Name() string { return "cg" }
func (*CG) needs() []string {
	return []string{"GradFx", "GradFy", "CrossGxy", "HessGy"}
}
func (c *CG) init(r *RHGD) error {
	c.prev, c.prevY, c.hasPrev = r.newY(), r.newY(), false
	return nil
}

func (c *CG) estimate(r *RHGD, dst []float64) error {
	maxIter, tol := c.MaxIter, c.Tol
	if maxIter <= 0 {
		maxIter = 50
	}
	if tol <= 0 {
		tol = 1e-10
	}
	my, y := r.my, r.y
	b, v, res, p, hp := r.by[0], r.by[1], r.by[2], r.by[3], r.by[4]
	r.p.GradFy(b, r.x, y)
	bnorm := my.Norm(y, b)
	copy(res, b)
	clear(v)
	if c.WarmStart && c.hasPrev {
		my.Transport(v, c.prevY, y, c.prev)
		r.p.HessGy(hp, r.x, y, v)
		r.stats.HessVecs++
		for i := range res {
			res[i] = b[i] - hp[i]
		}
	}
	copy(p, res)
	rr := my.Inner(y, res, res)
	it := 0
	for ; it < maxIter && math.Sqrt(rr) > tol*bnorm; it++ {
		r.p.HessGy(hp, r.x, y, p)
		r.stats.HessVecs++
		php := my.Inner(y, p, hp)
		if !(php > 0) {
			if math.IsNaN(php) {
				return fmt.Errorf("CG: non-finite Hessian product")
			}
			return fmt.Errorf("CG: %w: ⟨p, Hp⟩ = %.3g", ErrNotPositive, php)
		}
		alpha := rr / php
		for i := range v {
			v[i] += alpha * p[i]
			res[i] -= alpha * hp[i]
		}
		rrNew := my.Inner(y, res, res)
		beta := rrNew / rr
		rr = rrNew
		for i := range p {
			p[i] = res[i] + beta*p[i]
		}
	}
	r.stats.Iterations += it
	if bnorm > 0 {
		r.stats.Residual = math.Sqrt(rr) / bnorm
	}
	if c.WarmStart {
		copy(c.prev, v)
		copy(c.prevY, y)
		c.hasPrev = true
	}
	r.hyper(dst, v)
	return nil
}

// Neumann approximates H⁻¹ by the truncated series γ Σ_{i<T} (I − γH)^i
// (paper, Section 3.1), which converges when γ < 2/λ_max(H).
type Neumann struct {
	// Gamma is the step γ; default 1/λ̂ with λ̂ the power-iteration estimate
	// of λ_max(H) (so 0 means "choose").
	Gamma float64
	// Terms is T; default 50.
	Terms int
	// PowerIters is the number of power iterations that estimate λ_max(H)
	// to check γ (default 10); negative skips the check.
	PowerIters int
}

// Name returns "ns".
func (*Neumann) Name() string { return "ns" }
func (*Neumann) needs() []string {
	return []string{"GradFx", "GradFy", "CrossGxy", "HessGy"}
}
func (*Neumann) init(r *RHGD) error { return nil }

func (ns *Neumann) estimate(r *RHGD, dst []float64) error {
	terms, iters := ns.Terms, ns.PowerIters
	if terms <= 0 {
		terms = 50
	}
	if iters == 0 {
		iters = 10
	}
	y := r.y
	b, v, p, hp := r.by[0], r.by[1], r.by[2], r.by[3]
	r.p.GradFy(b, r.x, y)
	gamma := ns.Gamma
	if iters > 0 {
		lam := r.powerIteration(b, iters)
		if gamma <= 0 {
			gamma = 1 / lam
		}
		r.stats.Residual = gamma * lam
		if !(gamma*lam < 2) {
			return fmt.Errorf("NS: %w: γ = %.3g, λ_max(H) ≈ %.3g, need γ < %.3g", ErrNeumannStep, gamma, lam, 2/lam)
		}
	} else if gamma <= 0 {
		return fmt.Errorf("NS: %w: Gamma not set and the λ_max estimate skipped", ErrNeumannStep)
	}
	// p_0 = b, p_{i+1} = (I − γH) p_i, v = γ Σ p_i.
	copy(p, b)
	copy(v, b)
	for i := 1; i < terms; i++ {
		r.p.HessGy(hp, r.x, y, p)
		r.stats.HessVecs++
		for k := range p {
			p[k] -= gamma * hp[k]
			v[k] += p[k]
		}
	}
	for k := range v {
		v[k] *= gamma
	}
	r.stats.Iterations += terms
	r.hyper(dst, v)
	return nil
}

// powerIteration estimates λ_max(H_y g) at (r.x, r.y) by k power steps
// from the start vector s (a tangent), returning the last Rayleigh quotient.
func (r *RHGD) powerIteration(s []float64, k int) float64 {
	my, y := r.my, r.y
	w, hw := r.by[4], r.by[5]
	copy(w, s)
	if my.Norm(y, w) == 0 {
		my.RandTangent(w, y, r.rnd)
	}
	var lam float64
	for i := 0; i < k; i++ {
		nw := my.Norm(y, w)
		for j := range w {
			w[j] /= nw
		}
		r.p.HessGy(hw, r.x, y, w)
		r.stats.HessVecs++
		lam = my.Inner(y, w, hw)
		copy(w, hw)
	}
	return lam
}

// AD differentiates through the S lower steps y^{s+1} = R_{y^s}(−η_y
// grad_y g(x, y^s)) in reverse mode, approximating each retraction's
// differential by the projection onto the next tangent space (paper,
// Lemma 1's AD): with λ_S = grad_y f(x, y^S),
//
//	μ_s = T_{y^{s+1}→y^s} λ_{s+1},   hg −= η_y G_xy g(x, y^s)[μ_s],
//	λ_s = μ_s − η_y H_y g(x, y^s)[μ_s],
//
// starting from hg = grad_x f(x, y^S); the transport is the manifold's.
// In Euclidean space it is the exact derivative of the unrolled map.
type AD struct{}

// Name returns "ad".
func (AD) Name() string { return "ad" }
func (AD) needs() []string {
	return []string{"GradFx", "GradFy", "CrossGxy", "HessGy"}
}
func (AD) init(r *RHGD) error {
	r.keepPath = true
	return nil
}

func (AD) estimate(r *RHGD, dst []float64) error {
	my, eta := r.my, r.s.EtaY
	lam, mu, h := r.by[0], r.by[1], r.by[2]
	S := r.pathLen - 1 // r.path[0..S], r.path[S] == r.y
	r.p.GradFy(lam, r.x, r.path[S])
	r.p.GradFx(dst, r.x, r.path[S])
	for s := S - 1; s >= 0; s-- {
		ys := r.path[s]
		my.Transport(mu, r.path[s+1], ys, lam)
		r.p.CrossGxy(r.bx, r.x, ys, mu)
		r.stats.CrossVecs++
		for i := range dst {
			dst[i] -= eta * r.bx[i]
		}
		r.p.HessGy(h, r.x, ys, mu)
		r.stats.HessVecs++
		for i := range lam {
			lam[i] = mu[i] - eta*h[i]
		}
	}
	r.stats.Iterations += S
	return nil
}

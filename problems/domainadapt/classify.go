package domainadapt

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
)

// classifier holds Accuracy's and the baseline's scratch space.
type classifier struct {
	xhat, xw, yw []float64 // n×d, n×d, m×d
	xq, yq       []float64
	dist, plan   []float64 // n×m
	l, minv, w   []float64 // d×d
	ot           *coupling.Coupling
}

func (p *Problem) classifier() *classifier {
	if p.acc == nil {
		n, m, d := p.n, p.m, p.d
		ot := p.Coupling.Clone().(*coupling.Coupling)
		ot.Sinkhorn = coupling.SinkhornSettings{MaxIter: SinkhornMaxIter, Tol: SinkhornTol}
		p.acc = &classifier{xhat: make([]float64, n*d), xw: make([]float64, n*d), yw: make([]float64, m*d),
			xq: make([]float64, n), yq: make([]float64, m), dist: make([]float64, n*m), plan: make([]float64, n*m),
			l: make([]float64, d*d), minv: make([]float64, d*d), w: make([]float64, d*d), ot: ot}
	}
	return p.acc
}

// ErrNoLabels signifies a problem built without the labels that Accuracy
// needs (numerr.ErrInvalid).
var ErrNoLabels = numerr.New(numerr.ErrInvalid, "domainadapt: no labels")

// Accuracy returns the percentage of target samples classified correctly
// with the plan gamma (n×m) and the metric m (d×d, positive definite): the
// source is projected onto the target, x̂_i = μ_i⁻¹ Σ_j Γ_ij y_j (the
// barycentric projection), and each target sample y_j gets the label of the
// projected source sample nearest to it in (x̂_i − y_j)ᵀ M⁻¹ (x̂_i − y_j),
// the squared distance between the rows of X̂M^{−½} and YM^{−½} (the first
// such sample on ties). This is the paper's and the authors' protocol:
// 1-NN trained on the projected, labelled source, tested on the target.
// Γ must be finite and non-negative; it need not be a positive plan (an
// exact OT plan has zeros).
func (p *Problem) Accuracy(gamma, m []float64) (float64, error) {
	if p.srcLab == nil || p.tgtLab == nil {
		return 0, fmt.Errorf("%w: Accuracy needs source and target labels", ErrNoLabels)
	}
	n, mm, d := p.n, p.m, p.d
	if len(gamma) != n*mm || len(m) != d*d {
		return 0, fmt.Errorf("%w: Accuracy: Γ has %d entries (want %d), M %d (want %d)", ErrBadData, len(gamma), n*mm, len(m), d*d)
	}
	for k, g := range gamma {
		if math.IsNaN(g) || math.IsInf(g, 0) || g < 0 {
			return 0, fmt.Errorf("%w: Accuracy: Γ[%d, %d] = %v is not finite and non-negative", ErrBadData, k/mm, k%mm, g)
		}
	}
	if err := p.SPD.CheckPoint(m); err != nil {
		return 0, fmt.Errorf("%w: Accuracy: M: %w", ErrBadData, err)
	}
	c := p.classifier()
	if err := lapackx.Cholesky(c.l, m, d); err != nil {
		return 0, fmt.Errorf("%w: Accuracy: M: %w", ErrBadData, err)
	}
	lapackx.CholInverse(c.minv, c.w, c.l, d)
	mul(gblas.NoTrans, gblas.NoTrans, n, d, mm, 1, gamma, mm, p.y, d, 0, c.xhat, d)
	for i := 0; i < n; i++ {
		s := 1 / p.mu[i]
		for k := range c.xhat[i*d : (i+1)*d] {
			c.xhat[i*d+k] *= s
		}
	}
	pairwise(c.dist, c.xhat, p.y, c.minv, c.xw, c.yw, c.xq, c.yq, n, mm, d)
	return nearest(c.dist, p.srcLab, p.tgtLab, n, mm)
}

// nearest returns the percentage of columns j of the n×m distance matrix
// whose nearest row (the first on ties) has the label of j.
func nearest(dist []float64, src, tgt []int, n, m int) (float64, error) {
	var right int
	for j := 0; j < m; j++ {
		best, bi := math.Inf(1), -1
		for i := 0; i < n; i++ {
			if v := dist[i*m+j]; v < best {
				best, bi = v, i
			}
		}
		if bi < 0 {
			return 0, fmt.Errorf("domainadapt: %w: no finite distance to target sample %d", numerr.ErrNotFinite, j)
		}
		if src[bi] == tgt[j] {
			right++
		}
	}
	return 100 * float64(right) / float64(m), nil
}

// Settings of SinkhornPlan's balancing.
const (
	// SinkhornTol is the relative L1 marginal error SinkhornPlan reaches.
	SinkhornTol = 1e-9
	// SinkhornMaxIter bounds its iterations.
	SinkhornMaxIter = 200000
)

// SinkhornPlan sets dst (n×m) to the entropic optimal transport plan
// argmin_{Γ ∈ Π(μ,ν)} ⟨Γ, C⟩ − λH(Γ) for the Euclidean cost C_ij = ‖x_i −
// y_j‖², the OT-SKH baseline's plan (POT's ot.sinkhorn(μ, ν, C, λ)). It is
// diag(u) exp(−C/λ) diag(v), balanced by the coupling package's
// log-domain-stabilized Sinkhorn (the retraction of μνᵀ along μνᵀ ∘ C with
// step −1/λ) to a relative marginal error of SinkhornTol, which holds for λ
// far below the spread of C. It returns an error wrapping
// coupling.ErrSinkhornNotConverged (dst then holds the best plan found) if
// SinkhornMaxIter iterations do not suffice, and ErrBadData for λ ≤ 0.
func (p *Problem) SinkhornPlan(dst []float64, lambda float64) error {
	n, m, d := p.n, p.m, p.d
	if len(dst) != n*m {
		return fmt.Errorf("%w: SinkhornPlan: dst has %d entries, want %d", ErrBadData, len(dst), n*m)
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return fmt.Errorf("%w: SinkhornPlan: λ = %v must be positive and finite", ErrBadData, lambda)
	}
	c := p.classifier()
	clear(c.w)
	for i := 0; i < d; i++ {
		c.w[i*d+i] = 1
	}
	pairwise(c.dist, p.x, p.y, c.w, c.xw, c.yw, c.xq, c.yq, n, m, d)
	for i, a := range p.mu {
		for j, b := range p.nu {
			k := i*m + j
			c.plan[k] = a * b
			c.dist[k] *= a * b
		}
	}
	if err := c.ot.Retract(dst, c.plan, c.dist, -1/lambda); err != nil {
		return fmt.Errorf("domainadapt: SinkhornPlan (λ = %g): %w", lambda, err)
	}
	return nil
}

// BaselineAccuracy returns the accuracy of the OT-SKH baseline: the plan of
// SinkhornPlan with λ, the same barycentric projection, and 1-NN in the
// Euclidean metric (M = I).
func (p *Problem) BaselineAccuracy(lambda float64) (float64, error) {
	plan := make([]float64, p.n*p.m)
	if err := p.SinkhornPlan(plan, lambda); err != nil {
		return 0, err
	}
	id := make([]float64, p.d*p.d)
	for i := 0; i < p.d; i++ {
		id[i*p.d+i] = 1
	}
	return p.Accuracy(plan, id)
}

package solver

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/numerr"
)

// DefaultLanczosSteps is the number of Lanczos steps of a spectrum estimate
// that no setting sized (the auto damping of CG and NS).
const DefaultLanczosSteps = 10

// lanczos estimates the extreme eigenvalues of the lower Riemannian
// Hessian H = H_y g(x, y), a self-adjoint operator on T_y in the metric of
// My, by k steps of the Lanczos process (Golub and Van Loan, Matrix
// Computations, §10.1): the extreme eigenvalues of the k×k tridiagonal
// T_k (the Ritz values) approach λ_min(H) from above and λ_max(H) from
// below, the extreme ones first. Its buffers are allocated once.
type lanczos struct {
	q, qPrev, w []float64
	alpha, beta []float64 // T's diagonal and off-diagonal
}

func newLanczos(n, k int) *lanczos {
	return &lanczos{q: make([]float64, n), qPrev: make([]float64, n), w: make([]float64, n),
		alpha: make([]float64, k), beta: make([]float64, k)}
}

// run returns the extreme Ritz values of k = len(alpha) Lanczos steps on
// the Hessian at `at`, from a random unit start (a random start meets every
// eigenvector; grad_y f, the solves' right-hand side, may miss the
// smallest). It stops early on an invariant subspace (β ≈ 0), whose Ritz
// values are then exact.
func (l *lanczos) run(env *Env, at *Point) (lo, hi float64, err error) {
	my, y := env.My, at.Y
	q, qPrev, w := l.q, l.qPrev, l.w
	my.RandTangent(q, y, env.Rand())
	nq := my.Norm(y, q)
	if !(nq > 0) {
		return math.NaN(), math.NaN(), nil // a zero-dimensional tangent space
	}
	for i := range q {
		q[i] /= nq
	}
	clear(qPrev)
	m := 0
	var bPrev float64
	for m < len(l.alpha) {
		if err := env.HessGy(w, at, q); err != nil {
			return 0, 0, err
		}
		a := my.Inner(y, q, w)
		for i := range w {
			w[i] -= a*q[i] + bPrev*qPrev[i]
		}
		// One step of reorthogonalization against q (the local loss of
		// orthogonality that dominates in few steps).
		c := my.Inner(y, q, w)
		for i := range w {
			w[i] -= c * q[i]
		}
		a += c
		l.alpha[m] = a
		b := my.Norm(y, w)
		m++
		if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
			return 0, 0, fmt.Errorf("Lanczos: %w: α = %v, β = %v at step %d", numerr.ErrNotFinite, a, b, m)
		}
		if m == len(l.alpha) || b <= 1e-12*math.Abs(a) || b == 0 {
			break
		}
		l.beta[m-1] = b
		for i := range q {
			qPrev[i], q[i] = q[i], w[i]/b
		}
		bPrev = b
	}
	lo, hi = tridiagExtremes(l.alpha[:m], l.beta[:m])
	return lo, hi, nil
}

// tridiagExtremes returns the smallest and largest eigenvalues of the
// symmetric tridiagonal matrix with diagonal a and off-diagonal b[:len(a)−1]
// by Sturm-sequence bisection from the Gershgorin interval, to a relative
// accuracy near ε; it allocates nothing.
func tridiagExtremes(a, b []float64) (lo, hi float64) {
	n := len(a)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	gl, gu := math.Inf(1), math.Inf(-1)
	for i := range n {
		r := 0.0
		if i > 0 {
			r += math.Abs(b[i-1])
		}
		if i < n-1 {
			r += math.Abs(b[i])
		}
		gl, gu = min(gl, a[i]-r), max(gu, a[i]+r)
	}
	// below(σ) counts the eigenvalues < σ (the negative pivots of T − σI).
	below := func(s float64) int {
		cnt, d := 0, 1.0
		for i := range n {
			off := 0.0
			if i > 0 {
				off = b[i-1] * b[i-1] / d
			}
			d = a[i] - s - off
			if d == 0 {
				d = -1e-300
			}
			if d < 0 {
				cnt++
			}
		}
		return cnt
	}
	bisect := func(k int) float64 { // the (k+1)-th smallest eigenvalue
		l, u := gl, gu
		for it := 0; it < 200 && u-l > 1e-15*max(math.Abs(l), math.Abs(u)); it++ {
			mid := l + (u-l)/2
			if below(mid) > k {
				u = mid
			} else {
				l = mid
			}
		}
		return l + (u-l)/2
	}
	return bisect(0), bisect(n - 1)
}

// cgRitz returns the extreme eigenvalues of the Lanczos tridiagonal that m
// CG iterations with step sizes alpha and ratios beta = ‖r_{j+1}‖²/‖r_j‖²
// define (Golub and Van Loan, §10.2.6; Saad, Iterative Methods for Sparse
// Linear Systems, §6.7.3): T_jj = 1/α_j + β_{j−1}/α_{j−1},
// T_{j,j+1} = √β_j/α_j. It overwrites diag and off.
func cgRitz(alpha, beta, diag, off []float64, m int) (lo, hi float64) {
	for j := range m {
		diag[j] = 1 / alpha[j]
		if j > 0 {
			diag[j] += beta[j-1] / alpha[j-1]
		}
		if j < m-1 {
			off[j] = math.Sqrt(beta[j]) / alpha[j]
		}
	}
	return tridiagExtremes(diag[:m], off[:max(m-1, 0)])
}

// errorBound returns the a-posteriori estimate of ‖ĝ − grad F(x)‖ (the
// package documentation, "The hypergradient's error bound") from the
// epoch's solve and the lower gradient norm gy: NaN without a spectrum
// estimate, +Inf when λ̂_min ≤ 0. It allocates nothing.
func (s *solveInfo) errorBound(gy float64) float64 {
	if !math.IsNaN(s.bias) {
		return s.bias
	}
	k, c := s.lowerFactor()
	if math.IsNaN(k) || math.IsNaN(gy) || math.IsInf(k, 0) {
		return k * max(gy, 1) // NaN or +Inf
	}
	res := s.resid
	if s.damping != 0 && !math.IsNaN(s.vnorm) {
		res += s.damping * s.vnorm // b − Hv = (b − (H+δI)v) + δv
	}
	if math.IsNaN(res) {
		res = 0
	}
	return k*gy + c*res/s.minEig
}

// lowerFactor returns K̂ = (L̂ + μ̂‖v‖)(1 + Ĉ/μ̂)/μ̂, the factor of
// ‖grad_y g‖ in the error bound, and Ĉ: NaN without a spectrum estimate,
// +Inf when λ̂_min ≤ 0.
func (s *solveInfo) lowerFactor() (k, c float64) {
	mu, L := s.minEig, s.maxEig
	switch {
	case math.IsNaN(mu) || math.IsNaN(L) || math.IsNaN(s.bnorm):
		return math.NaN(), math.NaN()
	case !(mu > 0):
		return math.Inf(1), math.NaN()
	}
	c = L // ‖C‖ estimate: ‖C v‖/‖v‖ when measured, else λ̂_max
	if s.vnorm > 0 && !math.IsNaN(s.cvnorm) {
		c = s.cvnorm / s.vnorm
	}
	v := s.vnorm // ‖v‖, at most ‖b‖/μ
	if math.IsNaN(v) {
		v = s.bnorm / mu
	}
	return (L + mu*v) * (1 + c/mu) / mu, c
}

package lapackx

import (
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
)

// refineSmallEig improves the m smallest eigenpairs of the symmetric n×n
// a, whose approximate eigendecomposition is w (ascending) and the rows of
// v, by one step of first-order refinement with residuals computed as in
// twice the working precision:
//
//	r_i = A v_i − λ_i v_i (Dot2, i < m),  λ_i ← λ_i + v_iᵀ r_i,
//	v_i ← v_i + Σ_{k≠i} E_ik v_k,  v_k ← v_k − Σ_{i<m} E_ik v_i (k ≥ m),
//
// with E_ik = v_kᵀ r_i / (λ_i − λ_k). A backward-stable eigensolver leaves
// every eigenvalue off by about u·‖A‖ and every eigenvector tilted towards
// v_k by about u·‖A‖/|λ_i − λ_k|: relative errors of order κ·u for the
// smallest pairs of an SPD matrix of condition κ, where f(A) = V f(Λ) Vᵀ
// and the Lyapunov solution are most sensitive. Rounding in plain float64
// residuals is of the same order, u·|A||v_i|, so the residual needs the
// extra precision; with it the correction leaves errors of order u plus
// the square of the old ones (below κ²u², far less than κu for κ < 1/u).
// A pair closer than twice the residual's component (a cluster) is left
// as it is: there no first-order correction is reliable, and the rotation
// within a cluster moves f(A) little. So is every pair whose residual
// component exceeds what rounding in a backward-stable solver leaves, and
// the whole step where a residual is not finite or ‖A‖ is so far from 1
// that the error terms could underflow.
//
// r is m×n and p m×n of scratch; both may hold anything. The cost is
// m·n² compensated multiply-adds and 4·m·n² flops of GEMM.
func refineSmallEig(a, w, v []float64, n, m int, r, p []float64) {
	if m == 0 || n < 2 {
		return
	}
	// Far from 1 the products and their error terms could over- or
	// underflow; the refinement is skipped there.
	lmax := math.Max(math.Abs(w[0]), math.Abs(w[n-1]))
	if !(lmax >= 0x1p-900 && lmax <= 0x1p900) {
		return
	}
	r, p = r[:m*n], p[:m*n]
	lp().resid(n, m, a, v, w, r)
	for _, x := range r {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
	}
	// A component larger than a backward-stable solver leaves
	// (8n·u·‖A‖, four times the worst case measured) is no rounding
	// error to correct; such a pair is left as it is.
	gmax := 8 * float64(n) * 0x1p-53 * lmax
	// p = R Vᵀ: p[i][k] = r_i·v_k. R is of the order of u‖A‖, so that
	// plain rounding here is of order u²‖A‖.
	impl := blas.Impl()
	impl.Dgemm(gblas.NoTrans, gblas.Trans, m, n, n, 1, r, n, v, n, 0, p, n)
	for i := 0; i < m; i++ {
		row := p[i*n : (i+1)*n]
		li := w[i]
		for k, g := range row {
			d := li - w[k]
			if k == i || !(math.Abs(g) < 0.5*math.Abs(d)) || math.Abs(g) > gmax {
				row[k] = 0
				continue
			}
			row[k] = g / d
		}
	}
	// The eigenvalues, from the diagonal of R Vᵀ before it was cleared:
	// v_iᵀ r_i, recomputed (one dot product each).
	for i := 0; i < m; i++ {
		var s float64
		for j, x := range r[i*n : (i+1)*n] {
			s += x * v[i*n+j]
		}
		if math.Abs(s) <= gmax {
			w[i] += s
		}
	}
	// v_i + Σ_k E_ik v_k into r (free now), then v_k −= Σ_i E_ik v_i for
	// k ≥ m, both from the old vectors, then the new v_i into place.
	copy(r, v[:m*n])
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, m, n, n, 1, p, n, v, n, 1, r, n)
	if m < n {
		impl.Dgemm(gblas.Trans, gblas.NoTrans, n-m, n, m, -1, p[m:], n, v, n, 1, v[m*n:], n)
	}
	copy(v[:m*n], r)
}

// residGo is the pure-Go backend's resid: the rows of R = A Vᵀ − diag(w) V
// for the first m rows of v, by dot2Residual.
func residGo(n, m int, a, v, w, r []float64) {
	for i := 0; i < m; i++ {
		vi, ri, li := v[i*n:(i+1)*n], r[i*n:(i+1)*n], w[i]
		for j := range ri {
			ri[j] = dot2Residual(a[j*n:(j+1)*n], vi, li, vi[j])
		}
	}
}

// dot2Residual returns Σ_k a_k x_k − λ·xj as if computed in twice the
// working precision and rounded once (Ogita, Rump and Oishi's Dot2, with
// fused multiply-adds for the products' errors), in two interleaved
// chains for instruction-level parallelism.
func dot2Residual(a, x []float64, lambda, xj float64) float64 {
	// The float64 conversions forbid fusing a product into the sum after
	// it (the Go spec allows that, and arm64 does it), which would break
	// the error-free transformations.
	p := float64(-lambda * xj)
	s0, e0 := p, math.FMA(-lambda, xj, -p)
	var s1, e1 float64
	k := 0
	for ; k+2 <= len(a); k += 2 {
		p0 := float64(a[k] * x[k])
		e0 += math.FMA(a[k], x[k], -p0)
		t := s0 + p0
		z := t - s0
		e0 += (s0 - (t - z)) + (p0 - z)
		s0 = t
		p1 := float64(a[k+1] * x[k+1])
		e1 += math.FMA(a[k+1], x[k+1], -p1)
		t = s1 + p1
		z = t - s1
		e1 += (s1 - (t - z)) + (p1 - z)
		s1 = t
	}
	if k < len(a) {
		p0 := float64(a[k] * x[k])
		e0 += math.FMA(a[k], x[k], -p0)
		t := s0 + p0
		z := t - s0
		e0 += (s0 - (t - z)) + (p0 - z)
		s0 = t
	}
	t := s0 + s1
	z := t - s0
	return t + (e0 + e1 + ((s0 - (t - z)) + (s1 - z)))
}

// SmallEigRefineCount returns how many of the smallest eigenpairs of an
// SPD matrix with eigenvalues w (ascending) to refine with
// RefineSmallEig, by LyapSym's rule with a window of one's own: none
// unless κ = w[n−1]/w[0] ≥ 64 (below, the eigensolver's κ·u is no loss
// worth the cost), else those with w_i ≤ within·w[0], at most 8 of them
// (LyapSym's window is 4). It is 0 when w[0] ≤ 0.
func SmallEigRefineCount(w []float64, within float64) int { return smallEigCount(w, within) }

// RefineSmallEig improves the m smallest eigenpairs of the symmetric n×n
// a (both triangles, exactly symmetric), given an eigendecomposition
// from EigSym of it: w the eigenvalues, ascending, and v the eigenvectors
// by rows (EigSym.Values and EigSym.Vectors, or copies), both updated in
// place. It is LyapSym's refinement: one first-order step with residuals
// A v_i − λ_i v_i computed as in twice the working precision, which
// leaves the pairs of the smallest eigenvalues of an ill-conditioned SPD
// matrix with relative errors of order u in place of a backward-stable
// solver's κ·u (see LyapSym). The rows of v past the m-th are updated too
// (their components along the refined vectors). Pairs in a tight cluster,
// and the whole step when a residual is not finite or max|λ| is outside
// [2⁻⁹⁰⁰, 2⁹⁰⁰], are left as they are.
//
// The result is no longer the exact decomposition of a nearby matrix:
// the rows of v are orthonormal to first order only (to within the
// square of the corrections, which within a close cluster of an
// ill-conditioned matrix can reach 10⁻⁸). What is computed from the
// smallest pairs (A⁻¹, the Lyapunov solution) gains; what is insensitive
// to them may lose a little.
//
// r and p are scratch of at least m·n each. The cost is m·n² compensated
// multiply-adds and 4·m·n² flops; it allocates nothing. It panics if a
// slice is short or m > n.
func RefineSmallEig(a, w, v []float64, n, m int, r, p []float64) {
	if m < 0 || m > n || len(a) < n*n || len(w) < n || len(v) < n*n || len(r) < m*n || len(p) < m*n {
		panic(errShape)
	}
	refineSmallEig(a, w, v, n, m, r, p)
}

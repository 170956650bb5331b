package spd

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
)

// pointEig returns the eigendecomposition of the point x, from the cache
// when x equals (entry for entry) one of the two points kept, as the
// Cholesky factor of the affine-invariant metric is. It returns an error
// if x is not symmetric within Tol, not finite or not positive definite
// (its Cholesky factorization fails, as in CheckPoint, or its smallest
// eigenvalue is ≤ 0).
func (s *SPD) pointEig(x []float64) (*eigPoint, error) {
	w := s.mw
	for i := range w.pts {
		if p := &w.pts[i]; p.ok && floats.Equal(p.x, x) {
			w.last = i
			return p, nil
		}
	}
	// The Cholesky factorization (with the symmetry check) decides, as in
	// CheckPoint, whether x is a point; an eigenvalue can come out positive
	// for a singular matrix.
	if _, err := s.chol(x); err != nil {
		return nil, err
	}
	if err := w.eig.Factorize(x); err != nil {
		return nil, fmt.Errorf("spd: %w", err)
	}
	lam := w.eig.Values()
	if !(lam[0] > 0) {
		return nil, fmt.Errorf("spd: %w: point has eigenvalue %.3g", numerr.ErrNotPosDef, lam[0])
	}
	p := s.slot()
	copy(p.x, x)
	copy(p.lam, lam)
	copy(p.v, w.eig.Vectors())
	for _, l := range p.lam[:s.refinePoint(p, x)] {
		if !(l > 0) { // at κ near 1/u
			return nil, fmt.Errorf("spd: %w: point has eigenvalue %.3g", numerr.ErrNotPosDef, l)
		}
	}
	for i, l := range p.lam {
		p.ell[i] = logPos(l)
	}
	s.fillD(p)
	p.ok = true
	return p, nil
}

// refinePoint refines the smallest eigenpairs of the point x in p under
// the Bures–Wasserstein metric (w.ref set), as LyapSym does for its
// matrix (lapackx.RefineSmallEig, on lapackx.SmallEigRefineCount's pairs
// within bwRefineWithin: none below κ = 64). L_X[U] = Vᵀ (Ũ ⊘ d) V and
// everything built on it divide by d_ij = λ_i + λ_j, whose smallest terms
// a backward-stable eigensolver leaves with relative errors of order
// κ·u; refined, they are of order u (TestBuresWassersteinSweep). The logarithm and the
// distance are not built on L: their errors are of order u·‖X‖ from the
// solver's decomposition, which is exact for a nearby matrix, and the
// refined one, orthonormal to first order only, made them up to 10⁵×
// less accurate at κ = 10¹⁰ with a cluster. So the decomposition as
// computed is kept too, in p.raw, for them (bwLogEig). The refinement
// reads both triangles, so x, symmetric within Tol only, is symmetrized
// first (a copy: n² beside the refinement's m·n²). It returns the number
// of pairs refined.
func (s *SPD) refinePoint(p *eigPoint, x []float64) int {
	r := s.mw.ref
	if r == nil {
		return 0
	}
	p.refined = false
	m := lapackx.SmallEigRefineCount(p.lam, bwRefineWithin)
	if m == 0 {
		return 0
	}
	n := s.n
	a := r.a
	copy(a, x)
	lapackx.Symmetrize(a, n)
	copy(p.raw.lam, p.lam)
	copy(p.raw.v, p.v)
	lapackx.RefineSmallEig(a, p.lam, p.v, n, m, r.r, r.p)
	for i, l := range p.raw.lam {
		p.raw.ell[i] = logPos(l)
	}
	s.fillD(p.raw)
	p.refined = true
	return m
}

// bwRefineWithin is the window of refinePoint: the pairs with
// λ_i ≤ 16·λ_min (at most 8, from κ = 64 as LyapSym). LyapSym's 4 left the
// pair just above it, at 4.2·λ_min on the sweep's log-spaced n = 50
// points, with its κ·u/4, and L's error at 2.8× scipy's in root mean
// square; with 16, at most 0.6× under every kernel set and backend.
const bwRefineWithin = 16

// unrefined returns the decomposition of p as the eigensolver computed
// it: p itself unless refinePoint refined it.
func (p *eigPoint) unrefined() *eigPoint {
	if p.refined {
		return p.raw
	}
	return p
}

// slot returns the entry that was not used last, marked invalid and now
// the last used: pointEig and the exponential write a new point there,
// keeping the one in use.
func (s *SPD) slot() *eigPoint {
	w := s.mw
	w.last = 1 - w.last
	p := &w.pts[w.last]
	p.ok = false
	return p
}

// fillD sets p.d from p.lam and p.ell.
func (s *SPD) fillD(p *eigPoint) {
	n := s.n
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var d float64
			if s.metric == LogEuclidean {
				d = lapackx.ExpFunc.DivDiff(p.ell[i], p.ell[j])
			} else {
				d = p.lam[i] + p.lam[j]
			}
			p.d[i*n+j], p.d[j*n+i] = d, d
		}
	}
}

// toEig sets and returns dst = V sym(U) Vᵀ, sym(U) in the eigenbasis of
// p. dst may be u; it must not be sc[5], the congruence's scratch.
func (s *SPD) toEig(dst []float64, p *eigPoint, u []float64) []float64 {
	s.symUpper(dst, u)
	lapackx.Congruence(dst, p.v, dst, s.mw.sc[5], s.n, false)
	return dst
}

// eigPair returns the entry of the point x and sym(U), sym(V) in its
// eigenbasis (toEig), in sc[0] and sc[1]: one slice when u and v are one,
// so that a norm costs one congruence and equals the inner product of
// copies, as Inner promises.
func (s *SPD) eigPair(x, u, v []float64) (p *eigPoint, a, b []float64, err error) {
	if p, err = s.pointEig(x); err != nil {
		return nil, nil, nil, err
	}
	a = s.toEig(s.mw.sc[0], p, u)
	b = a
	if &u[0] != &v[0] {
		b = s.toEig(s.mw.sc[1], p, v)
	}
	return p, a, b, nil
}

// fromEig sets dst = Vᵀ M V for the symmetric M in the eigenbasis of p,
// of which it reads the upper triangle and which it overwrites. dst may
// be m.
func (s *SPD) fromEig(dst []float64, p *eigPoint, m []float64) {
	lapackx.Congruence(dst, p.v, m, s.mw.sc[5], s.n, true)
}

// nanFill sets every entry of dst to NaN: the result of a method with no
// error return at a matrix that is not a point.
func nanFill(dst []float64) {
	for i := range dst {
		dst[i] = math.NaN()
	}
}

// symPart sets the strict lower triangle of the n×n m to that of
// ½(M + Mᵀ) and its upper to the lower: exact symmetry for a product
// symmetric in exact arithmetic.
func symPart(m []float64, n int) {
	lowerTiles(n, func(i, j0, j1 int) {
		for j := j0; j < j1; j++ {
			a := 0.5 * (m[i*n+j] + m[j*n+i])
			m[i*n+j], m[j*n+i] = a, a
		}
	})
}

// gemm sets c = op(a) op(b) for n×n matrices (ta, tb: transpose).
func gemm(c, a, b []float64, n int, ta, tb bool) {
	opa, opb := gblas.NoTrans, gblas.NoTrans
	if ta {
		opa = gblas.Trans
	}
	if tb {
		opb = gblas.Trans
	}
	blas.Impl().Dgemm(opa, opb, n, n, n, 1, a, n, b, n, 0, c, n)
}

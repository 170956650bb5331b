package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/numerr"
)

// DefaultHInvMaxDim is HInv.MaxDim's default: the largest dimension of
// the lower manifold for which HINV derives the inverse Hessian from
// HessGy when the problem gives no HessGyInv. Deriving it at a point
// takes that many Hessian–vector products and O(D³) flops (D the
// dimension) and keeps two D×D matrices and up to two Len×Len ones; above
// it CG (one product per iteration) is the estimator to use.
const DefaultHInvMaxDim = 500

// HInv uses the exact inverse Hessian: v = H⁻¹ grad_y f. It takes the
// problem's HessGyInv when there is one. Without it, on a lower manifold
// My of dimension D = My.Dim() ≤ MaxDim, it derives H⁻¹ from HessGy: at
// each point (once per lower iterate and Hessian minibatch) it builds a
// basis q_1, …, q_D of T_y My orthonormal in My's metric, forms the D×D
// matrix A_ij = ⟨q_i, H q_j⟩_y by D products H q_j (counted, on the
// Hessian batch B4 as CG's), symmetrizes it, and factors it by Cholesky;
// then v = Σ_j c_j q_j with A c = (⟨q_i, grad_y f⟩_y)_i. The basis is the
// identity on a EuclideanSpace My; elsewhere it is the projections onto
// T_y of random Gaussian ambient vectors (from a fixed seed: the basis is
// a function of y), orthonormalized by Gram–Schmidt twice. Since the
// basis is orthonormal, A's eigenvalues are H's: the estimate reports A's
// extreme eigenvalues (exact to rounding: Householder tridiagonalization
// and Sturm bisection, once per point, about four times the Cholesky
// factor's flops) as the epoch's spectrum estimate (EstimatorStats MinEig, MaxEig), and stops with
// ErrNotPositive when λ_min(A) ≤ 0 and with ErrSingular when λ_min(A) ≤
// CurvatureTol·λ_max(A), as CG does on such a Hessian. HessGy filled by
// finite differences (FillFD) serves too, to the differences' accuracy.
// A problem with HessGyBatch gets the D products H q_j in one call of it
// (the basis as its D rows; counted as D products), in place of D HessGy
// calls: one crossing per point for a problem given by callbacks, and one
// batched pass for a framework that computes Hessian products (rhgd.torch).
// Above MaxDim, a problem without HessGyInv is an error at New that names
// the dimension and the limit.
//
// Deriving costs D products per point where CG takes one per iteration
// (one HessGyBatch call, when the problem has it):
// on the synthetic problem at SPD(10) (D = 55) an estimate at a new point
// took 0.55–0.65 ms against CG's 0.07–0.11 ms, and 21–25 ms against
// 0.35–0.6 ms at SPD(20) (D = 210; two shared cores), where the basis and the matrix's O(D²·Len) inner products
// dominate (BenchmarkHInvEstimate). It pays where CG needs many
// iterations (an ill-conditioned H), or an exact solve is the point.
type HInv struct {
	// MaxDim is the largest lower dimension My.Dim() for which the
	// inverse Hessian is derived from HessGy when the problem has no
	// HessGyInv; default DefaultHInvMaxDim. It does not matter when the
	// problem gives HessGyInv.
	MaxDim int
}

// Name returns "hinv".
func (HInv) Name() string { return "hinv" }

// String returns the spec ParseEstimator reads: "hinv", with
// ":maxdim=N" when MaxDim is set to other than its default.
func (h HInv) String() string {
	if h.MaxDim == 0 || h.MaxDim == DefaultHInvMaxDim {
		return "hinv"
	}
	return "hinv:maxdim=" + strconv.Itoa(h.MaxDim)
}

// Needs returns GradFx, GradFy, CrossGxy and HessGyInv: the oracles of a
// problem that gives its inverse Hessian. On a problem without HessGyInv
// and a lower manifold of dimension at most MaxDim, New asks for HessGy
// in its place (the inverse is derived; see HInv).
func (HInv) Needs() Oracles { return needsHInv }

// maxDim returns MaxDim, its zero the default.
func (h HInv) maxDim() int {
	if h.MaxDim == 0 {
		return DefaultHInvMaxDim
	}
	return h.MaxDim
}

// needsOf returns the oracles HInv needs on p: HessGyInv when p has it,
// else HessGy, from which it derives the inverse; an error when MaxDim
// is out of range or the inverse would be derived above it.
func (h HInv) needsOf(p *Problem) (Oracles, error) {
	if h.MaxDim < 0 {
		return 0, fmt.Errorf("%w: HInv MaxDim = %d, want ≥ 0 (0: default %d)", ErrBadSetting, h.MaxDim, DefaultHInvMaxDim)
	}
	if p.HessGyInv != nil {
		return needsHInv, nil
	}
	if d := p.My.Dim(); d > h.maxDim() {
		return 0, numerr.Errorf("%w: %v (the inverse Hessian is derived from %v only on a lower manifold of dimension at most hinv:maxdim = %d, and this one has dimension %d; use the cg estimator, or raise hinv:maxdim: deriving it takes %d Hessian products per point)",
			ErrMissing, NewOracles(OracleHessGyInv), OracleHessGy, h.maxDim(), d, d)
	}
	return needsHessVp, nil
}

// problemNeeds is an estimator whose oracles depend on the problem (HInv:
// HessGyInv, or HessGy to derive it); New asks it instead of Needs.
type problemNeeds interface {
	needsOf(p *Problem) (Oracles, error)
}

// Bind returns HInv's instance for env's solver: the problem's HessGyInv,
// or, without it, the derivation's buffers, all allocated here.
func (h HInv) Bind(env *Env) (Hypergrad, error) {
	if _, err := h.needsOf(env.p); err != nil {
		return nil, err
	}
	hi := &hinv{env: env, b: env.NewY(), v: env.NewY()}
	if env.p.HessGyInv == nil {
		if env.p.HessGy == nil {
			return nil, numerr.Errorf("%w: %v, or %v to derive it from", ErrMissing, NewOracles(OracleHessGyInv), OracleHessGy)
		}
		hi.der = newHInvDerived(env.My, env.HasHessGyBatch())
	}
	return hi, nil
}

type hinv struct {
	env  *Env
	b, v []float64
	der  *hinvDerived // nil: the problem's HessGyInv
}

func (h *hinv) Reset() {
	if h.der != nil {
		h.der.basisMemo.Reset()
		h.der.factorMemo.Reset()
	}
}

func (h *hinv) Estimate(dst []float64, at *Point) error {
	if err := h.env.GradFy(h.b, at); err != nil {
		return err
	}
	if h.der != nil {
		if err := h.der.solve(h.env, h.v, at, h.b); err != nil {
			return fmt.Errorf("HINV: %w", err)
		}
	} else if err := h.env.HessGyInv(h.v, at, h.b); err != nil {
		return err
	}
	if h.env.WantsNorms() {
		// An exact inverse: no residual (a derived one's is rounding,
		// of the order of the unit roundoff times A's condition number).
		h.env.SetSolve(h.env.My.Norm(at.Y, h.b), 0, 0)
	}
	return h.env.Hyper(dst, at, h.v)
}

// hinvDerived derives H⁻¹ at a point from D Hessian products in an
// orthonormal basis of T_y (see HInv).
type hinvDerived struct {
	my     Manifold
	d, n   int  // D = Dim, n = Len
	euclid bool // the basis is the identity
	wh     Whitener
	// basis holds q_1 … q_D, D×n row-major (the identity's rows on a
	// EuclideanSpace); basisW their whitened coordinates when My is a
	// Whitener.
	basis, basisW []float64
	pcg           *rand.PCG // the basis's random candidates
	rnd           *rand.Rand
	u, uW, hq     []float64 // n: scratch, and a product H q_j
	// hqs holds the D products H q_j as rows when the problem has
	// HessGyBatch (nil otherwise).
	hqs       []float64
	a, l      []float64 // D×D: the matrix, its Cholesky factor
	tri       []float64 // D×D: scratch of the tridiagonal reduction (and rhs its vector's)
	diag, off []float64 // D: its tridiagonal
	rhs, c    []float64 // D: coordinates of b, and of v
	lo, hi    float64   // A's extreme eigenvalues
	// basisMemo keys the basis to y; factorMemo keys A's factor to
	// (x, y, the Hessian batch).
	basisMemo, factorMemo Memo
}

// newHInvDerived allocates the derivation on my; batch: the problem has
// HessGyBatch, which factor calls once per point.
func newHInvDerived(my Manifold, batch bool) *hinvDerived {
	d, n := my.Dim(), my.Len()
	h := &hinvDerived{my: my, d: d, n: n, euclid: IsEuclideanSpace(my) && d == n,
		u: make([]float64, n), hq: make([]float64, n),
		a: make([]float64, d*d), l: make([]float64, d*d), tri: make([]float64, d*d),
		diag: make([]float64, d), off: make([]float64, d),
		rhs: make([]float64, d), c: make([]float64, d),
		basisMemo: Memo{On: OnY}, factorMemo: Memo{On: OnX | OnY | OnBatch}}
	if batch {
		h.hqs = make([]float64, d*n)
	}
	h.basis = make([]float64, d*n)
	if h.euclid {
		for j := range d {
			h.basis[j*n+j] = 1
		}
	} else {
		h.pcg = rand.NewPCG(basisSeed, basisSeed)
		h.rnd = rand.New(h.pcg)
		if wh, ok := my.(Whitener); ok && !noWhiten {
			h.wh = wh
			h.basisW, h.uW = make([]float64, d*n), make([]float64, n)
		}
	}
	return h
}

// inner returns ⟨u, w⟩_y through the whitened coordinates uw, ww when
// My is a Whitener, else by the metric.
func (h *hinvDerived) inner(y, u, w, uw, ww []float64) float64 {
	if h.wh != nil {
		return floats.Dot(uw, ww)
	}
	return h.my.Inner(y, u, w)
}

// basisTol is the least norm, relative to its projection's, that a
// candidate must keep after orthogonalization to enter the basis; a
// candidate below it is drawn again.
const basisTol = 1e-8

// basisSeed seeds the candidates at every construction of the basis, so
// that the basis is a function of y alone.
const basisSeed = 0x48494e56 // "HINV"

// buildBasis sets q_1 … q_D, orthonormal in the metric at y: projections
// onto T_y of random Gaussian ambient vectors (from a fixed seed), each
// orthogonalized against the basis so far by Gram–Schmidt twice (twice
// is enough: Giraud, Langou and Rozložník, 2005) and normalized; a
// candidate that loses all but basisTol of its norm (left in the span,
// which has probability zero) is drawn again. D random candidates span
// T_y almost surely, so it costs about D projections and 2·D² inner
// products and updates of length Len (dot products of whitened
// coordinates on a Whitener), where candidates from all Len unit vectors
// would cost Len/D times more.
func (h *hinvDerived) buildBasis(y []float64) error {
	n, d := h.n, h.d
	h.pcg.Seed(basisSeed, basisSeed)
	for k, tries := 0, 0; k < d; tries++ {
		if tries >= 2*d+8 {
			return fmt.Errorf("%w: the projections onto T_y of %d random vectors span %d of the lower manifold's %d dimensions",
				numerr.ErrInvalid, tries, k, d)
		}
		for i := range h.u {
			h.u[i] = h.rnd.NormFloat64()
		}
		q := h.basis[k*n : (k+1)*n]
		h.my.Project(q, y, h.u)
		var qw []float64
		if h.wh != nil {
			qw = h.basisW[k*n : (k+1)*n]
			if err := h.wh.Whiten(qw, y, q); err != nil {
				return err
			}
		}
		orig := math.Sqrt(h.inner(y, q, q, qw, qw))
		if !(orig > 0) || math.IsInf(orig, 0) {
			return fmt.Errorf("%w: a random tangent vector at y has norm %v", numerr.ErrNotFinite, orig)
		}
		for range 2 {
			for m := range k {
				p := h.basis[m*n : (m+1)*n]
				var pw []float64
				if h.wh != nil {
					pw = h.basisW[m*n : (m+1)*n]
				}
				c := h.inner(y, p, q, pw, qw)
				floats.AddScaled(q, -c, p)
				if h.wh != nil {
					floats.AddScaled(qw, -c, pw)
				}
			}
		}
		nq := math.Sqrt(h.inner(y, q, q, qw, qw))
		if !(nq > basisTol*orig) {
			continue
		}
		floats.Scale(1/nq, q)
		if h.wh != nil {
			floats.Scale(1/nq, qw)
		}
		k++
	}
	return nil
}

// factor forms A_ij = ⟨q_i, H q_j⟩ at `at` (D products through env, on
// the Hessian batch), symmetrizes it, computes its eigenvalues and its
// Cholesky factor.
func (h *hinvDerived) factor(env *Env, at *Point) error {
	d, n, y := h.d, h.n, at.Y
	if h.hqs != nil {
		// All D products in one call: the basis as D rows.
		if err := env.HessGyBatch(h.hqs, at, h.basis, d); err != nil {
			return err
		}
	}
	for j := range d {
		hq := h.hq
		if h.hqs != nil {
			hq = h.hqs[j*n : (j+1)*n]
		} else if err := env.HessGy(hq, at, h.basis[j*n:(j+1)*n]); err != nil {
			return err
		}
		switch {
		case h.euclid:
			for i := range d {
				h.a[i*d+j] = hq[i]
			}
		case h.wh != nil:
			if err := h.wh.Whiten(h.uW, y, hq); err != nil {
				return err
			}
			for i := range d {
				h.a[i*d+j] = floats.Dot(h.basisW[i*n:(i+1)*n], h.uW)
			}
		default:
			for i := range d {
				h.a[i*d+j] = h.my.Inner(y, h.basis[i*n:(i+1)*n], hq)
			}
		}
	}
	if i := firstNotFinite(h.a); i >= 0 {
		return fmt.Errorf("%w: the lower Hessian's matrix in the tangent basis has entry (%d, %d) = %v", numerr.ErrNotFinite, i/d, i%d, h.a[i])
	}
	for i := range d { // (A + Aᵀ)/2
		for j := range i {
			m := 0.5 * (h.a[i*d+j] + h.a[j*d+i])
			h.a[i*d+j], h.a[j*d+i] = m, m
		}
	}
	copy(h.tri, h.a)
	tridiagonalize(h.tri, h.diag, h.off, h.rhs, d)
	h.lo, h.hi = tridiagExtremes(h.diag, h.off[:max(d-1, 0)])
	switch {
	case h.lo <= 0:
		return fmt.Errorf("%w: the lower Hessian's smallest eigenvalue is %.3g (largest %.3g): g is not strongly convex in y here (damp the solve: cg:damping=auto)",
			ErrNotPositive, h.lo, h.hi)
	case h.lo <= CurvatureTol*h.hi:
		return fmt.Errorf("%w: the lower Hessian's smallest eigenvalue %.3g is at most %.0e × its largest %.3g (g is not strongly convex in y here; damp the solve: cg:damping=auto)",
			ErrSingular, h.lo, CurvatureTol, h.hi)
	}
	if !cholesky(h.l, h.a, d) {
		return fmt.Errorf("%w: Cholesky factorization failed (smallest eigenvalue %.3g, largest %.3g)", ErrNotPositive, h.lo, h.hi)
	}
	return nil
}

// solve sets v = H⁻¹b at `at`, deriving the basis and the factor unless
// they are those of the point already, and records A's extreme
// eigenvalues as the spectrum estimate.
func (h *hinvDerived) solve(env *Env, v []float64, at *Point, b []float64) error {
	d, n, y := h.d, h.n, at.Y
	if !h.euclid && !h.basisMemo.Valid(at) {
		h.basisMemo.Reset()
		h.factorMemo.Reset()
		if err := h.buildBasis(y); err != nil {
			return err
		}
		h.basisMemo.Store(at)
	}
	hp := *env.batch(at, hessBatch) // the point as HessGy sees it: its batch's identity
	if !h.factorMemo.Valid(&hp) {
		h.factorMemo.Reset()
		if err := h.factor(env, at); err != nil {
			return err
		}
		h.factorMemo.Store(&hp)
	}
	env.SetSpectrum(h.lo, h.hi)
	switch {
	case h.euclid:
		copy(h.rhs, b)
	case h.wh != nil:
		if err := h.wh.Whiten(h.uW, y, b); err != nil {
			return err
		}
		for i := range d {
			h.rhs[i] = floats.Dot(h.basisW[i*n:(i+1)*n], h.uW)
		}
	default:
		for i := range d {
			h.rhs[i] = h.my.Inner(y, h.basis[i*n:(i+1)*n], b)
		}
	}
	cholSolve(h.c, h.l, h.rhs, d)
	if h.euclid {
		copy(v, h.c)
		return nil
	}
	clear(v)
	for j := range d {
		floats.AddScaled(v, h.c[j], h.basis[j*n:(j+1)*n])
	}
	return nil
}

// The dense linear algebra of the derived inverse is here, in Go, rather
// than in lapackx: the solver package depends on no BLAS or LAPACK (a
// program that imports it alone builds without cgo's libraries and
// their modules), and D ≤ DefaultHInvMaxDim keeps the O(D³) work small
// next to the D Hessian products.

// cholesky sets l to the lower Cholesky factor of the d×d symmetric a
// (row-major; l's strict upper triangle zero) and reports whether a is
// positive definite (every pivot positive and finite). It allocates
// nothing.
func cholesky(l, a []float64, d int) bool {
	clear(l)
	for i := range d {
		li := l[i*d : i*d+i+1]
		for j := range i + 1 {
			lj := l[j*d : j*d+j]
			s := a[i*d+j] - floats.Dot(li[:j], lj)
			if j == i {
				if !(s > 0) || math.IsInf(s, 0) {
					return false
				}
				li[i] = math.Sqrt(s)
			} else {
				li[j] = s / l[j*d+j]
			}
		}
	}
	return true
}

// cholSolve sets x = A⁻¹b for A = LLᵀ, l the factor cholesky returns:
// L z = b by rows, then Lᵀx = z by columns of L (rows of Lᵀ) as updates.
// It allocates nothing.
func cholSolve(x, l, b []float64, d int) {
	for i := range d {
		x[i] = (b[i] - floats.Dot(l[i*d:i*d+i], x[:i])) / l[i*d+i]
	}
	for i := d - 1; i >= 0; i-- {
		x[i] /= l[i*d+i]
		floats.AddScaled(x[:i], -x[i], l[i*d:i*d+i])
	}
}

// tridiagonalize reduces the d×d symmetric a (row-major, both triangles,
// overwritten) to the tridiagonal T = QᵀAQ with the same eigenvalues by
// Householder reflections (Golub and Van Loan, Matrix Computations,
// Algorithm 8.3.1), setting its diagonal and off-diagonal (off[:d−1]);
// w is scratch of length d. It allocates nothing.
func tridiagonalize(a, diag, off, w []float64, d int) {
	for k := 0; k < d-2; k++ {
		// x = A[k+1:, k], as row k's part right of the diagonal.
		v := a[k*d+k+1 : k*d+d]
		diag[k] = a[k*d+k]
		norm := floats.Norm(v, 2)
		if norm == 0 {
			off[k] = 0
			continue
		}
		alpha := -math.Copysign(norm, v[0])
		v[0] -= alpha // v = x − αe₁: (I − βvvᵀ)x = αe₁
		off[k] = alpha
		beta := 2 / floats.Dot(v, v)
		// B = A[k+1:, k+1:] ← HBH: p = βBv, w = p − (β/2)(pᵀv)v,
		// B ← B − vwᵀ − wvᵀ.
		m := d - k - 1
		p := w[:m]
		for i := range m {
			r := (k+1+i)*d + k + 1
			p[i] = beta * floats.Dot(a[r:r+m], v)
		}
		floats.AddScaled(p, -0.5*beta*floats.Dot(p, v), v)
		for i := range m {
			r := (k+1+i)*d + k + 1
			row := a[r : r+m]
			floats.AddScaled(row, -v[i], p)
			floats.AddScaled(row, -p[i], v)
		}
	}
	switch {
	case d >= 2:
		diag[d-2], diag[d-1] = a[(d-2)*d+d-2], a[(d-1)*d+d-1]
		off[d-2] = a[(d-1)*d+d-2]
	case d == 1:
		diag[0] = a[0]
	}
}

// Package karcher is a compositional problem with a known answer, for the
// paper's reformulation of min ψ(φ(x)) as a bilevel problem (Appendix:
// compositional optimization, solver.Compositional):
//
//	min_{x ∈ Sym(n)} ψ(φ(x)),   φ(x) = C^½ exp(x) C^½,
//	ψ(Y) = ½ Σ_i w_i d²(Y, B_i),   Σ_i w_i = 1,
//
// on SPD(n) with the affine-invariant metric, for given SPD matrices B_i
// and C. ψ is the objective of the weighted Karcher (Fréchet, Riemannian
// barycenter) mean, geodesically 1-strongly convex on the Hadamard manifold
// SPD(n), whose unique minimizer M is the Karcher mean; φ is a
// diffeomorphism of Sym(n) onto SPD(n) (exp onto SPD(n), then the isometry
// Y ↦ C^½ Y C^½), so the minimizer is x* = log(C^{−½} M C^{−½}) with
// F* = ψ(M). The package is named after the mean it computes.
//
// # The bilevel form
//
// solver.Compositional gives f(x, y) = ψ(y) and g(x, y) = ½ d²(φ(x), y),
// which is geodesically 1-strongly convex in y on all of SPD(n) (curvature
// ≤ 0), with y*(x) = φ(x) and the lower Hessian the identity there. The
// oracles it needs are
//
//	grad ψ(Y) = −Σ_i w_i Log_Y B_i,
//	Dφ(x)†[W] = Dexp(x)[E⁻¹ C^{−½} W C^{−½} E⁻¹],   E = exp(x),
//
// the adjoint in the metric at Y = φ(x) and the Frobenius product on x:
// ⟨Dφ(x)[H], W⟩_Y = ⟨C^½ Dexp(x)[H] C^½, Y⁻¹WY⁻¹⟩_F, with
// C^½ Y⁻¹ = E⁻¹ C^{−½}, and the Fréchet derivative of the exponential of a
// symmetric matrix is self-adjoint in the Frobenius product (the
// Daleckii–Krein form Vᵀ(L ∘ VHVᵀ)V with symmetric L).
//
// solver.Compositional leaves the second-order oracles of g to finite
// differences; this package also gives them in closed form (HessGy,
// HessGyInv, CrossGxy, CrossGyx; see HessGy for the Hessian of ½d² on
// SPD), so that HINV runs and the finite differences have a truth to be
// checked against.
//
// # The upper variable
//
// x is stored as an n×n matrix on euclid.New(n, n) and φ reads its
// symmetric part, so the gradient Dφ(x)†[·] is symmetric and the
// antisymmetric part of x, which F does not depend on, never moves: from a
// symmetric x0 the iterates stay symmetric. With the Frobenius product the
// Riemannian Hessian of F at x* is Dφ†∘Hess ψ∘Dφ on Sym(n), at least the
// identity: in the eigenbasis of x the entry H_ij of a direction is scaled
// by ‖Dφ(x)[·]‖ = sinh(δ/2)/(δ/2) ≥ 1 with δ = λ_i − λ_j, and Hess ψ ⪰ I.
// Its largest eigenvalue grows with the spread of x* and of the B_i, which
// bounds η_x; Generate keeps both at a geodesic distance `spread` from a
// common centre.
package karcher

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

// Data are the matrices of the problem, row-major: B (Count matrices
// n×n, stacked), their weights W (Count entries; nil means uniform) and C
// (n×n). The tags name them in the problem's .npz file
// (problems.ReadTagged).
type Data struct {
	N     int       `dim:"n"`
	Count int       `dim:"count"`
	B     []float64 `npz:"B" shape:"count×n×n"`
	C     []float64 `npz:"C" shape:"n×n"`
	W     []float64 `npz:"w,optional" shape:"count"`
}

// Generate draws a centre G (spd.RandPoint from seed) and puts the B_i
// and C at geodesic distance spread from it, B_i = Exp_G(spread·U_i) and
// C = Exp_G(spread·U_0) for independent random unit tangents U_i at G;
// the weights are uniform. It needs n ≥ 1, count ≥ 1 and a spread in
// (0, 10].
func Generate(n, count int, spread float64, seed uint64) (*Data, error) {
	switch {
	case n < 1 || count < 1:
		return nil, fmt.Errorf("%w: karcher: need n ≥ 1 and count ≥ 1, have %d, %d", problems.ErrBadData, n, count)
	case !(spread > 0 && spread <= 10):
		return nil, fmt.Errorf("%w: karcher: spread %v must be in (0, 10]", problems.ErrBadData, spread)
	}
	rnd := rand.New(rand.NewPCG(seed, 0x6b61))
	m := spd.New(n)
	g, u := make([]float64, n*n), make([]float64, n*n)
	m.RandPoint(g, rnd)
	at := func(dst []float64) error {
		m.RandTangent(u, g, rnd)
		return m.Exp(dst, g, u, spread)
	}
	d := &Data{N: n, Count: count, B: make([]float64, count*n*n), W: make([]float64, count), C: make([]float64, n*n)}
	if err := at(d.C); err != nil {
		return nil, fmt.Errorf("%w: karcher: C: %w", problems.ErrBadData, err)
	}
	for i := 0; i < count; i++ {
		if err := at(d.B[i*n*n : (i+1)*n*n]); err != nil {
			return nil, fmt.Errorf("%w: karcher: B_%d: %w", problems.ErrBadData, i, err)
		}
		d.W[i] = 1 / float64(count)
	}
	return d, nil
}

// maxAbsEig bounds the eigenvalues of x: PhiAdjoint forms E⁻¹ W E⁻¹, of
// the order of e^{2|λ|}, which must stay below the float64 range (e^709).
const maxAbsEig = 350

// Problem is the compositional problem with its manifolds (x on
// euclid.New(n, n), y on spd.New(n)) and scratch space. φ, Dφ† and ψ
// keep their last results by the contents of their argument (the
// solver.Compositional functions receive slices, not points): φ(x) and the
// eigendecomposition of x, ψ(Y) with grad ψ(Y) (both from one pass over
// the B_i). Its oracles allocate nothing. It is not safe for concurrent
// use.
type Problem struct {
	n, count                int
	notes                   []string
	b, w                    []float64
	c, chalf, cihalf        []float64
	X                       *euclid.Euclidean // the upper manifold, R^{n×n}
	SPD                     *spd.SPD          // the lower manifold, SPD(n)
	xs, ls                  *lapackx.SymFunc  // at sym(x); at L⁻¹φ(x)L⁻ᵀ
	eig                     *lapackx.EigSym
	xKey, yKey              []float64
	xOK, yOK                bool
	e, phi, pm              []float64 // exp(x), φ(x), C^{−½} exp(−x)
	psi                     float64
	gpsi, ychol, acc        []float64
	hL, hLi, hG, hH, hR, hK []float64 // per (x, y): see hy
	hyAt                    solver.Memo
	nn                      [4][]float64
	errPsiNaN               error
}

// New returns the problem for data, which it validates (shapes, finite
// entries, B_i and C symmetric to float32 rounding and positive definite,
// weights non-negative with a positive sum, which it normalizes) and
// copies, the B_i and C symmetrized (problems.SymmetrizeInput: matrices
// asymmetric beyond float64 rounding get a note, Notes).
func New(data *Data) (*Problem, error) {
	if data == nil {
		return nil, fmt.Errorf("%w: karcher: no data", problems.ErrBadData)
	}
	n, k := data.N, data.Count
	switch {
	case n < 1 || k < 1:
		return nil, fmt.Errorf("%w: karcher: need n ≥ 1 and count ≥ 1, have %d, %d", problems.ErrBadData, n, k)
	case len(data.B) != k*n*n || len(data.C) != n*n:
		return nil, fmt.Errorf("%w: karcher: B has %d entries (want %d×%d×%d), C %d (want %d×%d)", problems.ErrBadData, len(data.B), k, n, n, len(data.C), n, n)
	case data.W != nil && len(data.W) != k:
		return nil, fmt.Errorf("%w: karcher: %d weights for %d matrices", problems.ErrBadData, len(data.W), k)
	}
	p := &Problem{n: n, count: k, b: append([]float64(nil), data.B...), w: make([]float64, k), c: append([]float64(nil), data.C...),
		chalf: make([]float64, n*n), cihalf: make([]float64, n*n), X: euclid.New(n, n), SPD: spd.New(n),
		xs: lapackx.NewSymFunc(n), ls: lapackx.NewSymFunc(n), eig: lapackx.NewEigSym(n),
		xKey: make([]float64, n*n), yKey: make([]float64, n*n), e: make([]float64, n*n), phi: make([]float64, n*n), pm: make([]float64, n*n),
		gpsi: make([]float64, n*n), ychol: make([]float64, n*n), acc: make([]float64, n*n),
		hL: make([]float64, n*n), hLi: make([]float64, n*n), hG: make([]float64, n*n), hH: make([]float64, n*n), hR: make([]float64, n*n), hK: make([]float64, n*n),
		hyAt: solver.Memo{On: solver.OnX | solver.OnY}}
	for i := range p.nn {
		p.nn[i] = make([]float64, n*n)
	}
	for _, m := range []struct {
		name string
		a    []float64
	}{{"B", p.b}, {"C", p.c}} {
		if err := problems.SymmetrizeInput(&p.notes, m.name, m.a, n); err != nil {
			return nil, fmt.Errorf("karcher: %w", err)
		}
	}
	check := func(name string, a []float64) error {
		if err := checkPosDef(a, n); err != nil {
			return fmt.Errorf("%w: karcher: %s: %w", problems.ErrBadData, name, err)
		}
		return nil
	}
	for i := 0; i < k; i++ {
		if err := check(fmt.Sprintf("B_%d", i), p.b[i*n*n:(i+1)*n*n]); err != nil {
			return nil, err
		}
	}
	if err := check("C", p.c); err != nil {
		return nil, err
	}
	var sum float64
	for i := range p.w {
		w := 1.0
		if data.W != nil {
			w = data.W[i]
		}
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("%w: karcher: weight %d is %v, want a finite w ≥ 0", problems.ErrBadData, i, w)
		}
		p.w[i] = w
		sum += w
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return nil, fmt.Errorf("%w: karcher: the weights sum to %v", problems.ErrBadData, sum)
	}
	for i := range p.w {
		p.w[i] /= sum
	}
	if err := p.xs.SqrtInvSqrt(p.chalf, p.cihalf, p.c); err != nil {
		return nil, fmt.Errorf("%w: karcher: C: %w", problems.ErrBadData, err)
	}
	p.errPsiNaN = fmt.Errorf("karcher: ψ: %w", numerr.ErrNotFinite)
	return p, nil
}

// checkPosDef reports a finite symmetric matrix that is not positive
// definite to working accuracy.
func checkPosDef(a []float64, n int) error {
	e := lapackx.NewEigSym(n)
	if err := e.FactorizeValues(a); err != nil {
		return err
	}
	if lam := e.Values(); !(lam[0] > float64(n)*0x1p-52*lam[n-1]) {
		return fmt.Errorf("%w: λ_min = %.3g, λ_max = %.3g", numerr.ErrNotPosDef, lam[0], lam[n-1])
	}
	return nil
}

// Notes returns one-line remarks on what New did to the data: B_i or C
// within float32 rounding of symmetric, symmetrized.
func (p *Problem) Notes() []string { return slices.Clone(p.notes) }

// Dims returns n and the number of matrices B_i.
func (p *Problem) Dims() (n, count int) { return p.n, p.count }

// Start returns the starting point x0 = 0, so that φ(x0) = C, and
// y0 = y*(x0) = C. The start is deterministic: seed is ignored (it is
// there so that every problem's Start has one signature).
func (p *Problem) Start(seed uint64) (x, y []float64) {
	return make([]float64, p.n*p.n), append([]float64(nil), p.c...)
}

// StartAt returns the starting point for a start a data file may hold:
// its parts as they are, y0 projected onto SPD(n) when it is within
// float32 rounding of it (noted in notes); x0 = 0 without one, and y0 =
// φ(x0) without y0 (seed is ignored, as by Start). path names the file in
// errors.
func (p *Problem) StartAt(st problems.Start, seed uint64, notes *[]string, path string) (x0, y0 []float64, err error) {
	if err := problems.SnapStart(notes, st, nil, p.SPD, "", "y0"); err != nil {
		return nil, nil, fmt.Errorf("karcher: %s: %w", path, err)
	}
	x0, y0 = st.Or(p.Start(seed))
	if st.Y != nil {
		return x0, y0, nil
	}
	if err := p.Phi(y0, x0); err != nil {
		return nil, nil, fmt.Errorf("%w: x0: %w", problems.ErrBadData, err)
	}
	return x0, y0, nil
}

func (p *Problem) mul(tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	blas.Impl().Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func equal(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ensureX factorizes sym(x) in p.xs and sets E = exp(sym x), φ(x) and
// C^{−½}E⁻¹, unless x is the argument of the last successful call.
func (p *Problem) ensureX(x []float64) error {
	if p.xOK && equal(x, p.xKey) {
		return nil
	}
	p.xOK = false
	n := p.n
	copy(p.xKey, x)
	s := p.nn[0]
	copy(s, x)
	lapackx.Symmetrize(s, n)
	if err := p.xs.Factorize(s); err != nil {
		return fmt.Errorf("karcher: x: %w", err)
	}
	lam, v := p.xs.Eig().Values(), p.xs.Eig().Vectors()
	if lam[0] < -maxAbsEig || lam[n-1] > maxAbsEig {
		return fmt.Errorf("karcher: %w: x has eigenvalues in [%.4g, %.4g], φ(x) = C^½ exp(x) C^½ needs them in ±%d",
			numerr.ErrOverflow, lam[0], lam[n-1], maxAbsEig)
	}
	if err := p.xs.Eval(p.e, lapackx.ExpFunc); err != nil {
		return fmt.Errorf("karcher: exp(x): %w", err)
	}
	// E⁻¹ = Wᵀ W with the rows w_i = e^{−λ_i/2} v_i, all weights positive.
	w, einv := p.nn[1], p.nn[2]
	for i := 0; i < n; i++ {
		c := math.Exp(-0.5 * lam[i])
		for j := 0; j < n; j++ {
			w[i*n+j] = c * v[i*n+j]
		}
	}
	p.mul(gblas.Trans, gblas.NoTrans, n, n, n, 1, w, n, w, n, 0, einv, n)
	p.mul(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, p.cihalf, n, einv, n, 0, p.pm, n)
	copy(s, p.e)
	lapackx.Congruence(p.phi, p.chalf, s, p.nn[3], n, false)
	for i, v := range p.phi {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("karcher: %w: φ(x)[%d, %d] = %v", numerr.ErrOverflow, i/n, i%n, v)
		}
	}
	p.xOK = true
	return nil
}

// Phi sets dst = φ(x) = C^½ exp(sym x) C^½. It returns an error wrapping
// numerr.ErrOverflow when an eigenvalue of sym(x) exceeds 350 in modulus
// or φ(x) overflows, and the error of the eigendecomposition for a
// non-finite x.
func (p *Problem) Phi(dst, x []float64) error {
	if err := p.ensureX(x); err != nil {
		return err
	}
	copy(dst, p.phi)
	return nil
}

// PhiAdjoint sets dst = Dφ(x)†[w] = Dexp(x)[E⁻¹ C^{−½} w C^{−½} E⁻¹] for a
// symmetric w (the package documentation derives it). Its signature, set
// by solver.Compositional, has no error: where Phi(x) fails, or the
// Fréchet derivative does, it fills dst with NaN, which the solver reports
// as a divergence. Within a run that cannot happen: solver.Compositional
// calls it only after φ succeeded at the same x.
func (p *Problem) PhiAdjoint(dst, x, w []float64) {
	if err := p.phiAdjoint(dst, x, w); err != nil {
		for i := range dst {
			dst[i] = math.NaN()
		}
	}
}

func (p *Problem) phiAdjoint(dst, x, w []float64) error {
	if err := p.ensureX(x); err != nil {
		return err
	}
	n := p.n
	t := p.nn[0]
	copy(t, w)
	lapackx.Congruence(t, p.pm, t, p.nn[1], n, true) // (C^{−½}E⁻¹)ᵀ w (C^{−½}E⁻¹)
	return p.xs.Frechet(dst, t, lapackx.ExpFunc)
}

// ensureY computes ψ(Y) and grad ψ(Y) unless y is the argument of the
// last successful call: with Y = LLᵀ, Log_Y B_i = L log(L⁻¹B_iL⁻ᵀ) Lᵀ and
// d²(Y, B_i) = ‖log λ(L⁻¹B_iL⁻ᵀ)‖², one eigendecomposition per B_i, so
// grad ψ = −L (Σ_i w_i log(L⁻¹B_iL⁻ᵀ)) Lᵀ.
func (p *Problem) ensureY(y []float64) error {
	if p.yOK && equal(y, p.yKey) {
		return nil
	}
	p.yOK = false
	n := p.n
	copy(p.yKey, y)
	l := p.ychol
	if err := lapackx.Cholesky(l, y, n); err != nil {
		return fmt.Errorf("karcher: Y: %w", err)
	}
	clear(p.acc)
	var psi float64
	red, t := p.nn[0], p.nn[1]
	for k := 0; k < p.count; k++ {
		copy(red, p.b[k*n*n:(k+1)*n*n])
		lapackx.ReduceSym(red, l, n)
		if err := p.eig.FactorizeLower(red); err != nil {
			return fmt.Errorf("karcher: ψ: B_%d: %w", k, err)
		}
		lam, v := p.eig.Values(), p.eig.Vectors()
		if !(lam[0] > 0) {
			return fmt.Errorf("karcher: ψ: %w: L⁻¹B_%dL⁻ᵀ has λ_min = %.3g", numerr.ErrNotPosDef, k, lam[0])
		}
		wk := p.w[k]
		for i := 0; i < n; i++ {
			lg := math.Log(lam[i])
			psi += 0.5 * wk * lg * lg
			c := wk * lg
			for j := 0; j < n; j++ {
				t[i*n+j] = c * v[i*n+j]
			}
		}
		p.mul(gblas.Trans, gblas.NoTrans, n, n, n, 1, v, n, t, n, 1, p.acc, n) // += Vᵀ diag(w log λ) V
	}
	lapackx.Symmetrize(p.acc, n)
	lapackx.Congruence(p.gpsi, l, p.acc, t, n, false)
	for i := range p.gpsi {
		p.gpsi[i] = -p.gpsi[i]
	}
	if math.IsNaN(psi) || math.IsInf(psi, 0) {
		return p.errPsiNaN
	}
	p.psi = psi
	p.yOK = true
	return nil
}

// Psi returns ψ(Y) = ½ Σ w_i d²(Y, B_i), or NaN where it fails (Y not
// positive definite); F, which Problem uses in its place, returns the
// error.
func (p *Problem) Psi(y []float64) float64 {
	if err := p.ensureY(y); err != nil {
		return math.NaN()
	}
	return p.psi
}

// GradPsi sets dst = grad ψ(Y) = −Σ w_i Log_Y B_i, or NaN where it fails;
// GradFy, which Problem uses in its place, returns the error.
func (p *Problem) GradPsi(dst, y []float64) {
	if err := p.ensureY(y); err != nil {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return
	}
	copy(dst, p.gpsi)
}

// F returns f(x, y) = ψ(y), with the error of a failed evaluation.
func (p *Problem) F(pt *solver.Point) (float64, error) {
	if err := p.ensureY(pt.Y); err != nil {
		return 0, err
	}
	return p.psi, nil
}

// GradFy sets dst = grad ψ(y), with the error of a failed evaluation.
func (p *Problem) GradFy(dst []float64, pt *solver.Point) error {
	if err := p.ensureY(pt.Y); err != nil {
		return err
	}
	copy(dst, p.gpsi)
	return nil
}

// hy prepares the lower level's second-order oracles at (x, y), once per
// point: with Y = LLᵀ, M = L⁻¹φ(x)L⁻ᵀ = Vᵀ diag(μ) V (rows of V the
// eigenvectors, factorized in p.ls), L⁻¹, G = V L⁻¹, H = L Vᵀ, R = L⁻¹C^½ and
// the Hessian's scale factors K_ij = h(log μ_i − log μ_j), h(δ) =
// (δ/2)·coth(δ/2).
func (p *Problem) hy(pt *solver.Point) error {
	if err := p.ensureX(pt.X); err != nil {
		return err
	}
	if p.hyAt.Valid(pt) {
		return nil
	}
	p.hyAt.Reset()
	n := p.n
	l := p.hL
	if err := lapackx.Cholesky(l, pt.Y, n); err != nil {
		return fmt.Errorf("karcher: Y: %w", err)
	}
	li := p.hLi
	lapackx.InvLower(li, l, n)
	m := p.nn[0]
	copy(m, p.phi)
	lapackx.Congruence(m, li, m, p.nn[1], n, false)
	if err := p.ls.Factorize(m); err != nil {
		return fmt.Errorf("karcher: L⁻¹φ(x)L⁻ᵀ: %w", err)
	}
	mu, v := p.ls.Eig().Values(), p.ls.Eig().Vectors()
	if !(mu[0] > 0) {
		return fmt.Errorf("karcher: %w: L⁻¹φ(x)L⁻ᵀ has λ_min = %.3g", numerr.ErrNotPosDef, mu[0])
	}
	p.mul(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, v, n, li, n, 0, p.hG, n)
	p.mul(gblas.NoTrans, gblas.Trans, n, n, n, 1, l, n, v, n, 0, p.hH, n)
	p.mul(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, li, n, p.chalf, n, 0, p.hR, n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			k := cothScale(math.Log(mu[i]) - math.Log(mu[j]))
			p.hK[i*n+j], p.hK[j*n+i] = k, k
		}
	}
	p.hyAt.Store(pt)
	return nil
}

// cothScale returns h(δ) = (δ/2)·coth(δ/2), the Hessian of ½d² along a
// direction of curvature −δ²/4 (h(0) = 1; the series 1 + δ²/12 − δ⁴/720
// below |δ| = 10⁻³, where it is exact to rounding).
func cothScale(d float64) float64 {
	h := 0.5 * math.Abs(d)
	if h < 5e-4 {
		return 1 + h*h/3 - h*h*h*h/45
	}
	return h / math.Tanh(h)
}

// HessGy sets dst = H_y g[V] for g = ½ d²(φ(x), y), in closed form: the
// isometry Y ↦ L⁻¹YL⁻ᵀ maps Y to I and φ(x) to M = Vᵀ diag(μ) V, and at I
// the Hessian of ½d²(·, M) scales the entries of a tangent in the
// eigenbasis of M by h(log μ_i − log μ_j), h(δ) = (δ/2)·coth(δ/2) (the
// curvature operator of SPD at I is R(U, W)W = −¼[[U, W], W], whose
// eigenvalues along Log_I M = log M are −¼(log μ_i − log μ_j)²; a
// symmetric space's Hessian of ½d² is √(−R)·coth √(−R)). So
//
//	H_y g[V] = H (K ∘ (G V Gᵀ)) Hᵀ,   G = V L⁻¹, H = L Vᵀ, K_ij = h(δ_ij),
//
// the identity at y = φ(x), and its eigenvalues lie in [1, h(δ_max)]: g is
// 1-strongly convex in y on all of SPD(n).
func (p *Problem) HessGy(dst []float64, pt *solver.Point, v []float64) error {
	return p.hess(dst, pt, v, false)
}

// HessGyInv sets dst = H_y g⁻¹[V] = H ((G V Gᵀ) ⊘ K) Hᵀ (see HessGy).
func (p *Problem) HessGyInv(dst []float64, pt *solver.Point, v []float64) error {
	return p.hess(dst, pt, v, true)
}

func (p *Problem) hess(dst []float64, pt *solver.Point, v []float64, inverse bool) error {
	if err := p.hy(pt); err != nil {
		return err
	}
	n := p.n
	t := p.nn[0]
	copy(t, v)
	lapackx.Symmetrize(t, n)
	lapackx.Congruence(t, p.hG, t, p.nn[1], n, false)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if inverse {
				t[i*n+j] /= p.hK[i*n+j]
			} else {
				t[i*n+j] *= p.hK[i*n+j]
			}
		}
	}
	lapackx.Congruence(dst, p.hH, t, p.nn[1], n, false)
	return nil
}

// CrossGyx sets dst = G_yx g[u] = D_x grad_y g(x, y)[u] for g = ½d²(φ(x), y):
// with grad_y g = −Log_Y φ(x), Y = LLᵀ and Log_Y Z = L log(L⁻¹ZL⁻ᵀ) Lᵀ,
//
//	G_yx g[u] = −L Dlog(M)[L⁻¹ Dφ(x)[u] L⁻ᵀ] Lᵀ,   M = L⁻¹φ(x)L⁻ᵀ,
//	Dφ(x)[u] = C^½ Dexp(x)[sym u] C^½.
func (p *Problem) CrossGyx(dst []float64, pt *solver.Point, u []float64) error {
	if err := p.hy(pt); err != nil {
		return err
	}
	n := p.n
	t := p.nn[0]
	copy(t, u)
	lapackx.Symmetrize(t, n)
	if err := p.xs.Frechet(t, t, lapackx.ExpFunc); err != nil {
		return fmt.Errorf("karcher: Dexp(x): %w", err)
	}
	lapackx.Congruence(t, p.hR, t, p.nn[1], n, false) // L⁻¹C^½ · C^½L⁻ᵀ
	if err := p.ls.Frechet(t, t, lapackx.LogFunc); err != nil {
		return fmt.Errorf("karcher: Dlog: %w", err)
	}
	lapackx.Congruence(dst, p.hL, t, p.nn[1], n, false)
	for i := range dst {
		dst[i] = -dst[i]
	}
	return nil
}

// CrossGxy sets dst = G_xy g[V] = D_y grad_x g(x, y)[V], the adjoint of
// CrossGyx (⟨L A Lᵀ, V⟩_Y = ⟨A, L⁻¹VL⁻ᵀ⟩_F, and Dlog, Dexp and sym are
// self-adjoint in the Frobenius product):
//
//	G_xy g[V] = −Dexp(x)[C^½ L⁻ᵀ Dlog(M)[L⁻¹VL⁻ᵀ] L⁻¹ C^½].
func (p *Problem) CrossGxy(dst []float64, pt *solver.Point, v []float64) error {
	if err := p.hy(pt); err != nil {
		return err
	}
	n := p.n
	t := p.nn[0]
	copy(t, v)
	lapackx.Symmetrize(t, n)
	lapackx.Congruence(t, p.hLi, t, p.nn[1], n, false)
	if err := p.ls.Frechet(t, t, lapackx.LogFunc); err != nil {
		return fmt.Errorf("karcher: Dlog: %w", err)
	}
	lapackx.Congruence(t, p.hR, t, p.nn[1], n, true) // (L⁻¹C^½)ᵀ · (L⁻¹C^½)
	if err := p.xs.Frechet(dst, t, lapackx.ExpFunc); err != nil {
		return fmt.Errorf("karcher: Dexp(x): %w", err)
	}
	for i := range dst {
		dst[i] = -dst[i]
	}
	return nil
}

// Compositional returns the problem's description for solver.Compositional.
func (p *Problem) Compositional() solver.CompositionalProblem {
	return solver.CompositionalProblem{Psi: p.Psi, GradPsi: p.GradPsi, Phi: p.Phi, PhiAdjoint: p.PhiAdjoint}
}

// Bilevel returns the bilevel form solver.Compositional(p.Compositional(), p.X, p.SPD)
// with F and GradFy replaced by their twins that return ψ's errors
// (solver.Compositional's Psi and GradPsi have no error result) and the
// exact second-order oracles of g added (HessGy, HessGyInv, CrossGxy,
// CrossGyx), so that every hypergradient estimator runs on it: HINV, CG,
// NS and AD. Clear HessGy and CrossGxy (solver.New then fills them by
// finite differences, as for any solver.Compositional problem) to run on
// the reformulation's first-order oracles alone.
func (p *Problem) Bilevel() solver.Problem {
	q, err := solver.Compositional(p.Compositional(), p.X, p.SPD)
	if err != nil {
		panic(err) // both manifolds set, SPD has a Log, every function set
	}
	q.F, q.GradFy = p.F, p.GradFy
	q.HessGy, q.HessGyInv, q.CrossGxy, q.CrossGyx = p.HessGy, p.HessGyInv, p.CrossGxy, p.CrossGyx
	q.LowerSolve = p.LowerSolve
	return q
}

// LowerSolve sets dst to the lower solution y*(x) = φ(x), where
// g = ½d²(φ(x), y) vanishes.
func (p *Problem) LowerSolve(dst []float64, pt *solver.Point) error { return p.Phi(dst, pt.X) }

// Package domainadapt is the paper's unsupervised domain adaptation problem
// (Section 4.4) on Π(μ, ν) × SPD(d): a transport plan Γ from n labelled
// source samples X (n×d) to m unlabelled target samples Y (m×d), and a
// metric M,
//
//	min_{Γ ∈ Π(μ,ν)} f(Γ, M*) = ⟨Γ, C(X M*^{−½}, Y M*^{−½})⟩ − λ H(Γ),
//	M* = argmin_{M ≻ 0} g(Γ, M) = α d²(M, A) + (1−α) d²(M, B(Γ)),
//
// with C(P, Q)_ij = ‖p_i − q_j‖² the pairwise squared distances, H(Γ) =
// −⟨Γ, log Γ⟩, d the affine-invariant distance, and, as in the authors' code
// (test_da_barycenter.py),
//
//	A = XᵀX + εI,   B(Γ) = X̂ᵀX̂ + εI,   X̂ = diag(μ)⁻¹ Γ Y,
//
// X̂ being the barycentric projection of the source onto the target (n Γ Y
// for uniform μ, so that B is on the scale of A; the paper writes YᵀΓᵀΓY
// without the n² and the ridge ε = 0.01). μ and ν are uniform.
//
// # Oracles
//
// With M = LLᵀ, K_P = L⁻¹PL⁻ᵀ = Q_P diag(λ^P) Q_Pᵀ for P ∈ {A, B}, s^P =
// log λ^P, W_P = L Q_P, and S(Γ) = Σ_ij Γ_ij (x_i − y_j)(x_i − y_j)ᵀ:
//
//	f = tr(M⁻¹S(Γ)) + λ⟨Γ, log Γ⟩,    grad_Γ f = P_Γ(Γ ∘ (C + λ log Γ)),
//	grad_M f = −S(Γ),
//	g = α‖s^A‖² + (1−α)‖s^B‖²,       grad_M g = −2α Log_M A − 2(1−α) Log_M B,
//	grad_Γ g = P_Γ(Γ ∘ 2 D⁻² ΓY G Yᵀ),  G = 2(1−α) W_B⁻ᵀ diag(s^B/λ^B) W_B⁻¹,
//	H_M g[U] = Σ_P 2w_P W_P [(W_P⁻¹ U W_P⁻ᵀ) ∘ h(s^P_i − s^P_j)] W_Pᵀ,
//	G_ΓM g[V] = P_Γ(Γ ∘ (−4(1−α) D⁻² ΓY N Yᵀ)),  N = W_B⁻ᵀ [(W_B⁻¹VW_B⁻ᵀ) ∘ Λ] W_B⁻¹,
//	G_MΓ g[U] = −2(1−α) W_B [(W_B⁻¹ (E + Eᵀ) W_B⁻ᵀ) ∘ Λ] W_Bᵀ,  E = (ΓY)ᵀ D⁻² U Y,
//
// where D = diag(μ), w_A = α, w_B = 1−α, Λ_ij = log[λ^B_i, λ^B_j] is the
// divided difference of log (the Daleckii–Krein matrix of the Fréchet
// derivative of log at K_B), and h(δ) = (δ/2) coth(δ/2). The Hessian is that
// of ½d²(·, P) on a symmetric space: in the frame where M = I its eigenvalues
// are √κ coth √κ over the eigenvalues κ = (s_i − s_j)²/4 of the curvature
// operator −R(·, log K_P) log K_P = ¼[[·, S], S]. h ≥ 1, so H_M g ⪰ 2I: g is
// geodesically 2-strongly convex in M.
//
// # Lower solution and inverse Hessian
//
// The minimizer of g is the weighted geometric mean M* = A #_{1−α} B =
// L_A (L_A⁻¹ B L_A⁻ᵀ)^{1−α} L_Aᵀ (LowerSolution). The inverse Hessian
// (HessGyInv) is a preconditioned conjugate gradient solve in the frame of L,
// to a relative residual of 1e−13: the two terms of H_M g are diagonal in
// different bases (Q_A and Q_B) except at M*, where log K_A = −((1−α)/α)
// log K_B shares Q_B, so no closed form exists elsewhere, and a dense solve in
// the d(d+1)/2-dimensional space costs O(d⁶) (2·10¹¹ flops at d = 128). The
// preconditioner is the operator with the A term read in Q_B's basis, which
// is the exact inverse at M*: there CG stops after one iteration, and near
// M* (where the solver evaluates it) after a few.
//
// # Classification
//
// Accuracy projects the source onto the target by Γ (X̂ = D⁻¹ΓY), labels each
// target sample with the label of its nearest projected source sample in the
// metric M⁻¹, and returns the percentage of correct labels, as the authors'
// code does. BaselineAccuracy does the same with the entropic OT plan of the
// Euclidean cost (OT-SKH) and the Euclidean metric.
//
// # Accuracy and the budget
//
// With λ = 0, f is linear in Γ but for M*'s dependence on Γ, and it is
// smallest at a nearly sparse plan. Each upper step Γ ← Sinkhorn(Γ ∘
// exp(−η ĝ ⊘ Γ)) is an exponentiated-gradient (entropic mirror) step, so
// after steps summing to T from μνᵀ the plan is roughly the entropic plan
// of regularization λ = 1/T. The paper's accuracies on DeCAF6 (97.97 D→W,
// 98.73 W→D) are those of its budget, K = 100 steps of η_x = 0.5 (T = 50):
// the same settings run longer lower f and lose accuracy (D→W: 95.93 at
// 150 epochs, 88.81 at 375; W→D: 94.27 at 375), and the adaptive preset,
// whose BB steps lower f faster (in 100 epochs below what the paper
// settings reach in 400), ends near the sparse minimizer, at 86.10 and
// 89.81. With the entropy made explicit, λ = 0.02, the adaptive preset
// converges (‖ĝ‖ ≤ 10⁻⁸‖ĝ₀‖) in 55 and 58 epochs, at 97.63 and 99.36.
package domainadapt

import (
	"fmt"
	"math"
	"slices"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/coupling"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

// ErrBadData signifies data that the problem cannot use: wrong sizes,
// non-finite values, labels that are not positive, settings out of range
// (α outside [0, 1], λ or ε negative). It matches problems.ErrBadData and
// numerr.ErrInvalid.
var ErrBadData = numerr.New(problems.ErrBadData, "domainadapt: bad data")

// Data are the source and target samples, row-major; the tags name them
// in the problem's .npz file (problems.ReadTagged).
type Data struct {
	// N source samples X (N×D) and M target samples Y (M×D).
	N int       `dim:"n"`
	M int       `dim:"m"`
	D int       `dim:"d"`
	X []float64 `npz:"X" shape:"n×d"`
	Y []float64 `npz:"Y" shape:"m×d"`
	// SourceLabels and TargetLabels (lengths N and M, positive classes)
	// are needed by Accuracy and BaselineAccuracy only; nil otherwise.
	SourceLabels, TargetLabels []int
	// Name says where the data come from, for Instance.Describe.
	Name string
}

// Config holds the problem's settings.
type Config struct {
	// Alpha ∈ [0, 1] weighs d²(M, A) against d²(M, B(Γ)); the paper's 0.5.
	Alpha float64
	// Lambda ≥ 0 is the entropic regularization of f; the paper's 0.
	Lambda float64
	// Ridge is ε > 0 in A = XᵀX + εI and B = X̂ᵀX̂ + εI; the authors' 0.01.
	Ridge float64
}

// Paper values of Config (the authors' code).
const (
	PaperAlpha  = 0.5
	PaperLambda = 0.0
	PaperRidge  = 0.01
)

// PaperConfig returns the paper's Config.
func PaperConfig() Config { return Config{Alpha: PaperAlpha, Lambda: PaperLambda, Ridge: PaperRidge} }

// Problem is the domain adaptation problem with its manifolds and scratch
// space. Its oracles allocate nothing and keep per-point work by the point's
// identity (solver.Memo): M's Cholesky factor, the eigendecomposition of
// L⁻¹AL⁻ᵀ and the cost matrix per M; ΓY and B(Γ) per Γ; the
// eigendecomposition of L⁻¹B(Γ)L⁻ᵀ and its derived matrices per (Γ, M).
// It is not safe for concurrent use.
type Problem struct {
	n, m, d              int
	alpha, lambda, ridge float64
	x, y                 []float64 // n×d, m×d
	mu, nu               []float64
	srcLab, tgtLab       []int
	g0, m0               []float64 // the start: μνᵀ and M*(μνᵀ)
	a                    []float64 // XᵀX + εI
	la                   []float64 // Cholesky factor of A (upper part zero)
	name                 string

	// Coupling is Π(μ, ν), the upper manifold; SPD is SPD(d), the lower.
	Coupling *coupling.Coupling
	SPD      *spd.SPD

	eig *lapackx.EigSym
	sf  *lapackx.SymFunc

	// Per M.
	l, li, minv  []float64 // L (upper zero), L⁻¹ (upper zero), M⁻¹
	lAt, minvAt  solver.Memo
	fa           frame // K_A
	faAt         solver.Memo
	cost         []float64 // C(XM^{−½}, YM^{−½}), n×m
	costAt       solver.Memo
	xminv, yminv []float64 // X M⁻¹, Y M⁻¹
	xq, yq       []float64 // row norms in the metric M⁻¹
	// Per Γ.
	gy, b []float64 // ΓY (n×d), B(Γ)
	gyAt  solver.Memo
	// Per (Γ, M).
	fb        frame // K_B
	fbAt      solver.Memo
	gB        []float64 // G, the Euclidean gradient of (1−α)d²(M, B) in B
	gBAt      solver.Memo
	pre       []float64 // the HINV preconditioner's divisors in Q_B's basis
	preAt     solver.Memo
	sHat      []float64
	hi        [7][]float64 // HINV's CG vectors and scratch
	hinvIters int
	sym       []float64    // d×d scratch of HessGy and the cross derivatives
	dd        [4][]float64 // d×d scratch
	nd        [2][]float64 // n×d scratch
	md        []float64    // m×d scratch
	nm        []float64    // n×m scratch
	row2      []float64    // 1/μ_i²
	rs, cs    []float64    // Γ's row and column sums

	// For Accuracy and the baseline (allocated on first use).
	acc *classifier
}

// frame is the eigendecomposition of K_P = L⁻¹PL⁻ᵀ = Q diag(λ) Qᵀ at one
// point, with W = L Q; W⁻¹ = Qᵀ L⁻¹ and the matrices of the second
// derivatives, which the lower steps do not need, are derived on demand.
type frame struct {
	v      []float64 // Qᵀ: row i is the i-th eigenvector
	w, wi  []float64 // W, W⁻¹
	lam, s []float64 // λ and s = log λ
	h      []float64 // h(s_i − s_j)
	dlog   []float64 // log[λ_i, λ_j]
	// derived says wi, h and dlog belong to the current decomposition.
	derived bool
}

func newFrame(d int) frame {
	return frame{v: make([]float64, d*d), w: make([]float64, d*d), wi: make([]float64, d*d),
		lam: make([]float64, d), s: make([]float64, d), h: make([]float64, d*d), dlog: make([]float64, d*d)}
}

// derive fills fr's W⁻¹ = V L⁻¹, h(s_i − s_j) and log[λ_i, λ_j] once per
// decomposition; li must be the L⁻¹ of the decomposition's point.
func (p *Problem) derive(fr *frame, li []float64) {
	if fr.derived {
		return
	}
	d := p.d
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			h, l := hcoth(fr.s[i]-fr.s[j]), lapackx.LogFunc.DivDiff(fr.lam[i], fr.lam[j])
			fr.h[i*d+j], fr.h[j*d+i] = h, h
			fr.dlog[i*d+j], fr.dlog[j*d+i] = l, l
		}
	}
	mul(gblas.NoTrans, gblas.NoTrans, d, d, d, 1, fr.v, d, li, d, 0, fr.wi, d)
	fr.derived = true
}

// New returns the problem for data and settings c, which it validates and
// copies. The marginals are uniform.
func New(data *Data, c Config) (*Problem, error) {
	if data == nil {
		return nil, fmt.Errorf("%w: no data", ErrBadData)
	}
	n, m, d := data.N, data.M, data.D
	switch {
	case n < 1 || m < 1 || d < 1:
		return nil, fmt.Errorf("%w: need n, m, d ≥ 1, have %d, %d, %d", ErrBadData, n, m, d)
	case n < 2 && m < 2:
		return nil, fmt.Errorf("%w: need n or m ≥ 2 for a plan with freedom, have %d, %d", ErrBadData, n, m)
	case len(data.X) != n*d || len(data.Y) != m*d:
		return nil, fmt.Errorf("%w: X has %d entries (want %d), Y %d (want %d)", ErrBadData, len(data.X), n*d, len(data.Y), m*d)
	case data.SourceLabels != nil && len(data.SourceLabels) != n:
		return nil, fmt.Errorf("%w: %d source labels for %d samples", ErrBadData, len(data.SourceLabels), n)
	case data.TargetLabels != nil && len(data.TargetLabels) != m:
		return nil, fmt.Errorf("%w: %d target labels for %d samples", ErrBadData, len(data.TargetLabels), m)
	case !(c.Alpha >= 0 && c.Alpha <= 1):
		return nil, fmt.Errorf("%w: α = %v must lie in [0, 1]", ErrBadData, c.Alpha)
	case !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0):
		return nil, fmt.Errorf("%w: λ = %v must be non-negative and finite", ErrBadData, c.Lambda)
	case !(c.Ridge > 0) || math.IsInf(c.Ridge, 0):
		return nil, fmt.Errorf("%w: ridge ε = %v must be positive and finite", ErrBadData, c.Ridge)
	}
	for name, v := range map[string][]float64{"X": data.X, "Y": data.Y} {
		for i, e := range v {
			if math.IsNaN(e) || math.IsInf(e, 0) {
				return nil, fmt.Errorf("%w: %s[%d, %d] = %v", ErrBadData, name, i/d, i%d, e)
			}
		}
	}
	for name, labs := range map[string][]int{"source": data.SourceLabels, "target": data.TargetLabels} {
		for i, l := range labs {
			if l < 1 {
				return nil, fmt.Errorf("%w: %s label %d is %d (labels are positive)", ErrBadData, name, i, l)
			}
		}
	}
	p := &Problem{n: n, m: m, d: d, alpha: c.Alpha, lambda: c.Lambda, ridge: c.Ridge,
		x: append([]float64(nil), data.X...), y: append([]float64(nil), data.Y...),
		mu: make([]float64, n), nu: make([]float64, m), name: data.Name,
		srcLab: append([]int(nil), data.SourceLabels...), tgtLab: append([]int(nil), data.TargetLabels...),
		a: make([]float64, d*d), la: make([]float64, d*d),
		SPD: spd.New(d), eig: lapackx.NewEigSym(d), sf: lapackx.NewSymFunc(d),
		l: make([]float64, d*d), li: make([]float64, d*d), minv: make([]float64, d*d),
		fa: newFrame(d), fb: newFrame(d),
		cost: make([]float64, n*m), xminv: make([]float64, n*d), yminv: make([]float64, m*d),
		xq: make([]float64, n), yq: make([]float64, m), md: make([]float64, m*d),
		gy: make([]float64, n*d), b: make([]float64, d*d), gB: make([]float64, d*d), pre: make([]float64, d*d),
		nm: make([]float64, n*m), row2: make([]float64, n), rs: make([]float64, n), cs: make([]float64, m),
		lAt: solver.Memo{On: solver.OnY}, minvAt: solver.Memo{On: solver.OnY}, faAt: solver.Memo{On: solver.OnY},
		costAt: solver.Memo{On: solver.OnY}, gyAt: solver.Memo{On: solver.OnX},
		fbAt: solver.Memo{On: solver.OnX | solver.OnY}, gBAt: solver.Memo{On: solver.OnX | solver.OnY},
		preAt: solver.Memo{On: solver.OnX | solver.OnY}}
	for i := range p.mu {
		p.mu[i] = 1 / float64(n)
		p.row2[i] = 1 / (p.mu[i] * p.mu[i])
	}
	for j := range p.nu {
		p.nu[j] = 1 / float64(m)
	}
	var err error
	if p.Coupling, err = coupling.New(p.mu, p.nu); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadData, err)
	}
	p.sym = make([]float64, d*d)
	for i := range p.hi {
		p.hi[i] = make([]float64, d*d)
	}
	p.sHat = make([]float64, d)
	for i := range p.dd {
		p.dd[i] = make([]float64, d*d)
	}
	for i := range p.nd {
		p.nd[i] = make([]float64, n*d)
	}
	p.gram(p.a, p.x, n)
	if err := lapackx.Cholesky(p.la, p.a, d); err != nil {
		return nil, fmt.Errorf("%w: XᵀX + εI: %w", ErrBadData, err)
	}
	p.g0 = make([]float64, n*m)
	for i, a := range p.mu {
		for j, b := range p.nu {
			p.g0[i*m+j] = a * b
		}
	}
	p.m0 = make([]float64, d*d)
	if err := p.LowerSolution(p.m0, p.g0); err != nil {
		return nil, err
	}
	return p, nil
}

// Dims returns n, m and d.
func (p *Problem) Dims() (n, m, d int) { return p.n, p.m, p.d }

// Config returns the problem's settings.
func (p *Problem) Config() Config { return Config{Alpha: p.alpha, Lambda: p.lambda, Ridge: p.ridge} }

// gram sets dst = ZᵀZ + εI for the k×d matrix z.
func (p *Problem) gram(dst, z []float64, k int) {
	d := p.d
	blas.Impl().Dgemm(gblas.Trans, gblas.NoTrans, d, d, k, 1, z, d, z, d, 0, dst, d)
	lapackx.Symmetrize(dst, d)
	for i := 0; i < d; i++ {
		dst[i*d+i] += p.ridge
	}
}

// mirrorLower copies the strict lower triangle of a into its upper one.
func mirrorLower(a []float64, d int) {
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			a[j*d+i] = a[i*d+j]
		}
	}
}

func mul(tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	blas.Impl().Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// errNotPD is the error of a lower iterate that is not positive definite.
var errNotPD = fmt.Errorf("domainadapt: %w: M (Cholesky factorization failed)", numerr.ErrNotPosDef)

// factor returns L and L⁻¹ with M = LLᵀ, once per M.
func (p *Problem) factor(pt *solver.Point) (l, li []float64, err error) {
	if !p.lAt.Valid(pt) {
		p.lAt.Reset()
		d := p.d
		if lapackx.Cholesky(p.l, pt.Y, d) != nil {
			return nil, nil, errNotPD
		}
		lapackx.InvLower(p.li, p.l, d)
		p.lAt.Store(pt)
	}
	return p.l, p.li, nil
}

// inv returns M⁻¹, once per M.
func (p *Problem) inv(pt *solver.Point) ([]float64, error) {
	if !p.minvAt.Valid(pt) {
		p.minvAt.Reset()
		l, _, err := p.factor(pt)
		if err != nil {
			return nil, err
		}
		lapackx.CholInverse(p.minv, p.dd[0], l, p.d)
		p.minvAt.Store(pt)
	}
	return p.minv, nil
}

// hcoth returns h(δ) = (δ/2) coth(δ/2), 1 at δ = 0.
func hcoth(delta float64) float64 {
	x := delta / 2
	if math.Abs(x) < 1e-3 {
		x2 := x * x
		return 1 + x2/3 - x2*x2/45
	}
	return x / math.Tanh(x)
}

// diagonalize fills fr's decomposition of K = L⁻¹PL⁻ᵀ and W for the factor
// l; derive completes it.
func (p *Problem) diagonalize(fr *frame, pm, l []float64, which string) error {
	d, k := p.d, p.dd[0]
	copy(k, pm)
	lapackx.ReduceSym(k, l, d)
	if err := p.eig.FactorizeLower(k); err != nil {
		return fmt.Errorf("domainadapt: L⁻¹%sL⁻ᵀ: %w", which, err)
	}
	lam := p.eig.Values()
	if !(lam[0] > 0) {
		return fmt.Errorf("domainadapt: %w: L⁻¹%sL⁻ᵀ has eigenvalue %g", numerr.ErrNotPosDef, which, lam[0])
	}
	fr.derived = false
	copy(fr.lam, lam)
	copy(fr.v, p.eig.Vectors())
	for i, v := range fr.lam {
		fr.s[i] = math.Log(v)
	}
	mul(gblas.NoTrans, gblas.Trans, d, d, d, 1, l, d, fr.v, d, 0, fr.w, d) // W = L Q = L Vᵀ
	return nil
}

// frameA returns the frame of K_A, once per M.
func (p *Problem) frameA(pt *solver.Point) (*frame, error) {
	if !p.faAt.Valid(pt) {
		p.faAt.Reset()
		l, _, err := p.factor(pt)
		if err != nil {
			return nil, err
		}
		if err := p.diagonalize(&p.fa, p.a, l, "A"); err != nil {
			return nil, err
		}
		p.faAt.Store(pt)
	}
	return &p.fa, nil
}

// frames returns frameA and frameB at pt.
func (p *Problem) frames(pt *solver.Point) (fa, fb *frame, err error) {
	if fa, err = p.frameA(pt); err != nil {
		return nil, nil, err
	}
	fb, err = p.frameB(pt)
	return fa, fb, err
}

// derivedFrames returns derivedA and derivedB at pt.
func (p *Problem) derivedFrames(pt *solver.Point) (fa, fb *frame, err error) {
	if fa, err = p.derivedA(pt); err != nil {
		return nil, nil, err
	}
	fb, err = p.derivedB(pt)
	return fa, fb, err
}

// derivedA and derivedB return the frames of K_A and K_B with their derived
// matrices (W⁻¹, h, the divided differences of log).
func (p *Problem) derivedA(pt *solver.Point) (*frame, error) { return p.derivedFrame(pt, p.frameA) }

func (p *Problem) derivedB(pt *solver.Point) (*frame, error) { return p.derivedFrame(pt, p.frameB) }

func (p *Problem) derivedFrame(pt *solver.Point, get func(*solver.Point) (*frame, error)) (*frame, error) {
	fr, err := get(pt)
	if err != nil {
		return nil, err
	}
	_, li, err := p.factor(pt)
	if err != nil {
		return nil, err
	}
	p.derive(fr, li)
	return fr, nil
}

// gammaY returns ΓY and B(Γ) = (D⁻¹ΓY)ᵀ(D⁻¹ΓY) + εI, once per Γ.
func (p *Problem) gammaY(pt *solver.Point) (gy, b []float64) {
	if !p.gyAt.Valid(pt) {
		p.gyAt.Reset()
		n, m, d := p.n, p.m, p.d
		mul(gblas.NoTrans, gblas.NoTrans, n, d, m, 1, pt.X, m, p.y, d, 0, p.gy, d)
		z := p.nd[0]
		for i := 0; i < n; i++ {
			s := 1 / p.mu[i]
			for k, v := range p.gy[i*d : (i+1)*d] {
				z[i*d+k] = s * v
			}
		}
		p.gram(p.b, z, n)
		p.gyAt.Store(pt)
	}
	return p.gy, p.b
}

// frameB returns the frame of K_B, once per (Γ, M).
func (p *Problem) frameB(pt *solver.Point) (*frame, error) {
	if !p.fbAt.Valid(pt) {
		p.fbAt.Reset()
		l, _, err := p.factor(pt)
		if err != nil {
			return nil, err
		}
		_, b := p.gammaY(pt)
		if err := p.diagonalize(&p.fb, b, l, "B"); err != nil {
			return nil, err
		}
		p.fbAt.Store(pt)
	}
	return &p.fb, nil
}

// gradB returns G = 2(1−α) W_B⁻ᵀ diag(s/λ) W_B⁻¹, the Euclidean gradient
// of (1−α)d²(M, B) in B, once per (Γ, M).
func (p *Problem) gradB(pt *solver.Point) ([]float64, error) {
	if !p.gBAt.Valid(pt) {
		p.gBAt.Reset()
		fb, err := p.derivedB(pt)
		if err != nil {
			return nil, err
		}
		d, t := p.d, p.dd[1]
		for i := 0; i < d; i++ {
			c := 2 * (1 - p.alpha) * fb.s[i] / fb.lam[i]
			for j, v := range fb.wi[i*d : (i+1)*d] {
				t[i*d+j] = c * v
			}
		}
		mul(gblas.Trans, gblas.NoTrans, d, d, d, 1, fb.wi, d, t, d, 0, p.gB, d)
		lapackx.Symmetrize(p.gB, d)
		p.gBAt.Store(pt)
	}
	return p.gB, nil
}

// costs returns C(XM^{−½}, YM^{−½}), once per M.
func (p *Problem) costs(pt *solver.Point) ([]float64, error) {
	if !p.costAt.Valid(pt) {
		p.costAt.Reset()
		mi, err := p.inv(pt)
		if err != nil {
			return nil, err
		}
		pairwise(p.cost, p.x, p.y, mi, p.xminv, p.yminv, p.xq, p.yq, p.n, p.m, p.d)
		p.costAt.Store(pt)
	}
	return p.cost, nil
}

// pairwise sets c (n×m) to the squared distances (x_i − y_j)ᵀ W (x_i −
// y_j) for symmetric W, with xw, yw (n×d, m×d) and xq, yq (n, m) scratch.
func pairwise(c, x, y, w, xw, yw, xq, yq []float64, n, m, d int) {
	mul(gblas.NoTrans, gblas.NoTrans, n, d, d, 1, x, d, w, d, 0, xw, d)
	mul(gblas.NoTrans, gblas.NoTrans, m, d, d, 1, y, d, w, d, 0, yw, d)
	for i := range xq {
		xq[i] = floats.Dot(xw[i*d:(i+1)*d], x[i*d:(i+1)*d])
	}
	for j := range yq {
		yq[j] = floats.Dot(yw[j*d:(j+1)*d], y[j*d:(j+1)*d])
	}
	mul(gblas.NoTrans, gblas.Trans, n, m, d, -2, xw, d, y, d, 0, c, m)
	for i := 0; i < n; i++ {
		row := c[i*m : (i+1)*m]
		for j := range row {
			row[j] += xq[i] + yq[j]
		}
	}
}

// errNotPositive is the error of a plan entry ≤ 0 under the entropy.
var errNotPositive = fmt.Errorf("domainadapt: %w: plan entry not positive under the entropy term", numerr.ErrInvalid)

// F returns f(Γ, M) = ⟨Γ, C⟩ + λ⟨Γ, log Γ⟩.
func (p *Problem) F(pt *solver.Point) (float64, error) {
	c, err := p.costs(pt)
	if err != nil {
		return 0, err
	}
	var s, e float64
	for k, g := range pt.X {
		s += g * c[k]
		if p.lambda != 0 {
			if !(g > 0) {
				return 0, errNotPositive
			}
			e += g * math.Log(g)
		}
	}
	return s + p.lambda*e, nil
}

// GradFx sets dst = P_Γ(Γ ∘ (C + λ log Γ)).
func (p *Problem) GradFx(dst []float64, pt *solver.Point) error {
	c, err := p.costs(pt)
	if err != nil {
		return err
	}
	z := p.nm
	copy(z, c)
	if p.lambda != 0 {
		for k, g := range pt.X {
			if !(g > 0) {
				return errNotPositive
			}
			z[k] += p.lambda * math.Log(g)
		}
	}
	p.Coupling.EGradToRGrad(dst, pt.X, z)
	return nil
}

// GradFy sets dst = −S(Γ) = −(Xᵀ diag(Γ1) X + Yᵀ diag(Γᵀ1) Y − XᵀΓY − YᵀΓᵀX),
// with Γ's own row and column sums.
func (p *Problem) GradFy(dst []float64, pt *solver.Point) error {
	n, m, d := p.n, p.m, p.d
	gy, _ := p.gammaY(pt)
	clear(p.rs)
	clear(p.cs)
	for i := 0; i < n; i++ {
		for j, g := range pt.X[i*m : (i+1)*m] {
			p.rs[i] += g
			p.cs[j] += g
		}
	}
	// dst = XᵀΓY + YᵀΓᵀX − Xᵀ diag(r) X − Yᵀ diag(c) Y.
	mul(gblas.Trans, gblas.NoTrans, d, d, n, 1, p.x, d, gy, d, 0, dst, d)
	lapackx.Symmetrize(dst, d)
	for i := range dst {
		dst[i] *= 2
	}
	p.subWeightedGram(dst, p.x, p.rs, p.nd[0])
	p.subWeightedGram(dst, p.y, p.cs, p.md)
	lapackx.Symmetrize(dst, d)
	return nil
}

// subWeightedGram subtracts Zᵀ diag(w) Z from dst for the k×d z, with
// scratch of z's size.
func (p *Problem) subWeightedGram(dst, z, w, scratch []float64) {
	d, k := p.d, len(w)
	for i := 0; i < k; i++ {
		for j, v := range z[i*d : (i+1)*d] {
			scratch[i*d+j] = w[i] * v
		}
	}
	mul(gblas.Trans, gblas.NoTrans, d, d, k, -1, scratch, d, z, d, 1, dst, d)
}

// G returns g(Γ, M) = α‖log K_A‖² + (1−α)‖log K_B‖².
func (p *Problem) G(pt *solver.Point) (float64, error) {
	fa, fb, err := p.frames(pt)
	if err != nil {
		return 0, err
	}
	return p.alpha*floats.Dot(fa.s, fa.s) + (1-p.alpha)*floats.Dot(fb.s, fb.s), nil
}

// GradGy sets dst = −2α W_A diag(s^A) W_Aᵀ − 2(1−α) W_B diag(s^B) W_Bᵀ.
func (p *Problem) GradGy(dst []float64, pt *solver.Point) error {
	fa, fb, err := p.frames(pt)
	if err != nil {
		return err
	}
	p.scaledOuter(dst, fa.w, fa.s, -2*p.alpha, 0)
	p.scaledOuter(dst, fb.w, fb.s, -2*(1-p.alpha), 1)
	lapackx.Symmetrize(dst, p.d)
	return nil
}

// scaledOuter sets dst = c·W diag(s) Wᵀ + beta·dst.
func (p *Problem) scaledOuter(dst, w, s []float64, c, beta float64) {
	d, t := p.d, p.dd[1]
	for i := 0; i < d; i++ {
		for j, v := range w[i*d : (i+1)*d] {
			t[i*d+j] = v * s[j]
		}
	}
	mul(gblas.NoTrans, gblas.Trans, d, d, d, c, t, d, w, d, beta, dst, d)
}

// GradGx sets dst = P_Γ(Γ ∘ 2 D⁻² ΓY G Yᵀ).
func (p *Problem) GradGx(dst []float64, pt *solver.Point) error {
	g, err := p.gradB(pt)
	if err != nil {
		return err
	}
	gy, _ := p.gammaY(pt)
	p.liftToPlan(dst, pt, gy, g, 2)
	return nil
}

// liftToPlan sets dst = P_Γ(Γ ∘ c D⁻² ΓY S Yᵀ) for symmetric d×d s.
func (p *Problem) liftToPlan(dst []float64, pt *solver.Point, gy, s []float64, c float64) {
	n, m, d := p.n, p.m, p.d
	t := p.nd[1]
	mul(gblas.NoTrans, gblas.NoTrans, n, d, d, 1, gy, d, s, d, 0, t, d)
	for i := 0; i < n; i++ {
		r := c * p.row2[i]
		for k := range t[i*d : (i+1)*d] {
			t[i*d+k] *= r
		}
	}
	mul(gblas.NoTrans, gblas.Trans, n, m, d, 1, t, d, p.y, d, 0, p.nm, m)
	p.Coupling.EGradToRGrad(dst, pt.X, p.nm)
}

// sandwich sets dst = W [(W⁻¹ U W⁻ᵀ) ∘ K] Wᵀ (exactly symmetric) for
// symmetric u; dst may be u.
func (p *Problem) sandwich(dst, w, wi, k, u []float64) {
	d, t := p.d, p.dd[2]
	copy(t, u)
	lapackx.Congruence(t, wi, t, p.dd[3], d, false)
	hadamardUpper(t, k, d)
	lapackx.Congruence(dst, w, t, p.dd[3], d, false)
}

// hadamardUpper multiplies the upper triangle of t by that of k.
func hadamardUpper(t, k []float64, d int) {
	for i := 0; i < d; i++ {
		tr, kr := t[i*d+i:(i+1)*d], k[i*d+i:(i+1)*d]
		for j := range tr {
			tr[j] *= kr[j]
		}
	}
}

// HessGy sets dst = 2α W_A[(W_A⁻¹UW_A⁻ᵀ) ∘ H_A]W_Aᵀ + 2(1−α) W_B[(W_B⁻¹UW_B⁻ᵀ) ∘ H_B]W_Bᵀ.
func (p *Problem) HessGy(dst []float64, pt *solver.Point, u []float64) error {
	fa, fb, err := p.derivedFrames(pt)
	if err != nil {
		return err
	}
	d, t := p.d, p.sym
	p.sandwich(t, fb.w, fb.wi, fb.h, u)
	p.sandwich(dst, fa.w, fa.wi, fa.h, u)
	ca, cb := 2*p.alpha, 2*(1-p.alpha)
	for i := range dst[:d*d] {
		dst[i] = ca*dst[i] + cb*t[i]
	}
	return nil
}

// CrossGxy sets dst = P_Γ(Γ ∘ (−4(1−α) D⁻² ΓY N Yᵀ)) with N = W_B⁻ᵀ[(W_B⁻¹VW_B⁻ᵀ) ∘ Λ]W_B⁻¹.
func (p *Problem) CrossGxy(dst []float64, pt *solver.Point, v []float64) error {
	fb, err := p.derivedB(pt)
	if err != nil {
		return err
	}
	gy, _ := p.gammaY(pt)
	d, t := p.d, p.sym
	copy(t, v)
	lapackx.Symmetrize(t, d)
	lapackx.Congruence(t, fb.wi, t, p.dd[3], d, false)
	hadamardUpper(t, fb.dlog, d)
	lapackx.Congruence(t, fb.wi, t, p.dd[3], d, true)
	p.liftToPlan(dst, pt, gy, t, -4*(1-p.alpha))
	return nil
}

// CrossGyx sets dst = −2(1−α) W_B[(W_B⁻¹(E + Eᵀ)W_B⁻ᵀ) ∘ Λ]W_Bᵀ with
// E = (ΓY)ᵀ D⁻² U Y.
func (p *Problem) CrossGyx(dst []float64, pt *solver.Point, u []float64) error {
	fb, err := p.derivedB(pt)
	if err != nil {
		return err
	}
	gy, _ := p.gammaY(pt)
	n, m, d := p.n, p.m, p.d
	uy := p.nd[1]
	mul(gblas.NoTrans, gblas.NoTrans, n, d, m, 1, u, m, p.y, d, 0, uy, d)
	for i := 0; i < n; i++ {
		for k := range uy[i*d : (i+1)*d] {
			uy[i*d+k] *= p.row2[i]
		}
	}
	e := p.sym
	mul(gblas.Trans, gblas.NoTrans, d, d, n, 1, gy, d, uy, d, 0, e, d)
	for i := 0; i < d; i++ { // E + Eᵀ
		for j := i; j < d; j++ {
			s := e[i*d+j] + e[j*d+i]
			e[i*d+j], e[j*d+i] = s, s
		}
	}
	p.sandwich(dst, fb.w, fb.wi, fb.dlog, e)
	c := -2 * (1 - p.alpha)
	for i := range dst[:d*d] {
		dst[i] *= c
	}
	return nil
}

// Bilevel returns the solver's view of p, on Π(μ, ν) × SPD(d).
func (p *Problem) Bilevel() solver.Problem {
	return solver.Problem{Mx: p.Coupling, My: p.SPD, F: p.F, G: p.G, GradFx: p.GradFx, GradFy: p.GradFy,
		GradGy: p.GradGy, GradGx: p.GradGx, HessGy: p.HessGy, CrossGxy: p.CrossGxy, CrossGyx: p.CrossGyx,
		HessGyInv: p.HessGyInv, LowerSolve: func(dst []float64, pt *solver.Point) error { return p.LowerSolution(dst, pt.X) }}
}

// Start returns copies of the authors' starting plan, the independent plan
// μνᵀ, and the lower solution M* there, both computed by New; seed is
// ignored (it is there so that every problem's Start has one signature).
func (p *Problem) Start(seed uint64) (gamma, m []float64) {
	return slices.Clone(p.g0), slices.Clone(p.m0)
}

// LowerSolution sets dst to the minimizer of g(Γ, ·), the weighted
// geometric mean M* = A #_{1−α} B(Γ) = L_A (L_A⁻¹ B L_A⁻ᵀ)^{1−α} L_Aᵀ with A
// = L_A L_Aᵀ. It validates gamma's length and finiteness only (any
// positive matrix gives a positive definite B).
func (p *Problem) LowerSolution(dst, gamma []float64) error {
	n, m, d := p.n, p.m, p.d
	if len(dst) != d*d || len(gamma) != n*m {
		return fmt.Errorf("%w: LowerSolution: dst has %d entries (want %d), Γ %d (want %d)", ErrBadData, len(dst), d*d, len(gamma), n*m)
	}
	for k, g := range gamma {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return fmt.Errorf("domainadapt: LowerSolution: %w: Γ[%d, %d] = %v", numerr.ErrNotFinite, k/m, k%m, g)
		}
	}
	gy, z, b := p.nd[1], p.nd[0], p.dd[1]
	mul(gblas.NoTrans, gblas.NoTrans, n, d, m, 1, gamma, m, p.y, d, 0, gy, d)
	for i := 0; i < n; i++ {
		s := 1 / p.mu[i]
		for k, v := range gy[i*d : (i+1)*d] {
			z[i*d+k] = s * v
		}
	}
	p.gram(b, z, n)
	lapackx.ReduceSym(b, p.la, d)
	mirrorLower(b, d)
	if err := p.sf.Pow(b, b, 1-p.alpha); err != nil {
		return fmt.Errorf("domainadapt: LowerSolution: %w", err)
	}
	lapackx.Congruence(dst, p.la, b, p.dd[3], d, false)
	return nil
}

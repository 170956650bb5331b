package spdnet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/batch"
	"github.com/rhgd/rhgd/problems/internal/bimap"
	"github.com/rhgd/rhgd/problems/internal/softmax"
	"github.com/rhgd/rhgd/product"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spectral"
	"github.com/rhgd/rhgd/stiefel"
)

// Config are the network's sizes and the problem's parameters.
type Config struct {
	// D1 and D2 are the orders of the two layers' outputs:
	// W1 ∈ St(D, D1), W2 ∈ St(D1, D2).
	D1, D2 int
	// Lambda is the ridge λ > 0 of the lower problem, which makes it
	// strongly convex.
	Lambda float64
	// Threshold is ReEig's ε: eigenvalues below it are lifted to it.
	Threshold float64
}

// PaperConfig is the paper's network (W1 ∈ St(100, 20), W2 ∈ St(20, 5))
// with the authors' λ = 0.1 and ReEig threshold 1e−4.
var PaperConfig = Config{D1: 20, D2: 5, Lambda: 0.1, Threshold: 1e-4}

// Problem is the SPD network's hyper-representation problem on
// (St(D, D1) × St(D1, D2)) × R^{m×c}, m = D2(D2+1)/2, c classes, with its
// manifolds and scratch space. Its oracles allocate nothing: they keep
// each set's network activations per (W1, W2) and its class probabilities
// per (W, γ, batch), by the point's identity (solver.Memo). It is not safe
// for concurrent use.
type Problem struct {
	d, d1, d2, m, c int
	lambda          float64
	reeig           lapackx.Func
	// St1 and St2 are the factors of Mx.
	St1, St2 *stiefel.Stiefel
	// Mx = St1 × St2 is the upper manifold, of (W1, W2).
	Mx *product.Product
	// Eu is γ's manifold, R^{m×c}.
	Eu      *euclid.Euclidean
	tr, val *set
	w0, g0  []float64
	notes   []string
	egrad   []float64 // Euclidean gradient in (W1, W2)
	t       []float64 // d1×d2 scratch
	// H = ∇²_γ g and its lower Cholesky factor, per (W, γ, batch).
	h, hl    []float64
	hAt, lAt solver.Memo
	// LowerSolve's point and vectors.
	lpt        solver.Point
	ly, lg, ls []float64
	cu, cr     []float64 // c-vectors
	gt         []float64 // c×m: γᵀ
	accPt      solver.Point
}

// set is the training or the validation set: its matrices, labels and the
// network's activations at the last W (memo), the class probabilities at
// the last (W, γ, batch) (memo), and backpropagation scratch.
type set struct {
	name string
	n    int
	a    []float64 // n·d·d
	y    []int     // labels 0..c−1
	feat solver.Memo
	awv  []float64 // n·d × d1: A_iW1 stacked vertically
	awh  []float64 // d × n·d1: the same side by side
	z1h  []float64 // d1 × n·d1: W1ᵀ[A_1W1 | … | A_nW1]
	z1   []float64 // n × d1×d1: Z1_i = W1ᵀA_iW1
	b1   *spectral.Batch
	a1   []float64 // n × d1×d1: ReEig(Z1_i)
	a1w  []float64 // n·d1 × d2: A1_iW2 stacked vertically
	z2   []float64 // n × d2×d2: Z2_i = W2ᵀA1_iW2
	b2   *spectral.Batch
	l    []float64 // n × d2×d2: log Z2_i
	phi  []float64 // n × m: φ_i = vec(log Z2_i)
	prob solver.Memo
	w    []float64 // n: batch weights
	p    []float64 // n × c: softmax probabilities
	ce   []float64 // n: cross-entropy of each sample
	gphi []float64 // n × m: ∂/∂φ_i, weighted
	g2   []float64 // n × d2×d2
	g1   []float64 // n × d1×d1
	th   []float64 // d1 × n·d1 scratch
}

func newSet(name string, n, d, d1, d2, c int) *set {
	m := d2 * (d2 + 1) / 2
	return &set{name: name, n: n, a: make([]float64, n*d*d), y: make([]int, n),
		feat: solver.Memo{On: solver.OnX},
		awv:  make([]float64, n*d*d1), awh: make([]float64, d*n*d1), z1h: make([]float64, d1*n*d1),
		z1: make([]float64, n*d1*d1), b1: spectral.NewBatch(d1, n), a1: make([]float64, n*d1*d1),
		a1w: make([]float64, n*d1*d2), z2: make([]float64, n*d2*d2), b2: spectral.NewBatch(d2, n),
		l: make([]float64, n*d2*d2), phi: make([]float64, n*m),
		prob: solver.Memo{On: solver.OnX | solver.OnY | solver.OnBatch},
		w:    make([]float64, n), p: make([]float64, n*c), ce: make([]float64, n),
		gphi: make([]float64, n*m), g2: make([]float64, n*d2*d2), g1: make([]float64, n*d1*d1),
		th: make([]float64, d1*n*d1)}
}

// New returns the problem on data (validated and copied, the matrices
// symmetrized: Notes says when they were asymmetric beyond float64
// rounding) with the split and configuration, starting at the authors'
// W1 = I_{D×D1}, W2 = I_{D1×D2} (the first columns of the identity) and γ
// with standard normal entries drawn from seed.
func New(data *Data, split Split, cfg Config, seed uint64) (*Problem, error) {
	if err := data.Validate(); err != nil {
		return nil, err
	}
	if err := split.check(data.N); err != nil {
		return nil, err
	}
	d, d1, d2, c := data.D, cfg.D1, cfg.D2, data.Classes
	if d1 < 1 || d1 > d || d2 < 1 || d2 > d1 {
		return nil, fmt.Errorf("spdnet: %w: need 1 ≤ D2 ≤ D1 ≤ D, have D = %d, D1 = %d, D2 = %d", problems.ErrBadData, d, d1, d2)
	}
	if !(cfg.Lambda > 0) || math.IsInf(cfg.Lambda, 0) {
		return nil, fmt.Errorf("spdnet: %w: λ = %v must be positive and finite", problems.ErrBadData, cfg.Lambda)
	}
	if math.IsNaN(cfg.Threshold) || math.IsInf(cfg.Threshold, 0) {
		return nil, fmt.Errorf("spdnet: %w: ReEig threshold %v must be finite", problems.ErrBadData, cfg.Threshold)
	}
	m := d2 * (d2 + 1) / 2
	st1, st2 := stiefel.New(d, d1), stiefel.New(d1, d2)
	p := &Problem{d: d, d1: d1, d2: d2, m: m, c: c, lambda: cfg.Lambda, reeig: spectral.ReEig(cfg.Threshold),
		St1: st1, St2: st2, Mx: product.New(st1, st2), Eu: euclid.New(m, c),
		egrad: make([]float64, d*d1+d1*d2), t: make([]float64, d1*d2),
		h: make([]float64, m*c*m*c), hl: make([]float64, m*c*m*c),
		hAt: solver.Memo{On: solver.OnX | solver.OnY | solver.OnBatch}, lAt: solver.Memo{On: solver.OnX | solver.OnY | solver.OnBatch},
		ly: make([]float64, m*c), lg: make([]float64, m*c), ls: make([]float64, m*c),
		cu: make([]float64, c), cr: make([]float64, c), gt: make([]float64, c*m)}
	if err := problems.CheckSymmetric(&p.notes, "A", data.A, d); err != nil {
		return nil, fmt.Errorf("spdnet: %w", err)
	}
	p.tr = newSet("training", len(split.Train), d, d1, d2, c)
	p.val = newSet("validation", len(split.Val), d, d1, d2, c)
	for _, s := range []struct {
		set *set
		idx []int
	}{{p.tr, split.Train}, {p.val, split.Val}} {
		for k, i := range s.idx {
			copy(s.set.a[k*d*d:(k+1)*d*d], data.A[i*d*d:(i+1)*d*d])
			lapackx.Symmetrize(s.set.a[k*d*d:(k+1)*d*d], d)
			s.set.y[k] = data.Labels[i] - 1
		}
	}
	p.w0 = make([]float64, d*d1+d1*d2)
	for j := 0; j < d1; j++ {
		p.w0[j*d1+j] = 1
	}
	for j := 0; j < d2; j++ {
		p.w0[d*d1+j*d2+j] = 1
	}
	rnd := rand.New(rand.NewPCG(seed, 0x9a33a))
	p.g0 = make([]float64, m*c)
	for i := range p.g0 {
		p.g0[i] = rnd.NormFloat64()
	}
	return p, nil
}

// Notes returns one-line remarks on what New did to the data: matrices
// within float32 rounding of symmetric, symmetrized.
func (p *Problem) Notes() []string { return slices.Clone(p.notes) }

// Start returns copies of the starting point New made, (W1, W2) and γ (γ
// drawn from New's seed); seed is ignored (it is there so that every
// problem's Start has one signature).
func (p *Problem) Start(seed uint64) (w, gamma []float64) {
	return append([]float64(nil), p.w0...), append([]float64(nil), p.g0...)
}

// Sizes returns the training and validation set sizes.
func (p *Problem) Sizes() (train, val int) { return p.tr.n, p.val.n }

// Bilevel returns the solver's view of p, on (St(D, D1) × St(D1, D2)) ×
// R^{m×c}, with NF = n_val and NG = n_tr components, and LowerSolve the
// damped Newton method on the strongly convex lower problem.
func (p *Problem) Bilevel() solver.Problem {
	return solver.Problem{Mx: p.Mx, My: p.Eu, NF: p.val.n, NG: p.tr.n,
		F: p.F, GradFx: p.GradFx, GradFy: p.GradFy,
		G: p.G, GradGy: p.GradGy, GradGx: p.GradGx, HessGy: p.HessGy,
		CrossGxy: p.CrossGxy, CrossGyx: p.CrossGyx, HessGyInv: p.HessGyInv, LowerSolve: p.LowerSolve}
}

// Features sets dst (n × m, n the size of the set) to the network's
// outputs φ_i(W) on the training set (validation false) or the validation
// set.
func (p *Problem) Features(dst, w []float64, validation bool) error {
	s := p.tr
	if validation {
		s = p.val
	}
	if len(dst) != len(s.phi) {
		panic("spdnet: Features: dimension mismatch")
	}
	if err := p.features(s, &solver.Point{X: w}); err != nil {
		return err
	}
	copy(dst, s.phi)
	return nil
}

// features runs the network on the set at pt.X unless its memo holds the
// result: A_iW1 for all i in one product and Z1_i = W1ᵀA_iW1 in another,
// the eigendecompositions of the Z1_i and A1_i = ReEig(Z1_i), A1_iW2 in
// one product, Z2_i = W2ᵀA1_iW2, their eigendecompositions, log Z2_i and
// φ_i.
func (p *Problem) features(s *set, pt *solver.Point) error {
	if s.feat.Valid(pt) {
		return nil
	}
	s.feat.Reset()
	d, d1, d2, n := p.d, p.d1, p.d2, s.n
	w1, w2 := pt.X[:d*d1], pt.X[d*d1:]
	nd1 := n * d1
	impl := blas.Impl()
	bimap.Products(s.awv, s.awh, s.z1h, s.a, w1, n, d, d1)
	for i := 0; i < n; i++ { // Z1_i, exactly symmetric
		bimap.Block(s.z1[i*d1*d1:(i+1)*d1*d1], s.z1h, i, n, d1)
	}
	if err := s.b1.Factorize(s.z1, n); err != nil {
		return fmt.Errorf("spdnet: eigendecomposition of W1ᵀA_iW1, %s set: %w", s.name, err)
	}
	if err := s.b1.Apply(s.a1, p.reeig); err != nil {
		return fmt.Errorf("spdnet: ReEig, %s set: %w", s.name, err)
	}
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, nd1, d2, d1, 1, s.a1, d1, w2, d2, 0, s.a1w, d2)
	for i := 0; i < n; i++ {
		impl.Dgemm(gblas.Trans, gblas.NoTrans, d2, d2, d1, 1, w2, d2, s.a1w[i*d1*d2:(i+1)*d1*d2], d2, 0, s.z2[i*d2*d2:(i+1)*d2*d2], d2)
	}
	if err := s.b2.Factorize(s.z2, n); err != nil {
		return fmt.Errorf("spdnet: eigendecomposition of W2ᵀA1_iW2, %s set: %w", s.name, err)
	}
	if err := s.b2.Apply(s.l, lapackx.LogFunc); err != nil {
		return fmt.Errorf("spdnet: LogEig, %s set (is W orthonormal?): %w", s.name, err)
	}
	for i := 0; i < n; i++ {
		bimap.VecUpper(s.phi[i*p.m:(i+1)*p.m], s.l[i*d2*d2:(i+1)*d2*d2], d2)
	}
	s.feat.Store(pt)
	return nil
}

// prepare computes the set's features at pt, its batch weights, and the
// class probabilities and cross-entropies of the samples in the batch,
// unless the memo holds them.
func (p *Problem) prepare(s *set, pt *solver.Point) error {
	if err := p.features(s, pt); err != nil {
		return err
	}
	if s.prob.Valid(pt) {
		return nil
	}
	s.prob.Reset()
	batch.Weigh(s.w, pt.Batch, "spdnet", s.name)
	m, c := p.m, p.c
	softmax.Transpose(p.gt, pt.Y, m, c)
	for i, wi := range s.w {
		pi := s.p[i*c : (i+1)*c]
		if wi == 0 {
			clear(pi)
			s.ce[i] = 0
			continue
		}
		s.ce[i] = softmax.Probs(pi, s.phi[i*m:(i+1)*m], p.gt, s.y[i])
		if math.IsNaN(s.ce[i]) || math.IsInf(s.ce[i], 0) {
			return fmt.Errorf("spdnet: %w: cross-entropy of %s sample %d", numerr.ErrNotFinite, s.name, i)
		}
	}
	s.prob.Store(pt)
	return nil
}

// loss returns Σ w_i CE_i after prepare.
func (s *set) loss() float64 {
	var v float64
	for i, wi := range s.w {
		v += wi * s.ce[i]
	}
	return v
}

// gradGamma sets dst = Σ w_i φ_i (p_i − e_{y_i})ᵀ (m×c) after prepare.
func (p *Problem) gradGamma(dst []float64, s *set) {
	m, c := p.m, p.c
	clear(dst)
	for i, wi := range s.w {
		if wi == 0 {
			continue
		}
		softmax.AddGrad(dst, s.phi[i*m:(i+1)*m], s.p[i*c:(i+1)*c], s.y[i], wi)
	}
}

// F returns f(W, γ) = Σ w_i CE_i over the validation batch.
func (p *Problem) F(pt *solver.Point) (float64, error) {
	if err := p.prepare(p.val, pt); err != nil {
		return 0, err
	}
	return p.val.loss(), nil
}

// G returns g(W, γ) = Σ w_i CE_i over the training batch + λ/2 ‖γ‖².
func (p *Problem) G(pt *solver.Point) (float64, error) {
	if err := p.prepare(p.tr, pt); err != nil {
		return 0, err
	}
	var gg float64
	for _, x := range pt.Y {
		gg += x * x
	}
	return p.tr.loss() + 0.5*p.lambda*gg, nil
}

// GradFy sets dst = Σ w_i φ_i (p_i − e_{y_i})ᵀ over the validation batch.
func (p *Problem) GradFy(dst []float64, pt *solver.Point) error {
	if err := p.prepare(p.val, pt); err != nil {
		return err
	}
	p.gradGamma(dst, p.val)
	return nil
}

// GradGy sets dst = Σ w_i φ_i (p_i − e_{y_i})ᵀ + λγ over the training
// batch.
func (p *Problem) GradGy(dst []float64, pt *solver.Point) error {
	if err := p.prepare(p.tr, pt); err != nil {
		return err
	}
	p.gradGamma(dst, p.tr)
	for j, g := range pt.Y {
		dst[j] += p.lambda * g
	}
	return nil
}

// GradFx sets dst to the Riemannian gradient in (W1, W2) of f, by
// backpropagation of ∂f/∂φ_i = w_i γ(p_i − e_{y_i}) over the validation
// batch.
func (p *Problem) GradFx(dst []float64, pt *solver.Point) error {
	return p.gradW(dst, p.val, pt, nil)
}

// GradGx is GradFx for g on the training batch (the ridge does not depend
// on W).
func (p *Problem) GradGx(dst []float64, pt *solver.Point) error {
	return p.gradW(dst, p.tr, pt, nil)
}

// CrossGxy sets dst = D_γ grad_W g[V] over the training batch: the
// backpropagation of ∂²g/∂φ_i∂γ [V] = w_i (V(p_i − e_{y_i}) +
// γ (diag p_i − p_ip_iᵀ) Vᵀφ_i), the derivative in γ of the upstream
// gradient, through the same network (it is linear in the upstream
// gradient, and the projection onto T_W does not depend on γ).
func (p *Problem) CrossGxy(dst []float64, pt *solver.Point, v []float64) error {
	return p.gradW(dst, p.tr, pt, v)
}

// gradW backpropagates the set's upstream gradients w_i γ(p_i − e_{y_i})
// (v nil) or their derivatives in γ along v.
func (p *Problem) gradW(dst []float64, s *set, pt *solver.Point, v []float64) error {
	if err := p.prepare(s, pt); err != nil {
		return err
	}
	m, c := p.m, p.c
	clear(s.gphi)
	for i, wi := range s.w {
		if wi == 0 {
			continue
		}
		g, pi := s.gphi[i*m:(i+1)*m], s.p[i*c:(i+1)*c]
		if v == nil {
			softmax.Upstream(g, pt.Y, pi, s.y[i], wi)
		} else {
			softmax.CrossUpstream(g, s.phi[i*m:(i+1)*m], pt.Y, v, pi, s.y[i], wi, p.cu, p.cr)
		}
	}
	p.backprop(dst, s, pt.X)
	return nil
}

// backprop sets dst to the Riemannian gradient at x = (W1, W2) of
// Σ_i ⟨s.gphi_i, φ_i⟩ (s.gphi holds the upstream gradients, zero for
// samples outside the batch):
//
//	G2_i = B(gphi_i),  dZ2_i = Dlog(Z2_i)[G2_i],
//	∂W2 = Σ 2 A1_iW2 dZ2_i,  dA1_i = W2 dZ2_i W2ᵀ,
//	dZ1_i = DReEig(Z1_i)[dA1_i],  ∂W1 = Σ 2 A_iW1 dZ1_i,
//
// then the projection onto T_x. Dlog and DReEig are self-adjoint, so
// their Fréchet derivatives are their backward maps.
func (p *Problem) backprop(dst []float64, s *set, x []float64) {
	d, d1, d2, n := p.d, p.d1, p.d2, s.n
	w2 := x[d*d1:]
	dw1, dw2 := p.egrad[:d*d1], p.egrad[d*d1:]
	for i := 0; i < n; i++ {
		bimap.SymOf(s.g2[i*d2*d2:(i+1)*d2*d2], s.gphi[i*p.m:(i+1)*p.m], d2)
	}
	s.b2.FrechetAll(s.g2, s.g2, s.w)
	impl := blas.Impl()
	clear(dw2)
	for i, wi := range s.w {
		g1 := s.g1[i*d1*d1 : (i+1)*d1*d1]
		if wi == 0 {
			clear(g1)
			continue
		}
		dz2 := s.g2[i*d2*d2 : (i+1)*d2*d2]
		impl.Dgemm(gblas.NoTrans, gblas.NoTrans, d1, d2, d2, 2, s.a1w[i*d1*d2:(i+1)*d1*d2], d2, dz2, d2, 1, dw2, d2)
		impl.Dgemm(gblas.NoTrans, gblas.NoTrans, d1, d2, d2, 1, w2, d2, dz2, d2, 0, p.t, d2)
		impl.Dgemm(gblas.NoTrans, gblas.Trans, d1, d1, d2, 1, p.t, d2, w2, d2, 0, g1, d1)
	}
	s.b1.FrechetAll(s.g1, s.g1, s.w)
	blas.SerialBegin()
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, d, d1, n*d1, 2, s.awh, n*d1, s.g1, d1, 0, dw1, d1)
	blas.SerialEnd()
	p.Mx.EGradToRGrad(dst, x, p.egrad)
}

// CrossGyx sets dst = D_W grad_γ g[u] for u = (U1, U2) ∈ T_W over the
// training batch: Σ w_i (dφ_i (p_i − e_{y_i})ᵀ + φ_i ((diag p_i −
// p_ip_iᵀ) γᵀdφ_i)ᵀ) with dφ_i = Dφ_i(W)[u] by forward differentiation
// of the network:
//
//	dZ1_i = U1ᵀA_iW1 + W1ᵀA_iU1,  dA1_i = DReEig(Z1_i)[dZ1_i],
//	dZ2_i = U2ᵀA1_iW2 + W2ᵀA1_iU2 + W2ᵀdA1_iW2,  dφ_i = vec(Dlog(Z2_i)[dZ2_i]).
//
// It is the adjoint of CrossGxy.
func (p *Problem) CrossGyx(dst []float64, pt *solver.Point, u []float64) error {
	s := p.tr
	if err := p.prepare(s, pt); err != nil {
		return err
	}
	d, d1, d2, n, m, c := p.d, p.d1, p.d2, s.n, p.m, p.c
	w2 := pt.X[d*d1:]
	u1, u2 := u[:d*d1], u[d*d1:]
	nd1 := n * d1
	impl := blas.Impl()
	blas.SerialBegin()
	impl.Dgemm(gblas.Trans, gblas.NoTrans, d1, nd1, d, 1, u1, d1, s.awh, nd1, 0, s.th, nd1)
	blas.SerialEnd()
	for i := 0; i < n; i++ {
		g := s.g1[i*d1*d1 : (i+1)*d1*d1]
		for a := 0; a < d1; a++ {
			for b := a; b < d1; b++ {
				v := s.th[a*nd1+i*d1+b] + s.th[b*nd1+i*d1+a]
				g[a*d1+b], g[b*d1+a] = v, v
			}
		}
	}
	s.b1.FrechetAll(s.g1, s.g1, s.w)
	for i, wi := range s.w {
		g2 := s.g2[i*d2*d2 : (i+1)*d2*d2]
		if wi == 0 {
			clear(g2)
			continue
		}
		// W2ᵀ dA1_i W2, then + U2ᵀA1_iW2 + its transpose.
		impl.Dgemm(gblas.NoTrans, gblas.NoTrans, d1, d2, d1, 1, s.g1[i*d1*d1:(i+1)*d1*d1], d1, w2, d2, 0, p.t, d2)
		impl.Dgemm(gblas.Trans, gblas.NoTrans, d2, d2, d1, 1, w2, d2, p.t, d2, 0, g2, d2)
		impl.Dgemm(gblas.Trans, gblas.NoTrans, d2, d2, d1, 1, u2, d2, s.a1w[i*d1*d2:(i+1)*d1*d2], d2, 0, p.t[:d2*d2], d2)
		for a := 0; a < d2; a++ {
			for b := a; b < d2; b++ {
				v := 0.5*(g2[a*d2+b]+g2[b*d2+a]) + p.t[a*d2+b] + p.t[b*d2+a]
				g2[a*d2+b], g2[b*d2+a] = v, v
			}
		}
	}
	s.b2.FrechetAll(s.g2, s.g2, s.w)
	dphi := s.gphi[:m] // scratch: one sample's dφ
	clear(dst)
	for i, wi := range s.w {
		if wi == 0 {
			continue
		}
		bimap.VecUpper(dphi, s.g2[i*d2*d2:(i+1)*d2*d2], d2)
		softmax.AddCross(dst, pt.Y, dphi, s.phi[i*m:(i+1)*m], s.p[i*c:(i+1)*c], s.y[i], wi, p.cu, p.cr)
	}
	return nil
}

// HessGy sets dst = ∇²_γ g[V] = Σ w_i φ_i ((diag p_i − p_ip_iᵀ)Vᵀφ_i)ᵀ + λV
// over the training batch.
func (p *Problem) HessGy(dst []float64, pt *solver.Point, v []float64) error {
	s := p.tr
	if err := p.prepare(s, pt); err != nil {
		return err
	}
	m, c := p.m, p.c
	for j, x := range v {
		dst[j] = p.lambda * x
	}
	for i, wi := range s.w {
		if wi != 0 {
			softmax.AddHess(dst, s.phi[i*m:(i+1)*m], s.p[i*c:(i+1)*c], v, wi, p.cu, p.cr)
		}
	}
	return nil
}

// HessGyInv sets dst = H⁻¹v by the Cholesky factor of the mc × mc Hessian
// H = Σ w_i (φ_iφ_iᵀ) ⊗ (diag p_i − p_ip_iᵀ) + λI, formed and factorized
// once per (W, γ, batch).
func (p *Problem) HessGyInv(dst []float64, pt *solver.Point, v []float64) error {
	if !p.lAt.Valid(pt) {
		p.lAt.Reset()
		if err := p.hess(pt); err != nil {
			return err
		}
		if err := lapackx.Cholesky(p.hl, p.h, p.m*p.c); err != nil {
			return fmt.Errorf("spdnet: Hessian in γ: %w", err)
		}
		p.lAt.Store(pt)
	}
	lapackx.CholSolve(dst, p.hl, v, p.m*p.c)
	return nil
}

// hess forms H (its upper triangle, mirrored) at pt unless its memo holds
// it.
func (p *Problem) hess(pt *solver.Point) error {
	if p.hAt.Valid(pt) {
		return nil
	}
	p.hAt.Reset()
	s := p.tr
	if err := p.prepare(s, pt); err != nil {
		return err
	}
	m, c := p.m, p.c
	clear(p.h)
	for i, wi := range s.w {
		if wi != 0 {
			softmax.AddHessBlocks(p.h, s.phi[i*m:(i+1)*m], s.p[i*c:(i+1)*c], wi)
		}
	}
	softmax.FinishHess(p.h, m*c, p.lambda)
	p.hAt.Store(pt)
	return nil
}

// lowerMaxIter bounds LowerSolve's Newton iterations.
const lowerMaxIter = 50

// LowerSolve sets dst = γ*(W) = argmin_γ g(W, γ) on pt's batch by Newton's
// method from pt.Y with a backtracking (Armijo) line search on g (full
// steps once the decrease is below g's rounding), to
// ‖∇_γ g‖ ≤ 1e−12·max(1, ‖∇_γ g(W, γ⁰)‖). g is λ-strongly convex, so the
// iteration converges, quadratically near γ*. It returns an error wrapping
// numerr.ErrNotConverged if it has not after lowerMaxIter steps.
func (p *Problem) LowerSolve(dst []float64, pt *solver.Point) error {
	y, g, st := p.ly, p.lg, p.ls
	copy(y, pt.Y)
	p.lpt = solver.Point{X: pt.X, XID: pt.XID, Y: y, YID: solver.NewID(), Batch: pt.Batch, BatchID: pt.BatchID}
	if err := p.GradGy(g, &p.lpt); err != nil {
		return err
	}
	tol := 1e-12 * math.Max(1, norm(g))
	for it := 0; ; it++ {
		gn := norm(g)
		if gn <= tol {
			copy(dst, y)
			return nil
		}
		if it == lowerMaxIter {
			return fmt.Errorf("spdnet: %w: Newton's method on the lower problem stopped at ‖∇g‖ = %.3g after %d steps", numerr.ErrNotConverged, gn, it)
		}
		if err := p.HessGyInv(st, &p.lpt, g); err != nil {
			return err
		}
		g0, err := p.G(&p.lpt)
		if err != nil {
			return err
		}
		slope := floats.Dot(g, st)
		copy(dst, y) // dst holds the current iterate while y moves
		// Near γ* the decrease the Armijo test asks for, about slope/2,
		// falls below the rounding of g: there the full Newton step is
		// taken, safe in its region of quadratic convergence.
		exact := slope <= 1e-13*(1+math.Abs(g0))
		for t := 1.0; ; t /= 2 {
			for j := range y {
				y[j] = dst[j] - t*st[j]
			}
			p.lpt.YID = solver.NewID()
			if exact {
				break
			}
			gt, err := p.G(&p.lpt)
			if err != nil {
				return err
			}
			if gt <= g0-1e-4*t*slope || t < 1e-10 {
				break
			}
		}
		if err := p.GradGy(g, &p.lpt); err != nil {
			return err
		}
	}
}

func norm(v []float64) float64 { return math.Sqrt(floats.Dot(v, v)) }

package hyperrep

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
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spectral"
	"github.com/rhgd/rhgd/stiefel"
)

// smallEigCutoff is the largest k whose eigendecompositions run in
// spectral.SmallEig rather than lapackx.EigSym: SmallEig was ahead at
// every order measured up to 48 and well behind at 64
// (BenchmarkSmallEig); 32 keeps a margin.
const smallEigCutoff = spectral.SmallEigCutoff

// Problem is the shallow hyper-representation problem on St(d, k) × R^m,
// m = k(k+1)/2, with its manifolds and scratch space. Its oracles
// allocate nothing; they keep the features of each set (training,
// validation) per W, and the Hessian H and its Cholesky factor per W and
// training batch, by the point's identity (solver.Memo). It is not safe
// for concurrent use.
type Problem struct {
	d, k, m int
	lambda  float64
	a       []float64 // the A_i, exactly symmetric
	// St is W's manifold, St(d, k) with the QR retraction; Eu is β's, R^m.
	St      *stiefel.Stiefel
	Eu      *euclid.Euclidean
	tr, val *set
	w0, b0  []float64
	notes   []string
	se      *spectral.SmallEig // k ≤ smallEigCutoff
	le      *lapackx.EigSym    // larger k
	awv     []float64          // A_iW of one set stacked vertically, n·d × k
	// H = Σ w_i φ_i φ_iᵀ + λI and its lower Cholesky factor, per (W, batch).
	h, hl    []float64
	phw      []float64 // n_tr × m: √w_i φ_i
	hAt, lAt solver.Memo
	// k×k scratch: B(β), B(v), a direction, two products.
	bb, bv, c, x, t []float64
	egrad           []float64 // d×k
	delta           []float64 // m
}

// set is the training or the validation set, with its features at the
// last W (memo) and per-call scratch.
type set struct {
	name   string
	off, n int
	y      []float64
	at     solver.Memo // OnX: the features below
	awh    []float64   // d × nk: [A_1W | … | A_nW]
	mh     []float64   // k × nk: [M_1 | … | M_n], M_i = WᵀA_iW
	lam    []float64   // n×k eigenvalues of M_i, ascending
	vec    []float64   // n × k×k: rows of block i are M_i's eigenvectors
	vect   []float64   // n × k×k: the blocks of vec transposed
	gam    []float64   // n × k×k: Loewner matrices of log at the λ's
	phi    []float64   // n × m: φ_i = vec(log M_i)
	w, r   []float64   // n: batch weights and residuals of the last call
	zs     []float64   // nk × k: stacked Fréchet derivatives
}

func newSet(name string, off, n, d, k int, y []float64) *set {
	m := k * (k + 1) / 2
	return &set{name: name, off: off, n: n, y: y, at: solver.Memo{On: solver.OnX},
		awh: make([]float64, d*n*k), mh: make([]float64, k*n*k), lam: make([]float64, n*k),
		vec: make([]float64, n*k*k), vect: make([]float64, n*k*k), gam: make([]float64, n*k*k), phi: make([]float64, n*m),
		w: make([]float64, n), r: make([]float64, n), zs: make([]float64, n*k*k)}
}

// New returns the problem for data (validated with Data.Validate and
// copied) with ridge λ > 0, which makes g strongly convex in β. The
// paper's λ is PaperLambda. Inputs within float32 rounding of their
// constraints are projected onto them, as Notes says: the A_i
// symmetrized, W0 re-orthonormalized.
func New(data *Data, lambda float64) (*Problem, error) {
	if err := data.Validate(); err != nil {
		return nil, err
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("hyperrep: %w: λ = %v must be positive and finite", problems.ErrBadData, lambda)
	}
	n, d, k, ntr := data.N, data.D, data.K, data.NTrain
	m := k * (k + 1) / 2
	st := stiefel.New(d, k)
	p := &Problem{d: d, k: k, m: m, lambda: lambda, a: make([]float64, n*d*d),
		St: st, Eu: euclid.New(m, 1),
		w0: append([]float64(nil), data.W0...), b0: append([]float64(nil), data.Beta0...),
		awv: make([]float64, max(ntr, n-ntr)*d*k),
		h:   make([]float64, m*m), hl: make([]float64, m*m), phw: make([]float64, ntr*m),
		hAt: solver.Memo{On: solver.OnX | solver.OnBatch}, lAt: solver.Memo{On: solver.OnX | solver.OnBatch},
		egrad: make([]float64, d*k), delta: make([]float64, m)}
	for _, s := range []*[]float64{&p.bb, &p.bv, &p.c, &p.x, &p.t} {
		*s = make([]float64, k*k)
	}
	if err := problems.SnapInput(&p.notes, st, "W0", p.w0); err != nil {
		return nil, fmt.Errorf("hyperrep: %w", err)
	}
	copy(p.a, data.A)
	if err := problems.SymmetrizeInput(&p.notes, "A", p.a, d); err != nil {
		return nil, fmt.Errorf("hyperrep: %w", err)
	}
	y := append([]float64(nil), data.Y...)
	p.tr = newSet("training", 0, ntr, d, k, y[:ntr])
	p.val = newSet("validation", ntr, n-ntr, d, k, y[ntr:])
	if k <= smallEigCutoff {
		p.se = spectral.NewSmallEig(k)
	} else {
		p.le = lapackx.NewEigSym(k)
	}
	return p, nil
}

// Notes returns one-line remarks on what New did to the data: inputs
// within float32 rounding of their constraints, projected onto them.
func (p *Problem) Notes() []string { return slices.Clone(p.notes) }

// Start returns a starting point. For seed 0 it is the data's, W0 and
// β0 (W0 re-orthonormalized when it was off by float32 rounding): the
// paper's start, which Build uses. For another seed, W is drawn on
// St(d, k) from seed (as synthetic's Start draws its W), with the data's
// β0: starts for repeated runs, reproducible from their seeds.
func (p *Problem) Start(seed uint64) (w, beta []float64) {
	w, beta = append([]float64(nil), p.w0...), append([]float64(nil), p.b0...)
	if seed != 0 {
		p.St.RandPoint(w, rand.New(rand.NewPCG(seed, 1)))
	}
	return w, beta
}

// Bilevel returns the solver's view of p, on St(d, k) × R^{k(k+1)/2}, with
// NF = n_val and NG = n_tr components.
//
// Its LowerSolve is the ridge solution β*(W) = β − H⁻¹ grad_β g(W, β),
// exact because g is quadratic in β: one Newton step through HessGyInv.
func (p *Problem) Bilevel() solver.Problem {
	grad := make([]float64, p.Eu.Len())
	lower := func(dst []float64, pt *solver.Point) error {
		if err := p.GradGy(grad, pt); err != nil {
			return err
		}
		if err := p.HessGyInv(dst, pt, grad); err != nil {
			return err
		}
		for i, b := range pt.Y {
			dst[i] = b - dst[i]
		}
		return nil
	}
	return solver.Problem{Mx: p.St, My: p.Eu, NF: p.val.n, NG: p.tr.n,
		F: p.F, GradFx: p.GradFx, GradFy: p.GradFy,
		G: p.G, GradGy: p.GradGy, GradGx: p.GradGx, HessGy: p.HessGy,
		CrossGxy: p.CrossGxy, CrossGyx: p.CrossGyx, HessGyInv: p.HessGyInv, LowerSolve: lower}
}

// Features sets dst (n × k(k+1)/2, n the size of the set) to the features
// φ_i(W) of the training set (validation false) or the validation set.
func (p *Problem) Features(dst, w []float64, validation bool) error {
	s := p.tr
	if validation {
		s = p.val
	}
	if len(dst) != len(s.phi) {
		panic("hyperrep: Features: dimension mismatch")
	}
	if err := p.features(s, &solver.Point{X: w}); err != nil {
		return err
	}
	copy(dst, s.phi)
	return nil
}

// features computes the set's features at pt.X unless its memo holds
// them: A_iW for the set in one product, M_i = WᵀA_iW in another, then
// for each i the eigendecomposition of M_i, φ_i and the Loewner matrix
// Γ_i of the logarithm.
func (p *Problem) features(s *set, pt *solver.Point) error {
	if s.at.Valid(pt) {
		return nil
	}
	s.at.Reset()
	d, k, m, n := p.d, p.k, p.m, s.n
	bimap.Products(p.awv[:n*d*k], s.awh, s.mh, p.a[s.off*d*d:(s.off+n)*d*d], pt.X, n, d, k)
	mi := p.x
	for i := 0; i < n; i++ {
		bimap.Block(mi, s.mh, i, n, k)
		var lam, vec []float64
		if p.se != nil {
			if err := p.se.Factorize(mi); err != nil {
				return fmt.Errorf("hyperrep: eigendecomposition of WᵀA_iW, %s sample %d: %w", s.name, i, err)
			}
			lam, vec = p.se.Values(), p.se.Vectors()
		} else {
			if err := p.le.FactorizeLower(mi); err != nil {
				return fmt.Errorf("hyperrep: eigendecomposition of WᵀA_iW, %s sample %d: %w", s.name, i, err)
			}
			lam, vec = p.le.Values(), p.le.Vectors()
		}
		if !(lam[0] > 0) {
			return fmt.Errorf("hyperrep: %w: WᵀA_iW, %s sample %d, has λ_min = %.3g (is W orthonormal?)", numerr.ErrNotPosDef, s.name, i, lam[0])
		}
		li, vi, gi := s.lam[i*k:(i+1)*k], s.vec[i*k*k:(i+1)*k*k], s.gam[i*k*k:(i+1)*k*k]
		copy(li, lam)
		copy(vi, vec)
		ui := s.vect[i*k*k : (i+1)*k*k]
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				ui[b*k+a] = vi[a*k+b]
			}
		}
		lg := p.t[:k] // log λ
		for a, x := range li {
			lg[a] = math.Log(x)
		}
		// Γ_ab = log[λ_a, λ_b], the quotient where it does not cancel.
		for a := 0; a < k; a++ {
			gi[a*k+a] = 1 / li[a]
			for b := a + 1; b < k; b++ {
				x, y := li[a], li[b]
				var g float64
				if x > 2*y || y > 2*x {
					g = (lg[a] - lg[b]) / (x - y)
				} else {
					g = lapackx.LogFunc.DivDiff(x, y)
				}
				gi[a*k+b], gi[b*k+a] = g, g
			}
		}
		// φ_i = vec(Vᵀ diag(log λ) V), upper triangle row by row.
		phi := s.phi[i*m : (i+1)*m]
		j := 0
		for a := 0; a < k; a++ {
			for b := a; b < k; b++ {
				var v float64
				for c := 0; c < k; c++ {
					v += lg[c] * vi[c*k+a] * vi[c*k+b]
				}
				phi[j] = v
				j++
			}
		}
	}
	s.at.Store(pt)
	return nil
}

// prepare computes the set's features at pt, its batch weights and the
// residuals r_i = φ_iᵀβ − y_i of the samples in the batch (zero for the
// others).
func (p *Problem) prepare(s *set, pt *solver.Point) error {
	if err := p.features(s, pt); err != nil {
		return err
	}
	batch.Weigh(s.w, pt.Batch, "hyperrep", s.name)
	m := p.m
	for i, wi := range s.w {
		if wi == 0 {
			s.r[i] = 0
			continue
		}
		s.r[i] = floats.Dot(s.phi[i*m:(i+1)*m], pt.Y) - s.y[i]
	}
	return nil
}

// loss returns ½ Σ w_i r_i² after prepare.
func (s *set) loss() float64 {
	var v float64
	for i, wi := range s.w {
		v += wi * s.r[i] * s.r[i]
	}
	return 0.5 * v
}

// gradBeta sets dst = Σ w_i r_i φ_i after prepare.
func (p *Problem) gradBeta(dst []float64, s *set) {
	m := p.m
	clear(dst)
	for i, wi := range s.w {
		if c := wi * s.r[i]; c != 0 {
			for j, x := range s.phi[i*m : (i+1)*m] {
				dst[j] += c * x
			}
		}
	}
}

// F returns f(W, β) = ½ Σ w_i r_i² over the validation batch.
func (p *Problem) F(pt *solver.Point) (float64, error) {
	if err := p.prepare(p.val, pt); err != nil {
		return 0, err
	}
	return p.val.loss(), nil
}

// G returns g(W, β) = ½ Σ w_i r_i² over the training batch + λ/2 ‖β‖².
func (p *Problem) G(pt *solver.Point) (float64, error) {
	if err := p.prepare(p.tr, pt); err != nil {
		return 0, err
	}
	return p.tr.loss() + 0.5*p.lambda*floats.Dot(pt.Y, pt.Y), nil
}

// GradFy sets dst = Σ w_i r_i φ_i over the validation batch.
func (p *Problem) GradFy(dst []float64, pt *solver.Point) error {
	if err := p.prepare(p.val, pt); err != nil {
		return err
	}
	p.gradBeta(dst, p.val)
	return nil
}

// GradGy sets dst = Σ w_i r_i φ_i over the training batch + λβ.
func (p *Problem) GradGy(dst []float64, pt *solver.Point) error {
	if err := p.prepare(p.tr, pt); err != nil {
		return err
	}
	p.gradBeta(dst, p.tr)
	for j, b := range pt.Y {
		dst[j] += p.lambda * b
	}
	return nil
}

// GradFx sets dst = P_W(Σ w_i 2 A_iW Dlog(M_i)[r_i B(β)]) over the
// validation batch.
func (p *Problem) GradFx(dst []float64, pt *solver.Point) error {
	return p.gradW(dst, p.val, pt)
}

// GradGx sets dst = P_W(Σ w_i 2 A_iW Dlog(M_i)[r_i B(β)]) over the
// training batch (the ridge does not depend on W).
func (p *Problem) GradGx(dst []float64, pt *solver.Point) error {
	return p.gradW(dst, p.tr, pt)
}

func (p *Problem) gradW(dst []float64, s *set, pt *solver.Point) error {
	if err := p.prepare(s, pt); err != nil {
		return err
	}
	bimap.SymOf(p.bb, pt.Y, p.k)
	kk := p.k * p.k
	for i, wi := range s.w {
		z := s.zs[i*kk : (i+1)*kk]
		if c := 2 * wi * s.r[i]; c != 0 {
			p.dlog(z, s, i, p.bb, c)
		} else {
			clear(z)
		}
	}
	p.assemble(dst, s, pt.X)
	return nil
}

// CrossGxy sets dst = P_W(Σ w_i 2 A_iW Dlog(M_i)[(φ_iᵀv) B(β) + r_i B(v)])
// over the training batch: the derivative of GradGx in β along v.
func (p *Problem) CrossGxy(dst []float64, pt *solver.Point, v []float64) error {
	s := p.tr
	if err := p.prepare(s, pt); err != nil {
		return err
	}
	k, m := p.k, p.m
	bimap.SymOf(p.bb, pt.Y, k)
	bimap.SymOf(p.bv, v, k)
	kk := k * k
	for i, wi := range s.w {
		z := s.zs[i*kk : (i+1)*kk]
		if wi == 0 {
			clear(z)
			continue
		}
		pv, ri := floats.Dot(s.phi[i*m:(i+1)*m], v), s.r[i]
		for j, b := range p.bb {
			p.c[j] = pv*b + ri*p.bv[j]
		}
		p.dlog(z, s, i, p.c, 2*wi)
	}
	p.assemble(dst, s, pt.X)
	return nil
}

// CrossGyx sets dst = Σ w_i ((δ_iᵀβ) φ_i + r_i δ_i) with
// δ_i = vec(Dlog(M_i)[uᵀA_iW + WᵀA_iu]) over the training batch: the
// derivative of GradGy in W along u ∈ T_W, the adjoint of CrossGxy.
func (p *Problem) CrossGyx(dst []float64, pt *solver.Point, u []float64) error {
	s := p.tr
	if err := p.prepare(s, pt); err != nil {
		return err
	}
	d, k, m := p.d, p.k, p.m
	nk := s.n * k
	impl := blas.Impl()
	clear(dst)
	for i, wi := range s.w {
		if wi == 0 {
			continue
		}
		// E = uᵀ(A_iW) + (A_iW)ᵀu.
		impl.Dgemm(gblas.Trans, gblas.NoTrans, k, k, d, 1, u, k, s.awh[i*k:], nk, 0, p.c, k)
		for a := 0; a < k; a++ {
			for b := a; b < k; b++ {
				e := p.c[a*k+b] + p.c[b*k+a]
				p.c[a*k+b], p.c[b*k+a] = e, e
			}
		}
		p.dlog(p.bv, s, i, p.c, 1)
		bimap.VecUpper(p.delta, p.bv, k)
		phi := s.phi[i*m : (i+1)*m]
		db, ri := floats.Dot(p.delta, pt.Y), s.r[i]
		for j := range dst {
			dst[j] += wi * (db*phi[j] + ri*p.delta[j])
		}
	}
	return nil
}

// HessGy sets dst = H v, H = Σ w_i φ_i φ_iᵀ + λI over the training batch,
// formed once per (W, batch).
func (p *Problem) HessGy(dst []float64, pt *solver.Point, v []float64) error {
	if err := p.hess(pt); err != nil {
		return err
	}
	m := p.m
	for a := 0; a < m; a++ {
		dst[a] = floats.Dot(p.h[a*m:(a+1)*m], v)
	}
	return nil
}

// HessGyInv sets dst = H⁻¹ v by the Cholesky factor of H, computed once
// per (W, batch).
func (p *Problem) HessGyInv(dst []float64, pt *solver.Point, v []float64) error {
	if !p.lAt.Valid(pt) {
		p.lAt.Reset()
		if err := p.hess(pt); err != nil {
			return err
		}
		if err := lapackx.Cholesky(p.hl, p.h, p.m); err != nil {
			return fmt.Errorf("hyperrep: Hessian in β: %w", err)
		}
		p.lAt.Store(pt)
	}
	lapackx.CholSolve(dst, p.hl, v, p.m)
	return nil
}

// hess forms H at pt unless its memo holds it.
func (p *Problem) hess(pt *solver.Point) error {
	if p.hAt.Valid(pt) {
		return nil
	}
	p.hAt.Reset()
	s, m := p.tr, p.m
	if err := p.features(s, pt); err != nil {
		return err
	}
	batch.Weigh(s.w, pt.Batch, "hyperrep", s.name)
	for i, wi := range s.w {
		sw := math.Sqrt(wi)
		for j, x := range s.phi[i*m : (i+1)*m] {
			p.phw[i*m+j] = sw * x
		}
	}
	blas.Impl().Dsyrk(gblas.Upper, gblas.Trans, m, s.n, 1, p.phw, m, 0, p.h, m)
	lapackx.MirrorUpper(p.h, m)
	for a := 0; a < m; a++ {
		p.h[a*m+a] += p.lambda
	}
	p.hAt.Store(pt)
	return nil
}

// dlog sets z = scale·Dlog(M_i)[c] = scale·Vᵀ(Γ ∘ VcVᵀ)V for the symmetric
// k×k c, by the Daleckii–Krein formula with the set's eigendecomposition
// of M_i; z is exactly symmetric. It uses p.x and p.t. With U = Vᵀ, kept
// per sample, both congruences have the form Q S Qᵀ with S symmetric,
// (QS)_ab = ⟨q_a, s_b⟩ and (QSQᵀ)_ab = ⟨(QS)_a, q_b⟩: dot products of
// contiguous rows, accumulated in registers, the symmetric results on
// one triangle: 3k³ multiply-adds.
func (p *Problem) dlog(z []float64, s *set, i int, c []float64, scale float64) {
	k := p.k
	v, u, g := s.vec[i*k*k:(i+1)*k*k], s.vect[i*k*k:(i+1)*k*k], s.gam[i*k*k:(i+1)*k*k]
	x, t := p.x, p.t
	rowDots(t, v, c, k, false) // t = V c
	for a := 0; a < k; a++ {   // x = Γ ∘ (t Vᵀ)
		ta := t[a*k : (a+1)*k]
		for b := a; b < k; b++ {
			e := floats.Dot(ta, v[b*k:(b+1)*k]) * g[a*k+b]
			x[a*k+b], x[b*k+a] = e, e
		}
	}
	rowDots(t, u, x, k, false) // t = Vᵀ x
	for a := 0; a < k; a++ {   // z = scale·t V
		ta := t[a*k : (a+1)*k]
		for b := a; b < k; b++ {
			e := scale * floats.Dot(ta, u[b*k:(b+1)*k])
			z[a*k+b], z[b*k+a] = e, e
		}
	}
}

// rowDots sets the k×k dst_ab = ⟨q_a, s_b⟩ (rows), which is Q S for
// symmetric S.
func rowDots(dst, q, s []float64, k int, _ bool) {
	for a := 0; a < k; a++ {
		qa := q[a*k : (a+1)*k]
		for b := 0; b < k; b++ {
			dst[a*k+b] = floats.Dot(qa, s[b*k:(b+1)*k])
		}
	}
}

// assemble sets dst = P_W(Σ_i A_iW Z_i) for the stacked Z_i of the set:
// one d × nk by nk × k product.
func (p *Problem) assemble(dst []float64, s *set, w []float64) {
	d, k := p.d, p.k
	nk := s.n * k
	blas.SerialBegin()
	blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, d, k, nk, 1, s.awh, nk, s.zs, k, 0, p.egrad, k)
	blas.SerialEnd()
	p.St.EGradToRGrad(dst, w, p.egrad)
}

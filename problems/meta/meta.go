package meta

import (
	"fmt"
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/euclid"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/softmax"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/stiefel"
)

// Config are the problem's parameters.
type Config struct {
	// P is the number of features: Θ ∈ St(Dim, P).
	P int
	// Lambda is the ridge λ > 0 of each task's head, which makes the lower
	// problem strongly convex.
	Lambda float64
	// Extrinsic runs the projected baseline PHGD: the upper manifold is
	// Extrinsic (Euclidean gradients, steps projected back onto St).
	Extrinsic bool
}

// PaperConfig is the default: 16 features, the authors' ridge 0.5.
var PaperConfig = Config{P: 16, Lambda: 0.5}

// Problem is few-shot meta-learning on St(Dim, P) × R^{M·(P+1)×W}: a shared
// layer φ(x) = (tanh(Θᵀx), 1) and one linear head per meta-training task
// (M tasks, W ways). Its oracles allocate nothing; they keep the features
// of the meta-training images per Θ and the class probabilities per
// (Θ, heads), by the point's identity (solver.Memo). It is not safe for
// concurrent use.
type Problem struct {
	dim, p, q, c int // image size, features, q = p+1 with the bias, ways
	lambda       float64
	// St is Θ's manifold, St(Dim, P).
	St *stiefel.Stiefel
	// Mx is the upper manifold: St, or its Extrinsic view for PHGD.
	Mx solver.Manifold
	// Eu is the heads' manifold, R^{M·(P+1)×W}.
	Eu     *euclid.Euclidean
	tr, te *side
	theta0 []float64
	egrad  []float64 // dim × p
	hl     []float64 // M blocks of qc×qc: the heads' Hessians' Cholesky factors
	lAt    solver.Memo
	cu, cr []float64 // c-vectors
	wt     []float64 // a head transposed
	head   *headSolver
	lpt    solver.Point
	accPt  solver.Point
	accW   []float64 // one head
}

// side is the meta-training or the meta-test side: its images, their
// features at the last Θ, its tasks and (training) the probabilities of
// the last point.
type side struct {
	name   string
	n      int       // distinct images
	x      []float64 // n × dim, centred
	phi    []float64 // n × q: (tanh(Θᵀx), 1)
	dh     []float64 // n × p: 1 − h², then scratch
	gimg   []float64 // n × p: upstream gradients
	tasks  []ltask
	feat   solver.Memo
	sup    solver.Memo // probabilities of the support rows
	qry    solver.Memo // of the query rows
	ps, pq []float64   // M × S × c, M × Q × c
	ls, lq float64     // Σ CE over supports, over queries (each task's mean, summed)
}

// ltask is a task on a side's local image indices.
type ltask struct {
	sup, qry   []int
	ysup, yqry []int
}

// New returns the problem for the data (validated) and tasks, starting at
// a random Θ drawn from seed and zero heads.
func New(d *Data, t *Tasks, cfg Config, seed uint64) (*Problem, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if t == nil || len(t.Train) == 0 || len(t.Test) == 0 || len(t.Mean) != d.Dim {
		return nil, fmt.Errorf("meta: %w: no tasks", problems.ErrBadData)
	}
	if cfg.P < 1 || cfg.P > d.Dim {
		return nil, fmt.Errorf("meta: %w: P = %d features of %d pixels", problems.ErrBadData, cfg.P, d.Dim)
	}
	if !(cfg.Lambda > 0) || math.IsInf(cfg.Lambda, 0) {
		return nil, fmt.Errorf("meta: %w: λ = %v must be positive and finite", problems.ErrBadData, cfg.Lambda)
	}
	s := t.Spec
	q, c := cfg.P+1, s.Ways
	st := stiefel.New(d.Dim, cfg.P)
	p := &Problem{dim: d.Dim, p: cfg.P, q: q, c: c, lambda: cfg.Lambda, St: st, Mx: st,
		Eu: euclid.New(len(t.Train)*q, c), egrad: make([]float64, d.Dim*cfg.P),
		hl: make([]float64, len(t.Train)*q*c*q*c), lAt: solver.Memo{On: solver.OnX | solver.OnY},
		cu: make([]float64, c), cr: make([]float64, c), wt: make([]float64, q*c), accW: make([]float64, q*c)}
	if cfg.Extrinsic {
		p.Mx = NewExtrinsic(d.Dim, cfg.P)
	}
	var err error
	if p.tr, err = newSide("meta-training", d, t.Train, t.Mean, q, c); err != nil {
		return nil, err
	}
	if p.te, err = newSide("meta-test", d, t.Test, t.Mean, q, c); err != nil {
		return nil, err
	}
	p.head = newHeadSolver(q, c, s.Ways*max(s.Shots, s.Queries), cfg.Lambda)
	p.theta0 = make([]float64, d.Dim*cfg.P)
	st.RandPoint(p.theta0, rand.New(rand.NewPCG(seed, 0x7e7a)))
	return p, nil
}

func newSide(name string, d *Data, tasks []Task, mean []float64, q, c int) (*side, error) {
	local := map[int]int{}
	var imgs []int
	s := &side{name: name, feat: solver.Memo{On: solver.OnX},
		sup: solver.Memo{On: solver.OnX | solver.OnY}, qry: solver.Memo{On: solver.OnX | solver.OnY}}
	idx := func(i int) (int, error) {
		if i < 0 || i >= d.N {
			return 0, fmt.Errorf("meta: %w: image index %d of %d", problems.ErrBadData, i, d.N)
		}
		if l, ok := local[i]; ok {
			return l, nil
		}
		local[i] = len(imgs)
		imgs = append(imgs, i)
		return len(imgs) - 1, nil
	}
	var ns, nq int
	for k, t := range tasks {
		if len(t.Support) == 0 || len(t.Query) == 0 || len(t.SupLabels) != len(t.Support) || len(t.QryLabels) != len(t.Query) {
			return nil, fmt.Errorf("meta: %w: %s task %d is empty or has labels missing", problems.ErrBadData, name, k)
		}
		if k > 0 && (len(t.Support) != ns || len(t.Query) != nq) {
			return nil, fmt.Errorf("meta: %w: %s tasks differ in size", problems.ErrBadData, name)
		}
		ns, nq = len(t.Support), len(t.Query)
		var lt ltask
		for _, set := range []struct {
			src, lab []int
			dst, y   *[]int
		}{{t.Support, t.SupLabels, &lt.sup, &lt.ysup}, {t.Query, t.QryLabels, &lt.qry, &lt.yqry}} {
			for j, i := range set.src {
				l, err := idx(i)
				if err != nil {
					return nil, err
				}
				if set.lab[j] < 0 || set.lab[j] >= c {
					return nil, fmt.Errorf("meta: %w: %s task %d has label %d of %d ways", problems.ErrBadData, name, k, set.lab[j], c)
				}
				*set.dst, *set.y = append(*set.dst, l), append(*set.y, set.lab[j])
			}
		}
		s.tasks = append(s.tasks, lt)
	}
	n, dim, p := len(imgs), d.Dim, q-1
	s.n = n
	s.x = make([]float64, n*dim)
	for l, i := range imgs {
		for j := 0; j < dim; j++ {
			s.x[l*dim+j] = d.X[i*dim+j] - mean[j]
		}
	}
	s.phi, s.dh, s.gimg = make([]float64, n*q), make([]float64, n*p), make([]float64, n*p)
	s.ps, s.pq = make([]float64, len(tasks)*ns*c), make([]float64, len(tasks)*nq*c)
	return s, nil
}

// Start returns copies of the starting Θ (drawn from New's seed) and heads
// (zero); seed is ignored (it is there so that every problem's Start has
// one signature).
func (p *Problem) Start(seed uint64) (theta, heads []float64) {
	return append([]float64(nil), p.theta0...), make([]float64, p.Eu.Len())
}

// Tasks returns the number of meta-training and meta-test tasks.
func (p *Problem) Tasks() (train, test int) { return len(p.tr.tasks), len(p.te.tasks) }

// Bilevel returns the solver's view of p: on Mx × R^{M·(P+1)×W}, without
// finite-sum structure (every epoch uses every meta-training task), with
// LowerSolve the heads' exact solutions.
func (p *Problem) Bilevel() solver.Problem {
	return solver.Problem{Mx: p.Mx, My: p.Eu,
		F: p.F, GradFx: p.GradFx, GradFy: p.GradFy,
		G: p.G, GradGy: p.GradGy, GradGx: p.GradGx, HessGy: p.HessGy,
		CrossGxy: p.CrossGxy, CrossGyx: p.CrossGyx, HessGyInv: p.HessGyInv, LowerSolve: p.LowerSolve}
}

// features sets the side's φ = (tanh(Θᵀx), 1) for its images at pt.X
// unless the memo holds them: one n × dim by dim × P product.
func (p *Problem) features(s *side, theta []float64, pt *solver.Point) error {
	if pt != nil && s.feat.Valid(pt) {
		return nil
	}
	s.feat.Reset()
	n, q, pp := s.n, p.q, p.p
	// One OpenBLAS thread: waking the second costs more than it saves at
	// these shapes (a few hundred rows of 64 by 64 × P).
	blas.SerialBegin()
	blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, n, pp, p.dim, 1, s.x, p.dim, theta, pp, 0, s.dh, pp)
	blas.SerialEnd()
	for i := 0; i < n; i++ {
		row, z := s.phi[i*q:(i+1)*q], s.dh[i*pp:(i+1)*pp]
		for a, x := range z {
			h := math.Tanh(x)
			row[a], z[a] = h, 1-h*h
		}
		row[pp] = 1
	}
	for _, x := range s.phi {
		if math.IsNaN(x) {
			return fmt.Errorf("meta: %w: features of the %s images", numerr.ErrNotFinite, s.name)
		}
	}
	if pt != nil {
		s.feat.Store(pt)
	}
	return nil
}

// head returns task t's head, a q×c block of the heads y.
func (p *Problem) headOf(y []float64, t int) []float64 {
	qc := p.q * p.c
	return y[t*qc : (t+1)*qc]
}

// prepare computes the training side's features and, as asked, the
// probabilities of its support rows (sup) or query rows, with the sums of
// the tasks' mean cross-entropies.
func (p *Problem) prepare(pt *solver.Point, sup bool) error {
	s := p.tr
	if err := p.features(s, pt.X, pt); err != nil {
		return err
	}
	memo, pr, loss := &s.qry, s.pq, &s.lq
	if sup {
		memo, pr, loss = &s.sup, s.ps, &s.ls
	}
	if memo.Valid(pt) {
		return nil
	}
	memo.Reset()
	*loss = 0
	for t := range s.tasks {
		lt := &s.tasks[t]
		rows, lab := lt.qry, lt.yqry
		if sup {
			rows, lab = lt.sup, lt.ysup
		}
		k := len(rows) * p.c
		*loss += probs(pr[t*k:(t+1)*k], s.phi, rows, lab, p.headOf(pt.Y, t), p.wt, p.q, p.c) / float64(len(rows))
	}
	if math.IsNaN(*loss) || math.IsInf(*loss, 0) {
		return fmt.Errorf("meta: %w: cross-entropy", numerr.ErrNotFinite)
	}
	memo.Store(pt)
	return nil
}

// F returns f = (1/M) Σ_t (1/Q) Σ_{query} CE, the mean query loss.
func (p *Problem) F(pt *solver.Point) (float64, error) {
	if err := p.prepare(pt, false); err != nil {
		return 0, err
	}
	return p.tr.lq / float64(len(p.tr.tasks)), nil
}

// G returns g = Σ_t ((1/S) Σ_{support} CE + λ/2 ‖W_t‖²): the tasks'
// regularized support losses, summed, so that each head's gradient is its
// own task's.
func (p *Problem) G(pt *solver.Point) (float64, error) {
	if err := p.prepare(pt, true); err != nil {
		return 0, err
	}
	return p.tr.ls + 0.5*p.lambda*floats.Dot(pt.Y, pt.Y), nil
}

// GradFy sets each head's block of dst to (1/(MQ)) Σ_{query} φ(p − e_y)ᵀ.
func (p *Problem) GradFy(dst []float64, pt *solver.Point) error {
	if err := p.prepare(pt, false); err != nil {
		return err
	}
	s := p.tr
	clear(dst)
	m := float64(len(s.tasks))
	for t := range s.tasks {
		lt := &s.tasks[t]
		k := len(lt.qry) * p.c
		addGrad(p.headOf(dst, t), s.phi, lt.qry, lt.yqry, s.pq[t*k:(t+1)*k], p.q, p.c, 1/(m*float64(len(lt.qry))))
	}
	return nil
}

// GradGy sets each head's block of dst to (1/S) Σ_{support} φ(p − e_y)ᵀ +
// λW_t.
func (p *Problem) GradGy(dst []float64, pt *solver.Point) error {
	if err := p.prepare(pt, true); err != nil {
		return err
	}
	s := p.tr
	for j, w := range pt.Y {
		dst[j] = p.lambda * w
	}
	for t := range s.tasks {
		lt := &s.tasks[t]
		k := len(lt.sup) * p.c
		addGrad(p.headOf(dst, t), s.phi, lt.sup, lt.ysup, s.ps[t*k:(t+1)*k], p.q, p.c, 1/float64(len(lt.sup)))
	}
	return nil
}

// HessGy sets each head's block of dst to (1/S) Σ φ((diag p − ppᵀ)V_tᵀφ)ᵀ
// + λV_t: the Hessian is block diagonal, one block per task.
func (p *Problem) HessGy(dst []float64, pt *solver.Point, v []float64) error {
	if err := p.prepare(pt, true); err != nil {
		return err
	}
	s := p.tr
	for j, x := range v {
		dst[j] = p.lambda * x
	}
	for t := range s.tasks {
		lt := &s.tasks[t]
		k := len(lt.sup) * p.c
		addHess(p.headOf(dst, t), s.phi, lt.sup, s.ps[t*k:(t+1)*k], p.headOf(v, t), p.q, p.c, 1/float64(len(lt.sup)), p.cu, p.cr)
	}
	return nil
}

// HessGyInv sets dst = H⁻¹v block by block, by the Cholesky factors of
// the tasks' qc × qc Hessians, formed and factorized once per point.
func (p *Problem) HessGyInv(dst []float64, pt *solver.Point, v []float64) error {
	qc := p.q * p.c
	s := p.tr
	if !p.lAt.Valid(pt) {
		p.lAt.Reset()
		if err := p.prepare(pt, true); err != nil {
			return err
		}
		for t := range s.tasks {
			lt := &s.tasks[t]
			k := len(lt.sup) * p.c
			h := p.hl[t*qc*qc : (t+1)*qc*qc]
			formHess(h, s.phi, lt.sup, s.ps[t*k:(t+1)*k], p.q, p.c, 1/float64(len(lt.sup)), p.lambda)
			if err := lapackx.Cholesky(h, h, qc); err != nil {
				return fmt.Errorf("meta: task %d's Hessian: %w", t, err)
			}
		}
		p.lAt.Store(pt)
	}
	copy(dst, v)
	for t := range s.tasks {
		h := p.headOf(dst, t)
		lapackx.CholSolve(h, p.hl[t*qc*qc:(t+1)*qc*qc], h, qc)
	}
	return nil
}

// GradFx sets dst to the gradient in Θ of f (Riemannian on St, Euclidean
// on its Extrinsic view): the upstream gradients (1/(MQ)) W_t(p − e_y) of
// the query rows, restricted to the features, backpropagated through tanh
// and the layer.
func (p *Problem) GradFx(dst []float64, pt *solver.Point) error {
	return p.gradTheta(dst, pt, false, nil)
}

// GradGx is GradFx for g, over the support rows with weights 1/S (the
// ridge does not depend on Θ).
func (p *Problem) GradGx(dst []float64, pt *solver.Point) error {
	return p.gradTheta(dst, pt, true, nil)
}

// CrossGxy sets dst = D_W grad_Θ g[V]: the backpropagation of the
// derivative in W of the support rows' upstream gradients,
// (1/S)(V_t(p − e_y) + W_t(diag p − ppᵀ)V_tᵀφ), linear in the upstream
// gradient as the network is.
func (p *Problem) CrossGxy(dst []float64, pt *solver.Point, v []float64) error {
	return p.gradTheta(dst, pt, true, v)
}

// gradTheta backpropagates the upstream gradients of the support rows
// (sup, weights 1/S) or the query rows (weights 1/(MQ)), or with v their
// derivatives in W along V.
func (p *Problem) gradTheta(dst []float64, pt *solver.Point, sup bool, v []float64) error {
	if err := p.prepare(pt, sup); err != nil {
		return err
	}
	s := p.tr
	clear(s.gimg)
	m := float64(len(s.tasks))
	for t := range s.tasks {
		lt := &s.tasks[t]
		var vt []float64
		if v != nil {
			vt = p.headOf(v, t)
		}
		if sup {
			k := len(lt.sup) * p.c
			p.upstream(s, lt.sup, lt.ysup, s.ps[t*k:(t+1)*k], p.headOf(pt.Y, t), vt, 1/float64(len(lt.sup)))
		} else {
			k := len(lt.qry) * p.c
			p.upstream(s, lt.qry, lt.yqry, s.pq[t*k:(t+1)*k], p.headOf(pt.Y, t), vt, 1/(m*float64(len(lt.qry))))
		}
	}
	p.backprop(dst, s, pt.X)
	return nil
}

// upstream adds to s.gimg, for each row, scale times the feature part of
// W(p − e_y) (v nil) or of V(p − e_y) + W(diag p − ppᵀ)Vᵀφ.
func (p *Problem) upstream(s *side, rows, lab []int, pr, w, v []float64, scale float64) {
	q, c, pp := p.q, p.c, p.p
	for r, i := range rows {
		pi := pr[r*c : (r+1)*c]
		g := s.gimg[i*pp : (i+1)*pp]
		if v == nil {
			softmax.Upstream(g, w, pi, lab[r], scale)
		} else {
			softmax.CrossUpstream(g, s.phi[i*q:(i+1)*q], w, v, pi, lab[r], scale, p.cu, p.cr)
		}
	}
}

// backprop sets dst to Mx's gradient of Σ_i ⟨s.gimg_i, h_i⟩ at Θ:
// the Euclidean gradient Xᵀ(G ∘ (1 − H²)), converted by Mx.
func (p *Problem) backprop(dst []float64, s *side, theta []float64) {
	for i, g := range s.gimg {
		s.gimg[i] = g * s.dh[i]
	}
	blas.SerialBegin()
	blas.Impl().Dgemm(gblas.Trans, gblas.NoTrans, p.dim, p.p, s.n, 1, s.x, p.dim, s.gimg, p.p, 0, p.egrad, p.p)
	blas.SerialEnd()
	p.Mx.EGradToRGrad(dst, theta, p.egrad)
}

// CrossGyx sets dst = D_Θ grad_W g[U], the adjoint of CrossGxy: with
// dφ = ((1 − h²) ∘ Uᵀx, 0) for each image, each head's block is
// (1/S) Σ_{support} (dφ(p − e_y)ᵀ + φ((diag p − ppᵀ)W_tᵀdφ)ᵀ).
func (p *Problem) CrossGyx(dst []float64, pt *solver.Point, u []float64) error {
	if err := p.prepare(pt, true); err != nil {
		return err
	}
	s := p.tr
	q, c, pp := p.q, p.c, p.p
	// s.gimg is free scratch here: dH = (1 − H²) ∘ (X U).
	dh := s.gimg
	blas.SerialBegin()
	blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, s.n, pp, p.dim, 1, s.x, p.dim, u, pp, 0, dh, pp)
	blas.SerialEnd()
	for i, x := range dh {
		dh[i] = x * s.dh[i]
	}
	clear(dst)
	for t := range s.tasks {
		lt := &s.tasks[t]
		k := len(lt.sup) * c
		pr := s.ps[t*k : (t+1)*k]
		w, out := p.headOf(pt.Y, t), p.headOf(dst, t)
		scale := 1 / float64(len(lt.sup))
		for r, i := range lt.sup {
			// dφ's bias entry, past its pp entries, is 0.
			softmax.AddCross(out, w, dh[i*pp:(i+1)*pp], s.phi[i*q:(i+1)*q], pr[r*c:(r+1)*c], lt.ysup[r], scale, p.cu, p.cr)
		}
	}
	return nil
}

// LowerSolve sets dst to the heads' exact solutions W_t*(Θ), each by
// Newton's method with conjugate-gradient steps from pt.Y's head, to
// ‖∇‖ ≤ 1e−12·max(1, ‖∇ at the start‖) per task.
func (p *Problem) LowerSolve(dst []float64, pt *solver.Point) error {
	s := p.tr
	if err := p.features(s, pt.X, pt); err != nil {
		return err
	}
	copy(dst, pt.Y)
	for t := range s.tasks {
		lt := &s.tasks[t]
		w := p.headOf(dst, t)
		p.head.value(w, s.phi, lt.sup, lt.ysup)
		g0 := p.head.gradient(w, s.phi, lt.sup, lt.ysup)
		if err := p.head.solve(w, s.phi, lt.sup, lt.ysup, 1e-12*math.Max(1, g0)); err != nil {
			return fmt.Errorf("meta: task %d: %w", t, err)
		}
	}
	return nil
}

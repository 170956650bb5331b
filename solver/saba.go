package solver

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rhgd/rhgd/numerr"
)

// needsSABA are SABA's oracles: SOBA's five directions.
var needsSABA = NewOracles(OracleGradFx, OracleGradFy, OracleGradGy, OracleHessGy, OracleCrossGxy)

// SABA is a variance-reduced stochastic estimator: the Stochastic Average
// Bilevel Algorithm of Dagréou, Ablin, Vaiter and Moreau ("A framework
// for bilevel optimization that enables stochastic and global variance
// reduction algorithms", NeurIPS 2022; benchopt's benchmark_bilevel
// solvers/saba.py), carried to manifolds. It moves three iterates
// jointly, each along a SAGA estimate of its direction: the lower y along
// grad_y g, the linear system's v ∈ T_y (v → H_y g⁻¹[grad_y f]) along
// H_y g[v] − grad_y f, and x along grad_x f − G_xy g[v], the hypergradient
// that Estimate returns:
//
//	y ← R_y(−η_y D_y),   v ← T_{y→y'}(v − η_v D_v),   x ← R_x(−η_x D_x),
//
// all three directions at the same (x, y, v). Each of the five
// quantities (grad_y g, H_y g[v], G_xy g[v] on a block of g's components;
// grad_y f, grad_x f on a block of f's) has a SAGA memory, one row per
// block: D = q_b − m_b + Σ_c w_c m_c for the sampled block b, whose row
// then becomes q_b. With minibatches of a finite-sum problem the
// estimate's variance vanishes as the iterates converge, so constant
// steps converge linearly on a strongly convex problem (Dagréou et al.,
// Theorem 2), where RSHGD's plain minibatch estimates stall at a noise
// floor.
//
// # On manifolds
//
// A row m_b lies in the tangent space at the point p_b where its block
// was last sampled, and the average must be taken at the current point:
// each row is transported, by the manifold's vector transport, from its
// own point, Σ_c w_c T_{p_c→p} m_c. Transporting every row at every step
// would cost a pass of transports per step; instead the average is kept
// at the current point (transported once per step as the point moves),
// the sampled row is transported from its point, and once per pass over
// the blocks the average is recomputed from the rows, each transported
// from its own point, so that the holonomy of successive transports
// cannot accumulate (see vrTable). In a Euclidean space every transport
// is the identity and this is SABA exactly. v lives in T_y and is
// transported with y.
//
// # Blocks and steps
//
// The memories' blocks are a fixed partition of the components into
// contiguous blocks of Settings.Batches.Lower components of g (its
// gradient, Hessian and cross products all on the one sampled block, as
// SABA samples them) and Batches.Upper components of f, each block drawn
// with probability its share of the components (or, with Shuffle, in a
// random order per pass, as benchopt's sampler); zero sizes (or a side
// that is not a finite sum) make one block of the whole sum, which
// reduces SABA to full-gradient steps. Batches.Cross and Batches.Hess
// must be zero or equal to Batches.Lower; Batches.Report is the solver's,
// for the reported f.
//
// The solver's lower loop takes its steps along SABA's D_y instead of a
// minibatch grad_y g (LowerDirection): its first step of each epoch is
// the joint step, which also samples the blocks for v and x; InnerIters
// = 1 is SABA itself, and each further step is one more SAGA step on y
// alone. The steps are constant, SABA's rule: η_y for y (the solver's
// EtaY) and, by default, for v too (SABA's one inner step ρ), η_x for x
// (the solver's EtaX: SABA's ρ/outer_ratio). Its analysis asks for η_y of
// the order of 1/L_max, the smoothness of a single block (SAGA's 1/(3
// L_max)), and η_x small against η_y: shorter steps than full sums take.
// benchopt's tuned quadratic values are η_y = η_v = η_x = 0.1; the
// hyper-representation problem at the paper's sizes with blocks of 32
// runs at η_y = 0.02 and diverges at its paper's 0.05, which full sums
// take (a divergence's error then names SABA's steps). With Shuffle and
// blocks of unequal sizes (n not a multiple of the block size) each
// block is drawn once per pass whatever its weight, as benchopt's sampler
// does, so the short last block's correction counts as much as a full
// one's: the directions are biased while the rows change, though a point
// where every row is current still gets the exact average. It
// needs the paper's fixed lower steps (no
// Lower.BB, Lower.Tol or LowerSolve); an estimate without the epoch's
// lower steps (RHGD.Estimate) takes the joint step's v and x parts alone.
//
// Oracle counts: per joint step one GradGy, HessGy and CrossGxy on g's
// block and one GradFx (with GradFy) on f's; each further lower step one
// GradGy. EstimatorStats.Residual is ‖D_v‖, the linear system's
// variance-reduced residual, and EpochStats.LowerGradNorm is ‖D_y‖ of the
// epoch's last lower step; no error bound is estimated
// (HyperGradErrBound is NaN), and GradTol and RelGradTol test ‖D_x‖.
type SABA struct {
	// EtaV is v's step; 0 means the solver's EtaY.
	EtaV float64
	// Shuffle draws the blocks in a fresh random order for each pass, as
	// benchopt's minibatch sampler does, instead of independently with
	// probability their share (SAGA's analysis).
	Shuffle bool
}

// Name returns "saba".
func (*SABA) Name() string { return "saba" }

// String returns the spec ParseEstimator reads.
func (s *SABA) String() string {
	out := "saba"
	sep := ":"
	if s.EtaV != 0 {
		out += sep + "eta=" + strconv.FormatFloat(s.EtaV, 'g', -1, 64)
		sep = ","
	}
	if s.Shuffle {
		out += sep + "shuffle=true"
	}
	return out
}

// Needs returns GradFx, GradFy, GradGy, HessGy and CrossGxy.
func (*SABA) Needs() Oracles { return needsSABA }

// Bind checks the settings (EtaV ≥ 0 and finite; Batches.Cross and Hess
// zero or Batches.Lower) and returns the instance with its memories: five
// tables of one row per block.
func (s *SABA) Bind(env *Env) (Hypergrad, error) {
	if !(s.EtaV >= 0) || math.IsInf(s.EtaV, 0) {
		return nil, fmt.Errorf("%w: SABA EtaV = %v, want ≥ 0 and finite (0: η_y)", ErrBadSetting, s.EtaV)
	}
	size := func(sel batchSel) int {
		if env.smp == nil || !env.smp.b[sel].sampled {
			return 0
		}
		return len(env.smp.b[sel].idx)
	}
	lo := size(lowerBatch)
	for _, sel := range [...]batchSel{crossBatch, hessBatch} {
		if n := size(sel); n != 0 && n != lo {
			return nil, numerr.Errorf("%w: SABA samples g's Hessian and cross products on the lower block: %v and %v must be 0 or %v (%d)",
				ErrBadSetting, settingTerm("Batches.Cross"), settingTerm("Batches.Hess"), settingTerm("Batches.Lower"), lo)
		}
	}
	eta := s.EtaV
	if eta == 0 {
		eta = env.EtaY()
	}
	g := newVRBlocks(env.p.NG, lo, s.Shuffle)
	f := newVRBlocks(env.p.NF, size(upperBatch), s.Shuffle)
	mx, my := env.Mx, env.My
	return &saba{env: env, eta: eta, g: g, f: f,
		gy: newVRTable(my, g), hv: newVRTable(my, g), cv: newVRTable(mx, g),
		fy: newVRTable(my, f), fx: newVRTable(mx, f),
		v: env.NewY(), dv: env.NewY(), by: env.NewY(),
		dx: env.NewX(), bx: env.NewX(), cx: env.NewX(), cy: env.NewY()}, nil
}

type saba struct {
	env        *Env
	eta        float64
	g, f       *vrBlocks
	gy, hv, fy *vrTable // on My
	cv, fx     *vrTable // on Mx
	// The state: v ∈ T_cy, the point (cx, cy) where v and the tables'
	// averages live, and the joint step's x direction until Estimate.
	v          []float64
	cx, cy     []float64
	cxID, cyID uint64
	have       bool // cx, cy hold a point
	pending    bool // dx holds the epoch's joint step's D_x
	dv, dx     []float64
	by, bx     []float64
	pt         Point
}

func (s *saba) Reset() {
	for _, t := range [...]*vrTable{s.gy, s.hv, s.fy, s.cv, s.fx} {
		t.reset()
	}
	s.g.reset()
	s.f.reset()
	clear(s.v)
	s.have, s.pending = false, false
}

// moveTo moves v and the averages to the tangent spaces at `at`.
func (s *saba) moveTo(at *Point) {
	if !s.have {
		copy(s.cx, at.X)
		copy(s.cy, at.Y)
		s.cxID, s.cyID, s.have = at.XID, at.YID, true
		return
	}
	if at.XID == 0 || at.XID != s.cxID {
		s.cv.move(s.cx, at.X)
		s.fx.move(s.cx, at.X)
		copy(s.cx, at.X)
		s.cxID = at.XID
	}
	if at.YID == 0 || at.YID != s.cyID {
		s.gy.move(s.cy, at.Y)
		s.hv.move(s.cy, at.Y)
		s.fy.move(s.cy, at.Y)
		s.env.My.Transport(s.by, s.cy, at.Y, s.v)
		copy(s.v, s.by)
		copy(s.cy, at.Y)
		s.cyID = at.YID
	}
}

// on returns at with block k of blocks as its batch.
func (s *saba) on(at *Point, blocks *vrBlocks, k int) *Point {
	s.pt = *at
	s.pt.Batch, s.pt.BatchID = blocks.idx[k], blocks.ids[k]
	return &s.pt
}

// LowerDirection sets dst to D_y at `at` for the solver's lower step
// `step` of the epoch; step 0 is the joint step, which also moves v and
// keeps D_x for Estimate.
func (s *saba) LowerDirection(dst []float64, at *Point, step int) error {
	env := s.env
	s.moveTo(at)
	k := s.g.draw(env.Rand())
	pt := s.on(at, s.g, k)
	env.stats.LowerGrads++
	if err := env.p.GradGy(s.by, pt); err != nil {
		return numerr.Errorf("%v: %w", OracleGradGy, err)
	}
	s.gy.step(dst, s.cy, k, s.by)
	if step > 0 {
		return nil
	}
	if err := s.joint(at, k); err != nil {
		return err
	}
	s.pending = true
	return nil
}

// joint takes the v step and sets dx = D_x, with g's block k, at `at`
// (where moveTo put v and the averages).
func (s *saba) joint(at *Point, k int) error {
	env, my := s.env, s.env.My
	pt := s.on(at, s.g, k)
	env.stats.HessVecs++
	if err := env.p.HessGy(s.by, pt, s.v); err != nil {
		return numerr.Errorf("%v: %w", OracleHessGy, err)
	}
	s.hv.step(s.dv, s.cy, k, s.by)
	env.stats.CrossVecs++
	if err := env.p.CrossGxy(s.bx, pt, s.v); err != nil {
		return numerr.Errorf("%v: %w", OracleCrossGxy, err)
	}
	s.cv.step(s.dx, s.cx, k, s.bx)
	j := s.f.draw(env.Rand())
	pt = s.on(at, s.f, j)
	env.stats.UpperGrads++
	if err := env.p.GradFy(s.by, pt); err != nil {
		return numerr.Errorf("%v: %w", OracleGradFy, err)
	}
	s.fy.step(s.by, s.cy, j, s.by)
	if err := env.p.GradFx(s.bx, pt); err != nil {
		return numerr.Errorf("%v: %w", OracleGradFx, err)
	}
	s.fx.step(s.bx, s.cx, j, s.bx)
	for i, b := range s.by {
		s.dv[i] -= b // D_v = H v − grad_y f
		s.v[i] -= s.eta * s.dv[i]
	}
	for i, b := range s.bx {
		s.dx[i] = b - s.dx[i] // D_x = grad_x f − G_xy g[v]
	}
	env.SetResidual(my.Norm(s.cy, s.dv))
	env.AddIterations(1)
	return nil
}

// Estimate returns the epoch's D_x: the joint step's, or at `at` when no
// lower step of this epoch took one.
func (s *saba) Estimate(dst []float64, at *Point) error {
	if !s.pending {
		s.moveTo(at)
		if err := s.joint(at, s.g.draw(s.env.Rand())); err != nil {
			return err
		}
	}
	s.pending = false
	copy(dst, s.dx)
	return nil
}

package synthetic

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
)

// mixed is the state of the opt-in mixed-precision lower loop
// (SetLowerFloat32Steps): float32 copies of the operands of the lower
// step's two big products, and the count of float32 steps taken at the
// current upper iterate.
type mixed struct {
	steps int    // float32 lower steps per upper iterate; 0: off
	xid   uint64 // the upper iterate counted
	count int    // GradGy calls in float32 at xid
	step  bool   // the last GradGy ran in float32: so does the retraction
	// la32 is la in float32; g32, k32 d×d float32 scratch; l64 the float64
	// factor of lx, the last float32 retraction's result, and l32 it in
	// float32.
	la32, g32, k32, l32 []float32
	l64, lx             []float64
	lxok                bool
	// eig is HessGyInv's eigensolver while the float32 steps are on
	// (lapackx.EigSym32); nil: the problem's own EigSym.
	eig eigSolver
	// h32 is d×d float32 scratch for HessGyInv's float32 tail
	// (hinvTail32), with g32, k32 and l32.
	h32  [2][]float32
	tail bool // hinvTail32 runs where the eigendecomposition was float32's
}

// SetLowerFloat32Steps makes the first k lower steps at each upper
// iterate (each epoch's, counted by the point's XID) run their two big
// products in float32, while the iterate M stays float64: GradGy's Gram
// product M A M = (laᵀM)ᵀ(laᵀM) (strmm, ssyrk) and the second-order
// retraction's L⁻¹(M + tU) and WᵀW (strsm, ssyrk), through blas.Impl32.
// The later steps of the epoch run in float64, so with k = S − 1 (or
// fewer) every epoch ends with a float64 step and the hypergradient is
// formed at a float64 iterate by the float64 oracles, but for HINV's
// eigendecomposition and the two congruences after it, which run in
// float32 where float32's eigenvalues are accurate enough for it
// (hinvEig, hinvTail32): at d = 1000 that took the estimate to
// 0.82–0.84× its time and the epoch to 0.91–0.95× (BenchmarkEpoch32Eig
// and the bench report's hinv32 case, interleaved). 0, the default,
// turns it off; it is off for AD (Retain above 1), whose reverse pass
// needs the factors of float64 steps. The float32 rounding moves the
// lower iterates by about 1e-7 relative: on the paper's problem the
// final f of 100 epochs moves by far less than 1e-6 relative (see
// TestMixedAgrees). Call it before Bilevel, which then returns a lower
// manifold whose retraction follows the float32 steps (and has no
// retraction to choose: it is always the second-order one). The
// parameter lower-float32-steps (Params.LowerFloat32Steps) sets it from
// the command line, the C ABI and Python. It returns an error naming the
// setting when k < 0.
func (p *Problem) SetLowerFloat32Steps(k int) error {
	if k < 0 {
		return fmt.Errorf("synthetic: %w: lower-float32-steps (SetLowerFloat32Steps) = %d, want ≥ 0", numerr.ErrInvalid, k)
	}
	p.mix.steps, p.mix.xid, p.mix.count, p.mix.step = k, 0, 0, false
	if k == 0 || p.mix.la32 != nil {
		return nil
	}
	d := p.d
	f32 := func() []float32 { return make([]float32, d*d) }
	p.mix.la32, p.mix.g32, p.mix.k32, p.mix.l32 = f32(), f32(), f32(), f32()
	p.mix.l64, p.mix.lx = make([]float64, d*d), make([]float64, d*d)
	p.mix.eig = lapackx.NewEigSym32(d)
	p.mix.h32 = [2][]float32{f32(), f32()}
	p.mix.tail = true
	for i, v := range p.la {
		p.mix.la32[i] = float32(v)
	}
	return nil
}

// LowerFloat32Steps returns the k of SetLowerFloat32Steps.
func (p *Problem) LowerFloat32Steps() int { return p.mix.steps }

// float32Step reports whether the GradGy call at pt runs in float32, and
// counts it. A point of unknown identity (XID 0) runs in float64.
func (p *Problem) float32Step(pt *solver.Point) bool {
	mx := &p.mix
	mx.step = false
	if mx.steps == 0 || pt.XID == 0 || p.ring.Len() != 1 || p.SPD.Retraction != spd.SecondOrder {
		return false // off, a point of unknown identity, AD, or the exponential map
	}
	if pt.XID != mx.xid {
		mx.xid, mx.count = pt.XID, 0
	}
	if mx.count >= mx.steps {
		return false
	}
	mx.count++
	mx.step = true
	return true
}

// mamUpper32 is mamUpper with the products in float32: the upper
// triangle of dst is M A M rounded through float32.
func (p *Problem) mamUpper32(dst, m []float64) {
	d, g, k := p.d, p.mix.g32, p.mix.k32
	for i, v := range m {
		g[i] = float32(v)
	}
	impl := blas.Impl32()
	impl.Strmm(gblas.Left, gblas.Lower, gblas.Trans, gblas.NonUnit, d, d, 1, p.mix.la32, d, g, d)
	impl.Ssyrk(gblas.Upper, gblas.Trans, d, d, 1, g, d, 0, k, d)
	for i := 0; i < d; i++ {
		row, kr := dst[i*d+i:(i+1)*d], k[i*d+i:(i+1)*d]
		for j, v := range kr {
			row[j] = float64(v)
		}
	}
}

// retract32 is the SPD manifold's second-order retraction,
// R_X(tU) = ½X + ½(X+tU)X⁻¹(X+tU), written as X + tU + ½VᵀV with
// V = L⁻¹(t sym(U)): V and VᵀV are formed in float32 (strsm, ssyrk), X +
// tU in float64. Rounding the second-order term only, its error is
// float32's unit times t²‖U X⁻¹ U‖, which vanishes with the step, where
// rounding ½X + ½WᵀW (spd's form, W = L⁻¹(X+tU)) in float32 would move
// every iterate by float32's unit times ‖X‖ (at d = 50 it moved the
// final f of 100 epochs by 9e-7 against 4e-9). It factors its result in
// float64 (the check that it is positive definite), and keeps the factor
// for the next step. dst may be x or u.
func (p *Problem) retract32(dst, x, u []float64, t float64) error {
	d, mx := p.d, &p.mix
	var l []float64
	switch {
	case mx.lxok && floats.Equal(mx.lx, x):
		l = mx.l64
	default:
		if l = p.SPD.CachedFactor(x); l == nil {
			if lapackx.Cholesky(mx.l64, x, d) != nil {
				return fmt.Errorf("synthetic: float32 retraction: %w: M (Cholesky factorization failed)", numerr.ErrNotPosDef)
			}
			l = mx.l64
		}
	}
	// tu = t sym(U) and w = float32(tu), both triangles, in tiles (u may
	// be dst).
	w, l32, k, tu := mx.g32, mx.l32, mx.k32, p.dd[0]
	const tile = 32
	for ib := 0; ib < d; ib += tile {
		for jb := 0; jb <= ib; jb += tile {
			for i := ib; i < min(ib+tile, d); i++ {
				for j := jb; j < min(jb+tile, i+1); j++ {
					v := t * 0.5 * (u[i*d+j] + u[j*d+i])
					tu[i*d+j], tu[j*d+i] = v, v
					w[i*d+j], w[j*d+i] = float32(v), float32(v)
				}
			}
		}
	}
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			l32[i*d+j] = float32(l[i*d+j])
		}
	}
	impl := blas.Impl32()
	impl.Strsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, d, d, 1, l32, d, w, d)
	impl.Ssyrk(gblas.Upper, gblas.Trans, d, d, 0.5, w, d, 0, k, d)
	ok := true
	for i := 0; i < d; i++ { // X + tU + ½VᵀV on the upper triangle, mirrored
		o, xr, tr, kr := dst[i*d+i:(i+1)*d], x[i*d+i:(i+1)*d], tu[i*d+i:(i+1)*d], k[i*d+i:(i+1)*d]
		for j := range o {
			o[j] = xr[j] + tr[j] + float64(kr[j])
		}
		ok = ok && finite(o)
	}
	if !ok {
		return fmt.Errorf("synthetic: float32 retraction: %w", numerr.ErrNotFinite)
	}
	lapackx.MirrorUpper(dst, d)
	mx.lxok = false
	if lapackx.Cholesky(mx.l64, dst, d) != nil {
		return fmt.Errorf("synthetic: float32 retraction: %w: the result is not positive definite", numerr.ErrNotPosDef)
	}
	copy(mx.lx, dst)
	mx.lxok = true
	return nil
}

// mixedSPD is the lower manifold with SetLowerFloat32Steps on: the SPD
// manifold, whose retraction after a float32 GradGy runs in float32
// (retract32).
type mixedSPD struct {
	*spd.SPD
	p *Problem
}

// String names the manifold in messages: the choice of retraction that
// the SPD manifold offers is not there.
func (m *mixedSPD) String() string {
	return "SPD with float32 lower steps (lower-float32-steps)"
}

// Retractions returns none: the float32 steps are the second-order
// retraction's, so the choice that the embedded SPD manifold's methods
// would offer (solver.RetractionChooser) is not there.
func (m *mixedSPD) Retractions() []string { return nil }

// Retract is the SPD manifold's retraction, in float32 after a float32
// GradGy.
func (m *mixedSPD) Retract(dst, x, u []float64, t float64) error {
	if !m.p.mix.step {
		return m.SPD.Retract(dst, x, u, t)
	}
	m.p.mix.step = false
	return m.p.retract32(dst, x, u, t)
}

// Clone returns a copy with its own SPD manifold, over the same problem.
func (m *mixedSPD) Clone() any { return &mixedSPD{SPD: m.SPD.Clone().(*spd.SPD), p: m.p} }

// finite reports whether every entry of a is finite.
func finite(a []float64) bool {
	for _, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// hinvEig diagonalizes the lower triangle of k, HessGyInv's L⁻¹KL⁻ᵀ,
// and returns its eigenvalues and eigenvectors (rows), and whether they
// are ssyevd's (then the rest of the estimate runs in float32 too,
// hinvTail32): with the float32 steps on, in float32 (EigSym32) where
// that is accurate enough, else in float64 (the problem's EigSym). HINV's solution scales entry (i, j) by
// 2/(λ_i + λ_j), a smooth function of the spectrum, so that float32's
// mixing of the eigenvectors of close eigenvalues costs nothing and its
// error in the eigenvalues, n·u₃₂·‖K − σI‖ (σ the mean eigenvalue),
// matters relative to λ_min: float32 is kept while that is at most
// mixedEigTol relative (1.8e-5 on the paper's problem at d = 1000, whose
// spectrum is [0.0093, 0.0149]), and the matrix is solved again in
// float64 otherwise.
func (p *Problem) hinvEig(k []float64) (lam, q []float64, f32 bool, err error) {
	if e := p.mix.eig; p.mix.steps > 0 && e != nil {
		if err := e.FactorizeLower(k); err != nil {
			return nil, nil, false, err
		}
		lam := e.Values()
		n := len(lam)
		var sigma float64
		for _, v := range lam {
			sigma += v
		}
		sigma /= float64(n)
		spread := math.Max(sigma-lam[0], lam[n-1]-sigma)
		if lam[0] > 0 && float64(n)*lapackx.F32Unit*spread <= mixedEigTol*lam[0] {
			// float32 for the tail only where ssyevd ran: EigSym32
			// is EigSym in pure-Go builds, where float32 products
			// gain nothing (and gonum's sgemm allocates).
			e32, ok := e.(*lapackx.EigSym32)
			return lam, e.Vectors(), ok && !e32.FellBack(), nil
		}
	}
	if err := p.eig.FactorizeLower(k); err != nil {
		return nil, nil, false, err
	}
	return p.eig.Values(), p.eig.Vectors(), false, nil
}

// hinvTail32 is hessGyInvReduce's tail after a float32 eigendecomposition,
// in float32: dst = Gᵀ R G with G = q Lᵀ and R = (q r qᵀ) ⊙ 2/(λ_i + λ_j),
// r the symmetric matrix whose lower triangle r holds. Each congruence
// X M Xᵀ splits M = U + Uᵀ (U its upper triangle, diagonal halved): a
// triangular product P = X U (strmm, d³) and a general one H = P Xᵀ
// (sgemm, 2d³), X M Xᵀ = H + Hᵀ, as blas.Impl32 routes strmm and sgemm
// to the native library but not ssyr2k. q comes from ssyevd, so it is
// exact in float32.
func (p *Problem) hinvTail32(dst, l, q, lam, r []float64) {
	d, mx := p.d, &p.mix
	q32, u, pp, h, l32 := mx.h32[0], mx.h32[1], mx.g32, mx.k32, mx.l32
	for i, x := range q {
		q32[i] = float32(x)
	}
	for i := 0; i < d; i++ { // U of r, from its lower triangle
		u[i*d+i] = float32(0.5 * r[i*d+i])
		for j := i + 1; j < d; j++ {
			u[i*d+j] = float32(r[j*d+i])
		}
	}
	impl := blas.Impl32()
	copy(pp, q32)
	impl.Strmm(gblas.Right, gblas.Upper, gblas.NoTrans, gblas.NonUnit, d, d, 1, u, d, pp, d)
	impl.Sgemm(gblas.NoTrans, gblas.Trans, d, d, d, 1, pp, d, q32, d, 0, h, d)
	for i := 0; i < d; i++ { // U of R, scaled, over U of r
		for j := i; j < d; j++ {
			x := (float64(h[i*d+j]) + float64(h[j*d+i])) * (2 / (lam[i] + lam[j]))
			if i == j {
				x *= 0.5
			}
			u[i*d+j] = float32(x)
		}
	}
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			l32[i*d+j] = float32(l[i*d+j])
		}
	}
	copy(pp, q32) // G = q Lᵀ
	impl.Strmm(gblas.Right, gblas.Lower, gblas.Trans, gblas.NonUnit, d, d, 1, l32, d, pp, d)
	copy(q32, pp) // G, kept
	impl.Strmm(gblas.Left, gblas.Upper, gblas.NoTrans, gblas.NonUnit, d, d, 1, u, d, pp, d)
	impl.Sgemm(gblas.Trans, gblas.NoTrans, d, d, d, 1, q32, d, pp, d, 0, h, d)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			x := float64(h[i*d+j]) + float64(h[j*d+i])
			dst[i*d+j], dst[j*d+i] = x, x
		}
	}
}

// mixedEigTol bounds the relative error of λ_min that hinvEig accepts
// from float32: 1e-4 worst case (n·u₃₂, about √n·u₃₂ in practice) keeps
// the estimate within about 1e-6 relative, the float32 lower steps' own
// level.
const mixedEigTol = 1e-4

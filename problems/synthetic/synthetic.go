// Package synthetic is the paper's synthetic bilevel problem (Section 4.1,
// Appendix H.1) on St(d, r) × SPD(d):
//
//	max_{W ∈ St(d,r)} tr(M* XᵀY Wᵀ),
//	M* = argmin_{M ≻ 0} ⟨M, XᵀX⟩ + ⟨M⁻¹, W YᵀY Wᵀ + νI⟩,
//
// posed as the minimization of f(W, M) = −tr(M XᵀY Wᵀ). With A = XᵀX,
// B = W YᵀY Wᵀ + νI and C = XᵀY the Riemannian oracles are (affine-invariant
// metric on SPD, embedded metric on Stiefel):
//
//	grad_W f = −P_W(M C),                 grad_M f = −M sym(W Cᵀ) M,
//	grad_M g = M A M − B,
//	H_M g[U] = ½(U A M + M A U + U M⁻¹B + B M⁻¹U),
//	G_WM g[V] = −2 P_W(M⁻¹ V M⁻¹ W YᵀY),  G_MW g[U] = −(U YᵀY Wᵀ + W YᵀY Uᵀ),
//	H_M g⁻¹[V] = M Z M with M Z K + K Z M = 2V, K = M A M + B.
//
// The last is how this package solves the Hessian system: U = M Z M turns
// H[U] = ½(UAM + MAU + UM⁻¹B + BM⁻¹U) = V into the generalized Lyapunov
// equation above, which one Cholesky factor M = LLᵀ and one
// eigendecomposition L⁻¹KL⁻ᵀ = Q Λ Qᵀ diagonalize:
// U = (LQ)[(2 Qᵀ L⁻¹VL⁻ᵀ Q) ⊘ (λ_i + λ_j)](LQ)ᵀ. The paper's Appendix H.1
// gives the equivalent M^½ G M^½ form with a Lyapunov equation in
// S = M^½AM^½ + M^{−½}BM^{−½}, which costs two eigendecompositions (and
// whose right-hand side lacks a factor 2 that the authors' code has). g
// is geodesically strongly convex in M.
//
// SetLowerFloat32Steps is an opt-in mixed-precision lower loop for large d:
// the big products of the first lower steps of each epoch, and HINV's
// eigendecomposition and congruences, run in float32 while M stays
// float64 (off by default).
package synthetic

import (
	"fmt"
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/solver"
	"github.com/rhgd/rhgd/spd"
	"github.com/rhgd/rhgd/stiefel"
)

// ErrBadData signifies data of the wrong shape, non-finite, ν ≤ 0, or a
// singular XᵀX (numerr.ErrInvalid).
var ErrBadData = numerr.New(numerr.ErrInvalid, "synthetic: bad data")

// Data are the matrices X (n×d) and Y (n×r), row-major, and ν; the tags
// name X and Y in the problem's .npz file (problems.ReadTagged).
type Data struct {
	N  int       `dim:"n"`
	D  int       `dim:"d"`
	R  int       `dim:"r"`
	X  []float64 `npz:"X" shape:"n×d"`
	Y  []float64 `npz:"Y" shape:"n×r"`
	Nu float64
}

// Generate draws X and Y with standard normal entries, each scaled to unit
// Frobenius norm as in the authors' code, from seed. The paper's sizes are
// n=100, d=50, r=20, ν=0.01.
func Generate(n, d, r int, nu float64, seed uint64) (*Data, error) {
	if n < d || d < r || r < 1 {
		return nil, fmt.Errorf("%w: need n ≥ d ≥ r ≥ 1, have %d, %d, %d", ErrBadData, n, d, r)
	}
	if !(nu > 0) || math.IsInf(nu, 0) {
		return nil, fmt.Errorf("%w: ν = %v must be positive and finite", ErrBadData, nu)
	}
	rnd := rand.New(rand.NewPCG(seed, 0x5a17))
	gauss := func(k int) []float64 {
		v := make([]float64, k)
		var s float64
		for i := range v {
			v[i] = rnd.NormFloat64()
			s += v[i] * v[i]
		}
		s = math.Sqrt(s)
		for i := range v {
			v[i] /= s
		}
		return v
	}
	return &Data{N: n, D: d, R: r, X: gauss(n * d), Y: gauss(n * r), Nu: nu}, nil
}

// Problem is the synthetic problem with its manifolds and scratch space.
// Its oracles allocate nothing and keep per-point work by the point's
// identity: per M (a solver.MemoRing of one slot, or of Retain's n) its
// Cholesky factor, inverse and A M; per W, B(W); per (W, M), the products
// T and P that CG and NS apply many times at one point. With n slots the
// forward pass of AD leaves A M and the factor of each lower iterate (the
// SPD retraction's, not computed again) for the reverse pass. It is not
// safe for concurrent use.
type Problem struct {
	d, r int
	nu   float64
	A, C []float64 // XᵀX (d×d), XᵀY (d×r)
	YtY  []float64 // r×r
	St   *stiefel.Stiefel
	SPD  *spd.SPD
	eig  *lapackx.EigSym
	// A^½ and A^−½, for the lower solution; la with A = la laᵀ (upper part
	// zero), for M A M = (laᵀM)ᵀ(laᵀM).
	ahalf, aihalf []float64
	la            []float64
	sf            *lapackx.SymFunc
	// Per M: L with M = LLᵀ (upper part zero), M⁻¹ and A M in slots by
	// identity; L⁻¹ (HINV) for one M.
	ring         solver.MemoRing
	slots        []mslot
	mlinv, mwork []float64
	linvAt       solver.Memo
	// Per W: B(W) = W YᵀY Wᵀ + νI and W YᵀY.
	bw, wyy []float64
	bAt     solver.Memo
	// Per (W, M): T = AM + M⁻¹B for the Hessian and P = M⁻¹ W YᵀY for the
	// cross derivative.
	tWM, pWM []float64
	tAt, pAt solver.Memo
	// the opt-in float32 lower steps (SetLowerFloat32Steps)
	mix mixed
	// scratch
	dd [6][]float64 // d×d
	dr [3][]float64 // d×r
}

// New returns the problem for data, which it validates and copies into
// XᵀX, XᵀY and YᵀY.
func New(data *Data) (*Problem, error) {
	if data == nil {
		return nil, fmt.Errorf("%w: no data", ErrBadData)
	}
	n, d, r := data.N, data.D, data.R
	switch {
	case n < d || d < r || r < 1:
		return nil, fmt.Errorf("%w: need n ≥ d ≥ r ≥ 1, have %d, %d, %d", ErrBadData, n, d, r)
	case len(data.X) != n*d || len(data.Y) != n*r:
		return nil, fmt.Errorf("%w: X has %d entries (want %d), Y %d (want %d)", ErrBadData, len(data.X), n*d, len(data.Y), n*r)
	case !(data.Nu > 0) || math.IsInf(data.Nu, 0):
		return nil, fmt.Errorf("%w: ν = %v must be positive", ErrBadData, data.Nu)
	}
	for i, v := range append(append([]float64(nil), data.X...), data.Y...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: entry %d of X|Y is %v", ErrBadData, i, v)
		}
	}
	p := &Problem{d: d, r: r, nu: data.Nu, A: make([]float64, d*d), C: make([]float64, d*r), YtY: make([]float64, r*r),
		St: stiefel.New(d, r), SPD: spd.New(d), eig: lapackx.NewEigSym(d),
		mlinv: make([]float64, d*d), mwork: make([]float64, d*d),
		bw: make([]float64, d*d), wyy: make([]float64, d*r), tWM: make([]float64, d*d), pWM: make([]float64, d*r),
		ring: solver.MemoRing{On: solver.OnY}, linvAt: solver.Memo{On: solver.OnY},
		bAt: solver.Memo{On: solver.OnX}, tAt: solver.Memo{On: solver.OnX | solver.OnY}, pAt: solver.Memo{On: solver.OnX | solver.OnY}}
	p.Retain(1)
	impl := blas.Impl()
	impl.Dgemm(gblas.Trans, gblas.NoTrans, d, d, n, 1, data.X, d, data.X, d, 0, p.A, d)
	impl.Dgemm(gblas.Trans, gblas.NoTrans, d, r, n, 1, data.X, d, data.Y, r, 0, p.C, r)
	impl.Dgemm(gblas.Trans, gblas.NoTrans, r, r, n, 1, data.Y, r, data.Y, r, 0, p.YtY, r)
	lapackx.Symmetrize(p.A, d)
	lapackx.Symmetrize(p.YtY, r)
	// g is strongly convex in M only when A = XᵀX is positive definite.
	if err := p.eig.FactorizeValues(p.A); err != nil {
		return nil, fmt.Errorf("%w: XᵀX: %w", ErrBadData, err)
	}
	if lam := p.eig.Values(); !(lam[0] > float64(d)*0x1p-52*lam[d-1]) {
		return nil, fmt.Errorf("%w: XᵀX is singular (λ_min = %.3g, λ_max = %.3g): g is not strongly convex in M", ErrBadData, lam[0], lam[d-1])
	}
	for i := range p.dd {
		p.dd[i] = make([]float64, d*d)
	}
	p.sf, p.ahalf, p.aihalf = lapackx.NewSymFunc(d), make([]float64, d*d), make([]float64, d*d)
	if err := p.sf.SqrtInvSqrt(p.ahalf, p.aihalf, p.A); err != nil {
		return nil, fmt.Errorf("%w: XᵀX: %w", ErrBadData, err)
	}
	for i := range p.dr {
		p.dr[i] = make([]float64, d*r)
	}
	p.la = make([]float64, d*d)
	if err := lapackx.Cholesky(p.la, p.A, d); err != nil {
		return nil, fmt.Errorf("%w: XᵀX: %w", ErrBadData, err)
	}
	return p, nil
}

// Start returns the starting point: a random W from seed and M = I.
func (p *Problem) Start(seed uint64) (w, m []float64) {
	w, m = make([]float64, p.d*p.r), make([]float64, p.d*p.d)
	p.St.RandPoint(w, rand.New(rand.NewPCG(seed, 1)))
	for i := 0; i < p.d; i++ {
		m[i*p.d+i] = 1
	}
	return w, m
}

// StartAt returns the starting point for a start a data file may hold:
// its parts, each projected onto its manifold when it is within float32
// rounding of it (problems.SnapStart, noted in notes), and Start's from
// seed for a part it lacks. path names the file in errors.
func (p *Problem) StartAt(st problems.Start, seed uint64, notes *[]string, path string) (w0, m0 []float64, err error) {
	if err := problems.SnapStart(notes, st, p.St, p.SPD, "W0", "M0"); err != nil {
		return nil, nil, fmt.Errorf("synthetic: %s: %w", path, err)
	}
	w0, m0 = st.Or(p.Start(seed))
	return w0, m0, nil
}

func (p *Problem) mul(tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	blas.Impl().Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// errNotPD is the error of a lower iterate that is not positive definite.
var errNotPD = fmt.Errorf("synthetic: %w: M (Cholesky factorization failed)", numerr.ErrNotPosDef)

// factor returns the Cholesky factor L of M (upper part zero), computed
// once per M, or taken from the SPD manifold when it has just factored M
// (a retraction's result).
func (p *Problem) factor(pt *solver.Point) ([]float64, error) {
	s := p.slot(pt)
	if s.have&hasL == 0 {
		if cl := p.SPD.CachedFactor(pt.Y); cl != nil {
			copy(s.l, cl)
		} else {
			if lapackx.Cholesky(s.l, pt.Y, p.d) != nil {
				return nil, errNotPD
			}
		}
		s.have |= hasL
	}
	return s.l, nil
}

// inv returns M⁻¹, computed once per M.
func (p *Problem) inv(pt *solver.Point) ([]float64, error) {
	s := p.slot(pt)
	if s.have&hasInv == 0 {
		l, err := p.factor(pt)
		if err != nil {
			return nil, err
		}
		lapackx.CholInverse(s.minv, p.mwork, l, p.d)
		s.have |= hasInv
	}
	return s.minv, nil
}

// am returns A M, computed once per M (by GradGy in the lower steps).
func (p *Problem) am(pt *solver.Point) []float64 {
	s := p.slot(pt)
	if s.have&hasAM == 0 {
		d := p.d
		p.mul(gblas.NoTrans, gblas.NoTrans, d, d, d, 1, p.A, d, pt.Y, d, 0, s.am, d)
		s.have |= hasAM
	}
	return s.am
}

// linv returns L⁻¹ for M = LLᵀ (upper part zero), computed once per M.
func (p *Problem) linv(pt *solver.Point) ([]float64, error) {
	if !p.linvAt.Valid(pt) {
		p.linvAt.Reset()
		l, err := p.factor(pt)
		if err != nil {
			return nil, err
		}
		lapackx.InvLower(p.mlinv, l, p.d)
		p.linvAt.Store(pt)
	}
	return p.mlinv, nil
}

// b returns B(W) = W YᵀY Wᵀ + νI, computed once per W, and leaves W YᵀY
// in p.wyy.
func (p *Problem) b(pt *solver.Point) []float64 {
	if !p.bAt.Valid(pt) {
		p.bAt.Reset()
		d, r, w := p.d, p.r, pt.X
		p.mul(gblas.NoTrans, gblas.NoTrans, d, r, r, 1, w, r, p.YtY, r, 0, p.wyy, r)
		p.mul(gblas.NoTrans, gblas.Trans, d, d, r, 1, p.wyy, r, w, r, 0, p.bw, d)
		lapackx.Symmetrize(p.bw, d)
		for i := 0; i < d; i++ {
			p.bw[i*d+i] += p.nu
		}
		p.bAt.Store(pt)
	}
	return p.bw
}

// t returns T = AM + M⁻¹B, computed once per (W, M) as AM + νM⁻¹ + P Wᵀ:
// A M is kept from GradGy, and M⁻¹B = M⁻¹(W YᵀY Wᵀ + νI) with
// P = M⁻¹ W YᵀY is a product of inner dimension r instead of d.
func (p *Problem) t(pt *solver.Point) ([]float64, error) {
	if !p.tAt.Valid(pt) {
		p.tAt.Reset()
		d, r := p.d, p.r
		pm, err := p.pm(pt)
		if err != nil {
			return nil, err
		}
		mi, err := p.inv(pt)
		if err != nil {
			return nil, err
		}
		am, t := p.am(pt), p.tWM
		for i, v := range am {
			t[i] = v + p.nu*mi[i]
		}
		p.mul(gblas.NoTrans, gblas.Trans, d, d, r, 1, pm, r, pt.X, r, 1, t, d)
		p.tAt.Store(pt)
	}
	return p.tWM, nil
}

// pm returns P = M⁻¹ W YᵀY, computed once per (W, M).
func (p *Problem) pm(pt *solver.Point) ([]float64, error) {
	if !p.pAt.Valid(pt) {
		p.pAt.Reset()
		d, r := p.d, p.r
		mi, err := p.inv(pt)
		if err != nil {
			return nil, err
		}
		p.b(pt) // sets p.wyy
		p.mul(gblas.NoTrans, gblas.NoTrans, d, r, d, 1, mi, d, p.wyy, r, 0, p.pWM, r)
		p.pAt.Store(pt)
	}
	return p.pWM, nil
}

// F returns f(W, M) = −tr(M C Wᵀ) = −⟨M C, W⟩.
func (p *Problem) F(pt *solver.Point) (float64, error) {
	mc := p.dr[1]
	p.mul(gblas.NoTrans, gblas.NoTrans, p.d, p.r, p.d, 1, pt.Y, p.d, p.C, p.r, 0, mc, p.r)
	var s float64
	for i, v := range mc {
		s += v * pt.X[i]
	}
	return -s, nil
}

// G returns g(W, M) = ⟨M, A⟩ + ⟨M⁻¹, B⟩.
func (p *Problem) G(pt *solver.Point) (float64, error) {
	mi, err := p.inv(pt)
	if err != nil {
		return 0, err
	}
	bm := p.b(pt)
	var s float64
	for i := range bm {
		s += pt.Y[i]*p.A[i] + mi[i]*bm[i]
	}
	return s, nil
}

// GradFx sets dst = −P_W(M C).
func (p *Problem) GradFx(dst []float64, pt *solver.Point) error {
	p.mul(gblas.NoTrans, gblas.NoTrans, p.d, p.r, p.d, -1, pt.Y, p.d, p.C, p.r, 0, p.dr[2], p.r)
	p.St.Project(dst, pt.X, p.dr[2])
	return nil
}

// GradFy sets dst = −M sym(W Cᵀ) M.
func (p *Problem) GradFy(dst []float64, pt *solver.Point) error {
	d := p.d
	wc := p.dd[1]
	p.mul(gblas.NoTrans, gblas.Trans, d, d, p.r, -1, pt.X, p.r, p.C, p.r, 0, wc, d)
	p.SPD.EGradToRGrad(dst, pt.Y, wc)
	return nil
}

// GradGy sets dst = M A M − B, exactly symmetric. From order
// mamGramCutoff, when one point is kept, it forms M A M = GᵀG with
// G = laᵀM (A = la laᵀ) by a triangular product and a rank-k update, 2d³
// flops against the 4d³ of A M and M (A M); otherwise (below the cutoff,
// where GEMM is faster, or for AD's reverse pass, when Retain asked for
// several points) it keeps A M for the Hessian at M, and M's factor. With
// SetLowerFloat32Steps on, the Gram product of the epoch's first steps
// runs in float32 (mamUpper32).
func (p *Problem) GradGy(dst []float64, pt *solver.Point) error {
	d, m := p.d, pt.Y
	switch {
	case p.float32Step(pt):
		p.mamUpper32(dst, m)
	case d >= mamGramCutoff && p.ring.Len() == 1:
		p.mamUpper(dst, m, p.dd[0])
	default:
		am := p.am(pt)
		if p.ring.Len() > 1 {
			p.keepFactor(pt)
		}
		p.mul(gblas.NoTrans, gblas.NoTrans, d, d, d, 1, m, d, am, d, 0, dst, d)
	}
	bm := p.b(pt)
	for i := 0; i < d; i++ { // the upper triangle less B, mirrored in tiles
		row, br := dst[i*d+i:(i+1)*d], bm[i*d+i:(i+1)*d]
		for j, v := range br {
			row[j] -= v
		}
	}
	lapackx.MirrorUpper(dst, d)
	return nil
}

// mamGramCutoff is the order from which GradGy and HessGyInv form M A M
// as a Gram matrix (mamUpper): below it OpenBLAS's GEMM beats its
// triangular and rank-k kernels (lapackx.Congruence's cutoff).
var mamGramCutoff = 100

// mamUpper sets the upper triangle of dst to M A M = (laᵀM)ᵀ(laᵀM) for
// the symmetric m, at 2d³ flops; g is d×d scratch.
func (p *Problem) mamUpper(dst, m, g []float64) {
	d := p.d
	impl := blas.Impl()
	copy(g, m)
	impl.Dtrmm(gblas.Left, gblas.Lower, gblas.Trans, gblas.NonUnit, d, d, 1, p.la, d, g, d)
	impl.Dsyrk(gblas.Upper, gblas.Trans, d, d, 1, g, d, 0, dst, d)
}

// GradGx sets dst = P_W(2 M⁻¹ W YᵀY).
func (p *Problem) GradGx(dst []float64, pt *solver.Point) error {
	pm, err := p.pm(pt)
	if err != nil {
		return err
	}
	for i, v := range pm {
		p.dr[1][i] = 2 * v
	}
	p.St.Project(dst, pt.X, p.dr[1])
	return nil
}

// HessGy sets dst = ½(U A M + M A U + U M⁻¹B + B M⁻¹U) = sym(U T) with
// T = AM + M⁻¹B, prepared once per (W, M).
func (p *Problem) HessGy(dst []float64, pt *solver.Point, u []float64) error {
	d := p.d
	t, err := p.t(pt)
	if err != nil {
		return err
	}
	p.mul(gblas.NoTrans, gblas.NoTrans, d, d, d, 1, u, d, t, d, 0, dst, d)
	lapackx.Symmetrize(dst, d)
	return nil
}

// CrossGxy sets dst = −2 P_W(M⁻¹ V P) for V ∈ T_M, with P = M⁻¹ W YᵀY
// prepared once per (W, M).
func (p *Problem) CrossGxy(dst []float64, pt *solver.Point, v []float64) error {
	d, r := p.d, p.r
	pm, err := p.pm(pt)
	if err != nil {
		return err
	}
	mi, err := p.inv(pt)
	if err != nil {
		return err
	}
	p.mul(gblas.NoTrans, gblas.NoTrans, d, r, d, 1, v, d, pm, r, 0, p.dr[0], r)
	p.mul(gblas.NoTrans, gblas.NoTrans, d, r, d, -2, mi, d, p.dr[0], r, 0, p.dr[1], r)
	p.St.Project(dst, pt.X, p.dr[1])
	return nil
}

// CrossGyx sets dst = −(U YᵀY Wᵀ + W YᵀY Uᵀ) for U ∈ T_W.
func (p *Problem) CrossGyx(dst []float64, pt *solver.Point, u []float64) error {
	d, r := p.d, p.r
	p.mul(gblas.NoTrans, gblas.NoTrans, d, r, r, 1, u, r, p.YtY, r, 0, p.dr[0], r)
	p.mul(gblas.NoTrans, gblas.Trans, d, d, r, -1, p.dr[0], r, pt.X, r, 0, dst, d)
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			v := dst[i*d+j] + dst[j*d+i]
			dst[i*d+j], dst[j*d+i] = v, v
		}
		dst[i*d+i] *= 2
	}
	return nil
}

// HessGyInv sets dst = H_M g⁻¹[V] = (LQ)[(2 Qᵀ L⁻¹VL⁻ᵀ Q) ⊘ (λ_i + λ_j)](LQ)ᵀ
// with M = LLᵀ and L⁻¹(MAM + B)L⁻ᵀ = QΛQᵀ (see the package documentation):
// one Cholesky factor (shared with the other oracles at this M) and one
// eigendecomposition. Below mamGramCutoff it uses L⁻¹ and nine products
// of d×d matrices, which at these sizes run faster than the triangular
// solves they replace (lapackx.BenchmarkCholInverse); from there, where
// flops count, M A M as a Gram matrix (2d³), the two reductions
// L⁻¹ · L⁻ᵀ by lapackx.ReduceSym (d³ each, no L⁻¹), the product L Q by
// a triangular one (d³) and two congruences (3d³ each): 11d³ against 16d³ and L⁻¹.
func (p *Problem) HessGyInv(dst []float64, pt *solver.Point, v []float64) error {
	if p.d >= mamGramCutoff {
		return p.hessGyInvReduce(dst, pt, v)
	}
	d, m := p.d, pt.Y
	l, err := p.factor(pt)
	if err != nil {
		return err
	}
	li, err := p.linv(pt)
	if err != nil {
		return err
	}
	k, t := p.dd[4], p.dd[5]
	// K = M A M + B, reduced to L⁻¹ K L⁻ᵀ and diagonalized.
	copy(k, p.A)
	lapackx.Congruence(k, m, k, t, d, false)
	bm := p.b(pt)
	for i := range k {
		k[i] += bm[i]
	}
	lapackx.Congruence(k, li, k, t, d, false)
	lam, q, _, err := p.hinvEig(k) // rows of q are the eigenvectors
	if err != nil {
		return fmt.Errorf("synthetic: HINV: %w", err)
	}
	// R = G V Gᵀ with G = Qᵀ L⁻¹ = q L⁻¹.
	impl := blas.Impl()
	g, r := p.dd[3], p.dd[1]
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, d, d, d, 1, q, d, li, d, 0, g, d)
	copy(r, v)
	lapackx.Symmetrize(r, d)
	lapackx.Congruence(r, g, r, t, d, false)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			r[i*d+j] *= 2 / (lam[i] + lam[j])
		}
	}
	// U = (L Q) R (L Q)ᵀ with L Q = L qᵀ.
	lq := p.dd[2]
	impl.Dgemm(gblas.NoTrans, gblas.Trans, d, d, d, 1, l, d, q, d, 0, lq, d)
	lapackx.Congruence(dst, lq, r, t, d, false)
	return nil
}

// hessGyInvReduce is HessGyInv from mamGramCutoff: the same solution with
// 11d³ flops besides the eigendecomposition.
func (p *Problem) hessGyInvReduce(dst []float64, pt *solver.Point, v []float64) error {
	d, m := p.d, pt.Y
	l, err := p.factor(pt)
	if err != nil {
		return err
	}
	k, t := p.dd[4], p.dd[5]
	// K = M A M + B (upper triangle), reduced to L⁻¹ K L⁻ᵀ (lower) and
	// diagonalized.
	p.mamUpper(k, m, t)
	bm := p.b(pt)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			k[j*d+i] = k[i*d+j] + bm[i*d+j]
		}
	}
	lapackx.ReduceSym(k, l, d)
	lam, q, f32, err := p.hinvEig(k) // rows of q are the eigenvectors
	if err != nil {
		return fmt.Errorf("synthetic: HINV: %w", err)
	}
	// R = q (L⁻¹ sym(V) L⁻ᵀ) qᵀ, scaled by 2/(λ_i + λ_j).
	r := p.dd[1]
	for i := 0; i < d; i++ { // the lower triangle of sym(V)
		for j := 0; j <= i; j++ {
			r[i*d+j] = 0.5 * (v[i*d+j] + v[j*d+i])
		}
	}
	lapackx.ReduceSym(r, l, d)
	if f32 && p.mix.tail {
		p.hinvTail32(dst, l, q, lam, r)
		return nil
	}
	for i := 0; i < d; i++ { // to the upper triangle, which Congruence reads
		for j := i + 1; j < d; j++ {
			r[i*d+j] = r[j*d+i]
		}
	}
	lapackx.Congruence(r, q, r, t, d, false)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			r[i*d+j] *= 2 / (lam[i] + lam[j])
		}
	}
	// U = (L qᵀ) R (L qᵀ)ᵀ = Gᵀ R G with G = q Lᵀ.
	g := p.dd[2]
	copy(g, q)
	blas.Impl().Dtrmm(gblas.Right, gblas.Lower, gblas.Trans, gblas.NonUnit, d, d, 1, l, d, g, d)
	lapackx.Congruence(dst, g, r, t, d, true)
	return nil
}

// eigSolver is HessGyInv's eigensolver with the float32 lower steps on
// (mixed.eig): lapackx.EigSym32, or in a benchmark lapackx.RefinedEigSym
// (BenchmarkEpoch32Eig, which measured it slower than dsyevd).
type eigSolver interface {
	FactorizeLower(a []float64) error
	Values() []float64
	Vectors() []float64
}

// LowerSolve sets dst to the lower solution M*(W) = A⁻¹ # B(W) =
// A^−½ (A^½ B A^½)^½ A^−½, the geometric mean of A⁻¹ and B: the SPD
// solution of M A M = B, where grad_M g = MAM − B vanishes. One
// eigendecomposition per W (A^±½ are computed once, in New).
func (p *Problem) LowerSolve(dst []float64, pt *solver.Point) error {
	d := p.d
	c, t := p.dd[4], p.dd[5]
	copy(c, p.b(pt))
	lapackx.Congruence(c, p.ahalf, c, t, d, false)
	if err := p.sf.Sqrt(c, c); err != nil {
		return fmt.Errorf("synthetic: lower solution: %w", err)
	}
	lapackx.Congruence(dst, p.aihalf, c, t, d, false)
	return nil
}

// Bilevel returns the solver's view of p, on St(d, r) × SPD(d) (with
// SetLowerFloat32Steps on, an SPD(d) whose retraction follows the float32
// steps).
func (p *Problem) Bilevel() solver.Problem {
	var my solver.Manifold = p.SPD
	if p.mix.steps > 0 {
		my = &mixedSPD{SPD: p.SPD, p: p}
	}
	return solver.Problem{Mx: p.St, My: my, F: p.F, G: p.G, GradFx: p.GradFx, GradFy: p.GradFy, GradGy: p.GradGy,
		GradGx: p.GradGx, HessGy: p.HessGy, CrossGxy: p.CrossGxy, CrossGyx: p.CrossGyx, HessGyInv: p.HessGyInv, LowerSolve: p.LowerSolve,
		Retain: p.Retain}
}

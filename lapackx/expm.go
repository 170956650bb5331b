package lapackx

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/internal/stagetime"
	"github.com/rhgd/rhgd/numerr"
)

// Expm computes the exponential of a general (non-symmetric) n×n matrix by
// the scaling and squaring algorithm of Al-Mohy and Higham (2009, Alg. 5.1):
// a Padé approximant r_m of degree m ∈ {3, 5, 7, 9, 13} chosen from
// ‖A^k‖^{1/k} rather than ‖A‖ (which avoids over-scaling on non-normal
// matrices), the extra scaling ℓ that bounds the backward error of r_m, and
// for triangular A the recomputation of the diagonal and first
// superdiagonal during squaring. 2×2 matrices use the closed form, written
// so that it neither cancels nor overflows where the exponential does not.
// The zeros that a reducible A (block triangular, up to a symmetric
// permutation) puts in e^A are exact, and so is e^{a_ii} where i is a
// 1×1 diagonal block, as scipy keeps them.
//
// The Taylor polynomial T_m of degree m ∈ {1, 2, 4, 8, 12, 18}, evaluated
// by Bader, Blanes and Casas's schemes (2019; expm_taylor.go) with at most
// 5 products and no LU solve, takes r_m's place where it is cheaper: always
// where A needs no scaling for it (‖A‖ ≲ 1.09), and with scaling where
// T_18 costs fewer products than r_m and squares no more often, so that
// the rounding of its evaluation is not amplified more than r_m's (see
// choose). Both have the same backward error bound u.
//
// For symmetric matrices SymFunc.Exp is faster and exactly symmetric.
// Steady-state calls allocate nothing; an Expm is not safe for concurrent
// use.
type Expm struct {
	n                  int
	a, a2, a4, a6, a8  []float64 // A and its powers; a8 is scratch for A⁸ and A¹⁰
	a3                 []float64 // A³, for the Taylor path
	u, v               []float64 // Padé numerator and denominator parts
	lu                 *LU
	colsum, x, y, vtmp []float64 // norms and their estimation
	isgn               []int
	have4, have6       bool // A⁴, A⁶ formed
	have8              bool // a8 holds A⁸ (as A⁴·A⁴), for degree 9's Padé step

	// The ℓ function's chain r = 1ᵀ|A|^p / scale, carried from one degree's
	// power p to the next (7, 11, …, 27) instead of restarting at 1, over
	// |A| formed once in v (free until the Padé step): 27 products with a
	// vector at most, not 79.
	ellR, ellY []float64
	ellP       int     // power reached; 0: |A| not formed yet
	ellLog     float64 // log ‖|A|^ellP‖₁
	ellZero    bool    // |A|^ellP = 0: r_m is exact
	normA      float64 // ‖A‖₁ of the unscaled A
	n4, n6     float64 // ‖A⁴‖₁ and ‖A⁶‖₁ where form4 and form6 formed them

	// diag and off are A's diagonal and first super- or subdiagonal,
	// kept because dst may be a and the squaring phase needs them.
	diag, off []float64
	// The zero structure of e^A (findStructure): reach holds, w words a
	// row, the bitsets of the nodes each node reaches in A's graph;
	// single marks the nodes alone in their strongly connected component,
	// whose diagonal entry of e^A is exactly e^{a_ii}.
	reach      []uint64
	w          int
	single     []bool
	queue      []int
	structured bool // some e^A[i, j] is zero by structure

	// noTaylor restricts Exp to the Padé path (tests and benchmarks
	// compare the two); lastTaylor is the Taylor degree the last Exp
	// used, 0 when it took the Padé path or a closed form, and lastS its
	// scaling.
	noTaylor          bool
	lastTaylor, lastS int
}

// NewExpm returns a workspace for n×n matrices.
func NewExpm(n int) *Expm {
	if n < 0 {
		panic(errNegative)
	}
	sq := func() []float64 { return make([]float64, n*n) }
	vec := func() []float64 { return make([]float64, n) }
	w := (n + 63) / 64
	return &Expm{
		n: n, a: sq(), a2: sq(), a3: sq(), a4: sq(), a6: sq(), a8: sq(), u: sq(), v: sq(),
		lu: NewLU(n), colsum: vec(), x: vec(), y: vec(), vtmp: vec(), isgn: make([]int, n),
		ellR: vec(), ellY: vec(), diag: vec(), off: vec(),
		reach: make([]uint64, n*w), w: w, single: make([]bool, n), queue: make([]int, n),
	}
}

// N returns the order of the matrices the workspace takes.
func (e *Expm) N() int { return e.n }

// Padé degrees and the largest ‖A‖ (in the ‖A^k‖^{1/k} sense) for which
// r_m has backward error at most u = 2⁻⁵³ (Higham 2005, Table 2.3), except
// θ13 = 4.25 rather than 5.37, as scipy's expm has it: the smaller scaled
// norm costs a squaring only where ℓ does not already ask for it, and on the
// stiff block triangular [[−500, 500, 0], [0, −550, 360], [0, 630, −630]]
// (s = 9, not 8) the error of e^A fell from 2.9e-13 to 8.5e-15 (scipy's
// 8.7e-14).
var (
	padeDegrees = [5]int{3, 5, 7, 9, 13}
	padeTheta   = [5]float64{1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1, 2.097847961257068e0, 4.25}
	// |c_{2m+1}|, the leading coefficient of the backward error series, for
	// the ℓ function (Al-Mohy and Higham 2009, eq. 5.3 and Table 5.1).
	padeErrCoeff = [5]float64{1 / 100800.0, 1 / 10059033600.0, 1 / 4487938430976000.0,
		1 / 5914384781877411840000.0, 1 / 113250775606021113483283660800000000.0}
)

// Padé numerator coefficients b_0 … b_m, indexed like padeDegrees.
var padeB = [5][]float64{
	{120, 60, 12, 1},
	{30240, 15120, 3360, 420, 30, 1},
	{17297280, 8648640, 1995840, 277200, 25200, 1512, 56, 1},
	{17643225600, 8821612800, 2075673600, 302702400, 30270240, 2162160, 110880, 3960, 90, 1},
	{64764752532480000, 32382376266240000, 7771770303897600, 1187353796428800, 129060195264000, 10559470521600, 670442572800, 33522128640, 1323241920, 40840800, 960960, 16380, 182, 1},
}

// Expm's stages as the benchmark report's stage profile names them
// (internal/stagetime; the marks cost one atomic load when no profile
// runs).
const (
	stageExpmChecks    = "checks, structure"
	stageExpmDegree    = "degree: norms, ℓ"
	stageExpmPowers    = "degree: A², A⁴, A⁶ (A⁸)"
	stageExpmPade      = "Padé U, V"
	stageExpmSolve     = "LU solve"
	stageExpmSquarings = "squarings"
	stageExpmTaylor    = "Taylor T_m"
)

// exactNormCutoff: below this order the 1-norms of A⁸ and A¹⁰ are computed
// exactly from the products, as scipy does; above it, estimated with
// Higham's dlacn2 from matrix–vector products.
const exactNormCutoff = 400

// Exp sets dst = e^A for the n×n row-major a. dst may be a. It returns an
// error wrapping numerr.ErrNotFinite for a non-finite entry and
// numerr.ErrOverflow when e^A does not fit in float64, and also, for
// n ≥ 3, when the powers of A that choose the scaling overflow (‖A‖
// beyond about 1e154, or 1e102 for the tenth power), which a scaling
// chosen from ‖A‖ alone could not replace: on a non-normal A it squares
// rounding errors into a finite, wrong result. Orders 1 and 2 use closed
// forms, finite wherever e^A is.
func (e *Expm) Exp(dst, a []float64) error {
	n := e.n
	if len(a) != n*n || len(dst) != n*n {
		panic(errShape)
	}
	if err := checkFinite("Expm", a, n); err != nil {
		return err
	}
	switch n {
	case 0:
		return nil
	case 1:
		dst[0] = math.Exp(a[0])
		return checkOverflow(dst)
	case 2:
		expm2x2(dst, a)
		return checkOverflow(dst)
	}
	lo, hi := bandwidth(a, n)
	if lo == 0 && hi == 0 {
		for i := 0; i < n; i++ {
			d := math.Exp(a[i*n+i])
			clear(dst[i*n : (i+1)*n])
			dst[i*n+i] = d
		}
		return checkOverflow(dst)
	}
	lower := hi == 0
	for i := 0; i < n; i++ {
		e.diag[i] = a[i*n+i]
		if i+1 < n {
			e.off[i] = a[i*n+i+1]
			if lower {
				e.off[i] = a[(i+1)*n+i]
			}
		}
	}
	e.findStructure(a)
	copy(e.a, a)
	stagetime.Mark(stageExpmChecks)
	e.lastTaylor, e.lastS = 0, 0
	e.normA = e.norm1(e.a)
	e.powMul(e.a2, e.a, e.a)
	e.have4, e.have6, e.have8 = false, false, false
	m, k, s := 0, 0, 0
	if e.noTaylor {
		k, s = e.pickPade()
	} else {
		m, k, s = e.choose()
	}
	e.lastS = s
	var err error
	if m > 0 {
		if s > 0 { // only for T_18, which formed A³ and A⁶
			scale(e.a, math.Ldexp(1, -s))
			scale(e.a2, math.Ldexp(1, -2*s))
			scale(e.a3, math.Ldexp(1, -3*s))
			scale(e.a6, math.Ldexp(1, -6*s))
		}
		stagetime.Mark(stageExpmDegree)
		e.lastTaylor = m
		e.taylor(dst, m)
		stagetime.Mark(stageExpmTaylor)
		for _, v := range dst {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				err = numerr.ErrNotFinite
				break
			}
		}
	} else {
		if s > 0 { // only after degree 13, which formed A², A⁴ and A⁶
			scale(e.a, math.Ldexp(1, -s))
			scale(e.a2, math.Ldexp(1, -2*s))
			scale(e.a4, math.Ldexp(1, -4*s))
			scale(e.a6, math.Ldexp(1, -6*s))
		}
		stagetime.Mark(stageExpmDegree)
		err = e.pade(dst, k)
	}
	if err != nil {
		if errors.Is(err, numerr.ErrNotFinite) {
			// A is finite, so a non-finite Padé term came from powers
			// of A that overflowed before the scaling could apply.
			return fmt.Errorf("lapackx: %w: Expm: powers of A exceed the float64 range (‖A‖₁ = %.3g)", numerr.ErrOverflow, e.normA)
		}
		return err
	}
	if lo == 0 || hi == 0 {
		e.squareTriangular(dst, s, lower)
	} else {
		e.keepStructure(dst, s)
		for i := s - 1; i >= 0; i-- {
			e.square(dst)
			e.keepStructure(dst, i)
		}
	}
	err = checkOverflow(dst)
	stagetime.Mark(stageExpmSquarings)
	return err
}

func checkOverflow(x []float64) error {
	for _, v := range x {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("lapackx: %w: matrix exponential exceeds the float64 range", numerr.ErrOverflow)
		}
	}
	return nil
}

func scale(a []float64, c float64) {
	for i := range a {
		a[i] *= c
	}
}

// bandwidth returns the lower and upper bandwidths of a.
func bandwidth(a []float64, n int) (lo, hi int) {
	for i := 0; i < n; i++ {
		for j, v := range a[i*n : (i+1)*n] {
			if v != 0 {
				lo = max(lo, i-j)
				hi = max(hi, j-i)
			}
		}
	}
	return lo, hi
}

func (e *Expm) mul(dst, x, y []float64) {
	n := e.n
	blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, x, n, y, n, 0, dst, n)
}

// powMul is mul for pickPade's powers of A: the stage profile counts the
// products apart from the norms around them.
func (e *Expm) powMul(dst, x, y []float64) {
	stagetime.Mark(stageExpmDegree)
	e.mul(dst, x, y)
	stagetime.Mark(stageExpmPowers)
}

// square sets x = x² using e.u as scratch.
func (e *Expm) square(x []float64) {
	e.mul(e.u, x, x)
	copy(x, e.u)
}

// pickPade chooses the Padé degree padeDegrees[k] and the scaling 2^−s
// (AMH09 Alg. 5.1, steps 1–20), forming A⁴ and A⁶ as it goes (Exp has
// formed A² and ‖A‖₁).
//
// ‖A⁸‖ and ‖A¹⁰‖ cost a product each (or an estimate above
// exactNormCutoff) and are formed only where they can change the
// decision: d8 ≤ d4 because ‖A⁸‖ ≤ ‖A⁴‖², and d10 ≤ (‖A⁴‖‖A⁶‖)^{1/10},
// so when these bounds already pass a test (or ℓ already fails it) the
// decision is the one the exact values give.
func (e *Expm) pickPade() (k, s int) {
	n := e.n
	exact := n < exactNormCutoff
	e.ellP, e.ellZero = 0, false
	e.have8 = false
	var d4, d6, n4, n6 float64 // n4, n6: ‖A⁴‖₁, ‖A⁶‖₁ once formed
	if exact {
		n4, d4 = e.form4()
		n6, d6 = e.form6()
	} else if e.lowPowersLarge() {
		// Degrees 3 and 5 fail: A⁴ and A⁶ are formed below, exactly.
		d4, d6 = math.Inf(1), math.Inf(1)
	} else {
		d4 = powPos(e.normest(e.a2, e.a2, nil), 1.0/4)
		d6 = powPos(e.normest(e.a2, e.a2, e.a2), 1.0/6)
	}
	if max(d4, d6) <= padeTheta[0] && e.ell(0, 0) == 0 {
		return 0, 0
	}
	if !e.have4 {
		n4, d4 = e.form4()
	}
	if max(d4, d6) <= padeTheta[1] && e.ell(1, 0) == 0 {
		return 1, 0
	}
	if !e.have6 {
		n6, d6 = e.form6()
	}
	d8, have8 := d4, false // d4 bounds d8 until d8 is formed
	getD8 := func() {
		if have8 {
			return
		}
		if exact {
			e.powMul(e.a8, e.a4, e.a4)
			e.have8 = true
			d8 = powPos(e.norm1(e.a8), 1.0/8)
		} else {
			d8 = powPos(e.normest(e.a4, e.a4, nil), 1.0/8)
		}
		have8 = true
	}
	for k := 2; k <= 3; k++ {
		// The test is max(d6, d8) ≤ θ_k and ℓ = 0.
		if d6 > padeTheta[k] {
			continue
		}
		if max(d6, d8) <= padeTheta[k] { // holds for d8 too if a bound
			if e.ell(k, 0) == 0 {
				return k, 0
			}
			continue
		}
		if e.ell(k, 0) != 0 {
			continue
		}
		getD8()
		if max(d6, d8) <= padeTheta[k] {
			return k, 0
		}
	}
	// s = ⌈log2(η5/θ13)⌉⁺ with η5 = min(max(d6, d8), max(d8, d10)) is
	// monotone in d8 and d10: if their bounds give s = 0, so do they.
	d10 := powPos(n4, 1.0/10) * powPos(n6, 1.0/10)
	if min(max(d6, d8), max(d8, d10)) > padeTheta[4] {
		getD8()
		if exact {
			e.powMul(e.a8, e.a4, e.a6)
			e.have8 = false
			d10 = powPos(e.norm1(e.a8), 1.0/10)
		} else {
			d10 = powPos(e.normest(e.a4, e.a6, nil), 1.0/10)
		}
		eta3 := max(d6, d8)
		eta5 := min(eta3, max(d8, d10))
		if eta5 > 0 {
			s = max(int(math.Ceil(math.Log2(eta5/padeTheta[4]))), 0)
		}
	}
	s += e.ell(4, s)
	return 4, s
}

// form4 forms A⁴ = A²·A² and returns ‖A⁴‖₁ and d4 = ‖A⁴‖₁^{1/4}.
func (e *Expm) form4() (n4, d4 float64) {
	e.powMul(e.a4, e.a2, e.a2)
	e.have4 = true
	n4 = e.norm1(e.a4)
	e.n4 = n4
	return n4, powPos(n4, 1.0/4)
}

// form6 forms A⁶ = A²·A⁴ (after form4) and returns ‖A⁶‖₁ and
// d6 = ‖A⁶‖₁^{1/6}.
func (e *Expm) form6() (n6, d6 float64) {
	e.powMul(e.a6, e.a2, e.a4)
	e.have6 = true
	n6 = e.norm1(e.a6)
	e.n6 = n6
	return n6, powPos(n6, 1.0/6)
}

// lowPowersLarge reports whether ‖A⁴‖₁^{1/4} or ‖A⁶‖₁^{1/6} exceeds θ5,
// from the lower bounds ‖A⁴x‖₁ and ‖A⁶x‖₁ with x = 1/n (‖x‖₁ = 1), the
// start of dlacn2's iteration: three products with a vector. Degrees 3
// and 5 then fail, and pickPade forms A⁴ and A⁶ (which every higher degree
// needs) instead of estimating their norms: at n = 500 the two estimates
// took 20–30 products with a vector.
func (e *Expm) lowPowersLarge() bool {
	n := e.n
	for i := range e.x {
		e.x[i] = 1 / float64(n)
	}
	for p := 2; p <= 6; p += 2 {
		e.gemvInPlace(gblas.NoTrans, e.a2)
		if p < 4 {
			continue
		}
		var l float64
		for _, v := range e.x {
			l += math.Abs(v)
		}
		if powPos(l, 1/float64(p)) > padeTheta[1] {
			return true
		}
	}
	return false
}

// ell is ℓ(2^−s A, m) of AMH09 eq. (5.2): the extra squarings needed so that
// the backward error bound |c_{2m+1}|·‖|2^−s A|^{2m+1}‖/‖2^−s A‖ ≤ u. The
// norm of the power of the non-negative |A| is exact: the largest entry of
// 1ᵀ|A|^p, carried in log scale so that it cannot overflow.
func (e *Expm) ell(k, s int) int {
	p := 2*padeDegrees[k] + 1
	logScale, zero := e.absPowNorm(p)
	if zero {
		return 0 // nilpotent |A|: r_m is exact
	}
	// log of α = |c|·‖|A|^p‖·2^{−s p} / (‖A‖·2^{−s})
	logAlpha := math.Log(padeErrCoeff[k]) + logScale - float64(s*(p-1))*math.Ln2 - logPos(e.normA)
	t := math.Ceil((logAlpha/math.Ln2 + 53) / float64(2*padeDegrees[k]))
	if t <= 0 || math.IsNaN(t) {
		return 0
	}
	return int(t)
}

// absPowNorm returns log ‖|A|^p‖₁ for the unscaled A in e.a, or zero =
// true when |A|^p = 0, advancing the chain 1ᵀ|A|^k (k < p) that earlier
// calls left: each step is r ← rᵀ|A| normalized by its largest entry.
func (e *Expm) absPowNorm(p int) (logNorm float64, zero bool) {
	n := e.n
	absA, r, y := e.v, e.ellR, e.ellY
	if e.ellP == 0 {
		for i, v := range e.a {
			absA[i] = math.Abs(v)
		}
		for i := range r {
			r[i] = 1
		}
		e.ellLog, e.ellZero = 0, false
	}
	impl := blas.Impl()
	for ; e.ellP < p && !e.ellZero; e.ellP++ {
		impl.Dgemv(gblas.Trans, n, n, 1, absA, n, r, 1, 0, y, 1)
		big := 0.0
		for _, v := range y {
			big = max(big, v)
		}
		if big == 0 {
			e.ellZero = true
			break
		}
		for j := range r {
			r[j] = y[j] / big
		}
		e.ellLog += logPos(big)
	}
	return e.ellLog, e.ellZero
}

// normest estimates ‖F1·F2·F3‖₁ (F3 may be nil) with Higham's dlacn2 from
// products with vectors, never forming the product.
func (e *Expm) normest(f1, f2, f3 []float64) float64 {
	n := e.n
	var isave [3]int
	est, kase := 0.0, 0
	for {
		est, kase = gonum.Implementation{}.Dlacn2(n, e.vtmp, e.x, e.isgn, est, kase, &isave)
		switch kase {
		case 0:
			return est
		case 1: // x = F1 F2 F3 x
			e.gemvInPlace(gblas.NoTrans, f3)
			e.gemvInPlace(gblas.NoTrans, f2)
			e.gemvInPlace(gblas.NoTrans, f1)
		case 2: // x = F3ᵀ F2ᵀ F1ᵀ x
			e.gemvInPlace(gblas.Trans, f1)
			e.gemvInPlace(gblas.Trans, f2)
			e.gemvInPlace(gblas.Trans, f3)
		}
	}
}

// gemvInPlace sets e.x = op(F) e.x; a nil F is the identity.
func (e *Expm) gemvInPlace(t gblas.Transpose, f []float64) {
	if f == nil {
		return
	}
	n := e.n
	blas.Impl().Dgemv(t, n, n, 1, f, n, e.x, 1, 0, e.y, 1)
	copy(e.x, e.y)
}

// norm1 is the exact 1-norm (largest column sum) of the n×n row-major a.
func (e *Expm) norm1(a []float64) float64 {
	n := e.n
	cs := e.colsum
	clear(cs)
	for i := 0; i < n; i++ {
		for j, v := range a[i*n : (i+1)*n] {
			cs[j] += math.Abs(v)
		}
	}
	var m float64
	for _, v := range cs {
		m = max(m, v)
	}
	return m
}

// pade sets dst = r_m(A) = (V − U)⁻¹(V + U) for m = padeDegrees[k], A
// already scaled.
func (e *Expm) pade(dst []float64, k int) error {
	n, m := e.n, padeDegrees[k]
	b := padeB[k]
	u, v := e.u, e.v
	if m == 13 {
		// U = A[A6(b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I]
		// V = A6(b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I
		combine(dst, n, b[13], e.a6, b[11], e.a4, b[9], e.a2, 0)
		e.mul(v, e.a6, dst)
		addCombine(v, n, b[7], e.a6, b[5], e.a4, b[3], e.a2, b[1])
		e.mul(u, e.a, v)
		combine(dst, n, b[12], e.a6, b[10], e.a4, b[8], e.a2, 0)
		e.mul(v, e.a6, dst)
		addCombine(v, n, b[6], e.a6, b[4], e.a4, b[2], e.a2, b[0])
	} else {
		// U = A Σ_{k odd} b_k A^{k−1},  V = Σ_{k even} b_k A^k
		pw := [5][]float64{nil, e.a2, e.a4, e.a6, e.a8}
		if m == 9 && !e.have8 { // A⁸ formed for ‖A⁸‖ is reused
			e.mul(e.a8, e.a2, e.a6)
		}
		clear(dst)
		clear(v)
		for i := 0; i < n; i++ {
			dst[i*n+i] = b[1]
			v[i*n+i] = b[0]
		}
		for j := 1; 2*j <= m; j++ {
			axpy(b[2*j+1], pw[j], dst)
			axpy(b[2*j], pw[j], v)
		}
		e.mul(u, e.a, dst)
	}
	// r_m = (V − U)⁻¹(V + U) = I + 2 (V − U)⁻¹ U: solving for the small
	// correction and adding I afterwards keeps the diagonal's rounding out
	// of the solve, which matters when A is small.
	for i := range dst {
		dst[i] = 2 * u[i]
		v[i] -= u[i]
	}
	stagetime.Mark(stageExpmPade)
	if err := e.lu.Factorize(v); err != nil {
		return fmt.Errorf("expm: Padé denominator: %w", err)
	}
	e.lu.Solve(dst, n)
	for i := 0; i < n; i++ {
		dst[i*n+i]++
	}
	stagetime.Mark(stageExpmSolve)
	return nil
}

func axpy(alpha float64, x, y []float64) {
	y = y[:len(x)] // one bounds check, not one per entry
	for i, v := range x {
		y[i] += alpha * v
	}
}

// combine sets dst = c1 X1 + c2 X2 + c3 X3 + c0 I.
func combine(dst []float64, n int, c1 float64, x1 []float64, c2 float64, x2 []float64, c3 float64, x3 []float64, c0 float64) {
	x1, x2, x3 = x1[:len(dst)], x2[:len(dst)], x3[:len(dst)] // one bounds check each
	for i := range dst {
		dst[i] = c1*x1[i] + c2*x2[i] + c3*x3[i]
	}
	for i := 0; i < n; i++ {
		dst[i*n+i] += c0
	}
}

// addCombine adds c1 X1 + c2 X2 + c3 X3 + c0 I to dst.
func addCombine(dst []float64, n int, c1 float64, x1 []float64, c2 float64, x2 []float64, c3 float64, x3 []float64, c0 float64) {
	x1, x2, x3 = x1[:len(dst)], x2[:len(dst)], x3[:len(dst)] // one bounds check each
	for i := range dst {
		dst[i] += c1*x1[i] + c2*x2[i] + c3*x3[i]
	}
	for i := 0; i < n; i++ {
		dst[i*n+i] += c0
	}
}

// squareTriangular squares x s times for triangular A (AMH09 Code
// Fragment 2.1), resetting the diagonal to exp(2^−i a_jj) and the first
// super- (or sub-) diagonal to its exact value from the 2×2 formula after
// each squaring, from the unscaled input's diagonal e.diag and first
// off-diagonal e.off (saved: dst may be the input).
func (e *Expm) squareTriangular(x []float64, s int, lower bool) {
	n := e.n
	d := e.diag
	fix := func(i int) {
		c := math.Ldexp(1, -i)
		for j := 0; j < n; j++ {
			x[j*n+j] = math.Exp(c * d[j])
		}
		for j := 0; j+1 < n; j++ {
			off := j*n + j + 1 // x[j, j+1]
			if lower {
				off = (j+1)*n + j // x[j+1, j]
			}
			x[off] = c * e.off[j] * expFunc{}.DivDiff(c*d[j], c*d[j+1])
		}
	}
	// The strict other triangle is exactly zero in theory. Rounding left
	// there by the Padé solve doubles with every squaring (x_ij' = 2x_ij
	// where the diagonal is near 1): 1e-16 became 0.5 after 60 squarings
	// and −8e14 in a first-row entry after 114 (the fuzz target's
	// rank-one [[−8.4e34, …], 0, 0, 0]). It is cleared after every step.
	clearOther := func() {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if (lower && j > i) || (!lower && j < i) {
					x[i*n+j] = 0
				}
			}
		}
	}
	clearOther()
	e.keepStructure(x, s)
	if s == 0 {
		return
	}
	for j := 0; j < n; j++ {
		x[j*n+j] = math.Exp(math.Ldexp(d[j], -s))
	}
	for i := s - 1; i >= 0; i-- {
		e.square(x)
		fix(i)
		clearOther()
		e.keepStructure(x, i)
	}
}

// findStructure sets e.structured and the reachability of A's graph
// (an edge i → j for each a_ij ≠ 0). (A^k)_ij ≠ 0 needs a path of length k
// from i to j, so e^A and every r_m(2^−s A)^{2^t} are zero where j is not
// reachable from i: below the diagonal blocks of a block triangular A, and
// in any symmetric permutation of one. The Padé solve does not keep these
// zeros (pivoting mixes the blocks), and what it leaves there, about u
// times the other block, grows with the squarings and swamps small
// entries that the structure keeps apart: for [[−500, 500, 0], [0, −550,
// 360], [0, 630, −630]] it gave e^A[1:, 0] ≈ 1e-64 and e^A[0, 0] = 1e-64
// for e^{−500} = 7e-218. keepStructure restores them.
//
// A dense A is strongly connected (checked in O(n) by hub, else by two
// searches, O(n²)); only otherwise is the closure formed, by Warshall's algorithm on bitsets
// (n²·⌈n/64⌉ word operations).
func (e *Expm) findStructure(a []float64) {
	n, w := e.n, e.w
	e.structured = false
	if e.hub(a) || e.searchAll(a, false) && e.searchAll(a, true) {
		return
	}
	r := e.reach
	clear(r)
	for i := 0; i < n; i++ {
		ri := r[i*w : (i+1)*w]
		ri[i>>6] |= 1 << (i & 63)
		for j, v := range a[i*n : (i+1)*n] {
			if v != 0 {
				ri[j>>6] |= 1 << (j & 63)
			}
		}
	}
	for k := 0; k < n; k++ {
		rk := r[k*w : (k+1)*w]
		word, bit := k>>6, uint64(1)<<(k&63)
		for i := 0; i < n; i++ {
			ri := r[i*w : (i+1)*w]
			if ri[word]&bit != 0 {
				for t, v := range rk {
					ri[t] |= v
				}
			}
		}
	}
	e.structured = true
	for i := 0; i < n; i++ {
		e.single[i] = true
		word, bit := i>>6, uint64(1)<<(i&63)
	row:
		for t, v := range r[i*w : (i+1)*w] {
			for ; v != 0; v &= v - 1 { // each j that i reaches
				j := t<<6 + bits.TrailingZeros64(v)
				if j != i && r[j*w+word]&bit != 0 {
					e.single[i] = false
					break row
				}
			}
		}
	}
}

// hub reports whether row and column 0 of A have no zero off the
// diagonal: every node then reaches 0 and 0 every node, so A's graph is
// strongly connected. It settles a dense A in O(n).
func (e *Expm) hub(a []float64) bool {
	n := e.n
	for j := 1; j < n; j++ {
		if a[j] == 0 || a[j*n] == 0 {
			return false
		}
	}
	return true
}

// searchAll reports whether every node is reached from node 0 along the
// edges of A (back set: against them), by a breadth-first search.
func (e *Expm) searchAll(a []float64, back bool) bool {
	n := e.n
	seen, q := e.single, e.queue
	clear(seen)
	seen[0], q[0] = true, 0
	head, tail := 0, 1
	for head < tail {
		i := q[head]
		head++
		for j := 0; j < n; j++ {
			v := a[i*n+j]
			if back {
				v = a[j*n+i]
			}
			if v != 0 && !seen[j] {
				seen[j] = true
				q[tail] = j
				tail++
			}
		}
	}
	return tail == n
}

// keepStructure zeroes the entries of x = r_m(2^−s A)^{2^(s−t)} ≈
// e^{2^−t A} that A's structure makes zero, and sets the diagonal entries
// of nodes alone in their component to e^{2^−t a_ii}, which they equal
// there: no product of other entries reaches them.
func (e *Expm) keepStructure(x []float64, t int) {
	if !e.structured {
		return
	}
	n := e.n
	c := math.Ldexp(1, -t)
	for i := 0; i < n; i++ {
		ri := e.reach[i*e.w : (i+1)*e.w]
		for j := range x[i*n : (i+1)*n] {
			if ri[j>>6]&(1<<(j&63)) == 0 {
				x[i*n+j] = 0
			}
		}
		if e.single[i] {
			x[i*n+i] = math.Exp(c * e.diag[i])
		}
	}
}

// expm2x2 is the closed form for 2×2 matrices [[a1 a2] [a3 a4]]: with
// m = (a1+a4)/2, h = (a1−a4)/2 and μ² = h² + a2·a3,
//
//	e^A = e^m [[cosh μ + h·sinhc μ, a2·sinhc μ], [a3·sinhc μ, cosh μ − h·sinhc μ]],
//
// as scipy evaluates it, with circular functions for μ² < 0. Where that
// form would cancel (a2·a3 ≥ 0 and |h|·tanh μ/μ near 1, so cosh μ ≈ |h|·sinhc μ)
// or where e^m or e^μ alone would leave the normal float range (and μ > 1),
// it is evaluated from e^{m±μ} and μ ∓ h = a2·a3/(μ ± h) instead, which has
// neither problem. μ² is formed in units of 4^k (mu2Scaled) and every
// e^x·y as (y·e^{x/2})·e^{x/2} (expMul), so that no intermediate leaves
// the float64 range while the result stays in it: h² overflowed for
// |a1 − a4| > 2.7e154 and turned a representable e^A into an overflow
// error (the fuzz target's [[−1.6e237, 2.4e−322], [2.4e−322, 0]], whose
// exponential is diag(0, 1)), and e^m underflowed to 0 against a huge a2.
func expm2x2(dst, a []float64) {
	a1, a2, a3, a4 := a[0], a[1], a[2], a[3]
	m, h := 0.5*a1+0.5*a4, 0.5*a1-0.5*a4 // halves first: no overflow
	k, hs, ps, mu2s := mu2Scaled(h, a2, a3)
	mus := math.Sqrt(math.Abs(mu2s))
	mu := math.Ldexp(mus, k)
	var e11, e12, e21, e22 float64
	switch {
	case mu2s < 0:
		c, sc := math.Cos(mu), math.Sin(mu)/mu
		e11, e22 = expMul(m, c)+expMul(m, h)*sc, expMul(m, c)-expMul(m, h)*sc
		e12, e21 = expMul(m, a2)*sc, expMul(m, a3)*sc
	case mu > 1 && (math.Abs(m) > 700 || mu > 700 || (ps >= 0 && math.Abs(hs)/mus*math.Tanh(mu) > 0.75)):
		// e^A = e^{m+μ}·P₊ + e^{m−μ}·P₋, P± = (μI ± (A − mI))/(2μ), with
		// (μ ± h)/(2μ) from the scaled h and a2·a3: (μ + |h|)/(2μ) ∈ [½, 1]
		// and (μ − |h|)/(2μ) = a2·a3/((μ + |h|)·2μ).
		big := (mus + math.Abs(hs)) / (2 * mus)
		small := ps / (mus + math.Abs(hs)) / (2 * mus)
		rp, rm := big, small // (μ + h)/2μ, (μ − h)/2μ
		if h < 0 {
			rp, rm = small, big
		}
		e11 = expMul(m+mu, rp) + expMul(m-mu, rm)
		e22 = expMul(m+mu, rm) + expMul(m-mu, rp)
		d := -math.Expm1(-2 * mu) // e^{m+μ} − e^{m−μ} = e^{m+μ}·d
		e12, e21 = expMul(m+mu, a2/(2*mu))*d, expMul(m+mu, a3/(2*mu))*d
	default:
		c, sc := math.Cosh(mu), sinhc(mu)
		e11, e22 = expMul(m, c)+expMul(m, h)*sc, expMul(m, c)-expMul(m, h)*sc
		e12, e21 = expMul(m, a2)*sc, expMul(m, a3)*sc
	}
	dst[0], dst[1], dst[2], dst[3] = e11, e12, e21, e22
}

// mu2Scaled returns μ² = h² + a2·a3 as mu2s·4^k, with hs = h/2^k and
// ps = a2·a3/4^k, k chosen so that the larger of |h| and √|a2·a3| lands
// in [½, 2): neither product can over- or underflow, and both products'
// rounding errors are restored (FMA).
func mu2Scaled(h, a2, a3 float64) (k int, hs, ps, mu2s float64) {
	hm, eh := math.Frexp(h)
	m2, e2 := math.Frexp(a2)
	m3, e3 := math.Frexp(a3)
	pp := m2 * m3 // a2·a3 = (pp + pe)·2^ep exactly
	pe := math.FMA(m2, m3, -pp)
	ep := e2 + e3
	switch {
	case hm == 0 && pp == 0:
		return 0, 0, 0, 0
	case pp == 0:
		k = eh
	case hm == 0:
		k = (ep + 1) >> 1 // ⌈ep/2⌉
	default:
		k = max(eh, (ep+1)>>1)
	}
	hs = math.Ldexp(hm, eh-k)
	q := hs * hs
	qe := math.FMA(hs, hs, -q)
	ps = math.Ldexp(pp, ep-2*k)
	mu2s = (q + ps) + (qe + math.Ldexp(pe, ep-2*k))
	return k, hs, ps, mu2s
}

// expMul returns y·e^x as (y·e^{x/2})·e^{x/2}: finite whenever the result
// is, for |x| up to about 1400, where e^x alone leaves the float64 range.
func expMul(x, y float64) float64 {
	if y == 0 {
		return 0
	}
	h := math.Exp(0.5 * x)
	return y * h * h
}

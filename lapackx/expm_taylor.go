package lapackx

import (
	"math"
)

// The Taylor path of Expm: Bader, Blanes and Casas (2019), "Computing the
// matrix exponential with an optimized Taylor polynomial approximation",
// Mathematics 7(12):1174, doi:10.3390/math7121174. The Taylor polynomial
// T_m of degree m ∈ {1, 2, 4, 8, 12, 18} is evaluated with 0, 1, 2, 3, 4
// and 5 matrix products respectively (A² and A³ included) and no linear
// solve, where Padé's r_13 takes 6 products and an LU solve (dgetrf's
// 2n³/3 flops and dgetrs's 2n³ for n right-hand sides: 4/3 of a product). θ_m is the
// largest ‖A‖ for which the relative backward error of T_m is at most
// u = 2⁻⁵³, the guarantee the Padé θ's give. The θ's and the coefficients
// of the degree 8, 12 and 18 evaluation schemes are the authors' (their
// MATLAB expm2/expm3 at http://www.gicas.uji.es/Research/MatrixExp.html,
// as translated in github.com/pnavaro/TaylorExponentialMatrix.jl,
// src/expm2.jl and src/expm3.jl).
var (
	taylorDegrees = [6]int{1, 2, 4, 8, 12, 18}
	taylorTheta   = [6]float64{2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
		4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00}
)

// Coefficients of the degree-8 scheme (BBC19 eq. (10), the solution that
// minimizes their 1-norm), with x3 = 2/3.
var taylor8 = func() (c [8]float64) {
	r := math.Sqrt(177)
	x3 := 2.0 / 3
	c[0] = (1 + r) * x3 / 88             // a1
	c[1] = (1 + r) * x3 / 352            // a2
	c[2] = (857 - 58*r) / 630            // u2
	c[3] = (-271 + 29*r) / (315 * x3)    // c0
	c[4] = 11 * (-1 + r) / (1260 * x3)   // c1
	c[5] = 11 * (-9 + r) / (5040 * x3)   // c2
	c[6] = -(-89 + r) / (5040 * x3 * x3) // c4
	c[7] = x3                            // x3
	return c
}()

// Degree 12 (BBC19 eq. (11)): q_{3j} = a0j I + a1j A + a2j A² + a3j A³,
// rows j = 1..4, columns the powers 0..3.
var taylor12 = [4][4]float64{
	{-0.0186023205146205532243437300433, -0.00500702322573317730979741843919, -0.573420122960522263905952420789, -0.133399693943892059700768926983},
	{4.60000000000000000000000000000, 0.992875103538486836140479571505, -0.132445561052799638845074997454, 0.00172990000000000000000000000000},
	{0.211693118299809442949323323336, 0.158224384715726725371768893252, 0.165635169436727415011171668419, 0.0107862779315792425026320640108},
	{0, -0.131810610138301840156819349464, -0.0202785554058925907933568229945, -0.00675951846863086359778560766482},
}

// Degree 18 (BBC19 eq. (16)): q31 = a11 A + a21 A² + a31 A³ and
// q6j = b0j I + b1j A + b2j A² + b3j A³ + b6j A⁶, rows j = 1..4, columns
// the powers 0, 1, 2, 3, 6.
var (
	taylor18a = [3]float64{-0.100365581030144620014614939405, -0.00802924648241156960116919515244, -0.000892138498045729955685466128049}
	taylor18b = [4][5]float64{
		{0, 0.3978497494996450761451961277102845756965081084076856223845951607640145373149032030404660339703426170,
			1.367837784604117199225237068782228242106453540654915795267462332707000476284638745738812082761860458,
			0.4982896225253826775568588172622733561849181397319696269923450773179744578906675427707618377504305561,
			-0.0006378981945947233092415500564919285518773827581013332055148653241353120789646323186965398317523194760},
		{-10.96763960529620625935174626753684124863041876254774214673058385106461743913502064396554589372626845,
			1.680158138789061971827854017248105095278579593010566858091585875627364747895724070033586802947436157,
			0.05717798464788655127028717132252481317274975093707600394506105236273081373356534970690710643085727120,
			-0.006982101224880520842904664838015531664389838152077753258353447125605205335288966277257918925881337834,
			0.00003349750170860705383133673406684398020225996444991565389728295589367037178816169580298011831485225359},
		{-0.09043168323908105619714688770183495499470866281162649735086602288456671216199491949073419844120202066,
			-0.06764045190713819075600799003797074854562826013273060070581796689746210078264908587143648477465431597,
			0.06759613017704596460827991950789370565071000768138331455747136830953224978586305376886338214283464385,
			0.02955525704293155274260691822422312437473046472743510159951445245685893720550532525991666174704105350,
			-0.00001391802575160607011247399793437424028074102305234870853220069004278819595344896368546425681168813708},
		{0, 0, -0.0923364619367118592764570775143, -0.0169364939002081717191385115723, -0.0000140086798182036159794363205726},
	}
)

// pickTaylor chooses a Taylor degree m and returns it, or 0 when the
// Padé path is to be taken; Exp has formed A² and ‖A‖₁. The Taylor path
// is taken only without scaling, where it is the cheaper one for certain
// and no product is formed in vain:
//
//   - ‖A‖₁ ≤ θ8: T_m with m ≤ 8 takes at most 3 products, r_m at least 2
//     and the LU solve (padeSolveCost, 4/3 of a product).
//   - α = min(‖A‖₁, max(d2, d3)) ≤ θ18 with d_k = ‖A^k‖₁^{1/k} (AMH09
//     Thm 4.2 with p = 2: every power k ≥ 2 is a sum of 2s and 3s): T_12
//     or T_18 takes 4 or 5 products. Below exactNormCutoff pickPade forms
//     A², A⁴ and A⁶, and r_m takes one more product and the solve (5.33 at
//     least); above it r_3 and r_5 may take 2 or 3 and the solve, so the
//     Taylor path is taken only when lowPowersLarge rules them out. The
//     test uses the bound d3 ≤ (‖A‖₁ d2²)^{1/3} before A³ is formed (A³
//     is T_12's and T_18's), and ℓ (AMH09 eq. (5.2), with T_m's leading
//     backward error term A^{m+1}/(m+1)!) must be 0.
//
// With scaling, T_18 needs about two squarings more than r_13 (log2(θ13/θ18)
// = 1.96) and saves a product and the solve: a third of a product at best,
// for two more squarings' rounding (on the stiff blockTri3, T_18 with
// s = 11 had error 9.1e-14 against r_13's 8.6e-15 with s = 9), and
// deciding would need Padé's d6, d8, d10 besides A³. Padé keeps that
// range.
func (e *Expm) pickTaylor() int {
	e.ellP, e.ellZero = 0, false
	normA := e.normA
	for k := 0; k <= 3; k++ {
		if normA <= taylorTheta[k] {
			return taylorDegrees[k]
		}
	}
	n2 := e.norm1(e.a2)
	d2 := powPos(n2, 1.0/2)
	if min(normA, max(d2, powPos(normA*n2, 1.0/3))) > taylorTheta[5] {
		return 0
	}
	if e.n >= exactNormCutoff && !e.lowPowersLarge() {
		return 0
	}
	ell12 := e.ellTaylor(12, 0) // the chain 1ᵀ|A|^p reaches p = 13, then 19
	if e.ellTaylor(18, 0) > 0 {
		return 0
	}
	e.powMul(e.a8, e.a, e.a2) // A³
	d3 := powPos(e.norm1(e.a8), 1.0/3)
	if min(normA, max(d2, d3)) <= taylorTheta[4] && ell12 == 0 {
		return 12
	}
	e.powMul(e.a6, e.a8, e.a8) // A⁶ = A³·A³
	return 18
}

// ellTaylor is ℓ for T_m on 2^−s A: the extra squarings that bring the
// bound ‖|2^−s A|^{m+1}‖/((m+1)!·‖2^−s A‖) of the evaluation's leading
// backward error term down to u.
func (e *Expm) ellTaylor(m, s int) int {
	p := m + 1
	logScale, zero := e.absPowNorm(p)
	if zero {
		return 0
	}
	lg, _ := math.Lgamma(float64(p + 1))
	logAlpha := -lg + logScale - float64(s*(p-1))*math.Ln2 - logPos(e.normA)
	t := math.Ceil((logAlpha/math.Ln2 + 53) / float64(m))
	if t <= 0 || math.IsNaN(t) {
		return 0
	}
	return int(t)
}

// taylor sets dst = T_m(A) for the scaled A in e.a, A² in e.a2 and, for
// m ≥ 12, A³ in e.a8 and (m = 18) A⁶ in e.a6. e.u, e.v and e.a4 are
// scratch.
func (e *Expm) taylor(dst []float64, m int) {
	n := e.n
	a, a2, a3, a6 := e.a, e.a2, e.a8, e.a6
	u, v, w := e.u, e.v, e.a4
	switch m {
	case 1: // I + A
		copy(dst, a)
	case 2: // I + A + A²/2
		for i := range dst {
			dst[i] = a[i] + 0.5*a2[i]
		}
	case 4: // I + A + A²(I/2 + A/6 + A²/24)
		combine(u, n, 1.0/6, a, 1.0/24, a2, 0, a2, 0.5)
		e.mul(dst, a2, u)
		axpy(1, a, dst)
	case 8:
		c := &taylor8
		// A4 = A²(a1 A + a2 A²); A8 = (x3 A² + A4)(c0 I + c1 A + c2 A² + c4 A4);
		// T8 = I + A + u2 A² + A8.
		combine(u, n, c[0], a, c[1], a2, 0, a2, 0)
		e.mul(w, a2, u)
		combine(u, n, c[7], a2, 1, w, 0, w, 0)
		combine(v, n, c[4], a, c[5], a2, c[6], w, c[3])
		e.mul(dst, u, v)
		addCombine(dst, n, 1, a, c[2], a2, 0, a2, 0)
	case 12:
		q := &taylor12
		// q61 = q33 + q34²; T12 = q31 + (q32 + q61) q61. q61 and
		// q32 + q61 are formed without their constant terms c2 = a03 and
		// c1 = a02 + a03, so that the product does not round the
		// constant c1·c2 ≈ 1 into the result: (X + c1)(Y + c2) = XY + c2 X
		// + c1 Y + c1 c2, and T12's constant term is 1.
		c1, c2 := q[1][0]+q[2][0], q[2][0]
		combine(u, n, q[3][1], a, q[3][2], a2, q[3][3], a3, q[3][0])
		e.mul(w, u, u)
		addCombine(w, n, q[2][1], a, q[2][2], a2, q[2][3], a3, 0) // Y
		copy(u, w)
		addCombine(u, n, q[1][1], a, q[1][2], a2, q[1][3], a3, 0) // X
		e.mul(dst, u, w)
		addCombine(dst, n, q[0][1], a, q[0][2], a2, q[0][3], a3, 1)
		axpy(c2, u, dst)
		axpy(c1, w, dst)
	case 18:
		q, b := &taylor18a, &taylor18b
		// q91 = q31 q64 + q63; T18 = q61 + (q62 + q91) q91, with the
		// constants c2 = b03 of q91 and c1 = b02 + b03 of q62 + q91 split
		// off as for T12 (T18's constant term is 1).
		c1, c2 := b[1][0]+b[2][0], b[2][0]
		combine(u, n, q[0], a, q[1], a2, q[2], a3, 0)
		combine(v, n, b[3][2], a2, b[3][3], a3, b[3][4], a6, 0)
		e.mul(w, u, v)
		addCombine(w, n, b[2][1], a, b[2][2], a2, b[2][3], a3, 0) // Y
		axpy(b[2][4], a6, w)
		copy(u, w)
		addCombine(u, n, b[1][1], a, b[1][2], a2, b[1][3], a3, 0) // X
		axpy(b[1][4], a6, u)
		e.mul(dst, u, w)
		addCombine(dst, n, b[0][1], a, b[0][2], a2, b[0][3], a3, 1)
		axpy(b[0][4], a6, dst)
		axpy(c2, u, dst)
		axpy(c1, w, dst)
	}
	if m <= 8 {
		for i := 0; i < n; i++ {
			dst[i*n+i]++
		}
	}
}

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

// padeSolveCost is the LU solve of r_m in products: dgetrf's 2n³/3 flops
// and dgetrs's 2n³ for n right-hand sides against a product's 2n³.
const padeSolveCost = 4.0 / 3

// padeCost is what r_m with m = padeDegrees[k] costs in products once A²,
// A⁴ and A⁶ are formed: the products its U and V still take (A⁸ for
// degree 9 unless pickPade formed it for its norm) and the solve.
func padeCost(k int, have8 bool) float64 {
	switch padeDegrees[k] {
	case 13:
		return 3 + padeSolveCost
	case 9:
		if have8 {
			return 1 + padeSolveCost
		}
		return 2 + padeSolveCost
	}
	return 1 + padeSolveCost
}

// choose picks the Taylor path (degree m > 0 and scaling 2^−s) or the
// Padé path (m = 0, padeDegrees[k] and 2^−s); Exp has formed A² and
// ‖A‖₁.
//
// The Taylor degree and scaling are Bader, Blanes and Casas's (BBC19,
// their expm3): T_m with m ≤ 8 where ‖A‖₁ ≤ θ_m; otherwise, with
// d_k = ‖A^k‖₁^{1/k}, η = min(‖A‖₁, max(d2, d3)), T_12 where η ≤ θ12
// (expm3 tests ‖A‖₁ ≥ η there), else T_18 with s = ⌈log2(η/θ18)⌉⁺. η
// bounds ‖A^k‖^{1/k} for every k ≥ 2 (Al-Mohy and Higham 2009, Thm 4.2
// with p = 2: k is a sum of 2s and 3s), so the θ_m bound the truncation
// backward error of T_m(2^−s A)^{2^s} by u, as the Padé θ's do for r_m.
// Where A⁴ is formed anyway (for r_m's choice, below), η also takes
// α_3 = max(d3, d4), the same theorem with p = 3 (every k ≥ 6 is a sum of
// 3s and 4s; T_12's and T_18's error series start at k = 13 and 19), as
// AMH09 take α_3 and α_4 for r_m: on the benchmark report's input
// (entries N(0, 1/n)) d2 is 2.9–4.5 and max(d3, d4) 2.2–2.8, one squaring
// fewer.
// BBC add no other test, and neither does choose: the first version's ℓ
// for T_m, ‖|A|^{m+1}‖/((m+1)!‖A‖) ≤ u after AMH09's for r_m, came from no
// paper and is gone.
//
// Where the bound d3 ≤ (‖A‖₁‖A²‖₁)^{1/3} already shows that T_m needs no
// scaling, the Taylor path is taken at once: T_m with m ≤ 12 takes at
// most 4 products and T_18 5, r_m at least 4 (A², A⁴, A⁶ or U) and the
// solve (above exactNormCutoff, where r_3 and r_5 may take A² and U alone,
// only once lowPowersLarge rules them out).
//
// Otherwise the Padé choice is made first (pickPade, forming A⁴ and A⁶),
// and T_12 or T_18 is taken where it costs fewer products (A³ and 2,
// against r_m's remaining products and the solve, padeSolveCost) and
// squares no more often than r_m: s_T ≤ s_P. The second condition is for
// accuracy. The rounding δ ≈ c·u of evaluating an approximant at
// X = 2^−s A is, after s squarings, a backward error of about
// c·u·2^s/‖A‖ = c·u/‖X‖ in A (Higham 2008, Functions of Matrices, §10.3);
// both paths have truncation error u, so the rounding decides, and each
// extra squaring doubles it. With the first version's evaluation, T_18
// with s_P + 2 squarings (θ13/θ18 = 3.9) had 13–14 times r_13's error on
// the stiff blockTri3 and on random-10-norm300 (1.3 times scipy's); with
// the present one and s_P + 1, 2.4 times on one of eight Gaussian
// matrices where it would have been taken. With s_T = s_P it had 0.78–0.85
// times r_13's error on 15 Gaussian matrices (n = 40–60, s = 1), and 0.75
// and 0.92 times on the benchmark report's inputs at n = 50 and 200
// (double-double references).
func (e *Expm) choose() (m, k, s int) {
	normA := e.normA
	for i := 0; i <= 3; i++ {
		if normA <= taylorTheta[i] {
			return taylorDegrees[i], 0, 0
		}
	}
	n2 := e.norm1(e.a2)
	d2 := powPos(n2, 1.0/2)
	if math.IsInf(d2, 0) || math.IsNaN(d2) {
		k, s = e.pickPade() // it reports powers of A beyond the range
		return 0, k, s
	}
	// d3 ≤ (‖A‖₁‖A²‖₁)^{1/3} until A³ is formed.
	if min(normA, max(d2, powPos(normA*n2, 1.0/3))) <= taylorTheta[5] &&
		(e.n < exactNormCutoff || e.lowPowersLarge()) {
		if min(normA, max(d2, e.formA3())) <= taylorTheta[4] {
			return 12, 0, 0
		}
		e.powMul(e.a6, e.a3, e.a3)
		e.have6 = true
		return 18, 0, 0
	}
	k, s = e.pickPade()
	costP := padeCost(k, e.have8) + float64(s)
	if !e.have6 { // r_3 or r_5 from estimates, above exactNormCutoff
		return 0, k, s
	}
	// pickPade formed A⁴ and A⁶, so η can also use α_3 = max(d3, d4)
	// (AMH09 Thm 4.2 with p = 3: m + 1 ≥ 6). Before A³ is formed, d3 ≥ d6
	// (‖A⁶‖ ≤ ‖A³‖²) bounds η from below.
	d4, d6 := powPos(e.n4, 1.0/4), powPos(e.n6, 1.0/6) // from pickPade's form4 and form6
	if sLo := taylorScaling(min(normA, max(d2, d6), max(d4, d6))); sLo > s || 3+float64(sLo) > costP {
		return 0, k, s
	}
	d3 := e.formA3()
	eta := min(normA, max(d2, d3), max(d3, d4))
	if eta <= taylorTheta[4] && 2 <= costP {
		return 12, 0, 0
	}
	if sT := taylorScaling(eta); sT <= s && 2+float64(sT) <= costP {
		return 18, 0, sT
	}
	return 0, k, s
}

// formA3 forms A³ = A·A² in e.a3 and returns d3 = ‖A³‖₁^{1/3}.
func (e *Expm) formA3() float64 {
	e.powMul(e.a3, e.a, e.a2)
	return powPos(e.norm1(e.a3), 1.0/3)
}

// taylorScaling is T_18's s = ⌈log2(η/θ18)⌉⁺ (BBC19).
func taylorScaling(eta float64) int {
	if eta <= taylorTheta[5] {
		return 0
	}
	if math.IsInf(eta, 0) || math.IsNaN(eta) {
		return math.MaxInt32
	}
	return int(math.Ceil(math.Log2(eta / taylorTheta[5])))
}

// taylor sets dst = T_m(A) for the scaled A in e.a, A² in e.a2 and, for
// m ≥ 12, A³ in e.a3 and (m = 18) A⁶ in e.a6. e.u, e.v and e.a4 are
// scratch.
func (e *Expm) taylor(dst []float64, m int) {
	n := e.n
	a, a2, a3, a6 := e.a, e.a2, e.a3, e.a6
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
		addTaylorTail(dst, [4]float64{q[0][1], q[0][2], q[0][3], 0}, a, a2, a3, a3, c2, u, c1, w)
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
		addTaylorTail(dst, [4]float64{b[0][1], b[0][2], b[0][3], b[0][4]}, a, a2, a3, a6, c2, u, c1, w)
	}
	// The constant term last: every other term is summed first, at its
	// own scale, and the entries near 1 are rounded once. Adding I before
	// c2·X and c1·Y (three roundings at 1) doubled T_18's error on the
	// reference set's random-15-norm1 (1.2e-16, r_7 6.5e-17, scipy
	// 5.9e-17); one rounding gave 0.41u on average against r_m's 0.58u
	// over 18 random matrices with ‖A‖₁ in [0.4, 1.09].
	for i := 0; i < n; i++ {
		dst[i*n+i]++
	}
}

// addTaylorTail adds p0 A + p1 A² + p2 A³ + p3 A⁶ + c2 X + c1 Y to dst,
// summed before they meet dst: the last step of T_12 and T_18.
func addTaylorTail(dst []float64, p [4]float64, a, a2, a3, a6 []float64, c2 float64, x []float64, c1 float64, y []float64) {
	a, a2, a3, a6 = a[:len(dst)], a2[:len(dst)], a3[:len(dst)], a6[:len(dst)] // one bounds check each
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] += (p[0]*a[i] + p[1]*a2[i] + p[2]*a3[i] + p[3]*a6[i]) + (c2*x[i] + c1*y[i])
	}
}

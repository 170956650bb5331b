package spd

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
)

// Retract sets dst = R_X(tU) with the retraction s.Retraction, of the
// tangent vector sym(U) when U is not symmetric. dst may be x or u. It
// returns an error if x is not positive definite or the input is not
// finite.
// Under LogEuclidean and BuresWasserstein it is Exp, whatever
// s.Retraction says (NewMetric).
func (s *SPD) Retract(dst, x, u []float64, t float64) error {
	s.check(dst, x, u)
	if s.metric != AffineInvariant {
		return s.Exp(dst, x, u, t)
	}
	if s.Retraction == Exponential {
		return s.Exp(dst, x, u, t)
	}
	n := s.n
	l, err := s.chol(x)
	if err != nil {
		return err
	}
	// ½X + ½ WᵀW with W = L⁻¹(X + tU): WᵀW = (X+tU) X⁻¹ (X+tU), for
	// U = sym(u): (X+tU)ᵀ X⁻¹ (X+tU) would differ for a skew part.
	w := s.t1
	s.Project(w, x, u)
	for i := range w {
		w[i] = x[i] + t*w[i]
	}
	impl := blas.Impl()
	out := s.t2
	impl.Dtrsm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, n, 1, l, n, w, n)
	if n < smallN {
		impl.Dgemm(gblas.Trans, gblas.NoTrans, n, n, n, 0.5, w, n, w, n, 0, out, n)
	} else {
		impl.Dsyrk(gblas.Upper, gblas.Trans, n, n, 0.5, w, n, 0, out, n)
	}
	// x is symmetric (a point): add ½x to the upper triangle, mirror.
	for i := 0; i < n; i++ {
		o, xr := out[i*n+i:(i+1)*n], x[i*n+i:(i+1)*n]
		for j, v := range xr {
			o[j] += 0.5 * v
		}
	}
	lapackx.MirrorUpper(out, n)
	if !finite(out) {
		return fmt.Errorf("spd: %w: second-order retraction", numerr.ErrNotFinite)
	}
	copy(dst, out)
	return s.checkResult("second-order retraction", dst)
}

// checkResult factors a retraction's or exponential's result, which a
// solver's next step needs anyway (the factor stays cached), and reports
// a result that is positive definite in exact arithmetic but not in
// float64: a step so large that its condition number exceeds 1/ε.
func (s *SPD) checkResult(op string, y []float64) error {
	if _, err := s.factor(y, false); err != nil { // y: symmetric and finite by construction
		return fmt.Errorf("spd: %s: the result is not positive definite in float64 (step too large): %w", op, err)
	}
	return nil
}

// finite reports whether every entry of v is finite: a·0 is 0 for finite
// a and NaN otherwise, and one comparison at the end replaces two per
// entry.
func finite(v []float64) bool {
	var z float64
	for _, a := range v {
		z += a * 0
	}
	return z == 0
}

// congruentEig factorizes M = L⁻¹ sym(V) L⁻ᵀ into s.eig (the reduction,
// then an eigensolver reading one triangle, so sym(V), not a triangle of
// v, is what a v off the symmetric matrices stands for). The
// recursive reduction is dsygst's n³ flops in large BLAS calls: at least
// as fast as ReduceSym at every order measured on either backend, 15–20%
// faster at n = 2000 and 1.5× on gonum (lapackx's
// BenchmarkReduceSymRecursive, BenchmarkSPDExpStages).
func (s *SPD) congruentEig(l, v []float64, valuesOnly bool) error {
	n := s.n
	s.Project(s.t1, l, v)
	lapackx.ReduceSymRecursive(s.t1, l, n)
	if !valuesOnly {
		return s.eig.FactorizeLower(s.t1)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			s.t1[i*n+j] = s.t1[j*n+i]
		}
	}
	return s.eig.FactorizeValues(s.t1)
}

// weightedGram sets dst = L Vᵀ diag(g) V Lᵀ + σ X for weights g_i ≥ 0 (the
// eigenvectors V of s.eig): with W = diag(√g) V Lᵀ, dst = WᵀW + σX. dst
// may be x.
func (s *SPD) weightedGram(dst, x, l, g []float64, sigma float64) {
	n := s.n
	v := s.eig.Vectors()
	w := s.t2
	for i, gi := range g {
		floats.ScaleTo(w[i*n:(i+1)*n], math.Sqrt(gi), v[i*n:(i+1)*n])
	}
	impl := blas.Impl()
	impl.Dtrmm(gblas.Right, gblas.Lower, gblas.Trans, gblas.NonUnit, n, n, 1, l, n, w, n)
	out := dst
	if sigma != 0 && &dst[0] == &x[0] {
		out = s.t3 // x is read below
	}
	impl.Dsyrk(gblas.Upper, gblas.Trans, n, n, 1, w, n, 0, out, n)
	if sigma != 0 {
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				out[i*n+j] += sigma * 0.5 * (x[i*n+j] + x[j*n+i])
			}
		}
	}
	lapackx.MirrorUpper(out, n)
	if &out[0] != &dst[0] {
		copy(dst, out)
	}
}

// Exp sets dst = Exp_X(tU) = L expm(t L⁻¹UL⁻ᵀ) Lᵀ (of sym(U) when U is
// not symmetric): one Cholesky factor (cached), the reduction L⁻¹UL⁻ᵀ,
// one symmetric eigendecomposition, one triangular product, one rank-n
// update, and the Cholesky factor of the result (checkResult), which the
// next step at dst reuses. dst may be x or u.
// Under another metric it is that metric's exponential (doc.go's
// Metrics, logeuclid.go, bures.go).
func (s *SPD) Exp(dst, x, u []float64, t float64) error {
	s.check(dst, x, u)
	if s.geom != nil {
		return s.geom.exp(s, dst, x, u, t)
	}
	l, err := s.chol(x)
	if err != nil {
		return err
	}
	if err := s.congruentEig(l, u, false); err != nil {
		return fmt.Errorf("spd: exponential: %w", err)
	}
	g := s.t4[:s.n]
	for i, lam := range s.eig.Values() {
		g[i] = math.Exp(t * lam)
		switch {
		case math.IsInf(g[i], 0):
			return fmt.Errorf("spd: exponential: %w", numerr.ErrOverflow)
		case g[i] < 0x1p-1022:
			return fmt.Errorf("spd: exponential: %w: e^(tλ) = %v for tλ = %.3g", numerr.ErrUnderflow, g[i], t*lam)
		}
	}
	s.weightedGram(dst, x, l, g, 0)
	if !finite(dst) {
		// e^(tλ) fits but L·diag(e^(tλ))·Lᵀ does not: the fuzz target found
		// a result of +Inf entries that checkResult's Cholesky let through.
		return fmt.Errorf("spd: exponential: %w: the result exceeds the float64 range", numerr.ErrOverflow)
	}
	return s.checkResult("exponential", dst)
}

// Log sets dst = Log_X(Y) = L logm(L⁻¹YL⁻ᵀ) Lᵀ. dst may be x or y. It
// returns an error if x or y is not positive definite.
// Under another metric it is that metric's logarithm.
func (s *SPD) Log(dst, x, y []float64) error {
	s.check(dst, x, y)
	if s.geom != nil {
		return s.geom.log(s, dst, x, y)
	}
	l, err := s.chol(x)
	if err != nil {
		return err
	}
	if err := s.checkSymmetric("y", y); err != nil {
		return err
	}
	if err := s.congruentEig(l, y, false); err != nil {
		return fmt.Errorf("spd: logarithm: %w", err)
	}
	lam := s.eig.Values()
	if !(lam[0] > 0) {
		return fmt.Errorf("spd: %w: logarithm: generalized eigenvalue %.3g", numerr.ErrNotPosDef, lam[0])
	}
	// log λ_i − σ ≥ 0 with σ = min(0, log λ_min): one rank-n update.
	g := s.t4[:s.n]
	sigma := math.Min(0, logPos(lam[0]))
	for i, v := range lam {
		g[i] = logPos(v) - sigma
	}
	s.weightedGram(dst, x, l, g, sigma)
	if !finite(dst) {
		return fmt.Errorf("spd: logarithm: %w: the result exceeds the float64 range", numerr.ErrOverflow)
	}
	return nil
}

// Dist returns the geodesic distance ‖log λ‖₂ over the generalized
// eigenvalues λ of (Y, X), computed as the eigenvalues of L⁻¹YL⁻ᵀ.
// Under another metric it is that metric's distance.
func (s *SPD) Dist(x, y []float64) (float64, error) {
	s.check(x, y)
	if s.geom != nil {
		return s.geom.dist(s, x, y)
	}
	l, err := s.chol(x)
	if err != nil {
		return 0, err
	}
	if err := s.checkSymmetric("y", y); err != nil {
		return 0, err
	}
	if err := s.congruentEig(l, y, true); err != nil {
		return 0, fmt.Errorf("spd: distance: %w", err)
	}
	var d float64
	for _, v := range s.eig.Values() {
		if !(v > 0) {
			return 0, fmt.Errorf("spd: %w: distance: generalized eigenvalue %.3g", numerr.ErrNotPosDef, v)
		}
		lv := logPos(v)
		d += lv * lv
	}
	return math.Sqrt(d), nil
}

// Transport sets dst to the transport of U from T_X to T_Y: U itself
// (symmetrized) for Identity, E U Eᵀ with E = (YX⁻¹)^½ for Parallel. dst
// may be u.
// Under LogEuclidean, Parallel is that metric's parallel transport;
// under BuresWasserstein, Parallel panics (it has no closed form).
func (s *SPD) Transport(dst, x, y, u []float64) {
	s.check(dst, x, y, u)
	if s.TransportMethod == Identity {
		s.Project(dst, x, u)
		return
	}
	if s.geom != nil {
		s.geom.transport(s, dst, x, y, u)
		return
	}
	n := s.n
	l, err := s.chol(x)
	if err == nil {
		// M^½ with M = L⁻¹YL⁻ᵀ; then E U Eᵀ = L M^½ (L⁻¹UL⁻ᵀ) M^½ Lᵀ.
		s.whiten(s.t1, l, y)
		lapackx.Symmetrize(s.t1, n)
		err = s.sf.Sqrt(s.t3, s.t1)
	}
	if err != nil {
		nanFill(dst)
		return
	}
	s.whiten(s.t1, l, u)
	s.symUpper(s.t1, s.t1)
	lapackx.Congruence(s.t1, s.t3, s.t1, s.t2, n, false) // M^½ Ũ M^½
	// L Z Lᵀ with two triangular products.
	impl := blas.Impl()
	impl.Dtrmm(gblas.Left, gblas.Lower, gblas.NoTrans, gblas.NonUnit, n, n, 1, l, n, s.t1, n)
	impl.Dtrmm(gblas.Right, gblas.Lower, gblas.Trans, gblas.NonUnit, n, n, 1, l, n, s.t1, n)
	s.Project(dst, y, s.t1)
}

// ConnectionTerm sets dst = −sym(U X⁻¹ V), the term of the Levi-Civita
// connection of the affine-invariant metric, ∇_U V = sym(DV[U]) −
// sym(U X⁻¹ V), for the symmetric parts of u and v. dst may be u or v.
// Under another metric it is that metric's term.
func (s *SPD) ConnectionTerm(dst, x, u, v []float64) {
	s.check(dst, x, u, v)
	if s.geom != nil {
		s.geom.connectionTerm(s, dst, x, u, v)
		return
	}
	n := s.n
	xi, err := s.inverse(x)
	if err != nil {
		nanFill(dst)
		return
	}
	xv := s.invSym(s.t1, xi, v) // X⁻¹V
	s.Project(s.t3, x, u)       // read before dst is written
	// −U X⁻¹ V
	blas.Impl().Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, -1, s.t3, n, xv, n, 0, dst, n)
	lapackx.Symmetrize(dst, n)
}

// logPos is math.Log, right for subnormal x too: Go's math.Log on amd64
// returns log 2^−1023 ≈ −709.09 for every x below 2^−1022
// (golang/go#56600), which made Log and Dist wrong for generalized
// eigenvalues that small. The scaling by 2^54 is exact.
func logPos(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

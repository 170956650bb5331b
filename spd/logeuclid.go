package spd

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/numerr"
)

// The log-Euclidean metric, in the eigenbasis X = Vᵀ diag(λ) V of the
// point, ℓ = log λ, Ũ = V U Vᵀ and E_ij = exp[ℓ_i, ℓ_j] (the first divided
// differences of exp, 1/log[λ_i, λ_j]; λ_i on the diagonal):
//
//	D log(X)[U]       Ũ ⊘ E (Daleckii–Krein)
//	⟨U, V⟩_X          Σ_ij Ũ_ij Ṽ_ij / E_ij²
//	grad f            E ∘ E ∘ G̃, G = sym(∇f)
//	Exp_X(U)          expm(log X + D log(X)[U])
//	Log_X(Y)          D exp(log X)[log Y − log X] = (log Y − log X)~ ∘ E
//	d(X, Y)           ‖log Y − log X‖_F
//	parallel transport  D exp(log Y)[D log(X)[U]]
//	connection term   −D² exp(log X)[D log(X)[U], D log(X)[V]]
//	Hess f[U]         E ∘ (E ∘ H̃ + D² exp(log X)[W̃, G̃]~), W = D log(X)[U]
//
// with D² exp(S)[A, B]~_ij = Σ_k exp[ℓ_i, ℓ_k, ℓ_j](Ã_ik B̃_kj + B̃_ik Ã_kj),
// exp[·,·,·] the second divided differences (secondDD). The metric is
// flat: log is an isometry onto the symmetric matrices with the Frobenius
// metric, whose straight lines are the geodesics.

// logEuclidean is the log-Euclidean metric's geometry.
type logEuclidean struct{}

// inner returns Σ Ũ_ij Ṽ_ij / E_ij², or NaN at a non-point.
func (logEuclidean) inner(s *SPD, x, u, v []float64) float64 {
	p, a, b, err := s.eigPair(x, u, v)
	if err != nil {
		return math.NaN()
	}
	var t float64
	for i, e := range p.d {
		t += a[i] * b[i] / (e * e)
	}
	return t
}

// whiten sets dst = Ũ ⊘ E, coordinates in which the metric is the
// Frobenius one.
func (logEuclidean) whiten(s *SPD, dst, x, u []float64) error {
	p, err := s.pointEig(x)
	if err != nil {
		return err
	}
	a := s.toEig(s.mw.sc[0], p, u)
	for i, e := range p.d {
		dst[i] = a[i] / e
	}
	return nil
}

// egradToRGrad sets dst = V (E ∘ E ∘ G̃) Vᵀ (NaN at a non-point).
func (logEuclidean) egradToRGrad(s *SPD, dst, x, egrad []float64) {
	p, err := s.pointEig(x)
	if err != nil {
		nanFill(dst)
		return
	}
	a := s.toEig(s.mw.sc[0], p, egrad)
	for i, e := range p.d {
		a[i] *= e * e
	}
	s.fromEig(dst, p, a)
}

// exp sets dst = expm(log X + t D log(X)[U]) and keeps its
// eigendecomposition, which the step's transport and the next step's
// gradient at dst use, and its Cholesky factor (checkResult).
func (logEuclidean) exp(s *SPD, dst, x, u []float64, t float64) error {
	p, err := s.pointEig(x)
	if err != nil {
		return err
	}
	n, w := s.n, s.mw
	a := s.toEig(w.sc[0], p, u)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[i*n+j] *= t / p.d[i*n+j]
		}
		a[i*n+i] += p.ell[i]
	}
	if err := w.eig.Factorize(a); err != nil {
		return fmt.Errorf("spd: log-Euclidean exponential: %w", err)
	}
	mu := w.eig.Values()
	switch {
	case mu[n-1] > maxExpArg:
		return fmt.Errorf("spd: log-Euclidean exponential: %w: eigenvalue e^%.4g", numerr.ErrOverflow, mu[n-1])
	case mu[0] < minExpArg:
		return fmt.Errorf("spd: log-Euclidean exponential: %w: eigenvalue e^%.4g", numerr.ErrUnderflow, mu[0])
	case mu[n-1]-mu[0] > maxLogCond:
		return fmt.Errorf("spd: log-Euclidean exponential: %w: condition number e^%.4g beyond 1/ε (step too large)", numerr.ErrNotPosDef, mu[n-1]-mu[0])
	}
	// The result's eigenvectors R = P V (P: those of the log), in the slot
	// that x's entry does not hold.
	q := s.slot()
	gemm(q.v, w.eig.Vectors(), p.v, n, false, false)
	copy(q.ell, mu)
	wm := w.sc[1]
	for i, m := range mu {
		q.lam[i] = math.Exp(m)
		r := math.Exp(0.5 * m)
		for j := 0; j < n; j++ {
			wm[i*n+j] = r * q.v[i*n+j]
		}
	}
	blas.Impl().Dsyrk(gblas.Upper, gblas.Trans, n, n, 1, wm, n, 0, dst, n)
	lapackx.MirrorUpper(dst, n)
	if !finite(dst) {
		return fmt.Errorf("spd: log-Euclidean exponential: %w: the result exceeds the float64 range", numerr.ErrOverflow)
	}
	copy(q.x, dst)
	s.fillD(q)
	q.ok = true
	// A result whose condition number is near 1/ε may be indefinite in
	// float64 after the product; the factor is also what CachedFactor
	// hands a problem.
	return s.checkResult("log-Euclidean exponential", dst)
}

// The exponential's guards: e^maxExpArg and e^minExpArg are the largest
// and smallest normal float64, e^maxLogCond = 2⁵² = 1/ε.
var (
	maxExpArg  = math.Log(math.MaxFloat64)
	minExpArg  = math.Log(0x1p-1022)
	maxLogCond = 52 * math.Ln2
)

// leLogDiff sets and returns sc[0] = (log Y − log X)~ in the eigenbasis of
// X, and X's entry.
func (s *SPD) leLogDiff(x, y []float64) ([]float64, *eigPoint, error) {
	if err := s.checkSymmetric("y", y); err != nil {
		return nil, nil, err
	}
	px, err := s.pointEig(x)
	if err != nil {
		return nil, nil, err
	}
	py, err := s.pointEig(y)
	if err != nil {
		return nil, nil, err
	}
	// C = V_x V_yᵀ; (log Y)~ = C diag(ℓ_y) Cᵀ.
	n, w := s.n, s.mw
	c, cl, out := w.sc[1], w.sc[2], w.sc[0]
	gemm(c, px.v, py.v, n, false, true)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			cl[i*n+j] = c[i*n+j] * py.ell[j]
		}
	}
	gemm(out, cl, c, n, false, true)
	symPart(out, n)
	for i := 0; i < n; i++ {
		out[i*n+i] -= px.ell[i]
	}
	return out, px, nil
}

// log sets dst = Log_X(Y) = V ((log Y − log X)~ ∘ E) Vᵀ.
func (logEuclidean) log(s *SPD, dst, x, y []float64) error {
	a, p, err := s.leLogDiff(x, y)
	if err != nil {
		return err
	}
	for i, e := range p.d {
		a[i] *= e
	}
	s.fromEig(dst, p, a)
	if !finite(dst) {
		return fmt.Errorf("spd: log-Euclidean logarithm: %w: the result exceeds the float64 range", numerr.ErrOverflow)
	}
	return nil
}

// dist returns ‖log Y − log X‖_F.
func (logEuclidean) dist(s *SPD, x, y []float64) (float64, error) {
	a, _, err := s.leLogDiff(x, y)
	if err != nil {
		return 0, err
	}
	var d float64
	for _, v := range a {
		d += v * v
	}
	if math.IsInf(d, 0) {
		return 0, fmt.Errorf("spd: log-Euclidean distance: %w", numerr.ErrOverflow)
	}
	return math.Sqrt(d), nil
}

// transport sets dst = D exp(log Y)[D log(X)[U]], the parallel
// transport (NaN when x or y is not a point).
func (logEuclidean) transport(s *SPD, dst, x, y, u []float64) {
	px, err := s.pointEig(x)
	if err != nil {
		nanFill(dst)
		return
	}
	n, w := s.n, s.mw
	a := s.toEig(w.sc[0], px, u)
	for i, e := range px.d {
		a[i] /= e
	}
	py, err := s.pointEig(y)
	if err != nil {
		nanFill(dst)
		return
	}
	c := w.sc[1]
	gemm(c, py.v, px.v, n, false, true) // C = V_y V_xᵀ
	lapackx.Congruence(a, c, a, w.sc[5], n, false)
	for i, e := range py.d {
		a[i] *= e
	}
	s.fromEig(dst, py, a)
}

// connectionTerm sets dst = −D² exp(log X)[D log(X)[U], D log(X)[V]].
func (logEuclidean) connectionTerm(s *SPD, dst, x, u, v []float64) {
	p, err := s.pointEig(x)
	if err != nil {
		nanFill(dst)
		return
	}
	w := s.mw
	a := s.toEig(w.sc[0], p, u)
	b := s.toEig(w.sc[1], p, v)
	for i, e := range p.d {
		a[i] /= e
		b[i] /= e
	}
	t := s.secondDD(w.sc[2], p, a, b)
	for i := range t {
		t[i] = -t[i]
	}
	s.fromEig(dst, p, t)
}

// ehessToRHess sets dst = V (E ∘ (E ∘ H̃ + D² exp(log X)[W̃, G̃])) Vᵀ with
// W̃ = Ũ ⊘ E (NaN at a non-point).
func (logEuclidean) ehessToRHess(s *SPD, dst, x, egrad, ehess, u []float64) {
	p, err := s.pointEig(x)
	if err != nil {
		nanFill(dst)
		return
	}
	w := s.mw
	g := s.toEig(w.sc[0], p, egrad)
	a := s.toEig(w.sc[1], p, u)
	for i, e := range p.d {
		a[i] /= e
	}
	t := s.secondDD(w.sc[2], p, a, g)
	h := s.toEig(w.sc[0], p, ehess) // g is read
	for i, e := range p.d {
		t[i] = e * (e*h[i] + t[i])
	}
	s.fromEig(dst, p, t)
}

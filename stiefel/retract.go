package stiefel

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/numerr"
)

// Retract sets dst = R_X(tU) with the retraction s.Retraction. dst may be
// x. It returns an error for non-finite input.
func (s *Stiefel) Retract(dst, x, u []float64, t float64) error {
	s.check(dst, x, u)
	switch s.Retraction {
	case QR:
		return s.retractQR(dst, x, u, t)
	case Polar:
		return s.retractPolar(dst, x, u, t)
	case Cayley:
		return s.retractCayley(dst, x, u, t)
	case Exponential:
		return s.Exp(dst, x, u, t)
	}
	panic(fmt.Sprintf("stiefel: unknown retraction %v", s.Retraction))
}

// axpy sets s.a = x + t·u.
func (s *Stiefel) axpy(x, u []float64, t float64) { axpyTo(s.a, x, u, t) }

// axpyTo sets dst = x + t·u.
func axpyTo(dst, x, u []float64, t float64) {
	for i := range dst {
		dst[i] = x[i] + t*u[i]
	}
}

// retractQR is qf(X + tU) with R's diagonal positive. For a tangent U
// the columns of X + tU are independent (σ_min ≥ 1); for any other U they
// may not be, and then qf is not defined: an error, not an arbitrary Q.
// CholeskyQR2 (cholQR2) runs first where s.QRMethod asks for it; what its
// guard rejects (Cholesky fails, κ_∞(R₁) > cholQRMaxCond, or
// ‖Q₁ᵀQ₁ − I‖_F > cholQRMaxCond²u) goes to Householder, which also gives
// the errors: κ ≤ 1e6 is far from Householder's dependence test.
func (s *Stiefel) retractQR(dst, x, u []float64, t float64) error {
	if s.useCholQR() {
		// Work in dst unless it holds x or u, which a rejection needs.
		w := dst
		if &dst[0] == &x[0] || &dst[0] == &u[0] {
			w = s.a
		}
		axpyTo(w, x, u, t)
		if s.cholQR2(w, cholQRMaxCond, cholQRSkip(s.p)) {
			if &w[0] != &dst[0] {
				copy(dst, w)
			}
			return nil
		}
		s.qrFallbacks++
	}
	s.axpy(x, u, t)
	if err := s.qr.Factorize(s.a); err != nil {
		return fmt.Errorf("stiefel: QR retraction: %w", err)
	}
	if r, a := s.qr.MinRDiag(), frob(s.a); !(r > 64*0x1p-52*a) {
		return fmt.Errorf("stiefel: QR retraction: %w: X + tU has dependent columns (min |R_jj| = %.3g, ‖X + tU‖ = %.3g)",
			numerr.ErrSingular, r, a)
	}
	s.qr.QTo(dst)
	return nil
}

// retractPolar is A (AᵀA)^{−½} with A = X + tU. The orthonormality of
// the result degrades with the condition of AᵀA = I + t²UᵀU (for tangent
// U); past polarRefine a second pass Q (QᵀQ)^{−½} on the result restores
// it to rounding.
func (s *Stiefel) retractPolar(dst, x, u []float64, t float64) error {
	s.axpy(x, u, t)
	if err := s.orthonormalize(dst); err != nil {
		return fmt.Errorf("stiefel: polar retraction: %w", err)
	}
	return nil
}

// orthonormalize sets dst to the polar factor of s.a (which it overwrites),
// with up to two more passes while the Gram matrix of the last input had
// a condition number above polarRefine.
func (s *Stiefel) orthonormalize(dst []float64) error {
	for pass := 0; ; pass++ {
		cond, err := s.polar(dst, s.a)
		if err != nil {
			return err
		}
		if cond <= polarRefine || pass == 2 {
			return nil
		}
		copy(s.a, dst)
	}
}

// polarRefine is the condition number of AᵀA beyond which the polar
// retraction takes a second pass: the first leaves ‖QᵀQ − I‖ ≈ κ·ε (the
// fuzz target found 1.2e-10 at κ = 6.4e5 and 8.7e-10 at 3.6e7), 2e-12
// at 10⁴.
const polarRefine = 1e4

// polar sets dst = A (AᵀA)^{−½} for the n×p a and returns the condition
// number of AᵀA.
func (s *Stiefel) polar(dst, a []float64) (float64, error) {
	n, p := s.n, s.p
	g := s.pp[0]
	impl := blas.Impl()
	impl.Dsyrk(gblas.Upper, gblas.Trans, p, n, 1, a, p, 0, g, p)
	for i := 0; i < p; i++ {
		for j := 0; j < i; j++ {
			g[i*p+j] = g[j*p+i]
		}
	}
	if err := s.sf.InvSqrt(s.pp[1], g); err != nil {
		return 0, err
	}
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, 1, a, p, s.pp[1], p, 0, dst, p)
	lam := s.sf.Eig().Values()
	return lam[p-1] / lam[0], nil
}

// retractCayley is X + t A (I − t/2 BᵀA)⁻¹ BᵀX with A = [PU, X] and
// B = [X, −PU], P = I − ½XXᵀ: the Cayley transform of W = ABᵀ applied to X
// through the Woodbury identity, O(np²).
func (s *Stiefel) retractCayley(dst, x, u []float64, t float64) error {
	n, p := s.n, s.p
	u, t = s.step(u, t)
	impl := blas.Impl()
	// PU = U − ½ X (XᵀU)
	xtu := s.pp[0]
	impl.Dgemm(gblas.Trans, gblas.NoTrans, p, p, n, 1, x, p, u, p, 0, xtu, p)
	pu := s.b
	copy(pu, u)
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, -0.5, x, p, xtu, p, 1, pu, p)
	// A = [PU, X] (n×2p), row-major.
	a := s.ab
	for i := 0; i < n; i++ {
		copy(a[i*2*p:i*2*p+p], pu[i*p:(i+1)*p])
		copy(a[i*2*p+p:(i+1)*2*p], x[i*p:(i+1)*p])
	}
	// BᵀA = [[XᵀPU, XᵀX], [−PUᵀPU, −PUᵀX]] and BᵀX = [[XᵀX], [−PUᵀX]].
	m := s.p2[0] // 2p×2p
	impl.Dgemm(gblas.Trans, gblas.NoTrans, p, 2*p, n, 1, x, p, a, 2*p, 0, m, 2*p)
	impl.Dgemm(gblas.Trans, gblas.NoTrans, p, 2*p, n, -1, pu, p, a, 2*p, 0, m[2*p*p:], 2*p)
	rhs := s.p2[1][:2*p*p] // 2p×p
	for i := 0; i < p; i++ {
		copy(rhs[i*p:(i+1)*p], m[i*2*p+p:(i+1)*2*p])             // XᵀX
		copy(rhs[(p+i)*p:(p+i+1)*p], m[(p+i)*2*p+p:(p+i+1)*2*p]) // −PUᵀX
	}
	// I − t/2 BᵀA
	for i := range m {
		m[i] *= -0.5 * t
	}
	for i := 0; i < 2*p; i++ {
		m[i*2*p+i]++
	}
	if err := s.lu.Factorize(m); err != nil {
		return fmt.Errorf("stiefel: Cayley retraction: %w", err)
	}
	s.lu.Solve(rhs, p)
	if &dst[0] != &x[0] {
		copy(dst, x)
	}
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, 2*p, t, a, 2*p, rhs, p, 1, dst, p)
	return s.refineLong(dst, u, t, "Cayley retraction")
}

// Exp sets dst to the geodesic Exp_X(tU) of the embedded metric:
// [X, U] exp(t[[A, −S], [I, A]]) [I; 0] exp(−tA) with A = XᵀU and S = UᵀU
// (Edelman, Arias and Smith 1998, eq. 2.45). dst may be x.
func (s *Stiefel) Exp(dst, x, u []float64, t float64) error {
	s.check(dst, x, u)
	n, p := s.n, s.p
	u, t = s.step(u, t)
	impl := blas.Impl()
	aa, ss := s.pp[0], s.pp[1]
	impl.Dgemm(gblas.Trans, gblas.NoTrans, p, p, n, 1, x, p, u, p, 0, aa, p)
	impl.Dgemm(gblas.Trans, gblas.NoTrans, p, p, n, 1, u, p, u, p, 0, ss, p)
	// M = t [[A, −S], [I, A]] (2p×2p)
	m := s.p2[0]
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			m[i*2*p+j] = t * aa[i*p+j]
			m[i*2*p+p+j] = -t * ss[i*p+j]
			m[(p+i)*2*p+j] = 0
			m[(p+i)*2*p+p+j] = t * aa[i*p+j]
		}
		m[(p+i)*2*p+i] = t
	}
	em := s.p2[1]
	if err := s.ex2.Exp(em, m); err != nil {
		return fmt.Errorf("stiefel: exponential: %w", err)
	}
	for i := range aa {
		aa[i] *= -t
	}
	ea := s.pp[2]
	if err := s.ex1.Exp(ea, aa); err != nil {
		return fmt.Errorf("stiefel: exponential: %w", err)
	}
	// C = em[:, :p] exp(−tA) (2p×p), into s.p2[2].
	c := s.p2[2][:2*p*p]
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, 2*p, p, p, 1, em, 2*p, ea, p, 0, c, p)
	// dst = X C[:p] + U C[p:]
	copy(s.a, x)
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, 1, s.a, p, c, p, 0, dst, p)
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, 1, u, p, c[p*p:], p, 1, dst, p)
	return s.refineLong(dst, u, t, "exponential")
}

// step returns the step tU as a direction of unit length in t: the
// products of U with itself that the exponential and Cayley maps form
// would under- or overflow for a tiny U and a huge t (or the reverse)
// whose product is moderate.
func (s *Stiefel) step(u []float64, t float64) ([]float64, float64) {
	if t == 1 {
		return u, 1
	}
	for i, v := range u {
		s.tu[i] = t * v
	}
	return s.tu, 1
}

// longStep is the length t‖U‖_F from which the exponential and Cayley maps
// take a polar pass on their result: their loss of orthonormality grows
// with the step (the fuzz target found 1.9e-6 at t‖U‖ ≈ 8e5 for Cayley,
// 1.3e-10 at 1e5 for the exponential), and below one radian it stays at
// rounding.
const longStep = 1

// refineLong restores the orthonormality of q, the result of a step tU,
// by a polar pass when the step is long. The pass moves q by about its
// loss of orthonormality.
func (s *Stiefel) refineLong(q, u []float64, t float64, op string) error {
	// |t|·max|u_ij|·√(np) bounds ‖tU‖_F without squaring entries that
	// may underflow.
	var umax float64
	for _, v := range u {
		umax = math.Max(umax, math.Abs(v))
	}
	if math.Abs(t)*umax*math.Sqrt(float64(len(u))) <= longStep {
		return nil
	}
	copy(s.a, q)
	if err := s.orthonormalize(q); err != nil {
		return fmt.Errorf("stiefel: %s: %w", op, err)
	}
	return nil
}

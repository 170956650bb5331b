package stiefel

import (
	"fmt"

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
func (s *Stiefel) axpy(x, u []float64, t float64) {
	for i := range s.a {
		s.a[i] = x[i] + t*u[i]
	}
}

// retractQR is qf(X + tU) with R's diagonal positive. For a tangent U
// the columns of X + tU are independent (σ_min ≥ 1); for any other U they
// may not be, and then qf is not defined: an error, not an arbitrary Q.
func (s *Stiefel) retractQR(dst, x, u []float64, t float64) error {
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

// retractPolar is A (AᵀA)^{−½} with A = X + tU.
func (s *Stiefel) retractPolar(dst, x, u []float64, t float64) error {
	n, p := s.n, s.p
	s.axpy(x, u, t)
	g := s.pp[0]
	impl := blas.Impl()
	impl.Dsyrk(gblas.Upper, gblas.Trans, p, n, 1, s.a, p, 0, g, p)
	for i := 0; i < p; i++ {
		for j := 0; j < i; j++ {
			g[i*p+j] = g[j*p+i]
		}
	}
	if err := s.sf.InvSqrt(s.pp[1], g); err != nil {
		return fmt.Errorf("stiefel: polar retraction: %w", err)
	}
	impl.Dgemm(gblas.NoTrans, gblas.NoTrans, n, p, p, 1, s.a, p, s.pp[1], p, 0, dst, p)
	return nil
}

// retractCayley is X + t A (I − t/2 BᵀA)⁻¹ BᵀX with A = [PU, X] and
// B = [X, −PU], P = I − ½XXᵀ: the Cayley transform of W = ABᵀ applied to X
// through the Woodbury identity, O(np²).
func (s *Stiefel) retractCayley(dst, x, u []float64, t float64) error {
	n, p := s.n, s.p
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
	return nil
}

// Exp sets dst to the geodesic Exp_X(tU) of the embedded metric:
// [X, U] exp(t[[A, −S], [I, A]]) [I; 0] exp(−tA) with A = XᵀU and S = UᵀU
// (Edelman, Arias and Smith 1998, eq. 2.45). dst may be x.
func (s *Stiefel) Exp(dst, x, u []float64, t float64) error {
	s.check(dst, x, u)
	n, p := s.n, s.p
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
	return nil
}

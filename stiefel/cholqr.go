package stiefel

import (
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/rhgd/rhgd/blas"
	"github.com/rhgd/rhgd/lapackx"
	"github.com/rhgd/rhgd/manifold"
)

// QRMethod names how the QR retraction computes qf(X + tU).
type QRMethod int

// The QR methods. All give the Q factor whose R has a positive diagonal;
// they differ by rounding only.
const (
	// QRAuto is CholeskyQR2 where it is faster than Householder: on the
	// native backend for p ≥ 4, except n < 2p with p ≥ 256. It is the
	// zero value.
	QRAuto QRMethod = iota
	// QRHouseholder is LAPACK's Householder QR (dgeqrf, dorgqr) with the
	// signs of R's diagonal fixed.
	QRHouseholder
	// QRCholesky2 is CholeskyQR2, with the Householder fallback of the
	// package documentation for an ill-conditioned X + tU.
	QRCholesky2
)

// qrMethodNames are the names String writes.
var qrMethodNames = [...]string{QRAuto: "auto", QRHouseholder: "householder", QRCholesky2: "cholqr2"}

// String returns the method's name: auto, householder or cholqr2.
func (m QRMethod) String() string { return manifold.EnumName(qrMethodNames[:], "QRMethod", int(m)) }

// cholQRMaxCond is the estimate of κ(A) above which CholeskyQR2 gives
// way to Householder. CholeskyQR2 is orthonormal to rounding while
// κ(A)²u < 1 (Yamamoto et al. 2015; Fukaya et al. 2014), κ up to about
// 1e8: the first pass's Q₁ loses about κ²u of orthonormality, 1e-4 at
// κ = 1e6, and the second pass removes it to rounding.
// TestCholQR2Conditioning finds, without the guard, agreement with
// Householder's Q within κ·1e-15 up to κ = 1e8 and a breakdown at 1e9;
// κ_∞(R₁) overestimates κ₂ by 2 to 9 times there, so the guard keeps κ
// up to a few 1e5, two decades and more inside the breakdown. For a
// tangent U, σ_min(X + tU) ≥ 1 and κ ≤ ‖X + tU‖₂, so only steps with
// t‖U‖₂ of about 1e5 or more take the fallback.
const cholQRMaxCond = 1e6

// cholSerialMin is the order from which cholInv limits OpenBLAS to one
// thread: below 64 its dpotrf runs on one thread anyway, and the switch
// would cost more than the factorization.
const cholSerialMin = 64

// useCholQR reports whether the QR retraction takes CholeskyQR2.
func (s *Stiefel) useCholQR() bool {
	switch s.QRMethod {
	case QRHouseholder:
		return false
	case QRCholesky2:
		return true
	}
	return blas.Current() == blas.Native && s.p >= cholQRMinCols && (s.n >= 2*s.p || s.p < cholQRMaxSquare)
}

// QRAuto's size rule, on the native backend: CholeskyQR2 for p ≥ 4 unless
// n < 2p and p ≥ 256, Householder otherwise. CholeskyQR2 does more
// arithmetic (up to 4np² + 2p³ against 4np² − 4p³/3), all of it level-3,
// in six library calls to Householder's two. Householder's time over
// CholeskyQR2's on tangent steps, as thread CPU time on one OpenBLAS
// thread (wall time on the shared machine was too noisy;
// BenchmarkStiefelQRMethod has the boundary shapes): 1000×50 2.4,
// 400×100 2.4, 2000×500 1.6, 100×10 1.7, 20×20 1.7, 128×128 1.7,
// 32×8 1.4, 200×200 1.3, 20×5 1.2, 12×4 0.9 to 1.1, 300×300 1.0, against
// it 500×500 0.90, 1000×1000 0.92, 100×2 0.70, 1000×1 0.61 (1000×2 1.5:
// p < 4 is not always a loss, but never much of a gain). On the pure-Go
// backend gonum's Dsyrk and Dtrmm run at a fraction of its Dgemm's speed
// and CholeskyQR2 loses (Householder over it 0.35 to 0.56 up to 2000×50,
// 1.1 at 10000×100), so QRAuto stays with Householder there.
const (
	cholQRMinCols   = 4
	cholQRMaxSquare = 256
)

// cholQR2 overwrites the n×p w with qf(w) by CholeskyQR2: R₁ = chol(wᵀw),
// Q₁ = w R₁⁻¹, then the same on Q₁. It reports false, leaving w
// overwritten with rubbish, when the guard rejects w: a Gram matrix that
// is not finite or not positive definite to working precision, or an
// estimate of κ(w) above maxCond, whichever of κ_∞(R₁) = ‖R₁‖_∞‖R₁⁻¹‖_∞
// and √(‖Q₁ᵀQ₁ − I‖_F/u) is larger (the second is about κ²u/u, measured
// on the data; R₁'s own estimate can miss). A NaN anywhere fails one of
// these.
//
// The second pass applies R₂⁻¹ only when ‖Q₁ᵀQ₁ − I‖_F > skip: with
// G₂ − I = E, R₂ = I + O(‖E‖) and Q₁R₂⁻¹ differs from Q₁ by at most about
// ‖E‖_F, so below skip the product would move Q by less than rounding.
func (s *Stiefel) cholQR2(w []float64, maxCond, skip float64) bool {
	if !s.cholPass(w, s.pp[0], maxCond) {
		return false
	}
	g2 := s.pp[1]
	if !s.gram(g2, w) {
		return false
	}
	var loss float64
	for i := 0; i < s.p; i++ {
		for j := i; j < s.p; j++ {
			d := g2[i*s.p+j]
			if i == j {
				d--
				loss += d * d
			} else {
				loss += 2 * d * d
			}
		}
	}
	if maxLoss := maxCond * maxCond * 0x1p-53; !(loss <= maxLoss*maxLoss) {
		return false
	}
	if loss <= skip*skip {
		return true
	}
	return s.cholPass(w, g2, 0)
}

// cholQRSkip is the skip of cholQR2 for p columns, 2pu: the ‖QᵀQ − I‖_F
// that the full second pass itself leaves, measured on tangent steps as
// 0.5 to 1.1 times pu (12×4 to 100000×50, with OpenBLAS; the first pass
// alone leaves the same there, 5e-16 to 5e-15). It saves one n×p×p
// product, a quarter of the arithmetic: at 10000×100, 4.5 of 17 ms.
// Ill-conditioned steps, where the first pass loses κ²u, take the second
// pass in full.
func cholQRSkip(p int) float64 { return 2 * float64(p) * 0x1p-53 }

// cholTrmmMaxCond is the κ_∞(R₁) up to which the first pass applies R₁⁻¹
// as an explicit inverse (dtrtri, then dtrmm), and beyond which it solves
// with R₁ (dtrsm). OpenBLAS runs dtrmm at twice the speed of dtrsm
// (10000×100: 4.6 against 9.8 ms), but w R₁⁻¹ through the inverse leaves
// a residual ‖w − Q₁R₁‖ of about κ_∞(R₁)·u‖w‖ where the solve, backward
// stable by rows, leaves u‖w‖; qf(w) then moves by κ times that. Up to
// 100 the difference stays under the rounding that Householder's own Q
// carries (FuzzRetract found 1.4e-12‖Y‖ in QᵀY's lower triangle at
// κ_∞ = 2e6 through the inverse). The second pass, with R₂ ≈ I, always
// takes the inverse.
const cholTrmmMaxCond = 100

// cholPass sets w = w R⁻¹ with R the upper Cholesky factor of the Gram
// matrix g of w. With maxCond > 0 it is the first pass: it forms g,
// rejects κ_∞(R) > maxCond, and chooses between the inverse and the solve
// (cholTrmmMaxCond); with 0, g is formed already and R ≈ I. It reports
// false when Cholesky fails or R is rejected.
func (s *Stiefel) cholPass(w, g []float64, maxCond float64) bool {
	n, p := s.n, s.p
	first := maxCond > 0
	if first && !s.gram(g, w) {
		return false
	}
	r := s.pp[2]
	if !s.cholInv(g, r, first) {
		return false
	}
	impl := blas.Impl()
	if first {
		k := normInfUpper(r, p) * normInfUpper(g, p)
		if !(k <= maxCond) {
			return false
		}
		if k > cholTrmmMaxCond {
			impl.Dtrsm(gblas.Right, gblas.Upper, gblas.NoTrans, gblas.NonUnit, n, p, 1, r, p, w, p)
			return true
		}
	}
	impl.Dtrmm(gblas.Right, gblas.Upper, gblas.NoTrans, gblas.NonUnit, n, p, 1, g, p, w, p)
	return true
}

// cholInv overwrites the upper triangle of the p×p g with R⁻¹, R its
// upper Cholesky factor, copied to r first when keep is set. It reports
// false when Cholesky fails. The p×p calls run on one OpenBLAS thread,
// where a second costs more than it gives (dpotrf at p = 100: 25 against
// 82 µs).
func (s *Stiefel) cholInv(g, r []float64, keep bool) bool {
	p := s.p
	if p >= cholSerialMin {
		blas.SerialBegin()
		defer blas.SerialEnd()
	}
	impl := lapackx.Impl{}
	if !impl.Dpotrf(gblas.Upper, p, g, p) {
		return false
	}
	if keep {
		copy(r, g)
	}
	return impl.Dtrtri(gblas.Upper, gblas.NonUnit, p, g, p)
}

// normInfUpper returns the ∞-norm of the upper triangle of the p×p a.
func normInfUpper(a []float64, p int) float64 {
	var m float64
	for i := 0; i < p; i++ {
		var s float64
		for _, v := range a[i*p+i : (i+1)*p] {
			s += math.Abs(v)
		}
		m = math.Max(m, s)
	}
	return m
}

// gram sets the upper triangle of g to wᵀw and reports whether its
// diagonal is finite and positive: a NaN or infinity in w, or a column
// whose squares overflow or all underflow, gives false.
func (s *Stiefel) gram(g, w []float64) bool {
	n, p := s.n, s.p
	blas.Impl().Dsyrk(gblas.Upper, gblas.Trans, p, n, 1, w, p, 0, g, p)
	for i := 0; i < p; i++ {
		if d := g[i*p+i]; !(d > 0 && d <= math.MaxFloat64) {
			return false
		}
	}
	return true
}

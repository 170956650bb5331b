// Package stiefel is the Stiefel manifold St(n, p) = {X ∈ R^{n×p} : XᵀX = I}
// with the Euclidean (embedded) metric ⟨U, V⟩ = tr(UᵀV), as in the paper's
// Appendix A.
//
// # Geometry
//
//	tangent space   T_X = {U : XᵀU + UᵀX = 0}
//	projection      P_X(V) = V − X sym(XᵀV)
//	gradient        grad f = P_X(∇f)
//	Hessian         Hess f[U] = P_X(∇²f[U] − U sym(Xᵀ∇f))
//	transport       by projection onto the new tangent space
//
// # Retractions
//
// The Retraction field picks one; the zero value is QR, the paper's choice:
//
//	QR           qf(X + tU), the Q factor with a positive diagonal in R (first order)
//	Polar        (X + tU)((X + tU)ᵀ(X + tU))^{−½} (second order)
//	Cayley       (I − t/2 W)⁻¹(I + t/2 W) X, W = P U Xᵀ − X (P U)ᵀ, P = I − ½XXᵀ,
//	             in O(np²) by the Sherman–Morrison–Woodbury formula (Wen and Yin 2013);
//	             first order under this metric (second order under the canonical one)
//	Exponential  the geodesic of the embedded metric (Edelman, Arias and Smith 1998)
//
// The QR retraction computes qf by CholeskyQR2 (Yamamoto et al. 2015):
// R₁ = chol(AᵀA), Q₁ = A R₁⁻¹, then once more on Q₁, Gram matrices and
// triangular products at level-3 BLAS speed, 3 to 5 times faster than
// Householder for tall A with OpenBLAS. The second pass's product is
// skipped when Q₁ᵀQ₁ = I to within 2pε, where it would change Q by
// rounding only (tangent steps). CholeskyQR2 is accurate while κ(A)²ε < 1;
// a guard passes A = X + tU to Householder when Cholesky fails, when
// κ_∞(R₁) = ‖R₁‖_∞‖R₁⁻¹‖_∞ exceeds 1e6, or when ‖Q₁ᵀQ₁ − I‖_F exceeds
// (1e6)²ε, two decades and more inside CholeskyQR2's breakdown near
// κ = 1e8. For a tangent U, σ_min(X + tU) ≥ 1, so only very long steps
// fall back. Householder gives the errors: ErrSingular for dependent
// columns, ErrNotFinite for non-finite input. QRMethod's zero value,
// QRAuto, keeps Householder where it is faster (p < 4, large square
// matrices, the pure-Go backend); the field can force either method.
//
// A Stiefel owns scratch space: it is not safe for concurrent use; Clone
// gives another goroutine its own.
//
// # Misuse and bad data
//
// Slices of the wrong length are programming errors and panic, as in
// gonum. Data-dependent failures (a point that is not orthonormal, a non-finite
// entry, a failed operation) are errors wrapping the numerr sentinels, or ErrNotOrthonormal and ErrNotTangent.
package stiefel

// Package spd is the manifold of n×n symmetric positive definite matrices
// with the affine-invariant metric, as in the paper's Appendix A.
//
// # Geometry
//
//	inner product   ⟨U, V⟩_X = tr(X⁻¹ U X⁻¹ V)
//	tangent space   the symmetric matrices; projection V ↦ sym(V)
//	gradient        grad f = X sym(∇f) X
//	Hessian         Hess f[U] = X sym(∇²f[U]) X + sym(U sym(∇f) X)
//	exponential     Exp_X(U) = L expm(L⁻¹ U L⁻ᵀ) Lᵀ, X = L Lᵀ (Cholesky)
//	logarithm       Log_X(Y) = L logm(L⁻¹ Y L⁻ᵀ) Lᵀ
//	distance        d(X, Y) = ‖log λ(Y, X)‖₂, λ the generalized eigenvalues
//	parallel transport  E U Eᵀ, E = (Y X⁻¹)^½ = L (L⁻¹ Y L⁻ᵀ)^½ L⁻¹
//
// The Retraction field chooses between SecondOrder (the zero value,
// X + U + ½ U X⁻¹ U as in Manopt, computed as ½X + ½(X+U) X⁻¹ (X+U), a sum
// of a positive definite and a semidefinite matrix, so the result is
// positive definite by construction) and Exponential. The TransportMethod
// field chooses between Identity (the zero value: every tangent space is the
// symmetric matrices) and Parallel (isometric).
//
// Every result that is a point or a tangent vector is exactly symmetric.
//
// # Cost and caching
//
// Most operations need the Cholesky factor of the point. An SPD keeps the
// factor of the last point it saw, with a copy of that point: a call at a
// point equal (entry for entry) to the cached one skips the factorization,
// whatever slice it arrives in, and a point changed in place is never
// mistaken for the old one. Comparing costs n² against the factorization's
// n³/3.
//
// An SPD is not safe for concurrent use; Clone gives another goroutine its
// own. Inner, Norm and the parallel transport return NaN at a matrix that
// is not positive definite; CheckPoint says why.
//
// # Misuse and bad data
//
// Slices of the wrong length are programming errors and panic, as in
// gonum. Data-dependent failures (a point that is not symmetric positive
// definite or not finite, an overflowing exponential) are errors wrapping
// the shared sentinels of package numerr (ErrNotFinite, ErrNotSymmetric,
// ErrNotPosDef, ErrOverflow) with the operation; test with errors.Is.
package spd

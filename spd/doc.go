// Package spd is the manifold of n×n symmetric positive definite matrices
// with the affine-invariant metric, as in the paper's Appendix A (New), or
// the log-Euclidean or Bures–Wasserstein metric (NewMetric; see Metrics
// below).
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
// # Metrics
//
// NewMetric(n, LogEuclidean) has ⟨U, V⟩_X = ⟨D log(X)[U], D log(X)[V]⟩_F,
// the Frobenius metric pulled back by the matrix logarithm (Arsigny et
// al. 2006; geoopt's "LEM", Manifolds.jl's LogEuclideanMetric): flat, with
// Exp_X(U) = expm(log X + D log(X)[U]), Log_X(Y) = D exp(log X)[log Y −
// log X], d(X, Y) = ‖log Y − log X‖_F and parallel transport
// D exp(log Y)[D log(X)[U]]. NewMetric(n, BuresWasserstein) has
// ⟨U, V⟩_X = ½ tr(L_X[U] V), L_X[U] solving X L + L X = U (Malagò,
// Montrucchio and Pistone 2018; Manifolds.jl's BuresWassersteinMetric):
// grad f = 2(XG + GX), Exp_X(U) = X + U + L X L, Log_X(Y) = (XY)^½ +
// (YX)^½ − 2X, d² = tr X + tr Y − 2 tr (X^½ Y X^½)^½, and no closed-form
// parallel transport (Transport panics with Parallel). logeuclid.go and
// bures.go give the Hessians and connections. Both work in the
// eigenbasis of the point, whose decomposition the manifold keeps for the
// last two points seen (a step's start and end), as it keeps the Cholesky
// factor; the log-Euclidean exponential hands its result's decomposition
// on, so a step costs one eigendecomposition. Under Bures–Wasserstein, at
// a point with κ = λ_max/λ_min ≥ 64 the smallest eigenpairs are refined
// once per point as LyapSym refines them (lapackx.RefineSmallEig): L_X[U]
// and what is built on it divide by λ_i + λ_j, and lose accuracy like
// κ·u with the eigensolver's pairs (bures.go). Under both, Retract is the
// exponential whatever the Retraction field says: each is closed-form and
// second order, and the affine-invariant second-order formula would be a
// first-order retraction of these metrics.
//
// # Off the tangent space
//
// A tangent vector is a symmetric matrix (CheckTangent says whether a
// matrix is one). Given a matrix U that is not, every operation reads its
// symmetric part sym(U) = (U + Uᵀ)/2, the tangent vector Project(U):
// Inner(X, U, V) is tr(X⁻¹ sym(U) X⁻¹ sym(V)), Norm(X, U) is ‖sym(U)‖_X
// (zero for a skew U, never negative), and Retract, Exp, Transport,
// EHessToRHess and ConnectionTerm act on sym(U). A vector that is
// symmetric only to rounding (float32 data, a gradient summed in another
// order) so gets the result of its nearest tangent vector, whichever
// triangle holds the rounding. Results do not depend on whether
// arguments share memory: Inner(X, U, U) equals Inner(X, U, copy of U),
// and each method's documentation says which destinations may be one of
// its arguments.
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

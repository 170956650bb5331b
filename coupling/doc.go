// Package coupling is the manifold of couplings (transport plans) between
// two discrete measures, Π(a, b) = {Γ ∈ R^{m×n} : Γ > 0, Γ1 = a, Γᵀ1 = b},
// with the Fisher information metric, as in the paper's Appendix A
// (the doubly stochastic manifold when m = n and a = b = 1).
//
// # Geometry
//
//	inner product   ⟨U, V⟩_Γ = Σ U_ij V_ij / Γ_ij
//	tangent space   {U : U1 = 0, Uᵀ1 = 0}
//	projection      P_Γ(Z) = Z − (α1ᵀ + 1βᵀ) ∘ Γ, with (α, β) solving
//	                [diag(Γ1) Γ; Γᵀ diag(Γᵀ1)] (α; β) = (Z1; Zᵀ1)
//	gradient        grad f = P_Γ(Γ ∘ ∇f)
//	Hessian         Hess f[ξ] = P_Γ(Γ ∘ ∇²f[ξ] + ½ ξ ∘ (∇f − α1ᵀ − 1βᵀ)),
//	                (α, β) those of the gradient's projection
//	retraction      R_Γ(ξ) = Sinkhorn(Γ ∘ exp(ξ ⊘ Γ))
//	transport       by projection
//
// The (m+n)-dimensional system behind the projection is solved matrix-free
// by conjugate gradients with a diagonal preconditioner; it is positive
// semidefinite with the one-dimensional null space (1; −1), which CG never
// enters because the right-hand side is orthogonal to it (both blocks sum
// to ΣZ) and which leaves the projection unchanged anyway.
//
// The Hessian follows from the ambient Fisher metric (coordinate-wise
// dx²/x, Christoffel symbol −1/(2x)) by projecting the ambient covariant
// derivative of the gradient field: the derivative of the projection's
// multipliers lies in the normal space and drops out, which leaves the
// formula above (cf. Douik and Hassibi 2019).
//
// # Sinkhorn
//
// The retraction's balancing runs on a kernel whose row and column
// potentials are kept in the log domain and absorbed into it whenever the
// scalings leave [1e−100, 1e100] (Schmitzer's stabilization), so that
// neither Γ ∘ exp(ξ ⊘ Γ) nor the scalings overflow or underflow; the inner
// iterations are plain matrix–vector products. Settings: Sinkhorn.MaxIter,
// Sinkhorn.Tol (the relative L1 marginal error to reach). Not converging is
// ErrSinkhornNotConverged, with the best plan found left in the destination
// and its error in LastMarginalError.
//
// A Coupling owns scratch space and is not safe for concurrent use; Clone
// gives another goroutine its own.
//
// # Misuse and bad data
//
// Slices of the wrong length are programming errors and panic, as in
// gonum. Settings out of range (a NaN, infinite or negative tolerance, a
// negative iteration cap) are ErrBadSetting errors naming the setting,
// from CheckSettings and wherever a setting is used with an error result
// (Retract, CheckPoint, CheckTangent); Project and the methods built on it
// have none and panic with that error. Data-dependent failures (a point
// that is not a positive plan with the marginals, a non-finite entry, a
// failed operation) are errors wrapping the numerr sentinels, or this
// package's ErrBadMarginal, ErrNotPositive, ErrMarginal and
// ErrSinkhornNotConverged.
package coupling

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
// A Stiefel owns scratch space: it is not safe for concurrent use; Clone
// gives another goroutine its own.
//
// # Misuse and bad data
//
// Slices of the wrong length are programming errors and panic, as in
// gonum. Data-dependent failures (a point that is not orthonormal, a non-finite
// entry, a failed operation) are errors wrapping the numerr sentinels, or ErrNotOrthonormal and ErrNotTangent.
package stiefel

// Package hyperrep is the paper's shallow hyper-representation problem
// (Section 4.2): learn a projection W ∈ St(d, k) of SPD matrices A_i ∈
// SPD(d) such that ridge regression on the features
//
//	φ_i(W) = vec(log(Wᵀ A_i W)) ∈ R^{k(k+1)/2}
//
// (the upper triangle of the k×k matrix logarithm, row-major, diagonal
// included, no √2 factors) fits the validation labels:
//
//	min_{W ∈ St(d,k)} f(W, β*) = 1/(2n_val) Σ_{i ∈ val} (φ_iᵀβ* − y_i)²,
//	β* = argmin_β g(W, β) = 1/(2n_tr) Σ_{i ∈ tr} (φ_iᵀβ − y_i)² + λ/2 ‖β‖².
//
// # Derivatives
//
// With B(β) the symmetric k×k matrix with B_aa = β_aa and B_ab = B_ba =
// β_ab/2, φᵀβ = ⟨L, B(β)⟩ for L = log M, M = WᵀAW. The Fréchet derivative
// of the logarithm is self-adjoint in the Frobenius inner product
// (Daleckii–Krein: with M = Vᵀ diag(λ) V, Dlog(M)[C] = Vᵀ(Γ ∘ VCVᵀ)V,
// Γ_ab = (log λ_a − log λ_b)/(λ_a − λ_b) symmetric), so
//
//	∇_W (φᵀβ) = 2 A W Dlog(M)[B(β)],
//
// and with residuals r_i = φ_iᵀβ − y_i and batch weights w_i (1/n each for
// the whole set):
//
//	∇_β g = Σ w_i r_i φ_i + λβ,         H = ∇²_β g = Σ w_i φ_i φ_iᵀ + λI,
//	grad_W g = P_W(Σ w_i 2 A_iW Dlog(M_i)[r_i B(β)]),
//
// and likewise for f on the validation set without the ridge. The cross
// derivative differentiates the last line in β along v: ∇_W g is linear
// in the residuals and in β, and P_W does not depend on β, so
//
//	G_Wβ g[v] = P_W(Σ w_i 2 A_iW Dlog(M_i)[(φ_iᵀv) B(β) + r_i B(v)]),
//
// one first Fréchet derivative per sample, of a different symmetric
// matrix; no second derivative of the logarithm is needed. Its adjoint,
// for u ∈ T_W,
//
//	G_βW g[u] = Σ w_i ((δ_iᵀβ) φ_i + r_i δ_i),  δ_i = vec(Dlog(M_i)[uᵀA_iW + WᵀA_iu]),
//
// is Dφ_i[u] through the chain rule. g is a quadratic in β, so the inverse
// Hessian is a Cholesky solve with the k(k+1)/2 × k(k+1)/2 matrix H,
// factorized once per W (and batch).
//
// # Finite sums
//
// f has n_val components f_i = ½ r_i² and g has n_tr components
// g_i = ½ r_i² + λ/2‖β‖² (the ridge stays whole in each): Problem.NF and NG
// let RSHGD sample them, and every oracle averages over the Point's batch
// (indices into the validation set for f, into the training set for g).
//
// # Cost
//
// Each new W needs, for all N samples, A_iW (one N·d×d by d×k product),
// M_i = WᵀA_iW, an eigendecomposition of M_i, log M_i and the Loewner
// matrix Γ_i; each first-order oracle then needs one Daleckii–Krein
// product of k×k matrices per sample and one d × nk by nk × k product. At
// the paper's sizes (N = 200, d = 50, k = 10) the eigendecompositions run
// in a pure-Go tridiagonal QL solver, faster than LAPACK through cgo at
// that order (spectral.SmallEig). An RHGD epoch there (S = 50) took 2.2 to
// 2.5 ms with HINV or CG and about 20 ms with AD, which differentiates
// through every lower step (BenchmarkHyperrepEpoch, on a shared 2-core
// machine); the features of each new W, 1.6 ms, are two thirds of the
// HINV epoch: a third of it the 200 eigendecompositions, a quarter the
// products A_iW and WᵀA_iW.
package hyperrep

// Package spdnet is the paper's deep hyper-representation problem
// (Section 4.2): a two-layer SPD network (Huang and Van Gool, AAAI 2017)
// whose Stiefel weights are the upper variable and whose classifier is the
// lower one, on the ETH-80 image-set covariances (package data/eth80).
//
// # The network and the problem
//
// For an SPD matrix A of order D (a 100×100 covariance of 41 images of
// 10×10 pixels),
//
//	Z1 = W1ᵀ A W1,  A1 = ReEig(Z1) = V diag(max(ε, λ)) Vᵀ,
//	Z2 = W2ᵀ A1 W2, φ(A) = vec(log Z2) ∈ R^m,
//
// with W1 ∈ St(D, D1), W2 ∈ St(D1, D2), m = D2(D2+1)/2 and vec the upper
// triangle, row by row, diagonal included. With logits φ_iᵀγ, γ ∈ R^{m×c}
// for c classes, and the cross-entropy CE_i = log Σ_k exp(φ_iᵀγ_k) − φ_iᵀγ_{y_i},
//
//	min_{(W1,W2)} f = Σ_{i ∈ val} w_i CE_i(W, γ*),
//	γ*(W) = argmin_γ g = Σ_{i ∈ train} w_i CE_i(W, γ) + λ/2 ‖γ‖²,
//
// w_i = 1/n for the whole set (or the minibatch's weights). The ridge makes
// g λ-strongly convex in γ (the cross-entropy is convex in the logits).
// The paper's sizes are D = 100, D1 = 20, D2 = 5 (m = 15), c = 8, five
// training sets per class, λ = 0.1, ReEig's ε = 1e−4, η_x = η_y = 0.1,
// S = 50, 30 epochs; the start is the authors' W1 = I_{100×20},
// W2 = I_{20×5} and γ with standard normal entries.
//
// # Derivatives
//
// In γ: ∇_γ CE_i = φ_i (p_i − e_{y_i})ᵀ with p_i the softmax of the logits,
// and ∇²_γ g = Σ w_i (φ_iφ_iᵀ) ⊗ (diag p_i − p_ip_iᵀ) + λI (HessGy applies
// it in O(nmc), HessGyInv factorizes the mc × mc matrix once per point).
//
// In W, backpropagation of an upstream gradient g_i = ∂/∂φ_i through the
// layers: with B(g) the symmetric matrix with B_aa = g_aa and
// B_ab = B_ba = g_ab/2 (so that ⟨S, B(g)⟩ = vec(S)ᵀg),
//
//	dZ2_i = Dlog(Z2_i)[B(g_i)],       ∂W2 = Σ 2 A1_iW2 dZ2_i,
//	dZ1_i = DReEig(Z1_i)[W2 dZ2_i W2ᵀ], ∂W1 = Σ 2 A_iW1 dZ1_i,
//
// then the projection onto T_W(St × St). The Fréchet derivatives of the
// spectral functions (package spectral, Daleckii–Krein with
// stable divided differences) are self-adjoint, so they are their own
// backward maps. ReEig takes the subgradient 0 at its kink (see
// spectral.ReEig); with the paper's ε = 1e−4 and covariances + 10⁻³I, every
// eigenvalue of W1ᵀAW1 is at least 10⁻³ (W1 has orthonormal columns), so
// ReEig is the identity there and its derivative is the identity too
// (exactly: spectral.Batch detects it).
//
// GradFx and GradGx backpropagate g_i = w_i γ(p_i − e_{y_i}); the cross
// derivative CrossGxy[V] backpropagates its derivative in γ,
// w_i (V(p_i − e_{y_i}) + γ (diag p_i − p_ip_iᵀ) Vᵀφ_i): the network is
// linear in the upstream gradient, and the projection does not depend on
// γ. Its adjoint CrossGyx differentiates the network forward along
// (U1, U2). No second derivative of a spectral function is needed.
//
// # Finite sums
//
// f has n_val components and g has n_tr (the ridge whole in each):
// Problem.NF and NG let RSHGD sample them, and every oracle averages over
// the Point's batch.
//
// # Cost
//
// Each new W needs, per set of n = 40 matrices, A_iW1 for all i (one
// n·D × D by D × D1 product, 16 Mflop, on one OpenBLAS thread: two were
// slower), W1ᵀ(A_iW1), n eigendecompositions of order D1 = 20 and n of
// order D2 = 5 (spectral.Batch: SmallEig, the 20×20 ones on both cores);
// each gradient in W one Daleckii–Krein product per sample and layer and
// one D × nD1 by nD1 × D1 product. On the shared 2-core machine
// (BenchmarkSPDNetEpoch, medians of 5) an epoch at the paper's settings
// took 3.6 ms with HINV, 3.2 ms with CG, 3.4 ms with NS and 11 ms with AD
// (which backpropagates through all 50 lower steps), with OpenBLAS; 7.3
// and 6.5 ms for HINV and CG on the pure-Go backend. The forward pass of
// both sets at a new W (BenchmarkForward) is 2.1–2.7 ms of it: the
// eigendecompositions about 55% of its CPU time, the products about 35%;
// a gradient in W (BenchmarkBackward) 0.14 ms. The lower steps only
// recompute the logits: the network's output depends on W alone.
package spdnet

// Package meta is Riemannian meta-learning (the paper's Section 4.3) on
// few-shot tasks drawn from the 8×8 handwritten digits (data/digits):
// MiniImageNet, the paper's data, is not available here.
//
// # The problem
//
// A shared layer with orthonormal weights maps an image x ∈ R^64 (pixels
// in [0, 1], minus the mean meta-training image) to features
// φ(x) = (tanh(Θᵀx), 1) ∈ R^{P+1}, Θ ∈ St(64, P), the last entry a bias.
// Each of M meta-training tasks (W-way, S = W·shots support and
// Q = W·queries query images) has its own linear head W_t ∈ R^{(P+1)×W}
// with logits W_tᵀφ and the cross-entropy CE:
//
//	min_Θ f(Θ, W*) = (1/M) Σ_t (1/Q) Σ_{query} CE,
//	W* = argmin_W g(Θ, W) = Σ_t ((1/S) Σ_{support} CE + λ/2 ‖W_t‖²).
//
// g is a sum over the tasks of λ-strongly convex functions of the heads,
// one each, so the lower problem is M independent problems and its Hessian
// is block diagonal; a sum rather than a mean gives each head its own
// task's gradient, the step the authors' inner loop takes per task.
// The meta-training tasks are drawn once (a fixed pool, unlike the
// authors' 16 fresh tasks per step), and every epoch uses all of them.
//
// The test accuracy (Accuracy) is the quantity the paper plots: on each
// of 200 held-out tasks, the head fitted exactly on its support set at the
// current Θ (the lower problem solved by Newton's method with CG steps,
// from zero) classifies its query set; the accuracies are averaged over
// the tasks.
//
// # Splits
//
// BySample (the default): every digit on both sides, each class's images
// halved at random; tasks draw 5 of the 10 classes. ByClass: digits 0–4 for
// meta-training, 5–9 for test tasks, the standard novel-class protocol;
// with ten classes it leaves one 5-class meta-training set (every task a
// relabelling of the same classes), and the features learned on it do not
// transfer: the test accuracy falls below the start's (see TestSplits).
//
// # Derivatives
//
// In the heads, per task, the softmax regression's ∇ = (1/S) Σ φ(p − e_y)ᵀ
// + λW_t and Hessian (1/S) Σ (φφᵀ) ⊗ (diag p − ppᵀ) + λI (HessGyInv
// factorizes each (P+1)W × (P+1)W block once per point). In Θ, an upstream
// gradient u_i = ∂/∂φ_i of each image (summed over the tasks that use it)
// backpropagates to Xᵀ((U)_{:P} ∘ (1 − H²)), H = tanh(XΘ), then to the
// Riemannian gradient by the tangent projection. CrossGxy backpropagates
// the derivative in W of the support rows' upstream gradients; CrossGyx
// differentiates the features forward, dφ = ((1 − h²) ∘ Uᵀx, 0).
//
// # PHGD
//
// The paper's extrinsic baseline takes a Euclidean hypergradient step and
// projects onto the Stiefel manifold. Config.Extrinsic (the Spec's
// -baseline phgd) gets it from the same solver by giving Θ the manifold
// Extrinsic: Euclidean metric and gradients (so every oracle returns the
// Euclidean derivative and the estimators the Euclidean hypergradient),
// identity transport, and the polar projection of X + tU as retraction.
// Its hypergradient's tangent projection is RHGD's (TestExtrinsic).
//
// # Cost
//
// At the defaults (50 tasks of 25 support and 75 query images, P = 16,
// S = 30) an epoch took 11–12 ms with HINV or CG, 16.5 ms with NS and
// 22 ms with AD, RHGD and PHGD alike (BenchmarkMetaEpoch, medians of 5,
// shared 2-core machine, OpenBLAS; 14.5 ms for HINV on the pure-Go
// backend). Half of a HINV epoch is the 30 lower steps (softmax
// probabilities and gradients of 1250 support rows each), most of the
// other half the 50 Hessian blocks of 85×85 (formed, 0.98 of 3.7 s of
// profile, and factorized). The test accuracy over 200 held-out tasks
// (BenchmarkAccuracy) takes 24 ms: a Newton–CG head solve per task.
package meta

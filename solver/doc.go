// Package solver runs Riemannian hypergradient descent (Han, Mishra,
// Jawanpuria and Takeda, NeurIPS 2024) and holds the interfaces it consumes.
//
// # Problems
//
// A Problem is min_{x ∈ Mx} f(x, y*(x)) with y*(x) = argmin_{y ∈ My} g(x, y):
// its two manifolds and a struct of output-first oracles, each reading x
// and y from a *Point and returning an error when it cannot compute a
// finite result. A nil oracle means "not available". Problems are built
// from other descriptions in one style, by functions that return a
// Problem and compose in any order: Euclidean(EuclideanProblem) converts
// Euclidean derivatives, FillFD fills missing second-order oracles by
// finite differences, MinMax turns min_x max_y f into a bilevel problem
// (run it with the GDA estimator for the paper's Algorithm 3) and
// Compositional(CompositionalProblem, Mx, My) turns min ψ(φ(x)) into one.
// Every one is then run by New. A finite-sum problem (Problem.NF, NG) receives its
// minibatch in the Point, so RSHGD is Settings.Batches on any of them.
//
// # Points and caches
//
// The solver gives every iterate a process-unique identity (NewID) and
// passes it in the Point with x and y. A problem keeps work done at a
// point (a factorization of y, a matrix of x alone) in a Memo and checks
// it in O(1), one Memo.Fill call at the top of each oracle that needs it
// (ExampleMemo_Fill); a Point of unknown identity never matches, so results never
// depend on what was evaluated before. CheckProblem tests exactly that,
// with every derivative. An estimator that comes back to earlier points
// (AD, in reverse through the lower iterates) makes the solver call
// Problem.Retain with their number; a MemoRing then keeps work of that
// many points, so the forward pass's survives to the backward one.
//
// # Estimators
//
// An Estimator is a description with settings (HInv, CG, Neumann, AD,
// GDA, or one of your own); Bind gives each solver its own instance, which
// calls the oracles through an Env that counts them and hands each the
// minibatch Algorithm 2 assigns it. ParseEstimator reads "cg:tol=1e-10"
// style specs, as the command line and the C ABI take them. An estimator
// states the oracles it calls as a typed set (Needs, Oracles); a Problem
// reports its own (Available).
//
// HInv ("hinv") takes the problem's HessGyInv; without one, on a lower
// manifold of dimension D at most HInv.MaxDim (hinv:maxdim, default
// DefaultHInvMaxDim), it derives the inverse from HessGy, so that every
// front end has it on any lower manifold: once per lower iterate (and
// Hessian minibatch) it forms the D×D matrix of H in a basis of T_y
// orthonormal in the metric (the identity on a EuclideanSpace; else
// projected random vectors, orthonormalized by Gram–Schmidt twice) by D
// products (one call of the problem's HessGyBatch when it has one: one
// crossing for a callback problem) and factors it by Cholesky. The
// matrix's eigenvalues are H's, so the epoch's spectrum estimate
// (MinEig, MaxEig) is exact, and a Hessian that is not positive definite
// stops it with ErrNotPositive or ErrSingular as CG. Above MaxDim such a
// problem is an error at New that names the dimension and the limit, and
// CG is the estimator to use.
//
// Beyond the paper, FirstOrder ("fo") needs gradients only: F²SA's
// value-function penalty (Kwon et al., ICML 2023) as RF²SA poses it on
// manifolds (Dutta, Cheng and Sra, arXiv 2405.15816), with a second lower
// iterate z for f + λg beside the solver's y, the surrogate
// grad_x f(x, z) + λ(grad_x g(x, z) − grad_x g(x, y)) and a growing λ. Its
// bias is O(1/λ) and errors in y and z enter multiplied by λ, so it wants
// an accurate lower solve; it runs on problems with no second-order
// oracle, with nothing filled by finite differences. It estimates its own
// bias with gradients only (Richardson extrapolation in λ and the lower
// iterates' geometric tail), reports it as the error bound, stops
// GradTol and RelGradTol on ‖ĝ‖ plus it, and by default adapts λ to it.
//
// SABA ("saba") is RSHGD with variance reduction: the joint steps of
// Dagréou et al.'s SABA on y, the linear system's v and x, each along a
// SAGA estimate whose memories (one row per block of components) are
// transported from the tangent spaces where they were computed to the
// current point. It takes the solver's lower steps itself (their
// direction, through the lowerDirector hook), so with minibatches and
// InnerIters = 1 it converges linearly on strongly convex finite sums
// with constant steps, where RSHGD stalls at a noise floor.
//
// # Running
//
// Minimize(ctx, p, x0, y0, settings) runs RHGD; New, Reset and Step run it
// an epoch at a time. Settings' zero value works; values out of range are
// errors naming the setting. ParseSettings reads "eta_x=0.5,epochs=100"
// specs and Settings.String writes them, from one table (SettingsTable)
// that the CLI's flags, the C ABI and the Python package follow. One
// rule holds for zero everywhere: a setting left out takes its default,
// and 0 means 0 where 0 is a value of the setting. In a spec an explicit
// 0 for a setting that has no zero (epochs=0, eta_x=0) is an error, never
// a silent default (SettingInfo.ZeroIsDefault; ParseEstimator does the
// same for cg:maxiter=0 and the like); in Go a zero field is a field
// left out, so Settings{EtaX: 0} runs the default η_x, and a zero
// GradTol means no gradient test (see Settings). Estimate gives the hypergradient
// at a point; EstimateLower at a given x after the settings' lower solve,
// and LowerGradNorm how accurate a lower iterate is. A run stops on its
// epoch limit, GradTol, Runtime, the context, or trouble: a non-finite
// value, a diverging lower level, or an error from an oracle or a manifold
// operation, returned with
// its cause ("lower retraction at epoch 12, step 3: spd: not positive
// definite: ...") and matched by errors.Is against the numerr sentinels.
// A failed run returns the best iterate it had. A Recorder sees each
// epoch's iterates and statistics.
//
// Steady-state epochs allocate nothing in rhgd's own work (the solver,
// the estimators, the manifolds, lapackx), so an epoch allocates nothing
// when the problem's oracles allocate nothing, which depends on their
// BLAS: gonum (mat, blas64) calls the global blas64, whose default
// implementation starts goroutines, and so allocates, for every matrix
// product (Dgemm) whose result spans four or more 64×64 blocks (more
// than 64 rows and columns). Oracles that compute through
// blas.Impl() (rhgd's BLAS) allocate nothing on either backend, and after
// blas.Init gonum computes on rhgd's BLAS too. On the pure-Go backend
// rhgd's own LAPACK reaches BLAS through blas64 as well: there, only a
// program that calls blas.Init has allocation-free epochs at those sizes
// (see package blas).
//
// A long run survives its process: SaveState writes the whole state
// between epochs (iterates, best iterate, counts, the step-size rules'
// memories, both random streams, the estimator's own state through its
// optional MarshalBinary and UnmarshalBinary) as a versioned, checksummed
// checkpoint, and LoadState then Resume continue it, in another process,
// to the same floats bit for bit. A checkpoint of another problem, other
// settings or sizes, or a corrupt one is an ErrCheckpoint naming what
// differs. Settings.Checkpoint saves during Run: CheckpointFile every N
// epochs and when a budget or a cancellation stops the run, by a
// temporary file and a rename.
//
// # Manifolds
//
// A Manifold is implemented by the manifold packages (spd, stiefel,
// coupling, euclid, simplex, product), which do not import this package
// (product does, for the interfaces of its factors): the interfaces live
// here, where they are used, and each implementation asserts them in its
// external tests. Points and tangent vectors are flat []float64 of the
// length the manifold's Len gives; every operation writes into a
// caller-supplied destination and allocates nothing after construction.
// Optional capabilities (Exper, Logger, Distancer, Connection, Whitener,
// EuclideanSpace, RetractionChooser) are found with AsExper and its
// siblings, IsEuclideanSpace and AsRetractionChooser, or a type
// assertion. A Snapper accepts points within float32 rounding of it by
// projecting them, with a note (SnapPoint); loaders, the C ABI and Reset
// (so Run, Estimate, Minimize) use it on the starting points they are
// given (RHGD.StartNotes).
//
// A new manifold need not write all of Manifold: package manifold has the
// small interface of its own mathematics (manifold.Core) and embeddable
// defaults for the rest, which keep its capabilities visible here.
//
// # Checks
//
// CheckGradient, CheckHessian, CheckRetraction, CheckTransport,
// CheckExpLog and CheckCrossDerivative test user-supplied derivatives and
// manifold operations numerically, as Manopt's checkgradient does: each
// fits the slope of a Taylor remainder on a log–log scale and returns a
// CheckReport. CheckProblem runs the relevant ones on every oracle of a
// Problem.
//
// # Lower levels that are not strongly convex
//
// The paper's guarantees need g to be geodesically μ-strongly convex in y,
// so that H = H_y g is positive definite. When it is not (a PL or merely
// convex g, whose H is singular, or an indefinite H away from y*), the
// solver detects and handles it.
//
// Detect: each epoch records Lanczos estimates of the extreme eigenvalues
// of H at (x_k, y_{k+1}) in EstimatorStats.MinEig and MaxEig. CG gets
// them free: its step sizes α_j and residual ratios β_j are the Lanczos
// tridiagonal T_jj = 1/α_j + β_{j−1}/α_{j−1}, T_{j,j+1} = √β_j/α_j (Golub
// and Van Loan, Matrix Computations, §10.2.6), whose extreme Ritz values
// come by Sturm bisection. HINV deriving its inverse reports the exact
// extreme eigenvalues of the matrix it factors. Other estimators get them from
// Settings.Lanczos steps of the Lanczos process from a random tangent
// vector (one Hessian–vector product each). Ritz values lie inside the
// spectrum: MinEig ≥ λ_min(H). CG itself stops with ErrSingular when the
// curvature ⟨p, Hp⟩/‖r‖² along a search direction falls to CurvatureTol
// times its largest value (H numerically singular along p) or its
// residual grows by ResidualGrowth, and with ErrNotPositive when
// ⟨p, Hp⟩ ≤ 0; both match numerr.ErrNotPosDef, say that g is not
// strongly convex there and name the remedy, and the run returns its
// best iterate, instead of CG oscillating silently.
//
// Handle: CG and Neumann take damping=δ (a fixed δ > 0) or damping=auto
// (ParseEstimator; CG.Damping, CG.AutoDamping) and solve the
// Levenberg–Marquardt (Tikhonov) system (H + δI) v = b, b = grad_y f;
// auto chooses δ = max(0, AutoDampingRatio·λ̂_max − λ̂_min) from a Lanczos
// estimate at every estimate. HINV cannot be damped: its HessGyInv is the
// problem's exact inverse, an oracle that has no H to shift (and does not
// exist when H is singular), and the one it derives is H's exact inverse
// too; use cg:damping on such problems. The bias
// of the damping, for self-adjoint H ⪰ 0 (Nocedal and Wright, Numerical
// Optimization, §10.3 and §4.4 on Levenberg–Marquardt; Engl, Hanke and
// Neubauer, Regularization of Inverse Problems, §5 on Tikhonov):
//
//   - H positive definite with λ_min(H) = μ: (H+δI)⁻¹b − H⁻¹b =
//     −δ(H+δI)⁻¹H⁻¹b, so ‖(H+δI)⁻¹b − H⁻¹b‖ ≤ δ/(μ(μ+δ))·‖b‖, and the
//     hypergradient's error from damping is at most ‖G_xy g‖ times that.
//   - H singular: on range(H) the damped solution converges to the
//     minimum-norm (pseudo-inverse) solution H⁺b as δ → 0, with
//     ‖P_range((H+δI)⁻¹b) − H⁺b‖ ≤ δ/(μ₊(μ₊+δ))·‖b‖, μ₊ the least
//     nonzero eigenvalue; the component in ker H is P_ker b/δ, which grows
//     without bound unless b ⊥ ker H. The damped hypergradient
//     grad_x f − G_xy g[(H+δI)⁻¹b] converges to the pseudo-inverse one
//     grad_x f − G_xy g[H⁺b] exactly when G_xy g vanishes on ker H (g
//     depends on y only through directions that H sees, as for
//     g(x, y) = h(x, P y) with a projector P): then the damping's bias is
//     at most ‖G_xy g‖·δ/(μ₊ + δ)·‖P_range b‖/μ₊ for every δ > 0, and
//     that is the hypergradient of the lower solution gradient steps
//     select (problems/plstiefel is such a problem, and tests it).
//     Otherwise the implicit hypergradient is not defined, and no damping
//     recovers one.
//
// # The hypergradient's error bound
//
// After each epoch EpochStats.HyperGradErrBound estimates ‖ĝ − grad F(x_k)‖
// a posteriori, following the structure of the paper's Lemma 1. Write
// the estimate as ĝ = grad_x f(x, y) − C[v] with C = G_xy g(x, y), v ≈
// H⁻¹b and b = grad_y f(x, y), at the epoch's y = y_{k+1}, and let
// v* = H⁻¹b. Then
//
//	ĝ − grad F = (grad_x f(x,y) − C[v*] − grad F(x)) − C[v − v*],
//
// the first term the error of the exact formula at an inexact y, the
// second the linear solve's. Strong convexity gives d(y, y*) ≤
// ‖grad_y g‖/μ and ‖v − v*‖ ≤ ‖b − Hv‖/μ. With L a Lipschitz constant of
// grad f and H (and a bound of ‖C‖) and ρ one of H and C in y, the
// triangle inequality through v* (as in Lemma 1's proof for HINV) bounds
// the first term by (L + ρ‖v‖)(1 + ‖C‖/μ)·d(y, y*). The solver plugs in
// online estimates:
//
//	bound = (L̂ + ρ̂‖v‖)(1 + Ĉ/μ̂)·‖grad_y g‖/μ̂ + Ĉ·‖r‖/μ̂
//
// with these estimates:
//
//   - μ̂ = EstimatorStats.MinEig and L̂ = MaxEig, the Ritz values above
//     (CG's, or Settings.Lanczos steps'; without either the bound is NaN,
//     and it is +Inf when μ̂ ≤ 0: no strong convexity, no bound);
//   - Ĉ = ‖C[v]‖/‖v‖, measured in the estimate (λ̂_max when v is not
//     formed, as in AD);
//   - ‖v‖ measured (‖b‖/μ̂ when not formed);
//   - ρ̂ = μ̂, the scale at which H changes by its own smallest eigenvalue
//     over a unit distance (the paper's analysis takes κ_ρ = ρ/μ = Θ(κ_l);
//     κ_ρ = 1 keeps the estimate within two orders of the true error);
//   - ‖r‖ = ‖b − Hv‖ of the undamped system: HINV 0; CG its recursive
//     residual plus δ‖v‖ when damped; NS ‖(I − γ(H+δI))^{T−1}b‖ (plus
//     δ‖v‖), which bounds the residual (I − γ(H+δI))^T b when γ(H+δI) ⪯ 2I;
//     AD the final adjoint λ_0 = Π(I − η_yH)b, its residual at a fixed y;
//   - ‖grad_y g‖ = EpochStats.LowerGradNorm, at the last lower gradient's
//     point (one step before y_{k+1}: an overestimate for contracting
//     lower steps).
//
// FirstOrder reports its own estimate instead (Env.SetBias; see
// FirstOrder): the formula above is for ĝ = grad_x f − C[v], and FO
// forms no v and no spectrum estimate.
//
// Since μ̂ ≥ μ and Ĉ ≤ ‖C‖, the estimate is not a proof; on the synthetic
// problem (problems/synthetic's TestErrorBound, against HINV at the exact
// lower solution) it held on every epoch of runs of HINV, CG, NS and AD
// with 3 and 10 lower steps (400 epochs), and was within 100× of the true
// error on 60% of them at n, d, r = 40, 12, 4 and 72% at the paper's size
// (it overestimates by 10× to 500×). Computing it costs two norms per
// epoch and allocates nothing; the solver computes it when a Recorder is
// set or LowerRule.ErrBound asks for it: that rule ends each lower loop
// once the bound's lower-level term is Tol times the last hypergradient
// norm.
package solver

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
// it in O(1); a Point of unknown identity never matches, so results never
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
// Beyond the paper, FirstOrder ("fo") needs gradients only: F²SA's
// value-function penalty (Kwon et al., ICML 2023) as RF²SA poses it on
// manifolds (Dutta, Cheng and Sra, arXiv 2405.15816), with a second lower
// iterate z for f + λg beside the solver's y, the surrogate
// grad_x f(x, z) + λ(grad_x g(x, z) − grad_x g(x, y)) and a growing λ. Its
// bias is O(1/λ) and errors in y and z enter multiplied by λ, so it wants
// an accurate lower solve; it runs on problems with no second-order
// oracle, with nothing filled by finite differences.
//
// # Running
//
// Minimize(ctx, p, x0, y0, settings) runs RHGD; New, Reset and Step run it
// an epoch at a time. Settings' zero value works; values out of range are
// errors naming the setting. ParseSettings reads "eta_x=0.5,epochs=100"
// specs and Settings.String writes them, from one table (SettingsTable)
// that the CLI's flags, the C ABI and the Python package follow. Estimate
// gives the hypergradient at a point. A run stops on its epoch limit, GradTol,
// Runtime, the context, or trouble: a non-finite value, a diverging lower
// level, or an error from an oracle or a manifold operation, returned with
// its cause ("lower retraction at epoch 12, step 3: spd: not positive
// definite: ...") and matched by errors.Is against the numerr sentinels.
// A failed run returns the best iterate it had. A Recorder sees each
// epoch's iterates and statistics. Steady-state epochs allocate nothing.
//
// # Manifolds
//
// A Manifold is implemented by the manifold packages (spd, stiefel,
// coupling, euclid, product), which do not import this package (product
// does, for the interfaces of its factors): the interfaces live here,
// where they are used, and each implementation asserts them in its
// external tests. Points and tangent vectors are flat []float64 of the
// length the manifold's Len gives; every operation writes into a
// caller-supplied destination and allocates nothing after construction.
// Optional capabilities (Exper, Logger, Distancer, Connection) are found
// with AsExper and its siblings. A Snapper accepts points within float32
// rounding of it by projecting them, with a note (SnapPoint); loaders and
// the C ABI use it on the starting points they are given, while Run
// checks its start to float64 tolerances.
//
// # Checks
//
// CheckGradient, CheckHessian, CheckRetraction, CheckTransport,
// CheckExpLog and CheckCrossDerivative test user-supplied derivatives and
// manifold operations numerically, as Manopt's checkgradient does: each
// fits the slope of a Taylor remainder on a log–log scale and returns a
// CheckReport. CheckProblem runs the relevant ones on every oracle of a
// Problem.
package solver

package solver

import (
	"fmt"
	"math"

	"github.com/rhgd/rhgd/numerr"
)

// Problem is the bilevel problem
//
//	min_{x ∈ Mx} F(x) = f(x, y*(x)),   y*(x) = argmin_{y ∈ My} g(x, y),
//
// with g geodesically strongly convex in y, given by its manifolds and
// Riemannian oracles. Each oracle writes its output into dst (output
// first, as in gonum's optimize), reads x and y from the Point, and
// returns an error, with its cause, when it cannot compute a finite
// result (a failed factorization, a point off its domain): the solver
// stops with that error instead of carrying a NaN. A NaN or ±Inf that
// an oracle returns at a finite point stops the run in the same way, with
// an error wrapping numerr.ErrNotFinite that names the oracle. None may
// modify its other arguments or keep them. A nil oracle means "not
// available": estimators say which they need, and the solver fills
// HessGy and CrossGxy by finite differences of gradients when they are
// missing (see FillFD).
//
// An oracle that panics panics the run, as in gonum's optimize: panics are
// for programming errors (a slice of the wrong length), errors for data.
// The C ABI recovers them at its boundary.
//
// Problems compose: Euclidean, FillFD, MinMax and Compositional build a
// Problem from another description, and minibatches are part of the
// evaluation point (Point.Batch), so a Euclidean finite-sum problem with
// finite-difference Hessians run by RSHGD is FillFD(Euclidean(e), h)
// with Settings.Batches.
type Problem struct {
	// Mx and My are the upper and lower manifolds.
	Mx, My Manifold
	// NF and NG, when positive, say that f and g are averages of NF and NG
	// components, f = (1/NF) Σ f_i: the oracles then average over
	// Point.Batch (all components when nil), and RSHGD (Settings.Batches)
	// can sample them. Zero means no such structure.
	NF, NG int
	// ZeroSum says that g = −f: the problem is min_x max_y f(x, y), made
	// by MinMax. The GDA estimator needs it, since only there does
	// grad_y f vanish at y*(x).
	ZeroSum bool

	// F returns the upper objective f(x, y).
	F func(pt *Point) (float64, error)
	// GradFx sets dst ∈ T_x to the Riemannian gradient of f in x.
	GradFx func(dst []float64, pt *Point) error
	// GradFy sets dst ∈ T_y to the Riemannian gradient of f in y.
	GradFy func(dst []float64, pt *Point) error

	// G returns the lower objective g(x, y); optional, for checks.
	G func(pt *Point) (float64, error)
	// GradGy sets dst ∈ T_y to the Riemannian gradient of g in y.
	GradGy func(dst []float64, pt *Point) error
	// GradGx sets dst ∈ T_x to the Riemannian gradient of g in x; needed
	// only to fill CrossGxy by finite differences.
	GradGx func(dst []float64, pt *Point) error
	// HessGy sets dst ∈ T_y to the Riemannian Hessian of g in y applied to
	// v ∈ T_y.
	HessGy func(dst []float64, pt *Point, v []float64) error
	// CrossGxy sets dst ∈ T_x to the cross derivative
	// G_xy g[v] = D_y grad_x g(x, y)[v] for v ∈ T_y.
	CrossGxy func(dst []float64, pt *Point, v []float64) error
	// CrossGyx sets dst ∈ T_y to G_yx g[u] = D_x grad_y g(x, y)[u] for
	// u ∈ T_x, the adjoint of CrossGxy; optional, for checks.
	CrossGyx func(dst []float64, pt *Point, u []float64) error
	// HessGyInv sets dst ∈ T_y to H_y g(x, y)⁻¹[v], for the HINV estimator.
	HessGyInv func(dst []float64, pt *Point, v []float64) error
	// LowerSolve sets dst to the lower solution y*(x) = argmin_y g(x, y)
	// (pt.Y is the current lower iterate, a warm start where that helps);
	// optional: a closed form, when the problem has one, that
	// Settings.Lower.UseLowerSolve runs instead of lower steps. The run
	// checks each point it returns with one GradGy there: a lower
	// gradient above 1e-3 of its scale (‖y‖ times g's curvature, measured
	// once per run) stops the run with ErrLowerSolve. CheckProblem
	// checks it to ProblemCheck.Tol.
	LowerSolve func(dst []float64, pt *Point) error
	// HessGyBatch, optional, is HessGy applied to k tangent vectors at
	// once: v holds v_1, …, v_k ∈ T_y and dst receives H_y g[v_1], …,
	// H_y g[v_k], both k×My.Len() row-major (row i is v_i, H_y g[v_i]), on
	// pt's batch, as k HessGy calls would compute them. HINV's derived
	// inverse (a problem without HessGyInv) calls it once per point with
	// the D = My.Dim() basis vectors of T_y in place of D HessGy calls,
	// which saves time when each call crosses into another runtime (a C
	// or Python callback) or a framework computes the k products in one
	// batched pass. It counts k Hessian products (Stats.HessVecs). dst
	// does not alias v. FillFD does not fill it; CheckProblem checks it
	// against k HessGy calls.
	HessGyBatch func(dst []float64, pt *Point, v []float64, k int) error

	// LowerSteps, optional, runs n of the paper's lower steps in one call
	// on a Euclidean lower manifold (IsEuclideanSpace(My)): from y_0 =
	// pt.Y,
	//
	//	y_{s+1} = y_s − eta·∇_y g(x, y_s),   s = 0, …, n−1,
	//
	// with ∇_y g the Euclidean gradient (there the Riemannian one, GradGy)
	// and the step computed as My.Retract computes y + t·u, t = −eta
	// (y[i] + t*u[i] for euclid.Euclidean); it sets dst = y_n and norms[s]
	// = ‖∇_y g(x, y_s)‖_F, the Frobenius norm, for s < n (len(norms) ≥ n).
	// It must equal n of the solver's own steps, GradGy then My.Retract,
	// to rounding, which the step-by-step loop would take instead. dst
	// does not alias pt.Y, and pt.Batch is nil (the full sums).
	//
	// RHGD calls it once per epoch in place of S GradGy calls and
	// retractions, which saves time when each oracle call crosses into
	// another runtime (a C or Python callback), and checks the returned
	// norms for divergence exactly as it checks its own steps. It does so
	// only where the loop is that fixed sequence: on a Euclidean My, with
	// the paper's fixed steps (no Lower.BB, Lower.Tol zero), no lower
	// minibatches (NG = 0, or Settings.Batches.Lower zero: the whole
	// finite sum at every step), and an estimator that
	// does not keep the lower iterates (not AD); otherwise, and on any other manifold, the
	// solver ignores it and takes its own steps, so GradGy stays
	// required. Each call counts n lower gradients (Stats.LowerGrads).
	LowerSteps func(dst []float64, pt *Point, n int, eta float64, norms []float64) error

	// LowerStepsVJP, optional, differentiates LowerSteps' map in reverse
	// mode: with y_n(x, y_0) the point that n lower steps take from y_0 =
	// pt.Y (as LowerSteps takes them, on the whole g), it sets dx ∈ T_x
	// to the Riemannian gradient in x of ⟨lam, y_n(x, y_0)⟩ and dy to its
	// gradient in y_0 (lam and dy in the Euclidean My's coordinates). AD
	// then makes one call per estimate in place of its reverse sweep over
	// the kept lower path (n CrossGxy and n HessGy calls), which saves
	// time when each crosses into another runtime, and a problem written
	// in an autodiff framework can differentiate the unrolled loop as a
	// whole (its x-only work, such as features of x, once). It must equal
	// that sweep in exact arithmetic: dx = −η Σ_s G_xy g(x, y_s)[μ_s], dy
	// = λ_0 with λ_n = lam, μ_s = λ_{s+1}, λ_s = μ_s − η ∇²_yy g(x, y_s)
	// μ_s. The solver uses it only where it runs LowerSteps (see there)
	// and the Hessian and cross batches are not sampled either; it counts
	// n Hessian and n cross products (Stats.HessVecs, CrossVecs).
	LowerStepsVJP func(dx, dy []float64, pt *Point, n int, eta float64, lam []float64) error

	// Retain, optional, tells the problem that an estimator will come
	// back to up to n points, in any order, with the oracles it needs
	// there: AD revisits the S+1 lower iterates of each epoch in reverse
	// (the solver calls Retain(S+1) from New). A problem that keeps
	// per-point work by identity (Memo) can size its caches to n
	// (MemoRing), so that work of the forward pass survives to the
	// backward one. Solvers may share a problem: n is a lower bound, and
	// a smaller n later must not shrink the caches. Retain may allocate;
	// it is not an oracle.
	Retain func(n int)
}

// Errors of problem set-up; each also matches numerr.ErrInvalid.
var (
	// ErrMissing signifies a problem without an oracle that the estimator
	// or the solver needs.
	ErrMissing = numerr.New(numerr.ErrInvalid, "solver: missing oracle")
	// ErrBadStart signifies an initial point of the wrong size, not finite
	// or not on its manifold.
	ErrBadStart = numerr.New(numerr.ErrInvalid, "solver: bad initial point")
	// ErrBadSetting signifies a setting out of its range (a negative step
	// size, a NaN tolerance, ...) or a problem without its manifolds.
	ErrBadSetting = numerr.New(numerr.ErrInvalid, "solver: bad setting")
)

// need returns an error wrapping ErrMissing naming every oracle of want
// p lacks, and for those FillFD could fill, the gradient that would let
// it.
func (p *Problem) need(want Oracles) error {
	if missing := want &^ p.Available(); missing != 0 {
		return numerr.Errorf("%w: %v%v", ErrMissing, missing, fdHint(missing))
	}
	return nil
}

// check validates the problem's structure.
func (p *Problem) check() error {
	switch {
	case p.Mx == nil || p.My == nil:
		return fmt.Errorf("%w: the problem needs both manifolds, Mx and My", ErrBadSetting)
	case p.NF < 0 || p.NG < 0:
		return fmt.Errorf("%w: NF = %d, NG = %d components", ErrBadSetting, p.NF, p.NG)
	}
	return nil
}

// acceptStart copies x, the point named name, into dst as a point of m,
// by the rule of the loaders and the C ABI (SnapPoint): x as it is when
// m.CheckPoint accepts it, else x projected onto m when m is a Snapper
// and x is within float32 rounding of m, with the note saying so ("x0:
// ‖XᵀX − I‖_F = 1.1e-07, re-orthonormalized (polar factor)"). A point of
// the wrong length, not finite, or farther off m is an error wrapping
// ErrBadStart. dst may be x. Only a projection allocates.
func acceptStart(name string, m Manifold, dst, x []float64) (note string, err error) {
	if err := checkStart(name, m, x); err == nil {
		copy(dst, x)
		return "", nil
	} else if _, ok := m.(Snapper); !ok || len(x) != m.Len() || firstNotFinite(x) >= 0 {
		return "", err
	}
	copy(dst, x)
	note, err = SnapPoint(m, dst)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrBadStart, name, err)
	}
	return name + ": " + note, nil
}

// checkStart validates an initial point on m.
func checkStart(name string, m Manifold, x []float64) error {
	if len(x) != m.Len() {
		return fmt.Errorf("%w: %s has length %d, want %d", ErrBadStart, name, len(x), m.Len())
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d] = %v", ErrBadStart, name, i, v)
		}
	}
	if err := m.CheckPoint(x); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrBadStart, name, err)
	}
	return nil
}

package solver

import (
	"math"
	"math/rand/v2"

	"github.com/rhgd/rhgd/numerr"
)

// ErrLowerSolve signifies a Problem.LowerSolve whose point is not a
// stationary point of g(x, ·): a wrong closed form, or an inner solver
// that stopped early. It matches numerr.ErrNotConverged (the lower
// problem was not solved).
var ErrLowerSolve = numerr.New(numerr.ErrNotConverged, "solver: LowerSolve's point is not a stationary point of g(x, ·)")

// The run's check of Problem.LowerSolve (RHGD.lowerExact). A correct
// closed form leaves a lower gradient of rounding size, ε·‖H‖·‖y‖ for a
// backward-stable solve (κ(H)·ε·‖H‖·‖y‖ for one that is only forward
// stable, as with an explicit inverse), H the Hessian of g; a wrong one
// (2y*, y* of another x) leaves one of the size of ‖H‖·d(y, y*). The run
// fails one whose gradient exceeds lowerSolveTol times the scale
// ‖H[û]‖·‖y‖, with the curvature ‖H[û]‖ that gradScale measures. 1e-3
// is 10¹² times the rounding of a correct closed form (the test
// TestLowerSolveChecked measures 1e-16 of the scale, also at
// κ(H) = 10⁸), and leaves
// room for one only forward stable up to κ(H) ≈ 10¹² and for oracles
// computed in float32 (ε ≈ 6e-8) up to κ(H) ≈ 10⁴; 2y* measures 0.26
// there, and y* 1% off 0.005. CheckProblem applies the stricter
// ProblemCheck.Tol.
const (
	lowerSolveTol = 1e-3
	// lowerScaleStep is gradScale's relative perturbation δ: large enough
	// that δ·‖H‖·‖y‖ stands far above the gradient's rounding, small
	// enough that the difference is H's first-order term.
	lowerScaleStep = 0x1p-10
	// lowerScaleSeed seeds gradScale's random direction in a run, so that
	// the check is the same in every run and draws nothing from the
	// solver's streams.
	lowerScaleSeed = 0x10e7
)

// gradScale returns the curvature the lower gradient at y is measured
// against: ‖grad_y g(x, ỹ) − grad_y g(x, y)‖_F/(δ·size) (ambient
// Frobenius norms) for ỹ = R_y(u), u a random tangent at y with ‖u‖_F =
// δ·size and δ = lowerScaleStep: about ‖H[û]‖_F, û = u/‖u‖_F. Times the
// size of the points (‖y‖_F), that is the scale the rounding of a
// gradient at a stationary point is relative to; the run measures the
// curvature once and multiplies it by each solve's size, since y can
// grow by orders of magnitude in a run (and the rounding with it). The
// difference removes grad_y g(x, y) itself, which at a wrong y would
// otherwise inflate the scale. gy is grad_y g(x, y); pt gives x and the
// batch, and its Y is replaced by ỹ (with an unknown identity) for the one
// GradGy call; u, yt and g are scratch of My's length. A retraction that
// fails is retried with half the step, ten times; gradScale returns 0
// when none succeeds (and the check is then skipped).
func gradScale(gradGy func([]float64, *Point) error, my Manifold, pt *Point, y, gy []float64, size float64, rnd *rand.Rand, u, yt, g []float64) (float64, error) {
	if !(size > 0) || math.IsInf(size, 0) {
		size = 1
	}
	my.RandTangent(u, y, rnd)
	n := frob(u)
	if n == 0 {
		return 0, nil
	}
	delta := lowerScaleStep
	for k := 0; ; k++ {
		if my.Retract(yt, y, u, delta*size/n) == nil {
			break
		}
		if delta /= 2; k == 10 {
			return 0, nil
		}
	}
	at := *pt
	at.Y, at.YID = yt, 0
	if err := gradGy(g, &at); err != nil {
		return 0, err
	}
	return diffNorm(g, gy) / (delta * size), nil
}

// lowerSolveCheck returns an error wrapping ErrLowerSolve when the lower
// gradient norm gn (Frobenius) at LowerSolve's point at epoch exceeds tol
// times scale. It allocates only the error.
func lowerSolveCheck(epoch int, gn, scale, tol float64) error {
	if gn <= tol*scale || scale == 0 {
		return nil
	}
	return numerr.Errorf("%v at epoch %d: %w: ‖grad_y g‖_F = %.3g there, %.2g times the gradient's scale %.3g "+
		"(‖y‖_F times g's curvature; at most %g for a solution): %v does not return y*(x)",
		OracleLowerSolve, epoch, ErrLowerSolve, gn, gn/scale, scale, tol, OracleLowerSolve)
}

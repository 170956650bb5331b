// Package numerr holds the error sentinels that every rhgd package shares,
// so that errors.Is recognizes a failure whichever layer detected it: a
// NaN found by lapackx, by a manifold or by the solver is ErrNotFinite in
// each case, and a Cholesky factor that fails inside an SPD retraction
// inside a solver run is still ErrNotPosDef at the top.
//
// Messages carry no package prefix; the layer that wraps a sentinel names
// itself and the operation, as in
//
//	lower retraction at epoch 12, step 3: spd: not positive definite: Cholesky factorization failed
//
// A package with a more specific condition defines its own sentinel with
// New, which errors.Is also matches to the general one
// (coupling.ErrSinkhornNotConverged is ErrNotConverged).
//
// A message that names a setting, an oracle or a parameter holds it as a
// Term (Errorf), never as words that a front end would have to find and
// translate: Error spells it as Go does (Settings.EtaY), and Render as
// the front end does (the command line's -eta-y, the C ABI's eta_y).
package numerr

import "errors"

// The shared sentinels.
var (
	// ErrInvalid signifies invalid input from outside: bad data, a bad
	// setting, a point off its manifold, a wrong size given at run time.
	ErrInvalid = errors.New("invalid input")
	// ErrNotFinite signifies a NaN or ±Inf where a finite value is needed.
	ErrNotFinite = errors.New("non-finite value")
	// ErrNotSymmetric signifies a matrix that should be symmetric and is
	// not, within the checker's tolerance.
	ErrNotSymmetric = errors.New("not symmetric")
	// ErrNotPosDef signifies a matrix or operator that should be positive
	// definite and is not.
	ErrNotPosDef = errors.New("not positive definite")
	// ErrSingular signifies a linear, Lyapunov or Sylvester equation
	// without a unique solution.
	ErrSingular = errors.New("singular equation")
	// ErrOverflow signifies a result too large for float64.
	ErrOverflow = errors.New("result overflows float64")
	// ErrUnderflow signifies a result whose nonzero entries fall below the
	// float64 range where they must stay positive.
	ErrUnderflow = errors.New("result underflows float64")
	// ErrNotConverged signifies an iteration that stopped before reaching
	// its tolerance.
	ErrNotConverged = errors.New("not converged")
	// ErrDiverged signifies an iteration whose iterates or values grew
	// without bound, or beyond the factor it allows (solver's
	// Settings.DivergeFactor), or left the floats.
	ErrDiverged = errors.New("diverged")
)

// sentinel is a package-specific sentinel that also matches its parent.
type sentinel struct {
	msg    string
	parent error
}

func (s *sentinel) Error() string { return s.msg }
func (s *sentinel) Unwrap() error { return s.parent }

// New returns a sentinel with message msg that errors.Is matches to
// itself and to parent. Returning it allocates nothing.
func New(parent error, msg string) error {
	if parent == nil {
		panic("numerr: New with a nil parent")
	}
	return &sentinel{msg: msg, parent: parent}
}

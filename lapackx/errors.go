package lapackx

import (
	"fmt"

	"github.com/rhgd/rhgd/numerr"
)

// Errors. Data-dependent failures wrap the shared sentinels of package
// numerr (ErrNotFinite, ErrNotSymmetric, ErrNotPosDef, ErrSingular,
// ErrOverflow) with the operation and the offending value; test with
// errors.Is. Two conditions are this package's own.
var (
	// ErrLapack signifies a LAPACK routine returning info ≠ 0 for a reason
	// not covered by a shared sentinel, such as an eigensolver failing to
	// converge; errors.Is also matches it to numerr.ErrNotConverged.
	ErrLapack = numerr.New(numerr.ErrNotConverged, "lapackx: LAPACK routine failed")
	// ErrNoDerivative signifies a Fréchet derivative requested for a
	// user function given without its derivative.
	ErrNoDerivative = numerr.New(numerr.ErrInvalid, "lapackx: function has no derivative")
)

// Panic messages for programmer errors, as gonum's mat and lapack do.
const (
	errShape    = "lapackx: dimension mismatch"
	errNegative = "lapackx: negative dimension"
	errAlias    = "lapackx: destination aliases an input"
)

func lapackErr(routine string, info int) error {
	return fmt.Errorf("%w: %s returned info = %d", ErrLapack, routine, info)
}

package solver

import (
	"errors"
	"fmt"

	"github.com/rhgd/rhgd/numerr"
)

// Status is why a run stopped.
type Status int

// The statuses; see Result.
const (
	NotTerminated Status = iota
	// GradientThreshold: the hypergradient norm fell to Settings.GradTol
	// or to Settings.RelGradTol times its first value.
	GradientThreshold
	// IterationLimit: Settings.Epochs epochs ran.
	IterationLimit
	// RuntimeLimit: Settings.Runtime elapsed.
	RuntimeLimit
	// Cancelled: the context was cancelled.
	Cancelled
	// Diverged: an iterate or the hypergradient became non-finite, or the
	// lower-level gradient or the upper objective grew beyond what
	// Settings.DivergeFactor allows. Its errors match numerr.ErrDiverged
	// (and IsDiverged).
	Diverged
	// Failure: an operation failed: an oracle returned an error, or a NaN
	// or ±Inf at a finite point (numerr.ErrNotFinite, the oracle named);
	// a retraction or an estimator failed.
	Failure
)

var statusTable = [...]struct {
	name  string
	early bool // stopped for a reason other than success or a budget
	err   error
}{
	NotTerminated:     {"NotTerminated", false, errors.New("solver: not terminated")},
	GradientThreshold: {"GradientThreshold", false, nil},
	IterationLimit:    {"IterationLimit", false, nil},
	RuntimeLimit:      {"RuntimeLimit", false, nil},
	Cancelled:         {"Cancelled", true, nil},
	Diverged:          {"Diverged", true, numerr.New(numerr.ErrDiverged, "solver: diverged")},
	Failure:           {"Failure", true, errors.New("solver: failure")},
}

// String returns the status's name.
func (s Status) String() string {
	if int(s) < len(statusTable) {
		return statusTable[s].name
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Early reports whether the run stopped before success or a budget ran
// out.
func (s Status) Early() bool { return int(s) < len(statusTable) && statusTable[s].early }

// Err returns the sentinel of a failed status (Diverged, Failure), nil
// otherwise; the error Run returns has the specific cause.
func (s Status) Err() error {
	if int(s) < len(statusTable) {
		return statusTable[s].err
	}
	return nil
}

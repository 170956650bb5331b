// Package problems holds what every ready-made problem of rhgd (the
// paper's applications, in the subpackages) gives its users: an Instance
// to run, built by the problem's Build from its typed Params (whose
// struct tags give the command line's flags, the C ABI's key=value
// parameters and Python's keywords: Fields, SetParams), its paper
// settings as one Paper value, and the .npz helpers that read and write
// its data (ReadTagged and SaveTagged over a struct whose tags describe
// the file; ReadNPZ, SaveNPZ). The catalog of Specs is package
// problems/catalog.
//
// A new problem's glue, beside its mathematics, is its Params struct and
// DefaultParams, its Paper, its Spec (Define) and its Build, which
// LoadOr's its data and builds the Instance; its .npz file is declared by
// tags on its Data (ReadTagged, SaveTagged); and its start is the
// mathematics' own: Start(seed uint64) (x, y []float64), the same
// signature for every problem (a deterministic start ignores the seed),
// with the rule for a file's start (SnapStart, Start.Or) beside it.
// problems/karcher is the smallest example.
package problems

import (
	"strings"

	"github.com/rhgd/rhgd/numerr"
	"github.com/rhgd/rhgd/solver"
)

// Instance is a problem ready to run: the bilevel problem, its starting
// point and the settings of the paper's experiment (Settings.Estimator is
// the paper's for that problem, or nil for the caller to choose).
type Instance struct {
	// Problem is the bilevel problem; its oracles share scratch space, so
	// an Instance is for one goroutine.
	Problem solver.Problem
	// X0 and Y0 are the starting points.
	X0, Y0 []float64
	// Settings are the paper's settings for the problem.
	Settings solver.Settings
	// Estimators maps estimator names to the paper's settings for each
	// ("cg" → "cg:maxiter=50,tol=1e-10"), in ParseEstimator's syntax;
	// names the problem cannot run (hinv without HessGyInv) are absent.
	Estimators map[string]string
	// Stochastic, when not nil, returns the paper's minibatch sizes for
	// RSHGD on this finite-sum problem.
	Stochastic *solver.Batches
	// Accuracy, when not nil, returns the classification accuracy in
	// percent that the problem's application reaches with (x, y).
	Accuracy func(x, y []float64) (float64, error)
	// Baseline, when not nil, returns the accuracy in percent of the
	// application's single-level baseline, with its name.
	Baseline func() (name string, accuracy float64, err error)
	// TrueHyperGrad, when not nil, sets dst to the true hypergradient
	// grad F(x) at the exact lower solution reached from y, for problems
	// where HINV at Problem.LowerSolve cannot give it (a singular lower
	// Hessian). rhgd compare measures its runs against it; it is a check,
	// not an oracle: it may allocate, and no run counts it.
	TrueHyperGrad func(dst, x, y []float64) error
	// Describe is one line saying what was built (sizes, data source).
	Describe string
	// Notes are one-line remarks on what building the instance did to its
	// data, such as inputs within float32 rounding of a constraint that
	// were projected onto it ("W0: ‖XᵀX − I‖_F = 1.1e-07, re-orthonormalized").
	// The command line prints each as a warning and records them in
	// summary.json; the C ABI and Python expose them.
	Notes []string
}

// Options are the parameters every problem takes; each problem's Params
// struct embeds them. The command line, the C ABI and Python give them
// apart from the problem's own (-data and -seed; the data and seed
// arguments).
type Options struct {
	// Data is a file (or, for some problems, a directory) to load instead
	// of the built-in or generated data; "" means the default.
	Data string
	// Seed seeds generated data and random starts.
	Seed uint64
}

// DefaultSeed is the Options.Seed of the rhgd command, which the C ABI
// (rhgd_default_seed) and the Python package default to as well, so that
// the three build the same instance unless told otherwise.
const DefaultSeed = 42

// Spec describes a ready-made problem. Define fills New and Build from
// the problem's DefaultParams and Build; the command line binds its
// Params' Fields as flags.
type Spec struct {
	// Name is how the command line and the C ABI call the problem.
	Name string
	// Summary is one line saying what the problem is.
	Summary string
	// Data says what file Options.Data may name, with its arrays and their
	// shapes; empty when the problem takes no data file (Options.Data must
	// then be empty).
	Data string
	// New returns the problem's parameters with their defaults (the
	// paper's): a pointer to its Params struct, for Fields and SetParams
	// to set.
	New func() Params
	// Build builds an Instance from a value that New returned.
	Build func(Params) (*Instance, error)
}

// LoadOr returns the data of the file o.Data names, with the start the
// file holds, through load; or, when o names none, generate's data and no
// start. src says where the data came from, for Instance.Describe: "from
// <file>", or generated.
func LoadOr[D any](o Options, generated string, load func(path string) (D, Start, error), generate func() (D, error)) (data D, start Start, src string, err error) {
	if o.Data != "" {
		data, start, err = load(o.Data)
		return data, start, "from " + o.Data, err
	}
	data, err = generate()
	return data, Start{}, generated, err
}

// ErrBadData signifies data that a problem cannot use: a missing or
// malformed file, arrays of the wrong shape, non-finite values
// (numerr.ErrInvalid).
var ErrBadData = numerr.New(numerr.ErrInvalid, "problems: bad data")

// Estimator returns the estimator that spec names on this instance, by
// the one rule of every front end (the command line's -estimator and its
// option flags, the C ABI's rhgd_solver_new, Python's estimator=): a name
// alone ("cg", or an alias such as "neumann") is the paper's spec for the
// problem where Estimators has one; a spec with options ("cg:tol=1e-6")
// stands for itself, the options it leaves out taking the estimator's
// defaults (solver.EstimatorTable), not the paper's. So a spec means the
// same on every problem, and the spec a run records (the estimator's
// String) runs it again anywhere.
func (in *Instance) Estimator(spec string) (solver.Estimator, error) {
	name, opts, _ := strings.Cut(strings.TrimSpace(spec), ":")
	if strings.TrimSpace(opts) == "" {
		if e, ok := solver.LookupEstimator(name); ok {
			if paper, ok := in.Estimators[e.Name]; ok {
				return solver.ParseEstimator(paper)
			}
		}
	}
	return solver.ParseEstimator(spec)
}

package problems

import (
	"fmt"
	"strings"

	"github.com/rhgd/rhgd/solver"
)

// Paper is a problem's experiment as the paper ran it: the solver
// settings, the estimators in the paper's order with their settings, and
// RSHGD's minibatch sizes for a finite-sum problem.
type Paper struct {
	// Settings are RHGD's settings; Settings.Estimator is the problem's
	// own estimator, or nil for the caller to choose.
	Settings solver.Settings
	// Estimators are the estimators the problem runs, in the paper's
	// order, each as its spec in solver.ParseEstimator's syntax
	// ("cg:maxiter=50,tol=1e-10"), whose name ("cg") is the part before
	// the colon.
	Estimators []string
	// Batches, when not nil, are RSHGD's minibatch sizes.
	Batches *solver.Batches
}

// Names lists the estimators in the paper's order.
func (p Paper) Names() []string {
	out := make([]string, len(p.Estimators))
	for i, spec := range p.Estimators {
		out[i] = specName(spec)
	}
	return out
}

// Specs maps each estimator's name to its spec, as Instance.Estimators
// holds them; a new map each time.
func (p Paper) Specs() map[string]string {
	out := make(map[string]string, len(p.Estimators))
	for _, spec := range p.Estimators {
		out[specName(spec)] = spec
	}
	return out
}

// Estimator returns the named estimator with the paper's settings.
func (p Paper) Estimator(name string) (solver.Estimator, error) {
	for _, spec := range p.Estimators {
		if specName(spec) == name {
			return solver.ParseEstimator(spec)
		}
	}
	return nil, fmt.Errorf("%w: unknown estimator %q (want one of %v)", solver.ErrBadSetting, name, p.Names())
}

// Instance returns an Instance of the paper's settings, estimators and
// batches (a copy of each) for the rest to be filled in.
func (p Paper) Instance() *Instance {
	in := &Instance{Settings: p.Settings, Estimators: p.Specs()}
	if p.Batches != nil {
		b := *p.Batches
		in.Stochastic = &b
	}
	return in
}

// specName is the name of an estimator spec, the part before the colon.
func specName(spec string) string {
	name, _, _ := strings.Cut(spec, ":")
	return name
}

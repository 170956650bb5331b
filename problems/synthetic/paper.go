package synthetic

import (
	"fmt"

	"github.com/rhgd/rhgd/solver"
)

// The paper's experiment (Section 4.1): n = 100, d = 50, r = 20, ν = 0.01.
const (
	PaperN, PaperD, PaperR = 100, 50, 20
	PaperNu                = 0.01
)

// PaperSettings returns the paper's RHGD settings: η_x = η_y = 0.5, S = 20
// lower steps, K = 200 epochs.
func PaperSettings() solver.Settings {
	return solver.Settings{EtaX: 0.5, EtaY: 0.5, InnerIters: 20, Epochs: 200}
}

// EstimatorNames lists the paper's estimators in its order.
var EstimatorNames = []string{"hinv", "cg", "ns", "ad"}

// PaperEstimator returns the named estimator with the paper's settings:
// CG to a residual of 1e−10 in at most 50 iterations, NS with γ = 1 and
// T = 50 (its λ_max check on), AD through the S lower steps.
func PaperEstimator(name string) (solver.Estimator, error) {
	spec, ok := paperSpecs[name]
	if !ok {
		return nil, fmt.Errorf("synthetic: unknown estimator %q (want one of %v)", name, EstimatorNames)
	}
	return solver.ParseEstimator(spec)
}

// paperSpecs are the paper's estimator settings as solver.ParseEstimator
// reads them.
var paperSpecs = map[string]string{"hinv": "hinv", "cg": "cg:maxiter=50,tol=1e-10", "ns": "ns:gamma=1,terms=50", "ad": "ad"}

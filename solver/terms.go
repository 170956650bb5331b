package solver

import (
	"fmt"
	"strings"

	"github.com/rhgd/rhgd/numerr"
)

// The names the solver's messages hold besides settings and oracles, as
// numerr.Terms, so that each front end spells them its own way
// (numerr.Render): the presets of ParseSettings, the fused lower loop and
// its VJP, which are Problem fields but not Oracles, and the built-in
// min-max problem that GDA's message points to.
var (
	// TermLowerSteps names Problem.LowerSteps: "lower_steps" in C and
	// Python (rhgd_oracles.lower_steps).
	TermLowerSteps = numerr.Term{Kind: numerr.KindOracle, Key: "lower_steps", Go: "LowerSteps"}
	// TermLowerStepsVJP names Problem.LowerStepsVJP: "lower_steps_vjp".
	TermLowerStepsVJP = numerr.Term{Kind: numerr.KindOracle, Key: "lower_steps_vjp", Go: "LowerStepsVJP"}

	termAdaptive = numerr.Term{Kind: numerr.KindPreset, Key: "adaptive", Go: "AdaptiveSettings"}
	termPaper    = numerr.Term{Kind: numerr.KindPreset, Key: "paper", Go: "the paper's rule (Settings.Lower zero)"}
	termMinMax   = numerr.Term{Kind: numerr.KindProblem, Key: "minmax", Go: "Problem.ZeroSum, made by MinMax"}
)

// settingTerm returns the term of the setting whose Settings field is
// field ("EtaX", "Lower.Tol"), as the settings' table names it.
func settingTerm(field string) numerr.Term {
	for _, s := range settingsTable {
		if s.Field == field {
			return numerr.Term{Kind: numerr.KindSetting, Key: s.Key, Go: "Settings." + field}
		}
	}
	panic(fmt.Sprintf("solver: no setting has the field %s", field))
}

// Term returns the oracle's term: Key as C and Python spell it, Go its
// Problem field.
func (o Oracle) Term() numerr.Term {
	return numerr.Term{Kind: numerr.KindOracle, Key: o.Key(), Go: o.String()}
}

// Render spells the oracle's name by sp (numerr.Renderable).
func (o Oracle) Render(sp numerr.Speller) string { return sp(o.Term()) }

// Render spells the set's names by sp, as String lists them.
func (s Oracles) Render(sp numerr.Speller) string {
	var names []string
	for _, o := range s.List() {
		names = append(names, o.Render(sp))
	}
	return "[" + strings.Join(names, " ") + "]"
}

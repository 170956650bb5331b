package solver

import (
	"fmt"
	"math/bits"
	"strings"
)

// Oracle names one oracle of a Problem, as gonum's optimize names the
// functions a Problem has (Available): estimators say what they need as a
// set of these, so a misspelled need does not compile. Strings name
// oracles only at the C and Python boundary (Key, ParseOracle).
// Problem.LowerSteps and LowerStepsVJP are not among them: no estimator
// needs them, and they stand in for many GradGy (HessGy and CrossGxy)
// calls rather than being one evaluation.
type Oracle uint8

// The oracles, in the order of Problem's fields.
const (
	OracleF           Oracle = iota // Problem.F
	OracleGradFx                    // Problem.GradFx
	OracleGradFy                    // Problem.GradFy
	OracleG                         // Problem.G
	OracleGradGy                    // Problem.GradGy
	OracleGradGx                    // Problem.GradGx
	OracleHessGy                    // Problem.HessGy
	OracleCrossGxy                  // Problem.CrossGxy
	OracleCrossGyx                  // Problem.CrossGyx
	OracleHessGyInv                 // Problem.HessGyInv
	OracleLowerSolve                // Problem.LowerSolve
	OracleHessGyBatch               // Problem.HessGyBatch
	numOracles
)

// oracleNames is the one table of the oracles' names: the Go field name
// (String) and the C ABI's and Python's snake_case key (Key).
var oracleNames = [numOracles]struct{ field, key string }{
	OracleF:           {"F", "f"},
	OracleGradFx:      {"GradFx", "grad_fx"},
	OracleGradFy:      {"GradFy", "grad_fy"},
	OracleG:           {"G", "g"},
	OracleGradGy:      {"GradGy", "grad_gy"},
	OracleGradGx:      {"GradGx", "grad_gx"},
	OracleHessGy:      {"HessGy", "hess_gy"},
	OracleCrossGxy:    {"CrossGxy", "cross_gxy"},
	OracleCrossGyx:    {"CrossGyx", "cross_gyx"},
	OracleHessGyInv:   {"HessGyInv", "hess_gy_inv"},
	OracleLowerSolve:  {"LowerSolve", "lower_solve"},
	OracleHessGyBatch: {"HessGyBatch", "hess_gy_batch"},
}

// String returns the oracle's Problem field name, "GradFx".
func (o Oracle) String() string {
	if o < numOracles {
		return oracleNames[o].field
	}
	return fmt.Sprintf("Oracle(%d)", int(o))
}

// Key returns the oracle's name at the C and Python boundary, "grad_fx"
// (the field of rhgd_oracles, the keyword of rhgd.Problem).
func (o Oracle) Key() string {
	if o < numOracles {
		return oracleNames[o].key
	}
	return fmt.Sprintf("oracle_%d", int(o))
}

// ParseOracle returns the oracle a C or Python key names ("grad_fx",
// case-insensitive); the error, wrapping ErrBadSetting, lists the keys.
func ParseOracle(key string) (Oracle, error) {
	k := strings.ToLower(strings.TrimSpace(key))
	for o := range numOracles {
		if oracleNames[o].key == k {
			return o, nil
		}
	}
	keys := make([]string, numOracles)
	for o := range numOracles {
		keys[o] = oracleNames[o].key
	}
	return 0, fmt.Errorf("%w: unknown oracle %q (want one of %s)", ErrBadSetting, key, strings.Join(keys, ", "))
}

// Oracles is a set of oracles: a bit set, free to copy and compare.
type Oracles uint16

// NewOracles returns the set of the given oracles.
func NewOracles(os ...Oracle) Oracles {
	var s Oracles
	for _, o := range os {
		s |= 1 << o
	}
	return s
}

// Has reports whether o is in s.
func (s Oracles) Has(o Oracle) bool { return s&(1<<o) != 0 }

// List returns the oracles of s in the order of Problem's fields.
func (s Oracles) List() []Oracle {
	out := make([]Oracle, 0, bits.OnesCount16(uint16(s)))
	for o := range numOracles {
		if s.Has(o) {
			out = append(out, o)
		}
	}
	return out
}

// String lists the oracles' field names, "[GradFx HessGy]".
func (s Oracles) String() string { return fmt.Sprint(s.List()) }

// Available returns the set of p's oracles that are present (not nil).
func (p *Problem) Available() Oracles {
	var s Oracles
	for o, ok := range [numOracles]bool{
		OracleF: p.F != nil, OracleGradFx: p.GradFx != nil, OracleGradFy: p.GradFy != nil,
		OracleG: p.G != nil, OracleGradGy: p.GradGy != nil, OracleGradGx: p.GradGx != nil,
		OracleHessGy: p.HessGy != nil, OracleCrossGxy: p.CrossGxy != nil, OracleCrossGyx: p.CrossGyx != nil,
		OracleHessGyInv: p.HessGyInv != nil, OracleLowerSolve: p.LowerSolve != nil,
		OracleHessGyBatch: p.HessGyBatch != nil,
	} {
		if ok {
			s |= 1 << o
		}
	}
	return s
}

// Has reports whether p has the oracle o.
func (p *Problem) Has(o Oracle) bool { return p.Available().Has(o) }

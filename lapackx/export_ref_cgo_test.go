//go:build cgo && !purego

package lapackx

import "testing"

// For the external test of the spectral package's paths
// (spectralpaths_ref_cgo_test.go), which cannot live in package lapackx
// (spectral imports it) nor in package spectral (it needs dsyevd).

// RefCase is one case of the mpmath reference set.
type RefCase = refCase

// RefPathStats is pathStats.
type RefPathStats = pathStats

// SymRefCasesAll is symRefCasesAll.
func SymRefCasesAll(t *testing.T) ([]RefCase, [][]string) { return symRefCasesAll(t) }

// RefErrEVD is the relative error of quantity name of c computed from
// dsyevd's eigendecomposition by SymFunc, the reference path of
// pathStats.
func RefErrEVD(t *testing.T, c RefCase, name string) float64 {
	return relErr(refEvalWith(t, c, name, "evd"), c.Results[name].Value)
}

// RelErr, RefUnit and RefNorm2 are relErr, refUnit and refNorm2.
var (
	RelErr   = relErr
	RefUnit  = refUnit
	RefNorm2 = refNorm2
)

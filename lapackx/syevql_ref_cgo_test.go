//go:build cgo && !purego

package lapackx

import (
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/lapackx/internal/lapacke"
)

// refEvalWith evaluates the reference quantity name ("exp", "frechet_log",
// …) of the symmetric case c from the eigendecomposition of solver (see
// eigWith).
func refEvalWith(t *testing.T, c refCase, name, solver string) []float64 {
	t.Helper()
	n := c.N
	s := NewSymFunc(n)
	e := s.eig
	eigWith(t, e, c.A, solver)
	e.ok, e.vecs = true, true
	got := make([]float64, n*n)
	if f, ok := strings.CutPrefix(name, "frechet_"); ok {
		require.NoError(t, s.Frechet(got, c.E, refFuncs[f]))
	} else {
		require.NoError(t, s.Eval(got, refFuncs[name]))
	}
	return got
}

// symRefCases returns the symmetric cases of the mpmath reference set with
// their quantities in a fixed order.
func symRefCases(t *testing.T) (cases []refCase, names [][]string) {
	for _, c := range loadReference(t) {
		if c.Kind == "general" {
			continue
		}
		cases, names = append(cases, c), append(names, slices.Sorted(maps.Keys(c.Results)))
	}
	return cases, names
}

// TestEigQLReference: the spectral functions (and their Fréchet
// derivatives) of every symmetric matrix of the mpmath reference set,
// computed from the QL solver's eigendecomposition by both its AVX2 and its
// base code, are within 3√n·u·(κ + ρ) of the 60-digit values (κ and ρ as in
// TestReference, whose bound is 4√n·u·(κ + ρ)); dsyevd's errors on the
// same matrices reach 2.6 of that unit under the Haswell, SkylakeX, Zen,
// Sandybridge and Nehalem kernels and 4.4 under Prescott's, the QL solver's
// 2.6. Where exp's error is that of the largest eigenvalue (‖A‖₂ ≥ 100, so
// that a relative error δ in λ_max is one of δ·‖A‖₂ in e^A), it is also
// within 3.5·u·‖A‖₂: LAPACK's dsteqr reaches 1.7 (AVX2) and 3.0 (base),
// dsyevd up to 6.0 (sym-large-600), and EISPACK's tql2, which this solver
// ran before, 6.7 (sym-large-700) and 5.2 (sym-large-300), because its
// explicit origin shift rounds every later diagonal entry at the scale of
// the shift (‖A‖), where dsteqr's implicit one rounds at the scale of the
// entries.
func TestEigQLReference(t *testing.T) {
	cases, names := symRefCases(t)
	for ci, c := range cases {
		n := c.N
		var anorm float64 // ‖A‖₂, from the reference solver's eigenvalues
		{
			w, v := make([]float64, n), append([]float64(nil), c.A...)
			lw, liw := nativeLapack{}.eigWork(n)
			require.Zero(t, lapacke.Dsyevd('N', 'L', n, v, n, w, make([]float64, lw), make([]int32, liw)))
			anorm = math.Max(math.Abs(w[0]), math.Abs(w[n-1]))
		}
		for _, name := range names[ci] {
			r := c.Results[name]
			for _, solver := range []string{"ql", "ql-base"} {
				e := relErr(refEvalWith(t, c, name, solver), r.Value)
				where := fmt.Sprintf("%s %s %s (n=%d): err %.3g", c.ID, name, solver, n, e)
				require.LessOrEqual(t, e, 3*math.Sqrt(float64(n))*u*(r.Cond+r.Recon), where)
				if name == "exp" && anorm >= 100 {
					require.LessOrEqual(t, e, 3.5*u*anorm, "%s, ‖A‖₂ = %g", where, anorm)
				}
			}
		}
	}
}

// TestEigQLReferenceTable prints, when REFTABLE is set, each quantity's
// error from the QL solver (AVX2 and base) and from dsyevd, and the errors
// in units of √n·u·(κ + ρ): `REFTABLE=1 go test -run EigQLReferenceTable
// -v ./lapackx`, once per OPENBLAS_CORETYPE for dsyevd's spread.
func TestEigQLReferenceTable(t *testing.T) {
	if os.Getenv("REFTABLE") == "" {
		t.Skip("set REFTABLE=1 to print the table")
	}
	cases, names := symRefCases(t)
	for ci, c := range cases {
		for _, name := range names[ci] {
			r := c.Results[name]
			ql := relErr(refEvalWith(t, c, name, "ql"), r.Value)
			qb := relErr(refEvalWith(t, c, name, "ql-base"), r.Value)
			evd := relErr(refEvalWith(t, c, name, "evd"), r.Value)
			unit := math.Sqrt(float64(c.N)) * u * (r.Cond + r.Recon)
			fmt.Printf("%s %s %d %.3e %.3e %.3e %.4f %.4f %.4f\n", c.ID, name, c.N, ql, qb, evd, ql/unit, qb/unit, evd/unit)
		}
	}
}

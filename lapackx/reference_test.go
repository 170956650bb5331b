package lapackx

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// reference.json holds float64 inputs and their matrix functions computed
// in mpmath at 60 digits (verified at 80), correctly rounded, with scipy's
// error on the same inputs and each function's condition number. See
// testdata/gen_reference.py.
type refResult struct {
	Value    []float64 `json:"value"`
	Cond     float64   `json:"cond"`
	Recon    float64   `json:"recon"`
	ScipyErr *float64  `json:"scipy_err"` // nil: scipy returned Inf or NaN
}

type refCase struct {
	ID      string               `json:"id"`
	Kind    string               `json:"kind"`
	N       int                  `json:"n"`
	Note    string               `json:"note"`
	A       []float64            `json:"a"`
	E       []float64            `json:"e"`
	Eig     []float64            `json:"eigenvalues"` // symmetric cases: ascending, correctly rounded
	Results map[string]refResult `json:"results"`
}

func loadReference(t *testing.T) []refCase {
	t.Helper()
	cases := loadReferenceFile(t, "testdata/reference.json")
	require.GreaterOrEqual(t, len(cases), 30)
	return cases
}

// loadReferenceSizes returns the symmetric cases of reference_sizes.json
// (gen_reference.py --sizes): orders 64 to 140, which the eigensolver
// tests add to the 47-matrix set to reach every size path.
func loadReferenceSizes(t *testing.T) []refCase {
	t.Helper()
	cases := loadReferenceFile(t, "testdata/reference_sizes.json")
	require.NotEmpty(t, cases)
	return cases
}

func loadReferenceFile(t *testing.T, path string) []refCase {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var data struct {
		DPS   int       `json:"dps"`
		Cases []refCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &data))
	require.GreaterOrEqual(t, data.DPS, 50)
	return data.Cases
}

const u = 0x1p-53 // unit roundoff

var refFuncs = map[string]Func{"exp": ExpFunc, "log": LogFunc, "sqrt": SqrtFunc, "invsqrt": InvSqrtFunc}

// TestReference checks every kernel against the mpmath references, under
// each backend.
//
// Symmetric functions and their Fréchet derivatives: err ≤ 4√n·u·(κ + ρ).
// κ is the relative condition number of the computed quantity (stored by
// the generator: max|f[λ_i,λ_j]|·‖A‖/‖f(A)‖ for f(A), and
// max|f″(λ_i)|·‖A‖‖E‖/‖L‖ for L = Df(A)[E]); the eigensolver is backward
// stable with a backward error of about √n·u·‖A‖ in practice (n·u in the
// worst-case bound), which κ turns into forward error. ρ is the
// amplification of the rounding in forming Vᵀ diag(f) V (or the
// congruences of E): √n·max|f(λ_i)|/‖f(A)‖, large when f(A) is much smaller
// than its largest eigenvalue term. The factor 4 absorbs the constants;
// the measured worst case is about 1.7√n·u·(κ + ρ).
//
// General exponential: err ≤ 1.5·err_scipy + 2u on every matrix where scipy
// returns a finite result ("no less accurate than scipy", up to differences
// below the resolution of the stored result), and err ≤ 10·n·u·max(κ, 1)
// with κ scipy's expm_cond, or Van Loan's lower bound ‖A‖₂ ≥ ‖A‖_F/√n when
// that overflowed.
//
// The symmetric cases of reference_sizes.json (n = 64 to 140, across the
// native backend's QL cutoff) are checked with the same bound.
func TestReference(t *testing.T) {
	cases := append(loadReference(t), loadReferenceSizes(t)...)
	forEachBackend(t, func(t *testing.T) {
		var logRatio float64
		var nRatio int
		for _, c := range cases {
			n := c.N
			for name, r := range c.Results {
				got := make([]float64, n*n)
				var err error
				switch {
				case name == "expm":
					err = NewExpm(n).Exp(got, c.A)
				case strings.HasPrefix(name, "frechet_"):
					s := NewSymFunc(n)
					require.NoError(t, s.Factorize(c.A))
					err = s.Frechet(got, c.E, refFuncs[strings.TrimPrefix(name, "frechet_")])
				default:
					err = NewSymFunc(n).Apply(got, c.A, refFuncs[name])
				}
				require.NoError(t, err, "%s %s", c.ID, name)
				e := relErr(got, r.Value)
				where := fmt.Sprintf("%s %s (n=%d): err %.3g", c.ID, name, n, e)
				if name != "expm" {
					require.LessOrEqual(t, e, 4*math.Sqrt(float64(n))*u*(r.Cond+r.Recon), where)
					require.True(t, isSymmetricExactly(got, n), where)
					continue
				}
				kappa := r.Cond
				if kappa == 0 {
					kappa = fnorm(c.A) / math.Sqrt(float64(n))
				}
				require.LessOrEqual(t, e, 10*float64(n)*u*math.Max(kappa, 1), where)
				if r.ScipyErr != nil {
					require.LessOrEqual(t, e, 1.5**r.ScipyErr+2*u, "%s; scipy %.3g", where, *r.ScipyErr)
					if *r.ScipyErr > 0 && e > 0 {
						logRatio += math.Log(e / *r.ScipyErr)
						nRatio++
					}
				}
			}
		}
		t.Logf("expm: geometric mean of err_rhgd/err_scipy over %d matrices = %.3f", nRatio, math.Exp(logRatio/float64(nRatio)))
	})
}

// TestReferenceTable prints every error beside scipy's when REFTABLE is
// set (go test -run ReferenceTable -v ./lapackx with REFTABLE=1).
func TestReferenceTable(t *testing.T) {
	if os.Getenv("REFTABLE") == "" {
		t.Skip("set REFTABLE=1 to print the table")
	}
	cases := loadReference(t)
	forEachBackend(t, func(t *testing.T) {
		for _, c := range cases {
			n := c.N
			for name, r := range c.Results {
				got := make([]float64, n*n)
				switch {
				case name == "expm":
					_ = NewExpm(n).Exp(got, c.A)
				case strings.HasPrefix(name, "frechet_"):
					s := NewSymFunc(n)
					_ = s.Factorize(c.A)
					_ = s.Frechet(got, c.E, refFuncs[strings.TrimPrefix(name, "frechet_")])
				default:
					_ = NewSymFunc(n).Apply(got, c.A, refFuncs[name])
				}
				se := math.NaN()
				if r.ScipyErr != nil {
					se = *r.ScipyErr
				}
				fmt.Printf("%-8s %-24s %-16s n=%2d err=%.2e scipy=%.2e cond=%.2e recon=%.2e\n",
					Backend(), c.ID, name, n, relErr(got, r.Value), se, r.Cond, r.Recon)
			}
		}
	})
}

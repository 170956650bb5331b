package simplex_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/simplex"
	"github.com/rhgd/rhgd/solver"
)

// The capabilities the simplex has, on top of solver.Manifold.
var (
	_ solver.Manifold   = (*simplex.Simplex)(nil)
	_ solver.Exper      = (*simplex.Simplex)(nil)
	_ solver.Logger     = (*simplex.Simplex)(nil)
	_ solver.Distancer  = (*simplex.Simplex)(nil)
	_ solver.Connection = (*simplex.Simplex)(nil)
	_ solver.Whitener   = (*simplex.Simplex)(nil)
)

// TestConformance runs the public suite: the retraction is of first order
// (checked against Exp), the Hessian's Taylor test runs along Exp at
// points that are not critical, and the finite-difference Hessian needs
// the Fisher connection. x itself is not tangent (it sums to one), and x
// with an entry negated is not a point.
func TestConformance(t *testing.T) {
	for _, c := range []struct {
		n    int
		seed uint64
	}{{2, 1}, {5, 1}, {12, 3}} {
		t.Run("", func(t *testing.T) {
			manifoldtest.Run(t, simplex.New(c.n), manifoldtest.Options{
				RetractionOrder: 1, Seed: c.seed,
				NotTangent: func(x []float64) []float64 { return slices.Clone(x) },
				BadPoint: func(x []float64) []float64 {
					b := slices.Clone(x)
					b[0] = -b[0]
					return b
				},
			})
		})
	}
}

// noConnection is the simplex without its ConnectionTerm (and, as a bare
// solver.Manifold, without its other capabilities): what a manifold with
// its own metric would be if it could leave the connection out, which
// manifold.Defaults' Init does not let it.
type noConnection struct{ solver.Manifold }

// TestNoConnectionChild runs only inside TestConnectionNeeded's child
// process, where it must fail.
func TestNoConnectionChild(t *testing.T) {
	if os.Getenv("SIMPLEX_NO_CONNECTION") != "1" {
		t.Skip("run by TestConnectionNeeded")
	}
	manifoldtest.Run(t, noConnection{simplex.New(5)}, manifoldtest.Options{RetractionOrder: 1, Seed: 1})
}

// TestConnectionNeeded: without the Fisher connection the solver's
// finite-difference Hessian misses the Christoffel term, and the suite
// says so at its non-critical point; the rest passes.
func TestConnectionNeeded(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestNoConnectionChild$", "-test.v")
	cmd.Env = append(os.Environ(), "SIMPLEX_NO_CONNECTION=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the suite passed the simplex without its connection:\n%s", out)
	require.Contains(t, string(out), "--- FAIL: TestNoConnectionChild/fd-hessian/", "%s", out)
	require.Equal(t, 2, strings.Count(string(out), "--- FAIL: TestNoConnectionChild/"), "%s", out)
}

package lapackx

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/internal/stagetime"
)

// stageNames lists the stages a profile saw, in order.
func stageNames(c *stagetime.Clock) []string {
	var names []string
	for _, s := range c.Stages() {
		names = append(names, s.Name)
	}
	return names
}

// TestExpmStages checks that a profiled Expm marks every stage the
// benchmark report names (the degree-13 path, with squarings) and that
// the marks do not change its result.
func TestExpmStages(t *testing.T) {
	const n = 30
	a := randGeneral(newRand(3), n, n, 1) // ‖A‖ ≫ θ13: degree 13 and s > 0
	want, got := make([]float64, n*n), make([]float64, n*n)
	e := NewExpm(n)
	require.NoError(t, e.Exp(want, a))
	var c stagetime.Clock
	stop := stagetime.Use(&c)
	require.NoError(t, e.Exp(got, a))
	stop()
	require.Equal(t, want, got)
	require.ElementsMatch(t, []string{stageExpmChecks, stageExpmPowers, stageExpmDegree, stageExpmPade, stageExpmSolve, stageExpmSquarings}, stageNames(&c))
}

// TestLyapStages checks LyapSym's stages likewise.
func TestLyapStages(t *testing.T) {
	const n = 20
	a, cm := withSpectrum(newRand(4), logSpaced(n, 1, 10)), randSym(newRand(5), n, 1)
	want, got := make([]float64, n*n), make([]float64, n*n)
	l := NewLyapSym(n)
	require.NoError(t, l.Solve(want, a, cm))
	var c stagetime.Clock
	stop := stagetime.Use(&c)
	require.NoError(t, l.Solve(got, a, cm))
	stop()
	require.Equal(t, want, got)
	require.Equal(t, []string{stageLyapEig, stageLyapCheck, stageLyapCongruence, stageLyapHadamard}, stageNames(&c))
	for _, s := range c.Stages() {
		if s.Name == stageLyapCongruence || s.Name == stageLyapCheck {
			require.Equal(t, 2.0, s.PerCall, s.Name)
		}
	}

	// κ = 10⁴ ≥ lyapRefineFrom: the refinement is a stage of its own.
	a = withSpectrum(newRand(4), logSpaced(n, 1e-4, 1))
	require.Positive(t, lyapRefineCount(logSpaced(n, 1e-4, 1)))
	require.NoError(t, l.Solve(want, a, cm))
	c = stagetime.Clock{}
	stop = stagetime.Use(&c)
	require.NoError(t, l.Solve(got, a, cm))
	stop()
	require.Equal(t, want, got)
	require.Equal(t, []string{stageLyapEig, stageLyapRefine, stageLyapCheck, stageLyapCongruence, stageLyapHadamard}, stageNames(&c))
}

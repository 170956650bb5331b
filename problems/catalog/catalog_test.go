package catalog_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/catalog"
	"github.com/rhgd/rhgd/problems/domainadapt"
	"github.com/rhgd/rhgd/problems/hyperrep"
	"github.com/rhgd/rhgd/problems/karcher"
	"github.com/rhgd/rhgd/problems/meta"
	"github.com/rhgd/rhgd/problems/minmax"
	"github.com/rhgd/rhgd/problems/plstiefel"
	"github.com/rhgd/rhgd/problems/spdnet"
	"github.com/rhgd/rhgd/problems/synthetic"
	"github.com/rhgd/rhgd/solver"
)

// TestParams: every problem's Params list their parameters (which the
// command line binds as flags: cmd/rhgd's TestBindParams), each with help
// text, a C key and the rhgd command's seed by default, and its Build
// rejects another problem's Params.
func TestParams(t *testing.T) {
	for _, name := range catalog.Names() {
		spec, err := catalog.Lookup(name)
		require.NoError(t, err)
		p := spec.New()
		require.Equal(t, problems.Options{Seed: problems.DefaultSeed}, *p.Common(), name)
		fields := problems.Fields(p)
		require.NotEmpty(t, fields, name)
		for _, f := range fields {
			require.NotEmpty(t, f.Doc, "%s: %s", name, f.Name)
			require.NotContains(t, f.Key, "-", "%s: %s", name, f.Name)
		}
		var other problems.Params = &struct{ problems.Options }{}
		_, err = spec.Build(other)
		require.ErrorIs(t, err, problems.ErrBadParam, name)
	}
	_, err := catalog.Lookup("nope")
	require.ErrorIs(t, err, catalog.ErrUnknown)
}

// TestPapers: every paper estimator parses, to its own spec, and a
// problem's own estimator is the one of its list with that name.
func TestPapers(t *testing.T) {
	for name, p := range map[string]problems.Paper{"synthetic": synthetic.Paper, "hyperrep": hyperrep.Paper,
		"domainadapt": domainadapt.Paper, "minmax": minmax.Paper, "karcher": karcher.Paper, "spdnet": spdnet.Paper, "meta": meta.Paper,
		"plstiefel": plstiefel.Paper} {
		require.NotEmpty(t, p.Estimators, name)
		for _, n := range p.Names() {
			e, err := p.Estimator(n)
			require.NoError(t, err, "%s: %s", name, n)
			require.Equal(t, n, e.Name(), name)
		}
		if own := p.Settings.Estimator; own != nil {
			e, err := p.Estimator(own.Name())
			require.NoError(t, err, name)
			require.Equal(t, fmt.Sprint(e), fmt.Sprint(own), name)
		}
		_, err := p.Settings.WithDefaults()
		require.NoError(t, err, name)
	}
	require.Equal(t, solver.GDA{}, minmax.Paper.Settings.Estimator)
}

// TestPLStiefel: the PL problem builds through the catalog with its true
// hypergradient, which is tangent at x0 and, with no HINV, the only truth
// a comparison can measure against.
func TestPLStiefel(t *testing.T) {
	spec, err := catalog.Lookup("plstiefel")
	require.NoError(t, err)
	in, err := spec.Build(spec.New())
	require.NoError(t, err)
	p := in.Problem
	require.Nil(t, p.HessGyInv)
	require.NotNil(t, p.LowerSolve)
	require.NotNil(t, in.TrueHyperGrad)
	g := make([]float64, p.Mx.Len())
	require.NoError(t, in.TrueHyperGrad(g, in.X0, in.Y0))
	pg := make([]float64, len(g))
	p.Mx.Project(pg, in.X0, g)
	require.InDeltaSlice(t, g, pg, 1e-12)
	require.Greater(t, p.Mx.Norm(in.X0, g), 0.0)
	_, err = solver.New(p, &in.Settings)
	require.NoError(t, err)
}

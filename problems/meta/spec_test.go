package meta_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/meta"
	"github.com/rhgd/rhgd/solver"
)

// TestSpec: the defaults, the flags, -baseline phgd (the Extrinsic
// manifold) and bad parameters.
func TestSpec(t *testing.T) {
	in, err := testkit.Build(t, meta.Spec, problems.Options{Seed: 42})
	require.NoError(t, err)
	require.Equal(t, 64*16, len(in.X0))
	require.Equal(t, 50*17*5, len(in.Y0))
	require.Equal(t, meta.Paper.Settings, in.Settings)
	require.Len(t, in.Estimators, 4)
	require.Nil(t, in.Stochastic)
	require.NoError(t, in.Problem.Mx.CheckPoint(in.X0))
	t.Log(in.Describe)
	in, err = testkit.Build(t, meta.Spec, problems.Options{Seed: 1}, "-tasks", "3", "-test-tasks", "4", "-features", "6", "-shots", "2", "-queries", "3", "-split", "classes", "-baseline", "phgd")
	require.NoError(t, err)
	require.IsType(t, &meta.Extrinsic{}, in.Problem.Mx)
	require.Equal(t, 3*7*5, len(in.Y0))
	acc, err := in.Accuracy(in.X0, in.Y0)
	require.NoError(t, err)
	require.GreaterOrEqual(t, acc, 0.0)
	name, base, err := in.Baseline()
	require.NoError(t, err)
	require.Equal(t, "PCA(6) features", name)
	require.Greater(t, base, 20.0)
	s := in.Settings
	s.Epochs = 2
	est, err := in.Estimator("cg")
	require.NoError(t, err)
	s.Estimator = est
	_, err = solver.Minimize(context.Background(), in.Problem, in.X0, in.Y0, &s)
	require.NoError(t, err)
	for _, args := range [][]string{{"-baseline", "adam"}, {"-split", "tasks"}, {"-ways", "6", "-split", "classes"}, {"-lambda", "-1"}, {"-features", "0"}, {"-tasks", "0"}} {
		_, err := testkit.Build(t, meta.Spec, problems.Options{}, args...)
		require.ErrorIs(t, err, problems.ErrBadData, "%v", args)
	}
	_, err = testkit.Build(t, meta.Spec, problems.Options{Data: "x.npz"})
	require.ErrorIs(t, err, problems.ErrBadData)
}

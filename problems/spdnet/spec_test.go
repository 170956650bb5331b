package spdnet_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/problems"
	"github.com/rhgd/rhgd/problems/internal/testkit"
	"github.com/rhgd/rhgd/problems/spdnet"
	"github.com/rhgd/rhgd/solver"
)

// TestSpec: the Spec builds the paper's instance by default (sizes,
// settings, estimators, batches, accuracy and baseline), takes its flags
// and a .npz file, and turns bad parameters into errors.
func TestSpec(t *testing.T) {
	in, err := testkit.Build(t, spdnet.Spec, problems.Options{Seed: 42})
	require.NoError(t, err)
	require.Equal(t, 100*20+20*5, len(in.X0))
	require.Equal(t, 15*8, len(in.Y0))
	require.Equal(t, spdnet.Paper.Settings, in.Settings)
	require.Len(t, in.Estimators, 4)
	require.Equal(t, *spdnet.Paper.Batches, *in.Stochastic)
	for _, name := range spdnet.Paper.Names() {
		_, err := in.Estimator(name)
		require.NoError(t, err)
	}
	acc, err := in.Accuracy(in.X0, in.Y0)
	require.NoError(t, err)
	require.GreaterOrEqual(t, acc, 0.0)
	name, base, err := in.Baseline()
	require.NoError(t, err)
	require.Equal(t, "log-Euclidean 1-NN", name)
	require.Greater(t, base, 50.0)
	t.Log(in.Describe)
	require.NoError(t, in.Problem.Mx.CheckPoint(in.X0))

	in, err = testkit.Build(t, spdnet.Spec, problems.Options{Seed: 1}, "-d1", "8", "-d2", "3", "-train", "3", "-lambda", "0.5")
	require.NoError(t, err)
	require.Equal(t, 100*8+8*3, len(in.X0))
	require.Equal(t, 24, in.Problem.NG)
	require.Equal(t, 56, in.Problem.NF)

	// A .npz file.
	path := filepath.Join(t.TempDir(), "d.npz")
	require.NoError(t, spdnet.Save(path, tiny()))
	in, err = testkit.Build(t, spdnet.Spec, problems.Options{Data: path}, "-d1", "2", "-d2", "1", "-train", "1")
	require.NoError(t, err)
	require.Equal(t, 2, in.Problem.NG) // one per class
	_, err = solver.New(in.Problem, &in.Settings)
	require.NoError(t, err)

	for _, args := range [][]string{{"-d1", "200"}, {"-lambda", "0"}, {"-train", "10"}, {"-pixel-scale", "-1"}, {"-cov-eps", "0"}} {
		_, err := testkit.Build(t, spdnet.Spec, problems.Options{}, args...)
		require.ErrorIs(t, err, problems.ErrBadData, "%v", args)
	}
}

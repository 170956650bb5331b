package spec_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	mspec "github.com/rhgd/rhgd/manifold/spec"
	"github.com/rhgd/rhgd/spd"
)

// TestSPDMetric: metric= builds the SPD manifold with that metric, String
// writes it back, and the Bures–Wasserstein metric refuses the parallel
// transport it does not have.
func TestSPDMetric(t *testing.T) {
	for _, mt := range []spd.Metric{spd.AffineInvariant, spd.LogEuclidean, spd.BuresWasserstein} {
		m, err := mspec.New("spd:n=3,metric=" + mt.String())
		require.NoError(t, err)
		require.Equal(t, mt, m.(*spd.SPD).Metric())
		require.Equal(t, "spd:n=3,retr=second-order,transport=identity,metric="+mt.String(), mspec.String(m))
	}
	m, err := mspec.New("spd:n=2,metric=Log-Euclidean,transport=parallel,retr=exp")
	require.NoError(t, err)
	require.Equal(t, "spd:n=2,retr=exp,transport=parallel,metric=log-euclidean", mspec.String(m))
	m, err = mspec.New("spd:n=2")
	require.NoError(t, err)
	require.Equal(t, spd.AffineInvariant, m.(*spd.SPD).Metric(), "the default")

	_, err = mspec.New("spd:n=3,metric=bures-wasserstein,transport=parallel")
	require.ErrorIs(t, err, mspec.ErrBadSpec)
	require.ErrorContains(t, err, "no closed-form parallel transport")
	_, err = mspec.New("spd:n=3,metric=stein")
	require.ErrorIs(t, err, mspec.ErrBadSpec)
	require.ErrorContains(t, err, `metric: spd: unknown metric "stein" (want affine-invariant, log-euclidean, bures-wasserstein)`)
}

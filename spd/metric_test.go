package spd_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/manifoldtest"
	"github.com/rhgd/rhgd/spd"
)

// metricCases are the metrics other than the affine-invariant one, with
// the transports each has.
var metricCases = []struct {
	m  spd.Metric
	tr []spd.TransportMethod
}{
	{spd.LogEuclidean, []spd.TransportMethod{spd.Identity, spd.Parallel}},
	{spd.BuresWasserstein, []spd.TransportMethod{spd.Identity}},
}

func TestMetricConformance(t *testing.T) {
	for _, c := range metricCases {
		for _, n := range []int{1, 2, 5, 17} {
			for _, tr := range c.tr {
				t.Run(fmt.Sprintf("%v/n=%d,transport=%v", c.m, n, tr), func(t *testing.T) {
					m := spd.NewMetric(n, c.m)
					m.TransportMethod = tr
					manifoldtest.Run(t, m, conformance(n, uint64(n)+100*uint64(c.m), tr))
				})
			}
		}
	}
}

func TestParseMetric(t *testing.T) {
	for i, name := range spd.MetricNames() {
		got, err := spd.ParseMetric(name)
		require.NoError(t, err)
		require.Equal(t, spd.Metric(i), got)
		require.Equal(t, name, got.String())
	}
	got, err := spd.ParseMetric(" Log-Euclidean ")
	require.NoError(t, err)
	require.Equal(t, spd.LogEuclidean, got)
	_, err = spd.ParseMetric("stein")
	require.ErrorContains(t, err, `"stein"`)
	require.Equal(t, "affine-invariant", spd.Metric(0).String())
	require.Equal(t, "Metric(9)", spd.Metric(9).String())
	require.Panics(t, func() { spd.NewMetric(3, 9) })
	require.Equal(t, spd.BuresWasserstein, spd.NewMetric(3, spd.BuresWasserstein).Clone().(*spd.SPD).Metric())
	require.Equal(t, spd.AffineInvariant, spd.New(3).Metric())
}

// TestMetricStaysSPD takes 2000 random unit steps of length 0.05 with
// each metric's retraction: the iterate stays exactly symmetric and
// passes CheckPoint (a Cholesky factorization).
func TestMetricStaysSPD(t *testing.T) {
	const n = 6
	for _, mt := range []spd.Metric{spd.LogEuclidean, spd.BuresWasserstein} {
		m := spd.NewMetric(n, mt)
		rnd := rand.New(rand.NewPCG(3, 3))
		x, u := make([]float64, n*n), make([]float64, n*n)
		m.RandPoint(x, rnd)
		for k := 0; k < 2000; k++ {
			m.RandTangent(u, x, rnd)
			require.NoError(t, m.Retract(x, x, u, 0.05), "%v step %d", mt, k)
			if k%100 == 99 {
				for i := 0; i < n; i++ {
					for j := 0; j < i; j++ {
						require.Equal(t, x[i*n+j], x[j*n+i], "%v step %d: not exactly symmetric", mt, k)
					}
				}
				require.NoError(t, m.CheckPoint(x), "%v step %d", mt, k)
			}
		}
	}
}

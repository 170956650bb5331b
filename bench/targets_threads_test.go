package bench

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// withPeers is a made-up result of op at size with the peers' ratios.
func withPeers(group, op, size string, ratios map[string]float64) Result {
	r := Result{Case: &Case{Group: group, Op: op, Size: size}, Seconds: []float64{1}}
	for name, v := range ratios {
		r.Peers = append(r.Peers, PeerResult{Name: name, Ratios: []float64{v}})
	}
	return r
}

// TestThreadTargets judges issue 32 §3's rows on made-up results.
func TestThreadTargets(t *testing.T) {
	large := targetByPrefix(t, "eig, exp/log/sqrt and the SPD exponential map at n = 1000 and 2000")
	cost := targetByPrefix(t, "One-thread windows cost")
	var res []Result
	for _, size := range []string{"n=1000", "n=2000"} {
		for _, c := range largeOrderPeers {
			res = append(res, withPeers("spd", c.op, size, map[string]float64{c.peer: 1.02, allThreadsPeer: 1.0}))
		}
	}
	v, met, ok := large.judge(res)
	require.True(t, ok)
	require.True(t, met, v)
	v, met, ok = cost.judge(res)
	require.True(t, ok)
	require.True(t, met, v)
	require.Contains(t, v, "(10 cases)")

	res[3] = withPeers("spd", "sqrtsym", "n=1000", map[string]float64{"numpy.sqrtsym": 0.9, allThreadsPeer: 1.0})
	res = append(res, withPeers("epoch", "hinv", "d=1000", map[string]float64{allThreadsPeer: 0.85}))
	v, met, _ = large.judge(res)
	require.False(t, met)
	require.Equal(t, "slowest sqrtsym n=1000: 0.90×", v)
	v, met, _ = cost.judge(res)
	require.False(t, met)
	require.Equal(t, "worst epoch/hinv d=1000: 0.85× (11 cases)", v)

	_, _, ok = large.judge(res[:4])
	require.False(t, ok, "n = 2000 not measured")
	_, _, ok = cost.judge(nil)
	require.False(t, ok)
}

package spd_test

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/spd"
)

// refCase is one case of testdata/metrics_ref.json, which
// testdata/metrics_ref.py computes with mpmath at 50 digits from the
// metrics' definitions (geoopt's and Manifolds.jl's formulas), sharing
// no code or formula with this package (see the script's doc).
type refCase struct {
	N                         int
	X, Y, U, V, EGrad, EHess  [][]float64
	LogEuclidean, BuresWasser refMetric
}

type refMetric struct {
	Inner, Dist                      float64
	RGrad, Exp, Log, Parallel, RHess [][]float64
}

func (c *refCase) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for k, p := range map[string]any{"n": &c.N, "x": &c.X, "y": &c.Y, "u": &c.U, "v": &c.V, "egrad": &c.EGrad,
		"ehess": &c.EHess, "log-euclidean": &c.LogEuclidean, "bures-wasserstein": &c.BuresWasser} {
		if err := json.Unmarshal(raw[k], p); err != nil {
			return err
		}
	}
	return nil
}

func flat(a [][]float64) []float64 {
	var v []float64
	for _, r := range a {
		v = append(v, r...)
	}
	return v
}

// relErr returns ‖got − want‖_F / max(‖want‖_F, 1e-300).
func relErr(got, want []float64) float64 {
	var d, w float64
	for i := range got {
		d += (got[i] - want[i]) * (got[i] - want[i])
		w += want[i] * want[i]
	}
	return math.Sqrt(d) / math.Max(math.Sqrt(w), 1e-300)
}

// TestMetricReference compares every closed form with the mpmath values:
// inner product, Riemannian gradient and Hessian, exponential (Exp and
// Retract at t = 1), logarithm, distance and the log-Euclidean parallel
// transport, to 1e-11 relative. The points have condition numbers below
// 10³, so a backward-stable computation loses at most a few digits of
// the 16.
func TestMetricReference(t *testing.T) {
	b, err := os.ReadFile("testdata/metrics_ref.json")
	require.NoError(t, err)
	var file struct{ Cases []refCase }
	require.NoError(t, json.Unmarshal(b, &file))
	require.NotEmpty(t, file.Cases)
	const tol = 1e-11
	worst := map[string]float64{}
	for _, c := range file.Cases {
		for _, mc := range []struct {
			m   spd.Metric
			ref refMetric
		}{{spd.LogEuclidean, c.LogEuclidean}, {spd.BuresWasserstein, c.BuresWasser}} {
			n, ref := c.N, mc.ref
			m := spd.NewMetric(n, mc.m)
			x, y, u, v := flat(c.X), flat(c.Y), flat(c.U), flat(c.V)
			dst := make([]float64, n*n)
			check := func(what string, e float64) {
				key := mc.m.String() + " " + what
				worst[key] = math.Max(worst[key], e)
				require.Less(t, e, tol, "%s n=%d", key, n)
			}
			check("inner", math.Abs(m.Inner(x, u, v)-ref.Inner)/math.Abs(ref.Inner))
			m.EGradToRGrad(dst, x, flat(c.EGrad))
			check("rgrad", relErr(dst, flat(ref.RGrad)))
			require.NoError(t, m.Exp(dst, x, u, 1))
			check("exp", relErr(dst, flat(ref.Exp)))
			require.NoError(t, m.Retract(dst, x, u, 1))
			check("retract", relErr(dst, flat(ref.Exp)))
			require.NoError(t, m.Log(dst, x, y))
			check("log", relErr(dst, flat(ref.Log)))
			d, err := m.Dist(x, y)
			require.NoError(t, err)
			check("dist", math.Abs(d-ref.Dist)/ref.Dist)
			if ref.Parallel != nil {
				m.TransportMethod = spd.Parallel
				m.Transport(dst, x, y, u)
				check("parallel transport", relErr(dst, flat(ref.Parallel)))
			}
			if ref.RHess != nil {
				m.EHessToRHess(dst, x, flat(c.EGrad), flat(c.EHess), u)
				check("rhess", relErr(dst, flat(ref.RHess)))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(worst)) {
		t.Logf("%-32s max relative error %.2e", k, worst[k])
	}
}

package bench

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExpmTarget judges issue 20's expm target on made-up results: the
// slowest of the three sizes decides, and a missing size is not measured.
func TestExpmTarget(t *testing.T) {
	var tg *target
	for i := range targets {
		if strings.HasPrefix(targets[i].desc, "General-matrix expm") {
			tg = &targets[i]
		}
	}
	require.NotNil(t, tg)
	res := []Result{
		fake("expm", "expm", "n=50", "", 50, 1, map[string]float64{"scipy.expm": 1.6}),
		fake("expm", "expm", "n=200", "", 200, 1, map[string]float64{"scipy.expm": 1.25}),
	}
	_, _, ok := tg.judge(res)
	require.False(t, ok, "n = 500 was not measured")
	res = append(res, fake("expm", "expm", "n=500", "", 500, 1, map[string]float64{"scipy.expm": 1.1}))
	v, met, ok := tg.judge(res)
	require.True(t, ok)
	require.False(t, met)
	require.Equal(t, "slowest n=500: 1.10×", v)
	res[2] = fake("expm", "expm", "n=500", "", 500, 1, map[string]float64{"scipy.expm": 1.3})
	v, met, _ = tg.judge(res)
	require.True(t, met)
	require.Equal(t, "slowest n=200: 1.25×", v)
}

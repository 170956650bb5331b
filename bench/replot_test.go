package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReplot: the scaling plots are redrawn from a run's results.json,
// and each series runs by N even when the cases interleave their N (the
// batch group's b = 1000 and b = 10000 at each n), so that the line does
// not double back.
func TestReplot(t *testing.T) {
	var saved []jsonResult
	var want []float64
	for _, c := range Cases(QuickSizes()) {
		if c.Group == "batch" && c.Op == "eig" {
			saved = append(saved, jsonResult{Name: c.Name(), Seconds: []float64{c.N * 1e-9}})
			want = append(want, c.N)
		}
	}
	require.GreaterOrEqual(t, len(saved), 2)
	saved[0], saved[len(saved)-1] = saved[len(saved)-1], saved[0] // out of order
	dir := t.TempDir()
	raw, err := json.Marshal(map[string]any{"results": saved})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.json"), raw, 0o644))
	wrote, err := Replot(dir)
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(dir, "scaling-batch.svg")}, wrote)
	st, err := os.Stat(wrote[0])
	require.NoError(t, err)
	require.Positive(t, st.Size())

	var res []Result
	for i := range saved {
		for _, c := range Cases(QuickSizes()) {
			if c.Name() == saved[i].Name {
				res = append(res, Result{Case: &c, Seconds: saved[i].Seconds})
			}
		}
	}
	xys := scalingSeries(res, "batch", "eig")
	require.Len(t, xys, len(want))
	for i := 1; i < len(xys); i++ {
		require.LessOrEqual(t, xys[i-1].X, xys[i].X, "series not sorted by N")
	}
}

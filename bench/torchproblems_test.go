package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTorchTargets: bench/torch_problems.py's JSON judged into the
// targets table: met and unmet rows with their values and why-nots, an
// estimator missing from hyperrep's per-epoch figures leaves its row
// unmeasured, and a quick run judges nothing.
func TestTorchTargets(t *testing.T) {
	js := `{"quick": false, "cpu": "X", "cores": 8, "threads": 1, "torch": "1.13", "seconds": {"metric": 3},
	 "metric": {"epoch_hand_ms": 3.5, "epoch_rhgd_ms": 2.5, "epoch_ratio": 1.4, "tol": 0.01, "tol_hand_s": 9.6,
	            "tol_rhgd_s": 0.24, "tol_ratio": 40, "tol_hand_epochs": 2699, "tol_rhgd_epochs": 203, "command": "m"},
	 "hyperrep": {"epoch": {"cg": {"port_ms": 430, "rhgd_ms": 17, "ratio": 25}, "ns": {"port_ms": 400, "rhgd_ms": 20, "ratio": 20},
	                        "hinv": {"port_ms": 100, "rhgd_ms": 20, "ratio": 5}},
	              "tol": {"rhgd_s": 1.5, "rhgd_epochs": 60, "port": {"hinv": {"s": 40, "reached": true, "epochs": 180}},
	                      "best_port": "hinv", "ratio": 26.7, "tol": 0.01}, "command": "h"},
	 "spdnet": {"rhgd_ms": 5.7, "eigh_ms": 5.1, "ratio": 0.89, "bound": 1.47, "bound_eigh_ms": 5.05,
	            "bound_none_ms": 3.43, "command": "s"}}`
	path := filepath.Join(t.TempDir(), "tp.json")
	require.NoError(t, os.WriteFile(path, []byte(js), 0o644))
	tp, err := ReadTorchProblems(path)
	require.NoError(t, err)
	var b strings.Builder
	writeTorchTargets(&b, tp)
	rows := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, rows, len(torchTargets))
	require.Contains(t, rows[0], "1.40× (2.50 ms against 3.50) | met")
	require.Contains(t, rows[1], "40.0× (0.240 s in 203 epochs against 9.600 s in 2699) | met")
	require.Contains(t, rows[2], "not measured in this run") // no AD figure
	require.Contains(t, rows[3], "26.7× (rhgd.torch adaptive 1.50 s in 60 epochs; the port's fastest of hinv: hinv 40.0 s in 180 epochs) | met")
	require.Contains(t, rows[4], "0.89× (5.70 ms against 5.10); the most any eigen-layers can gain: 1.47× (eigh 5.05 ms, none 3.43) | **not met** | Out of reach")

	tp.Quick = true
	b.Reset()
	writeTorchTargets(&b, tp)
	require.Equal(t, len(torchTargets), strings.Count(b.String(), "-quick: tiny sizes"))
	b.Reset()
	writeTorchTargets(&b, nil)
	require.Equal(t, len(torchTargets), strings.Count(b.String(), "not measured in this run"))
}

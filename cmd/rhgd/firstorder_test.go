package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompareFirstOrder: rhgd compare runs the first-order estimator by
// its spec like any other, with its own directory and history.csv.
func TestCompareFirstOrder(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, compareCmd(&out, []string{"synthetic", "-n", "20", "-d", "10", "-r", "4", "-epochs", "5", "-quiet",
		"-out", dir, "-estimators", "hinv,fo:lambda=20,zsteps=20"}))
	require.Contains(t, out.String(), "fo:lambda=20,zsteps=20")
	f, err := os.Open(filepath.Join(dir, "fo", "history.csv"))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 1+5) // header and five epochs
	err = compareCmd(&out, []string{"synthetic", "-epochs", "1", "-quiet", "-out", dir, "-estimators", "fo:zstep=3"})
	require.ErrorContains(t, err, "zstep")
}

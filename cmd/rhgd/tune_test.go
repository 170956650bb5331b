package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/blas"
)

// TestTuneCommand: `rhgd tune` saves a profile that the next start uses
// (`rhgd info` then names it), -dry-run saves nothing, and bad flags are
// usage errors naming the flag.
func TestTuneCommand(t *testing.T) {
	if len(blas.Available()) < 2 {
		t.Skip("pure-Go build")
	}
	path := filepath.Join(t.TempDir(), "threads.json")
	env := []string{"RHGD_PROFILE=" + path, "RHGD_THREADS=2"}
	const small = "-calls gemm -max-order 96 -rounds 1 -min-time 1ms"

	out, msg, code := asMainOut(t, "tune -dry-run "+small, env...)
	require.Zero(t, code, msg)
	require.Contains(t, out, "gemm   n =   96")
	require.NoFileExists(t, path)

	out, msg, code = asMainOut(t, "tune "+small, env...)
	require.Zero(t, code, msg)
	require.Contains(t, out, "saved to "+path)
	require.FileExists(t, path)

	// Two thread counts, two profiles in one file.
	out, msg, code = asMainOut(t, "tune -threads 2,3 "+small, env...)
	require.Zero(t, code, msg)
	f, err := blas.ReadProfileFile(path)
	require.NoError(t, err)
	require.Len(t, f.Profiles, 2, out)

	out, msg, code = asMainOut(t, "info", env...)
	require.Zero(t, code, msg)
	var inf struct {
		Table blas.TableInfo `json:"thread_table"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &inf))
	require.Contains(t, inf.Table.Source, "profile "+path)

	for args, want := range map[string]string{
		"tune -calls gemm,bogus": `-calls: unknown call "bogus"`,
		"tune -rounds 0":         "rounds 0 < 1",
		"tune -load -1":          "load -1 < 0",
		"tune -threads 2,x":      `-threads: "x" is not a thread count`,
	} {
		msg, code := asMain(t, args, env...)
		require.Equal(t, 2, code, args)
		require.Contains(t, msg, want, args)
	}
	msg, code = asMain(t, "tune -calls gemm", "RHGD_THREADS=1", "RHGD_PROFILE="+path)
	require.Equal(t, 1, code, msg)
	require.Contains(t, msg, "one thread")
}

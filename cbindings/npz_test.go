//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
	"github.com/rhgd/rhgd/internal/npztest"
)

// TestBuiltinHostileNPZ: rhgd_problem_builtin with a hostile or broken
// data file (npztest.Synthetic: a header claiming 80 GB, a directory
// claiming 8 GiB, a deflate bomb, a pickled object array, a missing or
// misshapen array, a short or truncated member) returns RHGD_EINVAL with a
// message naming the file and the array, never crashes and leaves no
// handle; so does an array over the limit that RHGD_NPZ_MAX_BYTES sets,
// read from the host's environment as it is at the call (C's getenv).
func TestBuiltinHostileNPZ(t *testing.T) {
	dir := t.TempDir()
	for _, c := range npztest.Synthetic() {
		path := filepath.Join(t.TempDir(), "data.npz") // a name no message part matches
		require.NoError(t, os.WriteFile(path, c.File, 0o644))
		rc, msg := call(func() int {
			_, rc := ctest.Builtin("synthetic", nil, path, 1)
			return rc
		})
		require.Equal(t, einval, rc, "%s: %s", c.Name, msg)
		assert.True(t, strings.HasPrefix(msg, "rhgd: "), msg)
		_, after, ok := strings.Cut(msg, path)
		require.True(t, ok, "%s: %q does not name the file", c.Name, msg)
		assert.Contains(t, msg, c.Array, c.Name)
		assert.Contains(t, after, c.Msg, "%s: the message, not the file's name, says what is wrong", c.Name)
	}

	path := filepath.Join(dir, "big.npz")
	x, y := npztest.Values(4096*64, 1), npztest.Values(4096*2, 2)
	require.NoError(t, npztest.Write(path,
		npztest.Member{Name: "X.npy", Data: npztest.NPY("<f8", []int{4096, 64}, npztest.Float64s(x...)), Deflate: true},
		npztest.Member{Name: "Y.npy", Data: npztest.NPY("<f8", []int{4096, 2}, npztest.Float64s(y...)), Deflate: true}))
	t.Setenv("RHGD_NPZ_MAX_BYTES", "1MiB") // os.Setenv calls C's setenv in a cgo program
	wantCode(t, "over the limit", einval, func() int {
		_, rc := ctest.Builtin("synthetic", nil, path, 1)
		return rc
	}, path, "X", "RHGD_NPZ_MAX_BYTES")
	t.Setenv("RHGD_NPZ_MAX_BYTES", "many")
	wantCode(t, "bad limit", einval, func() int {
		_, rc := ctest.Builtin("synthetic", nil, path, 1)
		return rc
	}, `RHGD_NPZ_MAX_BYTES="many"`)
	t.Setenv("RHGD_NPZ_MAX_BYTES", "2MiB")
	p, rc := ctest.Builtin("synthetic", nil, path, 1)
	require.Equal(t, okC, rc, "within the limit")
	defer ctest.ProblemFree(p)
	_, desc := ctest.ProblemDescribe(p, 1024)
	assert.Contains(t, desc, "St(64,2)")
}

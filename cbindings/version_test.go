//go:build cgo

package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rhgd/rhgd/cbindings/internal/ctest"
)

// TestVersionOnePlace checks that every copy of the version agrees with the
// repository's VERSION file, the one place it is written: the Go constant,
// rhgd.h's RHGD_VERSION (which rhgd_version returns) and
// python/rhgd/__init__.py, which python/pyproject.toml reads (the wheel's
// name, which `make wheel` checks, carries it).
func TestVersionOnePlace(t *testing.T) {
	b, err := os.ReadFile("../VERSION")
	require.NoError(t, err)
	want := strings.TrimSpace(string(b))
	require.Regexp(t, `^\d+\.\d+\.\d+$`, want)
	require.Equal(t, want, version, "cbindings/shim.go const version")
	require.Equal(t, want, ctest.HeaderVersion(), "rhgd.h RHGD_VERSION")
	require.Equal(t, want, ctest.Version(), "rhgd_version()")
	// pyproject.toml writes no version: it reads rhgd.__version__.
	pyproject, err := os.ReadFile("../python/pyproject.toml")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^dynamic = \["version"\]$`, string(pyproject))
	require.Regexp(t, `(?m)^version = \{ attr = "rhgd.__version__" \}$`, string(pyproject))
	for _, f := range []struct{ path, re string }{
		{"../python/rhgd/__init__.py", `(?m)^__version__ = "([^"]*)"$`},
	} {
		b, err := os.ReadFile(f.path)
		require.NoError(t, err)
		m := regexp.MustCompile(f.re).FindSubmatch(b)
		require.NotNil(t, m, "%s: no version line", f.path)
		require.Equal(t, want, string(m[1]), f.path)
	}
}

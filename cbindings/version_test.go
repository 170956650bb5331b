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
// rhgd.h's RHGD_VERSION (which rhgd_version returns), python/pyproject.toml
// and python/rhgd/__init__.py.
func TestVersionOnePlace(t *testing.T) {
	b, err := os.ReadFile("../VERSION")
	require.NoError(t, err)
	want := strings.TrimSpace(string(b))
	require.Regexp(t, `^\d+\.\d+\.\d+$`, want)
	require.Equal(t, want, version, "cbindings/shim.go const version")
	require.Equal(t, want, ctest.HeaderVersion(), "rhgd.h RHGD_VERSION")
	require.Equal(t, want, ctest.Version(), "rhgd_version()")
	for _, f := range []struct{ path, re string }{
		{"../python/pyproject.toml", `(?m)^version = "([^"]*)"$`},
		{"../python/rhgd/__init__.py", `(?m)^__version__ = "([^"]*)"$`},
	} {
		b, err := os.ReadFile(f.path)
		require.NoError(t, err)
		m := regexp.MustCompile(f.re).FindSubmatch(b)
		require.NotNil(t, m, "%s: no version line", f.path)
		require.Equal(t, want, string(m[1]), f.path)
	}
}

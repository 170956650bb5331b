package solver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestREADMEModuleLines runs README's lines for using the module from
// another one (the sh block of "## The solver"), as written, in a new
// module beside a stand-in for the clone, offline; then builds a program
// that imports the solver, from the replace directive and from the
// vendored copy. README said `go get github.com/rhgd/rhgd@latest`,
// which cannot work: the module is not published.
func TestREADMEModuleLines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(b), "\n## The solver\n")
	require.True(t, ok)
	_, block, ok := strings.Cut(sec, "```sh\n")
	require.True(t, ok)
	block, _, _ = strings.Cut(block, "```")
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	require.NoError(t, os.Mkdir(app, 0o755))
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = app
		// Offline: everything the module needs is in the module cache.
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=mod", "PATH="+filepath.Dir(goBin)+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%v:\n%s", args, out)
	}
	run(goBin, "mod", "init", "example.com/app")
	require.NoError(t, os.WriteFile(filepath.Join(app, "main.go"), []byte(`package main

import (
	"fmt"

	"github.com/rhgd/rhgd/solver"
)

func main() { fmt.Println(solver.AdaptiveSettings().RelGradTol) }
`), 0o644))
	n := 0
	for _, line := range strings.Split(block, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if strings.HasPrefix(line, "git clone ") {
			require.Contains(t, line, " ../rhgd")
			require.NoError(t, os.Symlink(repo, filepath.Join(dir, "rhgd"))) // the clone
			continue
		}
		require.True(t, strings.HasPrefix(line, "go "), "README's line %q", line)
		run(append([]string{goBin}, strings.Fields(line)[1:]...)...)
		n++
	}
	require.GreaterOrEqual(t, n, 2, "README's go lines")
	run(goBin, "build", "-o", os.DevNull, ".")
	run(goBin, "mod", "vendor")
	cmd := exec.Command(goBin, "build", "-mod=vendor", "-o", os.DevNull, ".")
	cmd.Dir = app
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "vendored build:\n%s", out)
}

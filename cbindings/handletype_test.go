//go:build cgo

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHandleKindsDistinct checks that rhgd.h's handle kinds are distinct C
// types: a program passing a problem handle where a solver is expected,
// or an integer where a handle is expected, does not compile (pointers of
// the wrong kind are an error from -Werror, or from GCC 14 on), while the
// same program with the right kinds does.
func TestHandleKindsDistinct(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	compile := func(body string) error {
		src := filepath.Join(t.TempDir(), "h.c")
		require.NoError(t, os.WriteFile(src, []byte("#include \"rhgd.h\"\n"+body), 0o644))
		out, err := exec.Command(cc, "-std=c11", "-Werror", "-fsyntax-only", "-I", ".", src).CombinedOutput()
		if err != nil {
			t.Logf("%s", out)
		}
		return err
	}
	require.NoError(t, compile("int f(rhgd_problem p, rhgd_solver s) { rhgd_problem_free(p); return rhgd_solver_free(s); }\n"),
		"the right kinds")
	require.Error(t, compile("int f(rhgd_problem p) { return rhgd_solver_free(p); }\n"), "a problem as a solver")
	require.Error(t, compile("int f(rhgd_manifold m) { return rhgd_problem_free(m); }\n"), "a manifold as a problem")
	require.Error(t, compile("int f(void) { return rhgd_solver_free(42); }\n"), "an integer as a solver")
	require.Error(t, compile("int f(rhgd_manifold *m) { rhgd_problem p; return rhgd_problem_manifolds(p, (rhgd_problem *)0, m); }\n"),
		"a problem pointer as a manifold pointer")
}

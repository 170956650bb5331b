package blas

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// useTable installs tb for the test, restoring the table in use after it:
// tests that depend on the bounds must not depend on the machine's
// profile or thread count.
func useTable(t *testing.T, tb *Table) {
	old := table.Load()
	table.Store(tb)
	t.Cleanup(func() { table.Store(old) })
}

// TestFallbackTwoThreads: the fallback for two threads is the table the
// 2-core measurements gave before the table moved out of constants (the
// bounds hybrid.go and lapackx's backend_native.go stated).
func TestFallbackTwoThreads(t *testing.T) {
	want := map[Call]int{
		CallGemm: 768, CallSymm: 640, CallSyrk: 768, CallSyr2k: 448, CallTrmm: 448, CallTrsm: 640,
		CallGemv: 3072, CallSymv: 4096, CallGer: 4096, CallTrmv: 4096,
		CallPotrf: Never, CallPotri: Never, CallGetrf: 3072, CallSygst: 3072,
		CallSyevd: Never, CallQR: Never, CallGees: Never,
	}
	for _, p := range []int{1, 2} {
		tb := fallbackTable(p)
		for c := range NumCalls {
			require.Equal(t, want[c], tb.From[c], "%d threads: %s", p, c)
		}
		require.Contains(t, tb.Source, "fallback")
	}
	require.Equal(t, 768*768*768, fallbackTable(2).ThreadsFrom(CallGemm))
	require.Equal(t, 3072*3072, fallbackTable(2).ThreadsFrom(CallGemv))
	require.Equal(t, 3072, fallbackTable(2).ThreadsFrom(CallGetrf))
	require.Equal(t, Never, fallbackTable(2).ThreadsFrom(CallSyevd))
}

// TestFallbackScales: with more threads no call's bound rises, the source
// says how the table was derived, and the large LAPACK calls that win on
// a quiet machine get a bound (dsyevd, whose 2-thread speed-up is 1.13 at
// n = 1024, projects to 1.25 on 8 threads).
func TestFallbackScales(t *testing.T) {
	prev := fallbackTable(2)
	for _, p := range []int{3, 4, 8, 16, 64} {
		tb := fallbackTable(p)
		require.Contains(t, tb.Source, "projected to")
		for c := range NumCalls {
			require.LessOrEqual(t, tb.From[c], prev.From[c], "%d threads: %s", p, c)
		}
		prev = tb
	}
	tb := fallbackTable(8)
	require.Equal(t, 1024, tb.From[CallSyevd])
	require.Equal(t, 256, tb.From[CallGemm])
	require.Equal(t, Never, tb.From[CallGees], "dgees never won on two threads")
	require.InDelta(t, 1.25, amdahl(1.13, 8), 0.01)
	require.Equal(t, 0.66, amdahl(0.66, 8), "a loss stays a loss")
}

// TestRuleCrossover: the bound is the start of the last run of orders that
// qualify, so a win at one small order amid losses does not count.
func TestRuleCrossover(t *testing.T) {
	r := Rule{MinQuiet: 1.1, MinLoaded: 0.8}
	require.Equal(t, 300, r.Crossover([]Point{{100, 1.5, 0}, {200, 1.0, 0}, {300, 1.2, 0}, {400, 1.3, 0}}))
	require.Equal(t, 400, r.Crossover([]Point{{100, 1.5, 0}, {300, 1.2, 0.5}, {400, 1.3, 0.9}}))
	require.Equal(t, Never, r.Crossover([]Point{{100, 1.5, 0}, {400, 1.0, 0}}))
	require.Equal(t, Never, r.Crossover(nil))
}

// fakeProfile is a profile for key with every call from order n.
func fakeProfile(key ProfileKey, n int) Profile {
	p := Profile{Key: key, Measured: "2026-11-27T00:00:00Z", Rule: DefaultRule, ThreadsFrom: map[string]int{}}
	for c := range NumCalls {
		p.ThreadsFrom[c.String()] = n
	}
	p.ThreadsFrom["gees"] = 0 // never
	return p
}

// TestProfileResolve: a profile for this machine replaces the fallback, one
// for another CPU or thread count is passed over with a note, and a
// corrupt file is rejected with a warning that names it and what is wrong.
func TestProfileResolve(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rhgd", "threads.json")
	key := keyFor(4)

	tb, notes, warns := resolveTable(path, key)
	require.Equal(t, fallbackTable(4).From, tb.From, "no file: the fallback")
	require.Empty(t, notes)
	require.Empty(t, warns)

	other := key
	other.CPU = "Some Other CPU"
	require.NoError(t, SaveProfile(path, fakeProfile(other, 100)))
	tb, notes, warns = resolveTable(path, key)
	require.Equal(t, fallbackTable(4).From, tb.From, "a profile for another CPU is ignored")
	require.Len(t, notes, 1)
	require.Contains(t, notes[0], "Some Other CPU")
	require.Empty(t, warns)

	require.NoError(t, SaveProfile(path, fakeProfile(key, 200)))
	tb, _, warns = resolveTable(path, key)
	require.Empty(t, warns)
	require.Equal(t, 200, tb.From[CallSyevd])
	require.Equal(t, Never, tb.From[CallGees], "0 is never")
	require.Equal(t, 200*200*200, tb.ThreadsFrom(CallGemm))
	require.Contains(t, tb.Source, path)

	twoThreads := key
	twoThreads.Threads = 2
	tb, _, _ = resolveTable(path, twoThreads)
	require.Equal(t, fallbackTable(2).From, tb.From, "a profile for another thread count is ignored")

	// Saving again replaces the profile of the same key.
	require.NoError(t, SaveProfile(path, fakeProfile(key, 300)))
	f, err := ReadProfileFile(path)
	require.NoError(t, err)
	require.Len(t, f.Profiles, 2)
	tb, _, _ = resolveTable(path, key)
	require.Equal(t, 300, tb.From[CallGemm])

	good, err := os.ReadFile(path)
	require.NoError(t, err)
	for name, c := range map[string]struct{ content, want string }{
		"not JSON":      {"{not json", "invalid character"},
		"truncated":     {string(good[:len(good)/2]), "unexpected EOF"},
		"version":       {`{"version": 9, "profiles": []}`, "version 9"},
		"unknown field": {`{"version": 1, "profiles": [], "extra": 1}`, "unknown field"},
		"unknown call":  {strings.Replace(string(good), `"syevd"`, `"syevx"`, 1), `unknown call "syevx"`},
		"negative":      {strings.Replace(string(good), `"gemm": 300`, `"gemm": -5`, 1), "gemm = -5 < 0"},
		"missing call":  {strings.Replace(string(good), `"gemm": 300,`, ``, 1), "no entry for gemm"},
	} {
		require.NoError(t, os.WriteFile(path, []byte(c.content), 0o644))
		tb, _, warns := resolveTable(path, key)
		require.Equal(t, fallbackTable(4).From, tb.From, name)
		require.Len(t, warns, 1, name)
		require.Contains(t, warns[0], path, name)
		require.Contains(t, warns[0], c.want, name)
		require.Contains(t, warns[0], "fallback", name)
	}

	// A corrupt file is replaced by the next save.
	require.NoError(t, SaveProfile(path, fakeProfile(key, 500)))
	tb, _, warns = resolveTable(path, key)
	require.Empty(t, warns)
	require.Equal(t, 500, tb.From[CallGemm])

	require.Error(t, SaveProfile(path, Profile{Key: key}), "a profile without entries is not saved")
}

// TestProfilePath: RHGD_PROFILE names the file or turns profiles off;
// otherwise the file is under XDG_CACHE_HOME.
func TestProfilePath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	require.Equal(t, "/x/p.json", ProfilePath(env(map[string]string{EnvProfile: "/x/p.json"})))
	require.Equal(t, "", ProfilePath(env(map[string]string{EnvProfile: "off"})))
	require.Equal(t, "/c/rhgd/threads.json", ProfilePath(env(map[string]string{"XDG_CACHE_HOME": "/c"})))
}

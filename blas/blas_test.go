package blas

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/testblas"

	"github.com/rhgd/rhgd/internal/race"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// restore puts the start-up configuration back after a test changed it.
func restore(t *testing.T) {
	b, n := Current(), Threads()
	t.Cleanup(func() {
		require.NoError(t, Use(b))
		require.NoError(t, SetThreads(n))
	})
}

func TestParseBackend(t *testing.T) {
	for in, want := range map[string]Backend{"gonum": Gonum, "OpenBLAS": Native, " native ": Native, "auto": Auto} {
		got, err := ParseBackend(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := ParseBackend("mkl2")
	require.ErrorIs(t, err, ErrBadSetting)
	require.Contains(t, err.Error(), "mkl2")
	// One name per backend and one alias: the old extra spellings are gone.
	for _, in := range []string{"go", "purego", "cblas"} {
		_, err := ParseBackend(in)
		require.ErrorIs(t, err, ErrBadSetting, in)
	}
	for _, b := range []Backend{Auto, Gonum, Native} {
		got, err := ParseBackend(b.String())
		require.NoError(t, err)
		require.Equal(t, b, got, "String and ParseBackend agree")
	}
}

func TestConfigFromEnv(t *testing.T) {
	c, err := configFrom(env("RHGD_BLAS", "gonum", "RHGD_THREADS", " 3 ", "RHGD_SHARED", "1"), Config{})
	require.NoError(t, err)
	require.Equal(t, Config{Backend: Gonum, Threads: 3, Shared: true}, c)

	// Every bad value is named in one error; the good ones still apply.
	c, err = configFrom(env("RHGD_BLAS", "fortran", "RHGD_THREADS", "zero", "RHGD_SHARED", "maybe"), Config{Threads: 5})
	require.ErrorIs(t, err, ErrBadSetting)
	for _, s := range []string{"fortran", "zero", "maybe"} {
		require.Contains(t, err.Error(), s)
	}
	require.Equal(t, Config{Threads: 5}, c)
	_, err = configFrom(env("RHGD_THREADS", "-2"), Config{})
	require.ErrorIs(t, err, ErrBadSetting)
	c, err = configFrom(env("RHGD_WINDOWS", "0"), Config{Shared: true})
	require.NoError(t, err)
	require.Equal(t, Config{Shared: true, NoSharedWindows: true}, c)
	_, err = configFrom(env("RHGD_WINDOWS", "some"), Config{})
	require.ErrorIs(t, err, ErrBadSetting)
}

// TestStart applies configurations as start-up does and checks the
// library state each leaves.
func TestStart(t *testing.T) {
	lazyStart()
	restore(t)
	defer shared.Store(shared.Load())
	defer owned.Store(owned.Load()) // start is Init's: it owns blas64
	defer blas64.Use(blas64.Implementation())
	require.Empty(t, start(Config{Backend: Gonum, Getenv: env()}, true, true))
	require.Equal(t, Gonum, Current())
	require.IsType(t, GoBLAS{}, blas64.Implementation())

	if !haveNative {
		require.ErrorIs(t, Config{Backend: Native}.Validate(), ErrUnavailable)
		return
	}
	require.Empty(t, start(Config{Threads: 1, Getenv: env()}, true, true))
	require.Equal(t, Native, Current())
	require.IsType(t, Hybrid{}, blas64.Implementation())
	require.Equal(t, 1, Threads())
	require.Equal(t, 1, nativeThreads(), "the library was told")

	// Shared: the host's thread count stays; the one-thread windows
	// around small calls restore it (and leave it alone when off).
	defer sharedWindows.Store(sharedWindows.Load())
	nativeSetThreads(2)
	require.Empty(t, start(Config{Shared: true, Getenv: env()}, true, true))
	require.Equal(t, 2, Threads())
	SerialBegin()
	require.Equal(t, 1, nativeThreads())
	SerialEnd()
	require.Equal(t, 2, nativeThreads())
	require.Empty(t, start(Config{Shared: true, NoSharedWindows: true, Getenv: env()}, true, true))
	SerialBegin()
	require.Equal(t, 2, nativeThreads())
	SerialEnd()
	require.Equal(t, 2, nativeThreads())
	sharedWindows.Store(true)

	// Owning with OPENBLAS_NUM_THREADS set keeps what the library read.
	nativeSetThreads(1)
	require.Empty(t, start(Config{Getenv: env("OPENBLAS_NUM_THREADS", "1")}, true, true))
	require.Equal(t, 1, Threads())
	require.Equal(t, PhysicalCores(), func() int { start(Config{Getenv: env()}, true, true); return Threads() }())
}

// TestInitBadConfig: Init checks its Config before anything else. That
// Init follows a start-up on first use and refuses a second call is
// TestStartupPolicy's, in a process of its own.
func TestInitBadConfig(t *testing.T) {
	lazyStart()
	require.ErrorIs(t, Init(Config{Threads: -1}), ErrBadSetting)
	require.ErrorIs(t, Init(Config{Backend: Backend(9)}), ErrBadSetting)
}

func TestPhysicalCores(t *testing.T) {
	n := PhysicalCores()
	require.GreaterOrEqual(t, n, 1)
	require.LessOrEqual(t, n, runtime.NumCPU())
	if c := osPhysicalCores(); c > 0 {
		require.Equal(t, min(c, runtime.NumCPU()), n)
	}
}

func TestUseUnavailable(t *testing.T) {
	restore(t)
	err := Use(Backend(7))
	require.ErrorIs(t, err, ErrUnavailable)
	if !haveNative {
		require.ErrorIs(t, Use(Native), ErrUnavailable)
	}
	require.ErrorIs(t, SetThreads(0), ErrBadSetting)
}

func TestSerial(t *testing.T) {
	if !haveNative {
		t.Skip("pure-Go build")
	}
	restore(t)
	if shared.Load() {
		t.Skip("RHGD_SHARED: serial windows are off")
	}
	require.NoError(t, SetThreads(2))
	SerialBegin()
	SerialBegin()
	require.Equal(t, 1, nativeThreads())
	SerialEnd()
	require.Equal(t, 1, nativeThreads(), "nested pairs keep one thread")
	require.NoError(t, SetThreads(2))
	require.Equal(t, 1, nativeThreads(), "SetThreads waits for the serial section")
	SerialEnd()
	require.Equal(t, 2, nativeThreads())
	require.Panics(t, SerialEnd)
	SerialBegin() // the misuse above left the count as it was
	require.Equal(t, 1, nativeThreads())
	SerialEnd()
	require.Equal(t, 2, nativeThreads())
}

// TestSharedWindows: in Shared mode the windows are off until
// SetSharedWindows(true); then each opens on one thread and closes on the
// count the host had when it opened, a count the host may change between
// windows.
func TestSharedWindows(t *testing.T) {
	if !haveNative {
		t.Skip("pure-Go build")
	}
	restore(t)
	was, wasOn := shared.Load(), sharedWindows.Load()
	t.Cleanup(func() { shared.Store(was); sharedWindows.Store(wasOn) })
	shared.Store(true)
	sharedWindows.Store(false)
	nativeSetThreads(2) // the host's count
	SerialBegin()
	require.Equal(t, 2, nativeThreads(), "windows off: the host's count stays")
	sharedWindows.Store(true) // between its Begin and its End: the End is a no-op
	SerialEnd()
	require.Equal(t, 2, nativeThreads())

	SerialBegin()
	SerialBegin()
	require.Equal(t, 1, nativeThreads(), "windows on: one thread")
	SerialEnd()
	require.Equal(t, 1, nativeThreads(), "nested")
	SerialEnd()
	require.Equal(t, 2, nativeThreads(), "the host's count restored")
	nativeSetThreads(3) // the host changes its count between rhgd's calls
	SerialBegin()
	require.Equal(t, 1, nativeThreads())
	SerialEnd()
	require.Equal(t, 3, nativeThreads(), "the count found when the window opened")
	require.NotPanics(t, SerialEnd, "an unmatched End in Shared mode is a no-op")
	require.Equal(t, 3, nativeThreads())
	require.True(t, CurrentInfo().SharedWindows)
}

// TestSerialWindowsBuild: the windows open only in a build with a native
// library; in a pure-Go build there is nothing to run on one thread.
func TestSerialWindowsBuild(t *testing.T) {
	useTable(t, fallbackTable(2))
	require.Equal(t, haveNative, serial(128*128*128, gemmSerialLo, ThreadsFrom(CallGemm)), "domain adaptation's dgemm")
	require.False(t, serial(1000*1000*1000, gemmSerialLo, ThreadsFrom(CallGemm)), "a dgemm of 1000³")
	require.False(t, serial(64*64*64, gemmSerialLo, ThreadsFrom(CallGemm)), "a dgemm OpenBLAS runs on one thread itself")
}

func TestInfo(t *testing.T) {
	inf := CurrentInfo()
	var back map[string]any
	require.NoError(t, json.Unmarshal(inf.JSON(), &back))
	require.Equal(t, Current().String(), back["backend"])
	require.Positive(t, inf.Threads)
	if haveNative {
		require.NotEmpty(t, inf.Library)
		if inf.Core != "" && bestOpenBLASCore() != "" && inf.DetectedCore != "" {
			// rhgd re-selected: the kernels now match the CPU.
			require.Equal(t, coreRank(bestOpenBLASCore()), coreRank(inf.Core), "%+v", inf)
		}
	}
}

func TestCoreRank(t *testing.T) {
	require.Less(t, coreRank("Prescott"), coreRank("Sandybridge"))
	require.Less(t, coreRank("Sandybridge"), coreRank("Haswell"))
	require.Less(t, coreRank("Haswell"), coreRank("SkylakeX"))
	require.Equal(t, coreRank("SKYLAKEX"), coreRank("cooperlake"))
	require.Equal(t, 0, coreRank("Unknown"))
}

func TestErrorsAreDistinct(t *testing.T) {
	require.False(t, errors.Is(ErrUnavailable, ErrBadSetting))
}

// GoBLAS's tiled, pooled Dgemm against gonum's suite, and zero allocations
// on a product large enough to use the pool.
func TestGoBLAS(t *testing.T) {
	testblas.TestDgemm(t, GoBLAS{})
	n := 300
	a, c := make([]float64, n*n), make([]float64, n*n)
	for i := range a {
		a[i] = float64(i%7) - 3
	}
	g := GoBLAS{}
	// Tall and wide shapes with every transpose pair, against gonum's own
	// result (integer data: both sum exactly).
	for _, mk := range [][3]int{{300, 300, 300}, {70, 260, 5}, {260, 70, 1}} {
		m, nn, k := mk[0], mk[1], mk[2]
		for _, ta := range []gblas.Transpose{gblas.NoTrans, gblas.Trans} {
			for _, tb := range []gblas.Transpose{gblas.NoTrans, gblas.Trans} {
				lda, ldb := k, nn
				if ta == gblas.Trans {
					lda = m
				}
				if tb == gblas.Trans {
					ldb = k
				}
				got, want := make([]float64, m*nn), make([]float64, m*nn)
				g.Dgemm(ta, tb, m, nn, k, 1, a[:m*k], lda, a[:k*nn], ldb, 0, got, nn)
				g.Implementation.Dgemm(ta, tb, m, nn, k, 1, a[:m*k], lda, a[:k*nn], ldb, 0, want, nn)
				require.Equal(t, want, got, "m=%d n=%d k=%d %c%c", m, nn, k, ta, tb)
			}
		}
	}
	if race.Enabled {
		t.Skip("allocation counts under -race")
	}
	allocs := testing.AllocsPerRun(10, func() {
		g.Dgemm(gblas.NoTrans, gblas.Trans, n, n-7, n-3, 1.5, a, n, a, n, 0.5, c, n)
	})
	require.Zero(t, allocs)
	require.Panics(t, func() { g.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, a[:10], n, a, n, 0, c, n) })
}

// TestStartWarns: with no Init, the first computation starts the backend
// from the environment and says on standard error, once, which value it
// ignored. It runs the test binary again with a bad RHGD_THREADS.
func TestStartWarns(t *testing.T) {
	if os.Getenv("RHGD_BLAS_HELPER") == "1" {
		Current()
		Impl()
		lazyStart()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartWarns$")
	cmd.Env = append(os.Environ(), "RHGD_BLAS_HELPER=1", "RHGD_THREADS=lots")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, 1, strings.Count(string(out), `RHGD_THREADS="lots"`), string(out))
}

// TestRunnableCores: the kernel sets listed for the test sweep include the
// one rhgd would choose, and none stronger than the CPU runs.
func TestRunnableCores(t *testing.T) {
	cores := RunnableCores()
	best := bestOpenBLASCore()
	if best == "" {
		return
	}
	require.Contains(t, cores, best)
	for _, c := range cores {
		require.LessOrEqual(t, coreRank(c), coreRank(best), "%s is beyond the CPU's best, %s", c, best)
	}
}

// TestPrivateCNames: blas's C helpers do not take the rhgd_ prefix, which
// names the C ABI's public functions (cbindings/rhgd.h): a static helper
// called rhgd_set_threads beside the public rhgd_set_threads misleads
// whoever reads a backtrace or the source.
func TestPrivateCNames(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fn := regexp.MustCompile(`(?m)^\s*static\s+[\w\s\*\(\)]*?\b(rhgd_\w+)\s*[\(;]`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range fn.FindAllStringSubmatch(string(src), -1) {
			t.Errorf("%s: C helper %s has the public ABI's prefix", f, m[1])
		}
	}
}

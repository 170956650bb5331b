package blas

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/cpuid/v2"
)

// Environment variables read by ConfigFromEnv and by the lazy start-up.
const (
	EnvBackend = "RHGD_BLAS"    // auto | gonum | openblas
	EnvThreads = "RHGD_THREADS" // positive integer
	EnvShared  = "RHGD_SHARED"  // 1 | 0: see Config.Shared
	EnvWindows = "RHGD_WINDOWS" // 1 | 0: see Config.NoSharedWindows
)

// Config is how the numerical backend is set up; see Init. The zero value
// is rhgd's default for a Go program: the native library when this build
// has it, as many threads as physical cores, kernels re-selected when
// OpenBLAS fell back to generic ones.
type Config struct {
	// Backend is the implementation; Auto (zero) picks Native when this
	// build contains it and Gonum otherwise.
	Backend Backend
	// Threads is the native library's thread count. Zero means the
	// physical core count, or the library's own setting when
	// OPENBLAS_NUM_THREADS or OMP_NUM_THREADS is set or when Shared.
	Threads int
	// Shared says rhgd is a guest in a process whose BLAS library belongs
	// to a host (numpy in a Python process using the C ABI, a C program
	// with its own OpenBLAS). rhgd then never changes the library's state
	// behind the host's back: it does not re-select OpenBLAS's kernel set
	// and sets no thread count unless Threads asks for one. It still runs
	// its own small calls on one thread (SerialBegin and SerialEnd), unless
	// NoSharedWindows, and restores the host's count after each: the host
	// sees its own count between rhgd's calls. When not Shared, rhgd owns
	// the library: it re-selects the kernels and sets the thread count.
	Shared bool
	// NoSharedWindows turns the one-thread windows off in Shared mode
	// (RHGD_WINDOWS=0): every call of rhgd's then runs on the host's
	// thread count. The windows are on by default there since they never
	// lose and win beside busy processes: in one Python process, beside
	// one busy process, the built-in hyperrep's epoch took 2.71 ms with
	// them and 4.72 ms without on a 2-core EPYC (quiet, and for torch
	// problems, within ±6%; bench/shared_threads.py). A host thread that
	// calls OpenBLAS during one of rhgd's windows runs on one thread too.
	NoSharedWindows bool
	// Getenv reads the environment for ConfigFromEnv and Init (which
	// consults OPENBLAS_CORETYPE, OPENBLAS_NUM_THREADS and
	// OMP_NUM_THREADS); nil means os.Getenv. The C ABI passes C's getenv:
	// inside a host process, os.Getenv sees the environment as it was when
	// the process started, not what the host set since (Python's
	// os.environ, C's setenv).
	Getenv func(string) string
}

// getenv returns c.Getenv, or os.Getenv if it is nil.
func (c Config) getenv() func(string) string {
	if c.Getenv != nil {
		return c.Getenv
	}
	return os.Getenv
}

// Validate reports a Config that cannot be honored.
func (c Config) Validate() error {
	switch {
	case c.Backend < Auto || c.Backend > Native:
		return fmt.Errorf("%w: backend %v", ErrBadSetting, c.Backend)
	case c.Backend == Native && !haveNative:
		return fmt.Errorf("%w: %v (this is a pure-Go build)", ErrUnavailable, c.Backend)
	case c.Threads < 0:
		return fmt.Errorf("%w: thread count %d < 0", ErrBadSetting, c.Threads)
	}
	return nil
}

// ConfigFromEnv reads RHGD_BLAS, RHGD_THREADS, RHGD_SHARED and RHGD_WINDOWS (through
// base.Getenv) over base. It returns the settings it could read and an
// error naming each bad value.
func ConfigFromEnv(base Config) (Config, error) { return configFrom(base.getenv(), base) }

func configFrom(getenv func(string) string, c Config) (Config, error) {
	var errs []string
	if s := getenv(EnvBackend); s != "" {
		b, err := ParseBackend(s)
		switch {
		case err != nil:
			errs = append(errs, fmt.Sprintf("%s=%q: want auto, gonum or openblas", EnvBackend, s))
		case b == Native && !haveNative:
			errs = append(errs, fmt.Sprintf("%s=%q but this is a pure-Go build", EnvBackend, s))
		default:
			c.Backend = b
		}
	}
	if s := getenv(EnvThreads); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err != nil || n < 1 {
			errs = append(errs, fmt.Sprintf("%s=%q: want a positive integer", EnvThreads, s))
		} else {
			c.Threads = n
		}
	}
	if s := getenv(EnvShared); s != "" {
		if v, err := strconv.ParseBool(strings.TrimSpace(s)); err != nil {
			errs = append(errs, fmt.Sprintf("%s=%q: want 1 or 0", EnvShared, s))
		} else {
			c.Shared = v
		}
	}
	if s := getenv(EnvWindows); s != "" {
		if v, err := strconv.ParseBool(strings.TrimSpace(s)); err != nil {
			errs = append(errs, fmt.Sprintf("%s=%q: want 1 or 0", EnvWindows, s))
		} else {
			c.NoSharedWindows = !v
		}
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("%w: %s", ErrBadSetting, strings.Join(errs, "; "))
	}
	return c, nil
}

// Start-up state.
var (
	lazyOnce sync.Once  // the start-up on first use, or Init before any use
	initMu   sync.Mutex // serializes Init
	initDone bool       // Init ran (guarded by initMu)
	shared   atomic.Bool
	startup  struct {
		config       Config
		detectedCore string // the core OpenBLAS picked on its own
		forcedCore   string // the core rhgd re-selected, if any
		warnings     []string
	}
)

// Init sets rhgd up as the owner of the process's numerical backend, from
// c: it re-selects OpenBLAS's kernels when they fall short of the CPU,
// sets the thread count, and installs rhgd's implementation in gonum's
// blas64, so that gonum/mat and gonum's LAPACK compute on it too (with
// c.Shared, only the last: see Config.Shared). rhgd changes process-wide
// state only when asked: here (the rhgd command and the C ABI's start-up
// call Init), through SetThreads, through Use after Init, or by the
// user's RHGD_THREADS (see the package doc). Init runs once per process and returns
// ErrStarted on a second call; it may follow computations that started
// the backend on first use (see the package doc), but must not run
// concurrently with them. Programs that want bad environment settings
// reported as errors call Init(ConfigFromEnv(...)) first thing, as `rhgd`
// does.
func Init(c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	initMu.Lock()
	defer initMu.Unlock()
	if initDone {
		sc := startup.config
		return fmt.Errorf("%w (configured: backend %v, threads %d, shared %t)", ErrStarted, sc.Backend, sc.Threads, sc.Shared)
	}
	initDone = true
	ran := false
	lazyOnce.Do(func() {
		ran = true
		startup.warnings = start(c, true, true)
	})
	if !ran { // after the start-up on first use: Init's settings replace it
		startup.warnings = start(c, true, true)
	}
	return nil
}

// lazyStart sets up rhgd's own backend on the first computation of any
// rhgd package, unless Init did: every BLAS call through Impl and every
// LAPACK call of lapackx come here first, so no package does anything at
// import time. It reads RHGD_BLAS, RHGD_THREADS and RHGD_SHARED and
// changes nothing process-wide but the thread count RHGD_THREADS asks
// for: it neither touches gonum's blas64 nor OpenBLAS's kernels, and
// otherwise keeps the library's own thread count. RHGD_SHARED=0, set
// explicitly, is the user asking rhgd to own OpenBLAS as Init does
// (kernels, threads; still not blas64), as it is for the C ABI; benchmark
// runs set it to measure what the rhgd command runs. A bad environment value
// is ignored with a one-line warning on standard error (and in
// CurrentInfo): there is no caller to return an error to. After the first
// call it costs one atomic load.
func lazyStart() {
	lazyOnce.Do(func() {
		c, err := ConfigFromEnv(Config{})
		if err != nil {
			fmt.Fprintf(os.Stderr, "rhgd: %v; ignored\n", err)
			startup.warnings = append(startup.warnings, err.Error()+"; ignored")
		}
		if v, err := strconv.ParseBool(strings.TrimSpace(os.Getenv(EnvShared))); err == nil && !v {
			startup.warnings = append(startup.warnings, start(c, true, false)...)
			return
		}
		startup.warnings = append(startup.warnings, start(c, false, false)...)
	})
}

// start applies c. With own (Init, or RHGD_SHARED=0 on first use) rhgd
// owns OpenBLAS unless c.Shared: it re-selects the kernels and sets the
// thread count to the physical cores unless told otherwise. Without own
// (the start-up on first use) only c's backend for rhgd's own calls and
// c.Threads (RHGD_THREADS), if set, change. With install, which only Init
// asks for, it also hands blas64 to rhgd.
func start(c Config, own, install bool) (warnings []string) {
	getenv := c.getenv()
	startup.config = c
	shared.Store(c.Shared)
	sharedWindows.Store(!c.NoSharedWindows)
	if install {
		owned.Store(true)
	}
	own = own && !c.Shared
	if haveNative && own {
		selectCore(getenv)
	}
	if err := use(c.Backend); err != nil {
		warnings = append(warnings, err.Error())
		_ = use(Auto)
	}
	n := c.Threads
	if n == 0 && own && getenv("OPENBLAS_NUM_THREADS") == "" && getenv("OMP_NUM_THREADS") == "" {
		n = PhysicalCores()
	}
	if n > 0 {
		if err := setThreads(n); err != nil {
			warnings = append(warnings, err.Error())
		}
	} else {
		mu.Lock()
		threads = nativeThreads() // the library's own setting, left as it is
		mu.Unlock()
	}
	profileGetenv = getenv
	mu.Lock()
	n = threads
	mu.Unlock()
	for _, w := range applyProfile(getenv, n) {
		fmt.Fprintf(os.Stderr, "rhgd: %s\n", w)
		warnings = append(warnings, w)
	}
	return warnings
}

// profileGetenv is the start-up's getenv, which SetThreads reuses to find
// the profile again.
var profileGetenv = os.Getenv

// selectCore re-runs OpenBLAS's kernel choice when it picked kernels weaker
// than the CPU supports and the user did not pick them with
// OPENBLAS_CORETYPE. No BLAS call may run meanwhile.
func selectCore(getenv func(string) string) {
	startup.detectedCore = nativeCore()
	if getenv("OPENBLAS_CORETYPE") != "" {
		return
	}
	if want := bestOpenBLASCore(); want != "" && coreRank(startup.detectedCore) < coreRank(want) {
		if nativeForceCore(want) {
			startup.forcedCore = nativeCore()
		}
	}
}

// defaultBackend is the backend Auto stands for: Native when this build
// contains it, Gonum otherwise.
func defaultBackend() Backend {
	if haveNative {
		return Native
	}
	return Gonum
}

// openBLASCores are OpenBLAS's x86-64 kernel sets with distinct
// double-precision kernels or blocking, one or two per instruction-set
// generation, as OPENBLAS_CORETYPE spells them, with the CPU features their
// kernels execute. The AMD families before Zen (Barcelona to Excavator)
// are left out: their kernels use SSE4a, FMA4 or XOP, which other CPUs
// lack, and no CPU rhgd is tuned for picks them.
var openBLASCores = []struct {
	name  string
	needs []cpuid.FeatureID
}{
	{"Prescott", []cpuid.FeatureID{cpuid.SSE3}},
	{"Core2", []cpuid.FeatureID{cpuid.SSE3, cpuid.SSSE3}},
	{"Nehalem", []cpuid.FeatureID{cpuid.SSE3, cpuid.SSSE3, cpuid.SSE4, cpuid.SSE42, cpuid.POPCNT}},
	{"Sandybridge", []cpuid.FeatureID{cpuid.AVX}},
	{"Haswell", []cpuid.FeatureID{cpuid.AVX, cpuid.AVX2, cpuid.FMA3}},
	{"Zen", []cpuid.FeatureID{cpuid.AVX, cpuid.AVX2, cpuid.FMA3}},
	{"SkylakeX", []cpuid.FeatureID{cpuid.AVX2, cpuid.FMA3, cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512CD, cpuid.AVX512BW, cpuid.AVX512VL}},
	{"Cooperlake", []cpuid.FeatureID{cpuid.AVX2, cpuid.FMA3, cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512CD, cpuid.AVX512BW, cpuid.AVX512VL, cpuid.AVX512BF16}},
}

// RunnableCores names the OpenBLAS x86-64 kernel sets this CPU can execute
// (as OPENBLAS_CORETYPE spells them), weakest first; nil on other
// architectures. The results of a computation can differ with the kernel
// set by rounding, so `make test` runs the kernel-sensitive packages
// under each of these: a test that passes on the developer's kernels and
// fails on a user's is found on the developer's machine.
func RunnableCores() []string {
	if runtime.GOARCH != "amd64" {
		return nil
	}
	var out []string
	for _, c := range openBLASCores {
		if cpuid.CPU.Supports(c.needs...) {
			out = append(out, c.name)
		}
	}
	return out
}

// bestOpenBLASCore names the fastest OpenBLAS x86-64 kernel set the CPU can
// run (as OPENBLAS_CORETYPE spells it), or "" when the CPU is not x86-64 or
// has nothing beyond SSE3.
func bestOpenBLASCore() string {
	c := cpuid.CPU
	switch {
	case runtime.GOARCH != "amd64":
		return ""
	case c.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512CD, cpuid.AVX512BW, cpuid.AVX512VL):
		return "SkylakeX"
	case c.Supports(cpuid.AVX2, cpuid.FMA3):
		return "Haswell"
	case c.Supports(cpuid.AVX):
		return "Sandybridge"
	}
	return ""
}

// coreRank orders OpenBLAS x86-64 core names by the vector width of their
// double-precision kernels: 0 for SSE, 1 AVX, 2 AVX2, 3 AVX-512.
func coreRank(core string) int {
	switch strings.ToLower(core) {
	case "sandybridge", "bulldozer", "piledriver":
		return 1
	case "haswell", "zen", "steamroller", "excavator":
		return 2
	case "skylakex", "cooperlake", "sapphirerapids":
		return 3
	}
	return 0
}

// featureNames lists the CPU features that matter to the kernels.
func featureNames() []string {
	var out []string
	for _, f := range []cpuid.FeatureID{cpuid.SSE3, cpuid.AVX, cpuid.AVX2, cpuid.FMA3,
		cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512CD, cpuid.AVX512BW, cpuid.AVX512VL, cpuid.AVX512BF16} {
		if cpuid.CPU.Supports(f) {
			out = append(out, f.String())
		}
	}
	return out
}

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

// Environment variables read by Start and ConfigFromEnv.
const (
	EnvBackend = "RHGD_BLAS"    // auto | gonum | openblas
	EnvThreads = "RHGD_THREADS" // positive integer
	EnvShared  = "RHGD_SHARED"  // 1 | 0: see Config.Shared
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
	// behind the host's back: it does not re-select OpenBLAS's kernel set,
	// sets no thread count unless Threads asks for one, and does not drop
	// to one thread around small LAPACK calls (SerialBegin and SerialEnd
	// do nothing). When not Shared, rhgd owns the library and does all
	// three.
	Shared bool
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

// ConfigFromEnv reads RHGD_BLAS, RHGD_THREADS and RHGD_SHARED over base.
// It returns the settings it could read and an error naming each bad
// value.
func ConfigFromEnv(base Config) (Config, error) { return configFrom(os.Getenv, base) }

// ConfigFromGetenv is ConfigFromEnv reading the variables through getenv.
// The C ABI passes C's getenv: inside a host process, os.Getenv sees the
// environment as it was when the process started, not what the host set
// since (Python's os.environ, C's setenv).
func ConfigFromGetenv(getenv func(string) string, base Config) (Config, error) {
	return configFrom(getenv, base)
}

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
	if len(errs) > 0 {
		return c, fmt.Errorf("%w: %s", ErrBadSetting, strings.Join(errs, "; "))
	}
	return c, nil
}

// Start-up state.
var (
	startOnce sync.Once
	shared    atomic.Bool // Config.Shared of the start-up
	startup   struct {
		config       Config
		detectedCore string // the core OpenBLAS picked on its own
		forcedCore   string // the core rhgd re-selected, if any
		warnings     []string
	}
)

// Init sets the backend up from c, once per process, before any
// computation: it returns ErrStarted if the backend was already set up,
// by an earlier Init or by the first computation (see Start). Programs
// that want bad environment settings reported as errors call
// Init(ConfigFromEnv(...)) first thing, as `rhgd` does; the C ABI calls it
// with Shared set. After start-up, Use and SetThreads still switch the
// backend and the thread count.
func Init(c Config) error { return InitGetenv(c, os.Getenv) }

// InitGetenv is Init reading the variables start-up consults
// (OPENBLAS_CORETYPE, OPENBLAS_NUM_THREADS, OMP_NUM_THREADS) through
// getenv; see ConfigFromGetenv.
func InitGetenv(c Config, getenv func(string) string) error {
	if err := c.Validate(); err != nil {
		return err
	}
	ran := false
	startOnce.Do(func() {
		ran = true
		startup.warnings = start(c, getenv)
	})
	if !ran {
		return fmt.Errorf("%w (configured %+v)", ErrStarted, startup.config)
	}
	return nil
}

// Start sets the backend up from the environment (ConfigFromEnv over the
// zero Config) if nothing has yet; every rhgd package that computes calls
// it on first use, so no package does anything at import time. A bad
// environment value is ignored with a one-line warning on standard error
// (and in CurrentInfo): Start has no caller to return an error to. After
// the first call it costs one atomic load.
func Start() {
	startOnce.Do(func() {
		c, err := ConfigFromEnv(Config{})
		if err != nil {
			fmt.Fprintf(os.Stderr, "rhgd: %v; ignored\n", err)
			startup.warnings = append(startup.warnings, err.Error()+"; ignored")
		}
		startup.warnings = append(startup.warnings, start(c, os.Getenv)...)
	})
}

// start applies c; it runs once, before any BLAS call of rhgd's.
func start(c Config, getenv func(string) string) (warnings []string) {
	startup.config = c
	shared.Store(c.Shared)
	if haveNative && !c.Shared {
		selectCore(getenv)
	}
	if err := use(c.Backend); err != nil {
		warnings = append(warnings, err.Error())
		_ = use(Auto)
	}
	n := c.Threads
	if n == 0 && !c.Shared && getenv("OPENBLAS_NUM_THREADS") == "" && getenv("OMP_NUM_THREADS") == "" {
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
	return warnings
}

// selectCore re-runs OpenBLAS's kernel choice when it picked kernels weaker
// than the CPU supports and the user did not pick them with
// OPENBLAS_CORETYPE. It must run before any BLAS call.
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

package blas

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Backend names a BLAS implementation.
type Backend int

const (
	// Auto lets start-up choose: Native when this build contains it,
	// Gonum otherwise. Current never returns it.
	Auto Backend = iota
	// Gonum is gonum's pure-Go BLAS and LAPACK.
	Gonum
	// Native is the CBLAS and LAPACKE library linked through cgo: OpenBLAS
	// unless the build used -tags customblas.
	Native
)

// String returns "auto", "gonum" or "openblas": the names RHGD_BLAS,
// ParseBackend and the C ABI use.
func (b Backend) String() string {
	switch b {
	case Auto:
		return "auto"
	case Gonum:
		return "gonum"
	case Native:
		return "openblas"
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// ParseBackend reads a backend name as String spells it, in any case and
// with surrounding blanks: "auto" (or ""), "gonum" or "openblas", which
// names Native with any linked library; "native", the constant's name, is
// its one alias.
func ParseBackend(s string) (Backend, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return Auto, nil
	case "gonum":
		return Gonum, nil
	case "openblas", "native":
		return Native, nil
	}
	return Auto, fmt.Errorf("%w: unknown backend %q (want auto, gonum or openblas)", ErrBadSetting, s)
}

var (
	mu      sync.Mutex // guards threads, serialDepth and switches of impl and current
	current atomic.Int32
	threads = 1
	// impl is rhgd's BLAS implementation, nil before start-up. rhgd's
	// packages call it through Impl; gonum's blas64 gets it only from Init.
	impl atomic.Pointer[implBox]
	// owned is set by Init: the program handed blas64 to rhgd, and Use
	// switches blas64 along with rhgd's own implementation.
	owned atomic.Bool
)

// implBox holds an implementation for the atomic pointer: loading it costs
// no allocation, unlike an atomic.Value of an interface.
type implBox struct{ f gblas.Float64 }

// Current returns the backend rhgd's packages compute on, starting it
// first if nothing has (see the package doc). It is cheap enough to call
// per operation: lapackx does, to route LAPACK calls to the same backend.
func Current() Backend {
	lazyStart()
	return Backend(current.Load())
}

// Impl returns the BLAS implementation rhgd's packages call: the Hybrid or
// GoBLAS of the current backend. It is rhgd's own value, not gonum's
// blas64: a program that chose its own blas64 implementation keeps it
// (until it calls Init). The first call starts the backend without
// changing anything process-wide (see the package doc); later calls cost
// one atomic load.
func Impl() gblas.Float64 {
	if p := impl.Load(); p != nil {
		return p.f
	}
	lazyStart()
	return impl.Load().f
}

// Available returns the backends this build contains, Gonum first.
func Available() []Backend {
	if haveNative {
		return []Backend{Gonum, Native}
	}
	return []Backend{Gonum}
}

// Use switches rhgd's packages (their BLAS calls through Impl and their
// LAPACK calls) to backend b (Auto: the default for this build), and,
// after Init, gonum's blas64 along with them. It returns ErrUnavailable if
// this build does not contain b. Use is meant for start-up and benchmarks:
// calls already running keep the backend they started with.
func Use(b Backend) error {
	lazyStart()
	return use(b)
}

func use(b Backend) error {
	if b == Auto {
		b = defaultBackend()
	}
	var f gblas.Float64
	switch b {
	case Gonum:
		f = GoBLAS{}
	case Native:
		if !haveNative {
			return fmt.Errorf("%w: %v (this is a pure-Go build)", ErrUnavailable, b)
		}
		f = NewHybrid()
	default:
		return fmt.Errorf("%w: %v", ErrUnavailable, b)
	}
	mu.Lock()
	defer mu.Unlock()
	impl.Store(&implBox{f})
	current.Store(int32(b))
	if owned.Load() {
		blas64.Use(f)
	}
	return nil
}

// Threads returns the native library's thread count as rhgd last set or
// read it, or 1 in a pure-Go build.
func Threads() int {
	lazyStart()
	mu.Lock()
	defer mu.Unlock()
	return threads
}

// SetThreads sets the native library's thread count, in either mode (an
// explicit call is the caller's decision, see Config.Shared). It is a
// no-op in a pure-Go build; it returns ErrBadSetting for n < 1.
//
// The one-thread windows follow: the table for n threads (a profile of
// `rhgd tune` for this machine at n threads, else the fallback for n)
// replaces the one in use.
func SetThreads(n int) error {
	lazyStart()
	if err := setThreads(n); err != nil {
		return err
	}
	for _, w := range applyProfile(profileGetenv, n) {
		fmt.Fprintf(os.Stderr, "rhgd: %s\n", w)
	}
	return nil
}

func setThreads(n int) error {
	if n < 1 {
		return fmt.Errorf("%w: thread count %d < 1", ErrBadSetting, n)
	}
	mu.Lock()
	defer mu.Unlock()
	if !haveNative {
		return nil
	}
	threads = n
	if serialDepth == 0 {
		nativeSetThreads(n)
	}
	return nil
}

var (
	serialDepth int
	// windowRestore is the host's thread count, read when the outermost
	// window opened in Shared mode, which it restores (outside Shared mode
	// a window restores threads).
	windowRestore int
	// sharedWindows turns the windows on in Shared mode (SetSharedWindows).
	sharedWindows atomic.Bool
)

// SerialBegin limits the native library to one thread until the matching
// SerialEnd. LAPACK drivers on small matrices spend more time waking
// OpenBLAS threads for their many level-2 calls than they save, so lapackx
// brackets such calls with SerialBegin and SerialEnd (see
// lapackx.BenchmarkEigThreads). Pairs nest and may come from several
// goroutines; a large call that starts while a small one is in flight also
// runs on one thread, which costs time but never correctness. In Shared
// mode the window reads the host's thread count when it opens and
// restores that when it closes, so the host sees its own count between
// rhgd's calls; SetSharedWindows(false) (RHGD_WINDOWS=0) turns the
// windows off there.
func SerialBegin() {
	sh := shared.Load()
	if sh && (!sharedWindows.Load() || !haveNative) {
		return
	}
	mu.Lock()
	serialDepth++
	if serialDepth == 1 {
		n := threads
		if sh {
			windowRestore = nativeThreads()
			n = windowRestore
		}
		if n > 1 {
			nativeSetThreads(1)
		}
	}
	mu.Unlock()
}

// SerialEnd ends a SerialBegin.
func SerialEnd() {
	sh := shared.Load()
	if sh && !haveNative {
		return
	}
	mu.Lock()
	if serialDepth == 0 {
		mu.Unlock()
		if sh { // its SerialBegin ran before SetSharedWindows(true)
			return
		}
		panic("blas: SerialEnd without SerialBegin")
	}
	serialDepth--
	n := threads // SetThreads during a window changed it
	if sh {
		n = windowRestore
	}
	if serialDepth == 0 && n > 1 {
		nativeSetThreads(n)
	}
	mu.Unlock()
}

// SetSharedWindows turns the one-thread windows on (true, the default,
// see Config.NoSharedWindows) or off in Shared mode; outside Shared mode
// they are always on. A window changes the process's thread count for the length
// of one of rhgd's small calls and restores the host's count after it:
// other threads of the host that call OpenBLAS during a window run on one
// thread too.
func SetSharedWindows(on bool) {
	lazyStart()
	sharedWindows.Store(on)
}

// SharedWindows reports whether the windows are on in Shared mode.
func SharedWindows() bool { return sharedWindows.Load() }

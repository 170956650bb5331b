// Package blas holds the BLAS implementation rhgd's packages compute on,
// and sets up the native library (OpenBLAS) when a program asks.
//
// # Backends
//
// Two backends exist:
//
//   - [Native]: the CBLAS library linked through cgo with
//     gonum.org/v1/netlib/blas/netlib (OpenBLAS by default), wrapped in a
//     [Hybrid] that keeps calls too small to pay for the cgo crossing in
//     pure Go;
//   - [Gonum]: gonum's pure-Go implementation, as [GoBLAS], whose Dgemm runs
//     on a goroutine pool started once instead of starting goroutines on
//     every call, so that it allocates nothing.
//
// # Start-up: no process-wide change unless asked
//
// rhgd's packages call BLAS through Impl, rhgd's own value, never through
// gonum's global blas64. Nothing happens at import time, and building a
// manifold or computing on one changes nothing other code sees:
//
//   - On first use (the first Impl, Current or LAPACK call of any rhgd
//     package, unless Init came first) rhgd sets up its own backend from
//     the environment: RHGD_BLAS=auto|openblas|gonum picks it, and
//     RHGD_SHARED=1 makes the one-thread windows below restore the count
//     they found (RHGD_WINDOWS=0 turns them off there). It leaves
//     gonum's blas64, OpenBLAS's kernel set and its thread count as the
//     program has them. Two variables are the user asking for more:
//     RHGD_THREADS=N sets N threads for the whole process, and
//     RHGD_SHARED=0, set explicitly, has rhgd own OpenBLAS's kernels and
//     threads as Init does (not blas64), as it does in the C ABI (benchmark
//     runs of test binaries set it to measure what `rhgd` runs). A bad
//     value is ignored with a warning on standard error (there is no
//     caller to return an error to). The one-thread windows stay on: they drop the
//     library to one thread around rhgd's own small calls and restore the
//     count read at start-up (or set since by SetThreads).
//   - Init(Config) is the one way for a program to hand the process's
//     numerical set-up to rhgd: it re-selects OpenBLAS's kernels, sets the
//     thread count (see below) and installs rhgd's implementation in
//     blas64, so that gonum/mat and gonum's LAPACK routines compute on it
//     too. It may follow the start-up on first use, runs once, and is what
//     the rhgd command (Init(ConfigFromEnv(Config{})), reporting bad
//     environment values as errors) and the C ABI (with Config.Shared)
//     call. After Init, Use and SetThreads switch blas64 and the library
//     along with rhgd; before it, Use switches only rhgd's own calls.
//
// Without Init, the gonum LAPACK routines rhgd calls (all of its LAPACK on
// the Gonum backend) reach BLAS through the program's blas64, gonum's own
// by default: the same results as GoBLAS, but its large products start
// goroutines and so allocate. A program that wants rhgd's allocation-free
// hot paths on the pure-Go backend, or its tuned kernel set and threads on
// the native one, calls Init.
//
// # Who owns the native library
//
// OpenBLAS's kernel set and thread count are per process. After Init
// (without Config.Shared) rhgd owns them: it sets the thread count to the
// physical core count (unless OPENBLAS_NUM_THREADS or OMP_NUM_THREADS is
// set), re-selects the kernels
// when OpenBLAS fell back to weaker ones than the CPU runs (unless
// OPENBLAS_CORETYPE is set), and runs each call too small to gain from
// threads on one thread (SerialBegin, SerialEnd). That is, a call runs on
// all threads only from the size at which threads were measured both to
// win on a quiet machine (at least 1.1× as fast as one) and not to lose
// badly beside busy processes (at least 0.8× as fast): beside busy
// processes a threaded call waits a time slice for a descheduled thread.
// The bounds per call kind (Call) form the table in use (ThreadsFrom,
// CurrentTable): the profile that `rhgd tune` (package tune) measured on
// this machine at this thread count, read from ProfilePath at start-up
// and at each SetThreads, or else a fallback derived from the 2-core
// EPYC's measurements (threadtable.go). CurrentInfo lists the table and
// its source. Inside a host that already uses the
// library, such as a Python process with numpy calling rhgd's C ABI,
// Config.Shared (RHGD_SHARED=1) turns the first two off: rhgd then leaves
// the kernels and the thread count to the host. Its windows still run its
// own small calls on one thread, restoring the count they found, so that
// the host sees its own count between rhgd's calls (Config.NoSharedWindows,
// RHGD_WINDOWS=0, turns them off). Without Init, only the windows apply
// (see Start-up).
//
// # CPU features
//
// With github.com/klauspost/cpuid/v2 the package reads the CPU's vector
// features; PhysicalCores counts cores from the OS's topology (cpuid's
// count can be the VM host's). A DYNAMIC_ARCH OpenBLAS that does not
// recognise a new CPU falls back to generic SSE3 ("Prescott") kernels,
// several times slower than its AVX2 or AVX-512 ones; that is what the
// kernel re-selection of Init repairs. Current tells what was chosen;
// CurrentInfo gives the whole picture as JSON.
//
// # Linking
//
// The default cgo build links -llapacke -lopenblas (Debian's
// libopenblas-dev and liblapacke-dev). To link another CBLAS and LAPACKE,
// such as MKL or BLIS with reference LAPACKE, build with -tags customblas
// and give the libraries in CGO_LDFLAGS.
package blas

// Package blas selects the BLAS implementation that gonum's blas64 (and so
// all of gonum/mat and rhgd) calls.
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
// # Start-up
//
// Nothing happens at import time. The backend is set up once, by Init or,
// failing that, by the first computation of any rhgd package: the
// manifold constructors (spd.New, coupling.New, ...), every BLAS call
// through Impl and every LAPACK call of lapackx call Start, which reads
// the environment:
// RHGD_BLAS=auto|openblas|gonum picks the backend, RHGD_THREADS=N the
// native library's thread count and RHGD_SHARED=1 the shared mode below.
// Start has no caller to return an error to, so it reports a bad value on
// standard error and ignores it; programs that want an error call
// Init(ConfigFromEnv(...)) first, as the rhgd command does. After start-up,
// Use and SetThreads switch the backend and thread count explicitly.
//
// # Who owns the native library
//
// OpenBLAS's kernel set and thread count are per process. By default rhgd
// owns them: it sets the thread count to the physical core count (unless
// OPENBLAS_NUM_THREADS or OMP_NUM_THREADS is set), re-selects the kernels
// when OpenBLAS fell back to weaker ones than the CPU runs (unless
// OPENBLAS_CORETYPE is set), and runs each call too small to gain from
// threads on one thread (SerialBegin, SerialEnd). That is, a call runs on
// all threads only from the size at which threads were measured both to
// win clearly on a quiet machine (at least 1.3× as fast as one) and not to
// lose badly beside two busy processes (at least 0.8× as fast): beside
// busy processes a threaded call waits a time slice for a descheduled
// thread. The bounds per call are in hybrid.go (dgemm from 768³
// multiply-adds, level-2 calls from 3072² or 4096² entries) and in
// lapackx (LAPACK calls on one thread, but for dgetrf and dsygst from
// n = 3072); CurrentInfo lists them. Inside a host that already uses the
// library, such as a Python process with numpy calling rhgd's C ABI,
// Config.Shared (RHGD_SHARED=1) turns all three off: rhgd then changes
// nothing behind the host's back, and runs with the host's settings.
//
// # CPU features
//
// With github.com/klauspost/cpuid/v2 the package reads the CPU's vector
// features; PhysicalCores counts cores from the OS's topology (cpuid's
// count can be the VM host's). A DYNAMIC_ARCH OpenBLAS that does not
// recognise a new CPU falls back to generic SSE3 ("Prescott") kernels,
// several times slower than its AVX2 or AVX-512 ones; that is what the
// kernel re-selection above repairs. Current tells what was chosen;
// CurrentInfo gives the whole picture as JSON.
//
// # Linking
//
// The default cgo build links -llapacke -lopenblas (Debian's
// libopenblas-dev and liblapacke-dev). To link another CBLAS and LAPACKE,
// such as MKL or BLIS with reference LAPACKE, build with -tags customblas
// and give the libraries in CGO_LDFLAGS.
package blas

// Command cbindings is rhgd's C ABI: built with -buildmode=c-shared or
// c-archive (`make lib`: build/librhgd.so, build/librhgd.a), it exports the
// functions of the hand-written header rhgd.h, which is the contract and
// documents every function. python/rhgd is a ctypes binding over it.
//
// # Layout
//
//   - rhgd.h: the public header, written by hand (the header cgo
//     generates is deleted by make lib).
//   - rhgd.c: the public names, a thin C layer over the Go exports
//     (rhgdgo_*), as in libtailscale: the compiler checks each definition
//     against rhgd.h, const qualifiers included. The Go exports are
//     compiled with -fvisibility=hidden, so only the rhgd_ names are in the
//     library's dynamic symbol table; internal/headercheck (make
//     header-check) fails when those and the header's prototypes differ.
//   - errors.go: status codes, the mapping from the numerr sentinels
//     (errors.Is), the per-thread last error, guard.
//   - kernels.go, manifolds.go, problems.go, solvers.go: the exports;
//     toolkit.go: the manifold toolkit (the solver.Manifold methods on a
//     handle), the Sylvester and Lyapunov solves, the Fréchet derivatives.
//   - callbacks.go: the C trampolines for the caller's function pointers.
//   - results.go: resultFields, the one table of rhgd_result's fields and
//     the solver.Result fields they copy.
//
// # Growing the ABI
//
// rhgd_oracles, rhgd_epoch and rhgd_result begin with their size and grow
// only at the end; rhgd.h's "STRUCTS THAT GROW" is the rule. To add a
// field: append it to the struct in rhgd.h (and to python/rhgd/_lib.py's
// mirror); for rhgd_result add its row to resultFields (TestResultFieldsCover
// fails until every Go field has one); for rhgd_oracles read it in
// newCOracles, which sees it as NULL/0 for callers built before it. A new
// history column is appended to histNames and gets an RHGD_HISTORY_*
// index. testdata/abi_growth.c, built with the first layouts, must keep
// running (make test-c). The version is the repository's VERSION file.
//   - handles.go: the handle table.
//
// # Boundary rules
//
// Every export runs inside guard, which recovers a panic as RHGD_EINTERNAL
// with its message, so no panic crosses into C; every argument is checked
// before use (NULL, sizes, non-finite values, symmetry, positive
// definiteness, points on their manifolds, marginals). Caller arrays are
// viewed with unsafe.Slice for the call only and never kept; outputs may
// alias inputs (a scratch buffer is used when they overlap). Handles are
// int64 keys into one mutex-protected table, starting far from zero and
// never reused; C sees each kind as its own one-field struct (rhgd.c
// unwraps them), so that mixing kinds does not compile. Each object admits
// one call at a time (a second concurrent
// call gets RHGD_EBUSY instead of a data race on the object's scratch
// space). Kernel workspaces come from per-size sync.Pools, so calls from
// many threads each get their own and repeated calls allocate nothing.
//
// The last error is kept per OS thread in C thread-specific storage
// (pthread_key_t): a Go export runs on the calling thread for the whole
// call, so the message lands on the caller's thread, and rhgd_last_error
// reads it without entering Go. Not a __thread buffer: the Go runtime's
// initial-exec TLS makes the library's whole TLS block static, and a
// library opened by dlopen (Python) gets only a little static TLS; a 4 KiB
// __thread buffer made dlopen fail with "cannot allocate memory in static
// TLS block". Go code calling the C ABI (the tests) must lock its
// goroutine to its thread between a call and rhgd_last_error.
//
// Callbacks: Go cannot call a C function pointer, so small static C
// trampolines do. The caller's user pointer travels as uintptr_t on the
// Go side, so that an arbitrary value never reaches the garbage collector
// as a pointer. The epoch record the callback sees lives in C memory
// (allocated per run, freed after), with copies of x, y and the
// hypergradient, since Go memory holding Go pointers may not be passed to
// C.
//
// # Backend
//
// The backend starts in shared mode (blas.Config.Shared) on the first call
// that computes, or by rhgd_init: inside a host that already uses OpenBLAS
// (numpy, which on Debian loads the same libopenblas.so.0) rhgd changes
// neither the kernel set nor the thread count, and does not drop to one
// thread around small LAPACK calls. RHGD_SHARED=0 (or rhgd_init(..., 0))
// lets rhgd own OpenBLAS as a Go program does; RHGD_THREADS=N sets the
// thread count (for the whole process, the host's calls included). Shared
// mode costs speed on small matrices: OpenBLAS wakes its threads inside
// LAPACK for matrices too small to gain from them (see the numbers below).
// Several host threads calling rhgd at once each use OpenBLAS's one thread
// pool, whose threads then spin against each other; give OpenBLAS one
// thread in that case (RHGD_THREADS=1 or OPENBLAS_NUM_THREADS=1): the
// threads test (8 pthreads, 4 rounds) took 0.1 to 0.25 s so and 0.7 to 9 s
// with two OpenBLAS threads each, on
// this 2-core machine.
//
// The Go runtime does not survive fork(): only the process that loaded the
// library may call it (golang/go#15538). The Python package detects a fork
// after loading and raises an error.
//
// # Cost of a call
//
// `go test -run '^$' -bench 'CABI|Callback|SyntheticRun' -count 5
// ./cbindings` on a 2-core AMD EPYC VM (Zen 5, OpenBLAS 0.3.21, Haswell
// kernels; the machine is shared with other developers, run when it was
// idle), medians, 0 allocs/op; RHGD_SHARED=0 runs the same binary in owned
// mode:
//
//	                      shared: via=go  via=c      owned: via=go  via=c
//	expsym n=2                 0.51 µs  0.89 µs            0.53 µs  1.00 µs
//	expsym n=10               17.1 µs  17.1 µs             7.5 µs   7.8 µs
//	expsym n=50                275 µs   275 µs              158 µs   159 µs
//	logsym n=2                 0.45 µs  0.72 µs            0.50 µs  0.77 µs
//	logsym n=10               17.5 µs  17.6 µs             7.5 µs   7.8 µs
//	logsym n=50                274 µs   273 µs              159 µs   161 µs
//	lyapunov_sym n=2           0.60 µs  0.86 µs            0.63 µs  0.88 µs
//	lyapunov_sym n=10         21.7 µs  23.2 µs            13.8 µs  12.8 µs
//	lyapunov_sym n=50          332 µs   341 µs              183 µs   177 µs
//	synthetic run (paper)      204 ms   207 ms              193 ms   189 ms
//
// via=c is a C loop calling the export, so each call costs one C-to-Go
// crossing plus the argument checks and the workspace pool, as for a C or
// Python caller; via=go is the same Go call on a workspace the caller
// keeps. The ABI adds about 0.25 to 0.4 µs per call, invisible from
// n = 10 on. One callback crossing (the solver calling a C oracle that does
// nothing, BenchmarkCallback) costs 26 ns. Shared mode costs 2.3× at
// n = 10 and 1.7× at n = 50 on these kernels (OpenBLAS's two threads woken
// inside LAPACK for small matrices) and 6% on the paper's synthetic run.
//
// Workspaces are kept in sync.Pools, which the Go garbage collector empties:
// the first call at a size, or the first after a collection, allocates its
// workspace (about 20 ms at n = 1000).
package main

// main is required of a c-shared or c-archive build's main package; the
// library's entry points are the exports.
func main() {}

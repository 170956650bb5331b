/*
 * rhgd.h: the C ABI of rhgd, Riemannian hypergradient descent for bilevel
 * optimization on manifolds (Han, Mishra, Jawanpuria and Takeda, NeurIPS
 * 2024). Written by hand: this file, not the header cgo generates, is the
 * contract. `make lib` builds build/librhgd.so and build/librhgd.a; link
 * with -lrhgd -lm (and, for the static archive, -llapacke -lopenblas
 * -lpthread), or, after `make install`, with
 * $(pkg-config --cflags --libs rhgd).
 *
 * CONVENTIONS
 *
 * Matrices are caller-owned, contiguous, row-major arrays of double. An
 * n x n matrix is n*n doubles; the library reads and writes exactly the
 * sizes a call's arguments imply and keeps no pointer past the call. An
 * output array may be the same array as an input (in place); any overlap is
 * handled. The library never returns memory the caller must free; strings
 * it returns (rhgd_version, rhgd_strerror, rhgd_status_string) are static.
 *
 * Every function but rhgd_version, rhgd_strerror, rhgd_status_string and
 * rhgd_default_seed returns int: RHGD_OK (0) on success or a negative code; the functions
 * that copy a string out return its full length instead (>= 0; compare it
 * with the buffer size to detect truncation) or a negative code. After a failure, rhgd_last_error gives the message. Every
 * argument is validated: NULL pointers, sizes < 1, NaN or Inf, matrices
 * that must be symmetric or positive definite and are not, Stiefel and
 * Grassmann points whose columns are not orthonormal, simplex points with
 * an entry <= 0 or a sum not one, marginals that do not match, unknown
 * handles; a failure inside rhgd (a Go panic) is caught at the boundary
 * and reported as RHGD_EINTERNAL. Nothing a caller passes through these
 * functions crashes the process, except arrays shorter than the sizes
 * given, which C cannot check.
 *
 * Symmetry is checked to a relative tolerance: |a_ij - a_ji| <= 1e-10
 * max|a| for the symmetric-matrix kernels (expsym, logsym, sqrtsym,
 * lyapunov_sym), 1e-12 for SPD points and tangents (spd_*, the SPD
 * manifold). Results that are symmetric matrices are exactly symmetric.
 *
 * Inputs from float32 pipelines (numpy float32, PyTorch) miss their
 * constraints by float32 rounding. Where rhgd takes data or a starting
 * point (rhgd_problem_builtin's data file, rhgd_problem_set_start,
 * rhgd_solver_run, the marginals of rhgd_manifold_coupling), an input
 * within float32 rounding of its constraint (a defect up to 8 n 2^-24 for
 * order n: relative asymmetry, ||X^T X - I||_F, relative marginal or mass
 * error, a simplex point's |sum - 1|) is projected onto it once
 * (symmetrized, re-orthonormalized by its polar factor, rebalanced by
 * Sinkhorn scaling, b rescaled to the mass of a, divided by its sum) and
 * rhgd_problem_notes says so; an input further off is RHGD_EINVAL
 * with the defect and the bound. The kernels and rhgd_manifold_check_point
 * check points to the tolerances above.
 *
 * STRUCTS THAT GROW
 *
 * The structs passed across the ABI (rhgd_oracles, rhgd_epoch,
 * rhgd_result) begin with a size_t size and only ever grow at the end: a
 * new field is appended after the last one, never inserted, resized or
 * removed. The caller sets size = sizeof(the struct) as its header
 * declares it (RHGD_STRUCT_INIT does this), so a program built against an
 * older header keeps working with a newer library:
 *   - rhgd_oracles (read by the library): fields that lie beyond size are
 *     taken as absent (NULL, 0);
 *   - rhgd_result (written by the library): only the first
 *     min(size, the library's sizeof) bytes are written, and size is left
 *     as the caller set it;
 *   - rhgd_epoch (written by the library for a callback): size is the
 *     library's sizeof; a callback built against a newer header than the
 *     library checks RHGD_HAS_FIELD before reading a newer field.
 * A size smaller than the struct's first layout (RHGD_ORACLES_SIZE_1,
 * RHGD_RESULT_SIZE_1: the fields up to the one marked "end of the first
 * layout") is RHGD_EINVAL. The first layouts are those of version 0.2.0
 * without the fields after that mark (they were appended later, as new
 * fields will be); cbindings/testdata/abi_growth.c, a program built with
 * them, runs in `make test`. The history (rhgd_solver_history) grows the
 * same way: the caller says how many columns its rows hold, and
 * rhgd_history_cols and rhgd_history_names give the library's.
 *
 * THREADS
 *
 * Every function may be called from any thread. Independent handles may be
 * used from different threads at once; one handle used by two threads at
 * once makes the second call fail with RHGD_EBUSY (nothing is corrupted).
 * The last error is kept per thread.
 *
 * The library carries the Go runtime, which does not survive fork(): after
 * a fork, only the parent may call rhgd (see golang/go#15538); start worker
 * processes with fork+exec (posix_spawn, Python's "spawn" or "forkserver").
 *
 * BLAS BACKEND AND OPENBLAS THREADS
 *
 * Computations run on OpenBLAS/LAPACKE (or on pure Go with RHGD_BLAS=gonum).
 * OpenBLAS's kernel set and thread count are per process, and a host such
 * as numpy may already use the same libopenblas.so. So the library starts
 * in shared mode: it changes neither the kernels nor the thread count
 * behind the host's back, and runs small LAPACK calls with the host's
 * thread count. It starts on the first call that computes, reading, from
 * the environment as it is then (a host's setenv or Python's os.environ
 * before that call counts), RHGD_BLAS (auto|openblas|gonum),
 * RHGD_THREADS (N: set OpenBLAS to N threads, for the whole process) and
 * RHGD_SHARED (0: let rhgd own OpenBLAS as a Go program does: best
 * kernels, physical-core threads, one thread around small LAPACK calls).
 * rhgd_init does the same explicitly and
 * must come first. OPENBLAS_NUM_THREADS and OPENBLAS_CORETYPE keep their
 * usual meaning. With several host threads calling rhgd at once, give
 * OpenBLAS one thread (RHGD_THREADS=1 or OPENBLAS_NUM_THREADS=1) to avoid
 * oversubscribing the cores.
 *
 * COST OF A CALL
 *
 * A call costs about 0.25 to 0.4 us more than the same computation made
 * inside Go (the C-to-Go transition, argument checks, a pooled workspace);
 * each C callback the solver makes (an oracle, the epoch callback) costs
 * about 26 ns for the Go-to-C transition. Measured numbers are in the
 * package documentation of cbindings (main.go). In shared mode small
 * matrices are slower (2.3x at n = 10): OpenBLAS wakes its threads inside
 * LAPACK; RHGD_THREADS=1 or RHGD_SHARED=0 avoid it.
 */
#ifndef RHGD_H
#define RHGD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define RHGD_API __attribute__((visibility("default")))
#else
#define RHGD_API
#endif

/* RHGD_VERSION is the version of this header (the repository's VERSION
 * file; a test checks the copies); rhgd_version gives the
 * library's. */
#define RHGD_VERSION "0.2.0"

/* RHGD_STRUCT_INIT(type) is a value of a size-prefixed struct with its
 * size set and every other field zero (NULL), a C99 compound literal (in
 * C++, value-initialize the struct and set size):
 *   rhgd_result r = RHGD_STRUCT_INIT(rhgd_result); */
#define RHGD_STRUCT_INIT(type) ((type){.size = sizeof(type)})

/* RHGD_HAS_FIELD(p, type, field) says whether the struct *p, whose size
 * field the other side set, holds field. */
#define RHGD_HAS_FIELD(p, type, field) ((p)->size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* Status codes. */
#define RHGD_OK 0
#define RHGD_EINVAL (-1)     /* invalid argument: NULL, size, NaN/Inf, not symmetric/SPD/on the manifold, bad setting */
#define RHGD_ENOTCONV (-2)   /* an iteration did not converge (Sinkhorn, LAPACK) */
#define RHGD_ENUMERIC (-3)   /* numerical failure: not positive definite, singular, overflow, divergence */
#define RHGD_EBADHANDLE (-4) /* unknown or freed handle, or a handle of another kind */
#define RHGD_EINTERNAL (-5)  /* a defect in rhgd, caught at the boundary */
#define RHGD_ECALLBACK (-6)  /* a caller's callback returned nonzero */
#define RHGD_EBUSY (-7)      /* the handle is in use by another call */

/* Why a solver run stopped (rhgd_result.status). */
#define RHGD_STATUS_NOT_TERMINATED 0
#define RHGD_STATUS_GRADIENT_THRESHOLD 1 /* the hypergradient norm fell to grad_tol */
#define RHGD_STATUS_ITERATION_LIMIT 2    /* all epochs ran */
#define RHGD_STATUS_RUNTIME_LIMIT 3      /* the runtime budget ran out */
#define RHGD_STATUS_CANCELLED 4          /* the epoch callback or rhgd_solver_cancel stopped it */
#define RHGD_STATUS_DIVERGED 5           /* non-finite or diverging values */
#define RHGD_STATUS_FAILURE 6            /* an operation failed (an oracle, a retraction) */

/* ------------------------------------------------------------------ */
/* Errors, version, backend                                            */
/* ------------------------------------------------------------------ */

/* rhgd_last_error copies the message of the calling thread's latest failed
 * call into buf (at most len bytes, always NUL-terminated when len > 0) and
 * returns the message's full length, without the NUL: a return value >= len
 * means the copy was truncated. It returns 0 (and writes "") when the thread
 * has had no failure. Successful calls do not clear the message. buf may
 * be NULL when len is 0. A thread's message is freed when the thread
 * exits. */
RHGD_API int rhgd_last_error(char *buf, size_t len);

/* rhgd_last_error_terms copies the same message, as rhgd_last_error
 * does, with each name of rhgd's vocabulary in it marked for a binding
 * that spells names its own way (Python: None for NULL, Solver.run for
 * rhgd_solver_run): "\x01" kind ":" key "\x02" text "\x03", where text
 * is the name as rhgd_last_error spells it. The kinds are "setting" (a
 * key of rhgd_solver_new's settings), "preset", "oracle" (a field of
 * rhgd_oracles), "param" (a built-in problem's parameter), "problem" (a
 * built-in problem), "function", "constant", "argument" (of this API),
 * "null" and "callback" (a failed callback; key: its rhgd_oracles
 * field). Removing the marks and the kinds and keys gives
 * rhgd_last_error's message. */
RHGD_API int rhgd_last_error_terms(char *buf, size_t len);

/* rhgd_version returns the library's version, a static string. */
RHGD_API const char *rhgd_version(void);

/* rhgd_strerror returns the name of a status code ("RHGD_EINVAL"), a
 * static string. */
RHGD_API const char *rhgd_strerror(int code);

/* rhgd_status_string returns the name of a run status ("IterationLimit"),
 * a static string. */
RHGD_API const char *rhgd_status_string(int status);

/* rhgd_init starts the numerical backend explicitly, before any other call
 * that computes: backend is "auto", "openblas" or "gonum" (NULL or "" for
 * auto), threads the OpenBLAS thread count to set (0: leave it, or in
 * owned mode use the physical cores), shared nonzero for shared mode (see
 * the top of this file) and 0 to let rhgd own OpenBLAS. The environment is
 * not read. Returns RHGD_EINVAL for a bad setting or when the backend has
 * already started. */
RHGD_API int rhgd_init(const char *backend, int64_t threads, int shared);

/* rhgd_set_threads sets OpenBLAS's thread count for the whole process
 * (n >= 1); a no-op on the pure-Go backend. */
RHGD_API int rhgd_set_threads(int64_t n);

/* rhgd_set_shared_windows turns the one-thread windows on (on nonzero) or
 * off in shared mode. A window drops OpenBLAS to one thread for the length
 * of one of rhgd's calls too small to gain from threads (outside shared
 * mode they are always on) and then restores the count it found, so the
 * host sees its own count between rhgd's calls; another thread of the host
 * that calls OpenBLAS during a window runs on one thread too. */
RHGD_API int rhgd_set_shared_windows(int on);

/* rhgd_info copies a JSON description of the backend (library, kernels,
 * threads, shared mode, CPU, and the thread table in use: the profile
 * `rhgd tune` wrote for this machine, else the fallback) into buf, as
 * rhgd_last_error copies, and returns its full length. */
RHGD_API int rhgd_info(char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Matrix kernels                                                      */
/* ------------------------------------------------------------------ */

/* rhgd_expsym sets out = exp(A) for a symmetric n x n A, from one
 * eigendecomposition. RHGD_ENUMERIC if exp(A) overflows. */
RHGD_API int rhgd_expsym(int64_t n, const double *a, double *out);

/* rhgd_logsym sets out = log(A), the principal logarithm of an SPD A. */
RHGD_API int rhgd_logsym(int64_t n, const double *a, double *out);

/* rhgd_sqrtsym sets out = A^(1/2), the SPD square root of an SPD A. */
RHGD_API int rhgd_sqrtsym(int64_t n, const double *a, double *out);

/* rhgd_expm sets out = e^A for a general n x n A (scaling and squaring,
 * Al-Mohy and Higham 2009). RHGD_ENUMERIC if e^A overflows. */
RHGD_API int rhgd_expm(int64_t n, const double *a, double *out);

/* rhgd_lyapunov_sym solves A X + X A = C for symmetric A and C and sets x
 * to the symmetric solution. The solution exists for SPD A, the intended
 * case; for other symmetric A it needs lambda_i + lambda_j != 0, and a
 * singular equation is RHGD_ENUMERIC. */
RHGD_API int rhgd_lyapunov_sym(int64_t n, const double *a, const double *c, double *x);

/* rhgd_lyapunov_sym_many solves A X_i + X_i A = C_i for count right-hand
 * sides with one eigendecomposition of A, half to two thirds of a single
 * solve's time: c and x are count n x n row-major matrices one after the
 * other (count*n*n doubles), each C_i symmetric and finite. x may be c (in
 * place). An error about a right-hand side names c and the first bad
 * matrix (from 0); the blocks of x before it hold their solutions. */
RHGD_API int rhgd_lyapunov_sym_many(int64_t n, int64_t count, const double *a, const double *c, double *x);

/* rhgd_spd_exp sets out = Exp_X(U) = X^(1/2) exp(X^(-1/2) U X^(-1/2)) X^(1/2),
 * the exponential map of the affine-invariant metric, for SPD X and
 * symmetric U. */
RHGD_API int rhgd_spd_exp(int64_t n, const double *x, const double *u, double *out);

/* rhgd_spd_log sets out = Log_X(Y), the inverse of rhgd_spd_exp, for SPD X
 * and Y. */
RHGD_API int rhgd_spd_log(int64_t n, const double *x, const double *y, double *out);

/* rhgd_spd_dist sets *dist to the affine-invariant distance
 * ||log(X^(-1/2) Y X^(-1/2))||_F between SPD X and Y. */
RHGD_API int rhgd_spd_dist(int64_t n, const double *x, const double *y, double *dist);

/* rhgd_stiefel_retr_qr sets out to the Q factor (with a positive diagonal
 * in R) of X + U, for X an n x p matrix with orthonormal columns (to 1e-10
 * in ||X'X - I||_F), 1 <= p <= n, and U a finite n x p matrix (a tangent
 * vector at X in the intended use). RHGD_ENUMERIC if X + U is rank
 * deficient. */
RHGD_API int rhgd_stiefel_retr_qr(int64_t n, int64_t p, const double *x, const double *u, double *out);

/* rhgd_coupling_retr sets out to the Sinkhorn balancing of
 * Gamma o exp(U / Gamma) onto the couplings of a (m entries) and b (n
 * entries): positive finite marginals of equal mass (to 1e-12; masses
 * apart by float32 rounding are made equal by rescaling b), Gamma an
 * m x n positive plan with those marginals (to 1e-10 relative), U a
 * finite m x n matrix. RHGD_ENOTCONV if Sinkhorn does not reach its
 * relative L1 marginal error of 1e-13 in 10000 iterations; out then holds
 * the best plan found. For other limits, retract on a coupling manifold
 * (rhgd_manifold_coupling's maxiter and tol). */
RHGD_API int rhgd_coupling_retr(int64_t m, int64_t n, const double *a, const double *b,
                                const double *gamma, const double *u, double *out);

/* ------------------------------------------------------------------ */
/* Batched spectral kernels                                            */
/* ------------------------------------------------------------------ */

/* Many small symmetric matrices at once (SPD networks, covariance
 * descriptors), as torch.linalg.eigh on a batch: a is count n x n
 * row-major matrices one after the other (count*n*n doubles), each
 * symmetric (checked, as for rhgd_expsym) and finite; an error names the
 * argument and the first bad matrix (from 0). The matrices are split
 * across the library's threads (OpenBLAS runs single-threaded meanwhile)
 * and worked through in chunks, so the workspace stays below 80 MB; a
 * steady stream of calls of one n and count allocates nothing (the reeig
 * ones: one 8-byte box for eps). Outputs may be the inputs (in place).
 *
 * rhgd_spectral_eig_batch sets w (count*n) to each matrix's eigenvalues,
 * ascending, and v (count*n*n) to its unit eigenvectors, one per ROW of
 * its n x n block: A_i = V_i^T diag(w_i) V_i. w and v must not overlap. */
RHGD_API int rhgd_spectral_eig_batch(int64_t n, int64_t count, const double *a, double *w, double *v);

/* rhgd_spectral_exp_batch sets each block of out to exp(A_i);
 * RHGD_ENUMERIC if one overflows. */
RHGD_API int rhgd_spectral_exp_batch(int64_t n, int64_t count, const double *a, double *out);

/* rhgd_spectral_log_batch sets each block of out to log(A_i), for SPD
 * A_i (RHGD_EINVAL naming the matrix otherwise). */
RHGD_API int rhgd_spectral_log_batch(int64_t n, int64_t count, const double *a, double *out);

/* rhgd_spectral_reeig_batch sets each block of out to SPDNet's ReEig,
 * V^T diag(max(eps, lambda)) V, for a finite eps. */
RHGD_API int rhgd_spectral_reeig_batch(int64_t n, int64_t count, double eps, const double *a, double *out);

/* The backward maps of the three: given g, count n x n blocks G_i (the
 * gradient of a loss with respect to f(A_i), any n x n matrices), they set
 * each block of grad to the gradient with respect to A_i,
 *   Df(A_i)[(G_i + G_i^T)/2] = V^T (Gamma o (V sym(G_i) V^T)) V,
 * Gamma_ab = (f(l_a) - f(l_b))/(l_a - l_b) (f'(l_a) on ties), the
 * Daleckii-Krein formula. For symmetric G_i this is the Frechet derivative
 * of f at A_i in the direction G_i. Each call computes the
 * eigendecompositions again. ReEig's derivative at an eigenvalue equal to
 * eps is 0 (SPDNet's choice). */
RHGD_API int rhgd_spectral_exp_batch_backward(int64_t n, int64_t count, const double *a, const double *g,
                                              double *grad);
RHGD_API int rhgd_spectral_log_batch_backward(int64_t n, int64_t count, const double *a, const double *g,
                                              double *grad);
RHGD_API int rhgd_spectral_reeig_batch_backward(int64_t n, int64_t count, double eps, const double *a,
                                                const double *g, double *grad);

/* ------------------------------------------------------------------ */
/* Manifolds                                                           */
/* ------------------------------------------------------------------ */

/* HANDLES
 *
 * A handle names an object the library owns: a manifold, a problem or a
 * solver. Each kind is its own struct type holding one 64-bit key, so that
 * passing a problem where a solver is expected does not compile; the
 * struct is passed by value exactly as a 64-bit integer is (one integer
 * register on every supported ABI). A handle whose id is 0, such as one
 * initialized with RHGD_NO_HANDLE or {0}, is never valid; ids are never
 * reused. A freed handle, or an id forged from another kind's, is
 * RHGD_EBADHANDLE. */
#define RHGD_NO_HANDLE {0}

/* A manifold handle. */
typedef struct rhgd_manifold {
    uint64_t id;
} rhgd_manifold;

/* rhgd_manifold_new creates a manifold from a spec, a name and
 * comma-separated settings, a key left out taking its default; the
 * coupling manifold needs its marginals: rhgd_manifold_coupling, whose
 * options are the last line's:
 *   spd:n=N[,retr=second-order|exp][,transport=identity|parallel][,metric=affine-invariant|log-euclidean|bures-wasserstein]
 *       n × n symmetric positive definite matrices; under the log-euclidean and
 *       bures-wasserstein metrics both retractions are the metric's
 *       exponential, and bures-wasserstein takes transport=identity only
 *       (defaults: retr=second-order, transport=identity,
 *       metric=affine-invariant)
 *   stiefel:n=N,p=P[,retr=qr|polar|cayley|exp]
 *       St(n, p): n × p matrices with orthonormal columns, embedded metric
 *       (default: retr=qr)
 *   euclid:r=R[,c=C]
 *       R^(r × c) (default: c=1)
 *   grassmann:n=N,p=P[,retr=qr|polar|exp]
 *       Gr(n, p): p-dimensional subspaces of R^n as n × p orthonormal bases,
 *       quotient metric (default: retr=qr)
 *   simplex:n=N
 *       the probability simplex: n positive entries summing to one, Fisher
 *       metric
 *   coupling options: [maxiter=N][,tol=X]
 *       m × n couplings of two marginals, Fisher metric (defaults:
 *       maxiter=10000, tol=1e-13; never 0)
 */
RHGD_API int rhgd_manifold_new(const char *spec, rhgd_manifold *out);

/* rhgd_manifold_coupling creates the manifold of m x n couplings of the
 * marginals a and b (copied; masses apart by float32 rounding are made
 * equal by rescaling b, and problems made on the manifold note it:
 * rhgd_problem_notes); options is NULL or "maxiter=N,tol=X" for the
 * retraction's Sinkhorn iterations (rhgd_manifold_new lists the
 * defaults; tol is the relative L1 marginal error to reach; N >= 1 and
 * X > 0: leave a key out for its default, 0 is an error). Points are
 * checked to max(1e-10, 2 tol), so that the retraction's own results are
 * points. */
RHGD_API int rhgd_manifold_coupling(int64_t m, int64_t n, const double *a, const double *b,
                                    const char *options, rhgd_manifold *out);

/* rhgd_manifold_product creates M_1 x ... x M_k of k >= 1 manifolds
 * (copied; the factors' handles stay valid and independent): a point is
 * the concatenation of the factors' arrays. */
RHGD_API int rhgd_manifold_product(int64_t k, const rhgd_manifold *factors, rhgd_manifold *out);

/* rhgd_manifold_free releases a manifold handle. Problems made from it
 * keep their own copy. */
RHGD_API int rhgd_manifold_free(rhgd_manifold m);

/* rhgd_manifold_shape sets *rows and *cols to the shape of a point as a
 * row-major matrix (n x n for SPD(n), n x p for St(n, p) and for Gr(n, p)
 * (an orthonormal basis of the subspace), n x 1 for the simplex, r x c for
 * R^(r x c), m x n for couplings) and *factors to 0; for a product, whose
 * point is the concatenation of its factors' arrays, *rows to its length,
 * *cols to 1 and *factors to the number of factors (rhgd_manifold_factor
 * gives each). Any of the three may be NULL. */
RHGD_API int rhgd_manifold_shape(rhgd_manifold m, int64_t *rows, int64_t *cols, int64_t *factors);

/* rhgd_manifold_factor creates a handle to a copy of factor i (from 0) of
 * a product manifold; RHGD_EINVAL for other manifolds. */
RHGD_API int rhgd_manifold_factor(rhgd_manifold m, int64_t i, rhgd_manifold *out);

/* rhgd_manifold_describe copies the manifold's spec (as given to
 * rhgd_manifold_new, or, for a problem's manifolds, as it would be
 * given: "stiefel:n=50,p=20,retr=qr", "product(spec; spec)") into buf, as
 * rhgd_last_error copies, and returns its full length. */
RHGD_API int rhgd_manifold_describe(rhgd_manifold m, char *buf, size_t len);

/* rhgd_manifold_len sets *len to the number of doubles in a point or
 * tangent vector and *dim to the manifold's dimension (either may be
 * NULL). */
RHGD_API int rhgd_manifold_len(rhgd_manifold m, int64_t *len, int64_t *dim);

/* rhgd_manifold_check_point returns RHGD_OK if x is a point of the manifold
 * and RHGD_EINVAL, with a message saying what is wrong and by how much,
 * otherwise. */
RHGD_API int rhgd_manifold_check_point(rhgd_manifold m, const double *x);

/* rhgd_manifold_snap_point sets out to x when x is a point of the manifold
 * (as rhgd_manifold_check_point decides) and returns 0; when x is off it
 * by no more than float32 rounding (see "Inputs from float32 pipelines"
 * above), it sets out to x projected onto it, copies a note saying what
 * was projected into note (as rhgd_last_error copies; note may be NULL)
 * and returns the note's full length (> 0); further off it returns
 * RHGD_EINVAL with the defect and the bound. out may be x. For points
 * that came from float32 arrays, before the toolkit's calls, which check
 * points to the float64 tolerances. */
RHGD_API int rhgd_manifold_snap_point(rhgd_manifold m, const double *x, double *out, char *note, size_t len);

/* rhgd_manifold_rand_point sets x to a random point drawn from seed. */
RHGD_API int rhgd_manifold_rand_point(rhgd_manifold m, uint64_t seed, double *x);

/* rhgd_manifold_project sets out to the projection of the ambient v onto
 * the tangent space at the point x. */
RHGD_API int rhgd_manifold_project(rhgd_manifold m, const double *x, const double *v, double *out);

/* rhgd_manifold_retract sets out = R_x(t u), the manifold's retraction.
 * On a coupling manifold, RHGD_ENOTCONV says that Sinkhorn did not reach
 * its tolerance; out then holds the best plan found. */
RHGD_API int rhgd_manifold_retract(rhgd_manifold m, const double *x, const double *u, double t, double *out);

/* ------------------------------------------------------------------ */
/* Manifold toolkit                                                    */
/* ------------------------------------------------------------------ */

/* The methods of rhgd's Go manifolds (solver.Manifold), with their names
 * and meaning, on a manifold handle. Arrays hold rhgd_manifold_len
 * doubles; x and y must be points of the manifold (as
 * rhgd_manifold_check_point decides) and every vector finite (RHGD_EINVAL
 * naming the argument otherwise). Tangent arguments are taken as given:
 * only rhgd_manifold_exp requires u to be tangent (its result must be a
 * point). An output array may be an input (in place). */

/* rhgd_manifold_inner sets *out to the Riemannian inner product
 * <u, v>_x of tangent vectors u and v at x. */
RHGD_API int rhgd_manifold_inner(rhgd_manifold m, const double *x, const double *u, const double *v, double *out);

/* rhgd_manifold_norm sets *out to ||u||_x = sqrt(<u, u>_x). */
RHGD_API int rhgd_manifold_norm(rhgd_manifold m, const double *x, const double *u, double *out);

/* rhgd_manifold_supports sets *out to 1 when the manifold has the
 * closed-form method ("exp", "log" or "dist") and 0 otherwise: SPD,
 * R^(r x c), the Grassmann manifold and the simplex have all three, the
 * Stiefel manifold exp only, the coupling manifold none, a product those
 * every factor has. Grassmann's log is RHGD_ENUMERIC where a principal
 * angle is pi/2 (no unique logarithm) and its dist depends on the
 * subspaces only; the simplex's exp is RHGD_EINVAL once the geodesic
 * would leave the simplex (it is not complete). */
RHGD_API int rhgd_manifold_supports(rhgd_manifold m, const char *method, int *out);

/* rhgd_manifold_dist sets *out to the geodesic distance between the points
 * x and y. RHGD_EINVAL ("dist is unsupported", naming the manifold, or a
 * product's factors that lack it) where rhgd_manifold_supports says no. */
RHGD_API int rhgd_manifold_dist(rhgd_manifold m, const double *x, const double *y, double *out);

/* rhgd_manifold_exp sets out = Exp_x(t u), the exponential map, for u
 * tangent at x (rhgd_manifold_check_tangent). RHGD_EINVAL ("exp is
 * unsupported") where the manifold has none; RHGD_ENUMERIC when the result
 * overflows. */
RHGD_API int rhgd_manifold_exp(rhgd_manifold m, const double *x, const double *u, double t, double *out);

/* rhgd_manifold_log sets out = Log_x(y), the tangent at x with
 * Exp_x(Log_x(y)) = y. RHGD_EINVAL ("log is unsupported") where the
 * manifold has none. */
RHGD_API int rhgd_manifold_log(rhgd_manifold m, const double *x, const double *y, double *out);

/* rhgd_manifold_egrad2rgrad sets out to the Riemannian gradient at x of a
 * function whose Euclidean gradient there is egrad. */
RHGD_API int rhgd_manifold_egrad2rgrad(rhgd_manifold m, const double *x, const double *egrad, double *out);

/* rhgd_manifold_ehess2rhess sets out to the Riemannian Hessian at x
 * applied to the tangent u, of a function with Euclidean gradient egrad
 * and Euclidean Hessian-vector product ehess = D^2 f(x)[u] at x: the
 * projection of ehess plus the Weingarten (curvature or connection) term
 * the manifold's geometry adds. */
RHGD_API int rhgd_manifold_ehess2rhess(rhgd_manifold m, const double *x, const double *egrad, const double *ehess,
                                       const double *u, double *out);

/* rhgd_manifold_transport sets out to the vector transport of the tangent
 * u at x to the tangent space at y, the one the solver uses: projection
 * onto T_y for Stiefel, Grassmann (the horizontal space at the basis y
 * given), the simplex and couplings, the identity on R^(r x c), and the
 * identity or parallel transport on SPD (the spec's transport=). */
RHGD_API int rhgd_manifold_transport(rhgd_manifold m, const double *x, const double *y, const double *u,
                                     double *out);

/* rhgd_manifold_rand_tangent sets out to a random unit-norm tangent
 * vector at x drawn from seed. */
RHGD_API int rhgd_manifold_rand_tangent(rhgd_manifold m, const double *x, uint64_t seed, double *out);

/* rhgd_manifold_check_tangent returns RHGD_OK if u is a tangent vector at
 * the point x and RHGD_EINVAL, with a message saying what is wrong and by
 * how much, otherwise. */
RHGD_API int rhgd_manifold_check_tangent(rhgd_manifold m, const double *x, const double *u);

/* rhgd_sylvester solves A X + X B = C for a general m x m A, n x n B and
 * m x n C (Bartels-Stewart: real Schur forms and LAPACK's dtrsyl) and
 * sets x (m x n) to the solution. It is unique when A and -B share no
 * eigenvalue; RHGD_ENUMERIC when they do (to working precision) or the
 * solution overflows. */
RHGD_API int rhgd_sylvester(int64_t m, int64_t n, const double *a, const double *b, const double *c, double *x);

/* rhgd_lyapunov solves the continuous Lyapunov equation A X + X A^T = C
 * for a general n x n A (rhgd_sylvester with B = A^T; scipy's
 * solve_continuous_lyapunov) and sets x to the solution. For symmetric A
 * and C, rhgd_lyapunov_sym is several times faster. */
RHGD_API int rhgd_lyapunov(int64_t n, const double *a, const double *c, double *x);

/* rhgd_expsym_frechet, rhgd_logsym_frechet and rhgd_sqrtsym_frechet set
 * out = Df(A)[E] = d/dt f(A + t E) at t = 0, the Frechet derivative of
 * f = exp, log or sqrt at the symmetric A (SPD for log and sqrt) in the
 * symmetric direction E, by the Daleckii-Krein formula
 * V (F o (V^T E V)) V^T with F_ij = f[lambda_i, lambda_j] the divided
 * differences of f, from one eigendecomposition A = V diag(lambda) V^T.
 * The result is exactly symmetric. */
RHGD_API int rhgd_expsym_frechet(int64_t n, const double *a, const double *e, double *out);
RHGD_API int rhgd_logsym_frechet(int64_t n, const double *a, const double *e, double *out);
RHGD_API int rhgd_sqrtsym_frechet(int64_t n, const double *a, const double *e, double *out);

/* ------------------------------------------------------------------ */
/* Problems                                                            */
/* ------------------------------------------------------------------ */

/* A problem handle: a bilevel problem
 *   min_{x in Mx} f(x, y*(x)),  y*(x) = argmin_{y in My} g(x, y),
 * with its oracles and scratch space (use it from one thread at a time). */
typedef struct rhgd_problem {
    uint64_t id;
} rhgd_problem;

/* rhgd_default_seed returns the seed of generated data and random starts
 * that the rhgd command uses by default (42): with it,
 * rhgd_problem_builtin builds the instance `rhgd run` and `make demo`
 * build. */
RHGD_API uint64_t rhgd_default_seed(void);

/* rhgd_problem_names copies the built-in problems' names, separated by
 * commas, into buf (as rhgd_last_error copies) and returns the full
 * length. */
RHGD_API int rhgd_problem_names(char *buf, size_t len);

/* rhgd_problem_params copies the parameters of the built-in problem name,
 * one per line as "key=default<TAB>description", into buf and returns the
 * full length. Keys are C identifiers ("start_seed"); the rhgd command's
 * spelling ("start-seed") is accepted too. */
RHGD_API int rhgd_problem_params(const char *name, char *buf, size_t len);

/* rhgd_problem_builtin builds one of rhgd's ready-made problems by name
 * (rhgd_problem_names lists them; "synthetic" is the paper's synthetic
 * problem), with nparams parameters given as "key=value" strings
 * (rhgd_problem_params lists them; params may be NULL when nparams is 0),
 * its data read from the file data (NULL or "" for the built-in or
 * generated data; the synthetic problem reads a numpy .npz with arrays X,
 * Y and optionally W0, M0, nu) and seed for generated data and random
 * starts (rhgd_default_seed for the rhgd command's). The problem
 * carries its starting point and the paper's settings and estimator
 * settings, which rhgd_solver_new starts from.
 *
 * The data file is untrusted. Before any array is allocated, its zip
 * directory size, its .npy header (a numeric dtype: a pickled object
 * array is refused) and the bytes the member holds must agree, and the
 * array as doubles must fit in a bound: 1 GiB per array, or
 * RHGD_NPZ_MAX_BYTES from the environment as it is at this call ("4GiB";
 * a byte count, or KiB, MiB, GiB, TiB). Every array the problem needs
 * must be present and all declared shapes consistent before any is read,
 * and each member is read through a limit of its declared size (a member
 * that expands beyond it, ends early or fails its CRC-32 is refused). A
 * file that fails is RHGD_EINVAL with a message naming the file and the
 * array, as is a bad RHGD_NPZ_MAX_BYTES. */
RHGD_API int rhgd_problem_builtin(const char *name, int64_t nparams, const char *const *params,
                                  const char *data, uint64_t seed, rhgd_problem *out);

/* Oracles of a problem given by callbacks. Each gets the user pointer given
 * to rhgd_problem_callbacks, the points x (length len(Mx)) and y (length
 * len(My)), the minibatch and, for the products, a tangent direction v; it
 * writes its result to out and returns 0, or nonzero to stop the run
 * (RHGD_ECALLBACK, with the oracle's name and the value in the message).
 * x, y, batch, v and out are valid only during the call; an oracle must
 * not modify x, y, batch or v. A callback may call rhgd's kernels.
 *
 * The minibatch: for a finite-sum problem (rhgd_oracles.n_f or n_g > 0,
 * f = (1/n_f) sum_i f_i and likewise g), batch lists nbatch component
 * indices (from 0, possibly repeated) and the oracle averages over them;
 * batch is NULL and nbatch 0 for the full sum, and always for a problem
 * without components. RSHGD (the solver setting batch_lower, ...) draws
 * the minibatches. */
typedef int (*rhgd_value_fn)(void *user, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                             double *out);
typedef int (*rhgd_grad_fn)(void *user, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                            double *out);
typedef int (*rhgd_hvp_fn)(void *user, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                           const double *v, double *out);

/* rhgd_steps_fn, the type of rhgd_oracles.lower_steps, takes steps of the
 * solver's lower steps in one call: from y_0 = y, for s = 0, ...,
 * steps - 1,
 *   y_{s+1} = y_s - eta grad_y g(x, y_s),
 * with the Euclidean gradient of g in y (batch and nbatch as for the other
 * oracles), each step computed as y_s[i] + t u[i] with t = -eta (the
 * retraction of R^(r x c)). It writes y_steps to y_out (len(My) doubles,
 * never the array y) and ||grad_y g(x, y_s)||_F, the Frobenius norm, to
 * grad_norms[s] (steps doubles). */
typedef int (*rhgd_steps_fn)(void *user, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                             int64_t steps, double eta, double *y_out, double *grad_norms);

/* rhgd_vjp_fn, the type of rhgd_oracles.lower_steps_vjp, differentiates
 * lower_steps' map in reverse mode: with y_steps(x, y_0) the point that
 * steps lower steps of eta take from y_0 = y (as lower_steps takes them,
 * batch NULL: the whole g), it writes to dx (len(Mx) doubles) the gradient
 * in x of <lam, y_steps(x, y_0)> (Euclidean with RHGD_EUCLIDEAN, which the
 * library converts; Riemannian with RHGD_RIEMANNIAN) and to dy (len(My)
 * doubles) its gradient in y_0; lam has len(My) doubles. An autodiff
 * framework computes both by one backward pass through the unrolled
 * loop. */
typedef int (*rhgd_vjp_fn)(void *user, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                           int64_t steps, double eta, const double *lam, double *dx, double *dy);

/* rhgd_hvps_fn, the type of rhgd_oracles.hess_gy_batch, applies the
 * lower Hessian to k vectors in one call: v holds k directions tangent at
 * y, k rows of len(My) doubles (row-major: direction i at v + i len(My)),
 * and out receives their k products in the same layout (never the array
 * v); each row is what hess_gy gives for that row of v (Euclidean with
 * RHGD_EUCLIDEAN, which the library converts row by row; Riemannian with
 * RHGD_RIEMANNIAN), on the minibatch given as for hess_gy. An autodiff
 * framework computes the k products by one batched backward pass. */
typedef int (*rhgd_hvps_fn)(void *user, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                            int64_t k, const double *v, double *out);

/* rhgd_oracles: the problem's oracles, a size-prefixed struct (see STRUCTS
 * THAT GROW; start from RHGD_STRUCT_INIT(rhgd_oracles)). Required: f,
 * grad_fx, grad_fy, grad_gy. Optional (NULL when absent): g (checks only),
 * grad_gx (lets the library fill cross_gxy by finite differences), hess_gy
 * and cross_gxy (filled by central differences of grad_gy and grad_gx when
 * NULL, exact to O(h^2)), cross_gyx (checks only), hess_gy_inv (for the
 * "hinv" estimator, which derives it from hess_gy when NULL and the lower
 * manifold's dimension is at most its maxdim), lower_solve (out = y*(x) = argmin_y g(x, y), of length
 * len(My), given the current lower iterate y as a warm start; the solver
 * setting lower_solve=true runs it instead of lower steps), lower_steps,
 * lower_steps_vjp and hess_gy_batch (below).
 * n_f and n_g (>= 0) are the numbers of components of a finite-sum f and
 * g, 0 when f or g is not one; with them the oracles receive minibatches.
 *
 * With RHGD_RIEMANNIAN the gradients are Riemannian (grad_fx in T_x Mx,
 * ...), hess_gy(v) = Hess_y g[v], cross_gxy(v) = D_y grad_x g[v] in T_x for
 * v in T_y, cross_gyx(u) = D_x grad_y g[u] in T_y for u in T_x. With
 * RHGD_EUCLIDEAN they are the Euclidean gradients and second derivatives in
 * the ambient coordinates, converted by the manifolds. hess_gy_inv is the
 * Riemannian inverse Hessian with either flag, taken as given (not
 * converted): out = H^-1 v for v tangent at y, H = Hess_y g the Riemannian
 * Hessian of g in y (on the minibatch given, as for hess_gy); on
 * R^(r x c) that is the inverse of the Euclidean Hessian, on SPD(n) the
 * inverse of the affine-invariant Hessian.
 *
 * lower_steps (an rhgd_steps_fn), optional, runs the epoch's lower loop in
 * one call, where each grad_gy call would otherwise cross into the
 * caller's code (an interpreter, an autodiff framework): it must give what
 * steps lower steps give (steps grad_gy calls, each followed by the step
 * y - eta grad_gy), to rounding. It is allowed only when My is a Euclidean
 * space, a euclid manifold or a product of them, where the Euclidean and
 * Riemannian gradients agree, so it means the same with either flag; on
 * another My rhgd_problem_callbacks fails with RHGD_EINVAL. Wherever the
 * solver takes its lower steps (each epoch, the final lower solve of a
 * run, rhgd_solver_hypergradient's lower loop) it calls lower_steps once,
 * with steps = inner and eta = eta_y, in place of the inner grad_gy
 * calls, and checks the returned norms for divergence as it checks its
 * own steps (the same errors at the same step; lower_grads counts inner,
 * and lower_grad_norm is grad_norms[steps - 1]), whenever those steps are
 * the paper's fixed ones: preset=paper without lower_bb or lower_tol
 * (lower_solve=true replaces the steps altogether), no lower minibatches
 * (n_g = 0 or batch_lower = 0: batch is NULL and nbatch 0, the whole sum;
 * the parameters are there for growth) and an estimator other than "ad", which keeps
 * every lower iterate. Otherwise it calls grad_gy as before, which stays
 * required. A nonzero return stops the run as any oracle's does.
 *
 * lower_steps_vjp (an rhgd_vjp_fn), optional, with lower_steps (alone it
 * is RHGD_EINVAL): the "ad" estimator calls it once per hypergradient,
 * from the start of the epoch's fused lower loop, in place of its reverse
 * sweep over the lower iterates (inner hess_gy and inner cross_gxy calls,
 * which it counts), wherever it runs lower_steps and the Hessian and
 * cross batches are not sampled (batch_hess = batch_cross = 0 or n_g = 0).
 * It must equal that sweep in exact arithmetic.
 *
 * hess_gy_batch (an rhgd_hvps_fn), optional: hess_gy on k directions in
 * one call. The "hinv" estimator, deriving the inverse Hessian from
 * products (no hess_gy_inv), calls it once per point with k = dim(My)
 * basis directions of T_y in place of dim(My) hess_gy calls (hess_vecs
 * counts k); nothing else calls it, and hess_gy stays what the other
 * estimators call. rhgd_problem_check compares its rows with hess_gy's. */
typedef struct rhgd_oracles {
    size_t size; /* sizeof(rhgd_oracles) */
    rhgd_value_fn f;
    rhgd_grad_fn grad_fx;
    rhgd_grad_fn grad_fy;
    rhgd_value_fn g;
    rhgd_grad_fn grad_gx;
    rhgd_grad_fn grad_gy;
    rhgd_hvp_fn hess_gy;
    rhgd_hvp_fn cross_gxy;
    rhgd_hvp_fn cross_gyx;
    rhgd_hvp_fn hess_gy_inv;
    /* end of the first layout (RHGD_ORACLES_SIZE_1) */
    int64_t n_f, n_g;
    rhgd_grad_fn lower_solve;
    rhgd_steps_fn lower_steps;
    rhgd_vjp_fn lower_steps_vjp;
    rhgd_hvps_fn hess_gy_batch;
} rhgd_oracles;

/* The size of rhgd_oracles' first layout, the smallest size accepted. */
#define RHGD_ORACLES_SIZE_1 offsetof(rhgd_oracles, n_f)

#define RHGD_RIEMANNIAN 0
#define RHGD_EUCLIDEAN 1

/* rhgd_problem_callbacks builds a problem on mx x my (both copied) from
 * oracles (copied, as far as oracles->size reaches: RHGD_EINVAL below
 * RHGD_ORACLES_SIZE_1; the function pointers must stay valid while the
 * problem lives) with flags RHGD_RIEMANNIAN or RHGD_EUCLIDEAN (lower_solve
 * returns a point, hess_gy_inv is Riemannian and lower_steps takes
 * Euclidean steps on a Euclidean My either way); user is passed back to
 * every oracle. The problem has no starting point until
 * rhgd_problem_set_start. */
RHGD_API int rhgd_problem_callbacks(rhgd_manifold mx, rhgd_manifold my, const rhgd_oracles *oracles,
                                    int flags, void *user, rhgd_problem *out);

/* rhgd_problem_free releases a problem handle; solvers made from it keep
 * it alive until they are freed. */
RHGD_API int rhgd_problem_free(rhgd_problem p);

/* rhgd_problem_manifolds creates handles to copies of the problem's
 * manifolds Mx and My (either pointer may be NULL): their shapes
 * (rhgd_manifold_shape) say how to read x and y. Free them with
 * rhgd_manifold_free. */
RHGD_API int rhgd_problem_manifolds(rhgd_problem p, rhgd_manifold *mx, rhgd_manifold *my);

/* rhgd_problem_dims sets *len_x and *len_y to the number of doubles in x
 * and y (either may be NULL). */
RHGD_API int rhgd_problem_dims(rhgd_problem p, int64_t *len_x, int64_t *len_y);

/* rhgd_problem_start copies the problem's starting point into x0 and y0
 * (either may be NULL); RHGD_EINVAL if it has none. */
RHGD_API int rhgd_problem_start(rhgd_problem p, double *x0, double *y0);

/* rhgd_problem_set_start sets the problem's starting point (copied,
 * checked to be on the manifolds; a point within float32 rounding of its
 * manifold is projected onto it, with a note: rhgd_problem_notes). */
RHGD_API int rhgd_problem_set_start(rhgd_problem p, const double *x0, const double *y0);

/* rhgd_problem_describe copies a one-line description into buf and returns
 * its full length. */
RHGD_API int rhgd_problem_describe(rhgd_problem p, char *buf, size_t len);

/* rhgd_problem_notes copies the problem's notes into buf, one line each
 * (separated by '\n'; "" when there are none), and returns their full
 * length: what rhgd did to the inputs given with the problem, namely data
 * and marginals, and the starting points given to rhgd_problem_set_start
 * and rhgd_solver_run, that were within float32 rounding of a constraint
 * and projected onto it. Each note names the input, its defect and the
 * projection ("W0: ||X^T X - I||_F = 1.1e-07, ..."); a note is kept once. */
RHGD_API int rhgd_problem_notes(rhgd_problem p, char *buf, size_t len);

/* rhgd_problem_oracle evaluates one oracle by name at (x, y), on the full
 * sum: "f" and "g" write one double, "grad_fx", "grad_gx" write len_x
 * doubles, "grad_fy", "grad_gy" and "lower_solve" len_y, "hess_gy",
 * "hess_gy_inv", "hess_gy_batch" (one direction, k = 1; len_y) and
 * "cross_gxy" (len_x) take v of length len_y, "cross_gyx" (len_y) takes v
 * of length len_x.
 * Riemannian values, whichever way the problem was given; hess_gy and
 * cross_gxy are the finite differences when the problem lacks them. */
RHGD_API int rhgd_problem_oracle(rhgd_problem p, const char *name, const double *x, const double *y,
                                 const double *v, double *out);

/* rhgd_problem_accuracy sets *accuracy to the classification accuracy, in
 * percent, that a built-in application reaches with (x, y) (the length of
 * its x and y); RHGD_EINVAL for a problem without one (callbacks, the
 * synthetic problem). */
RHGD_API int rhgd_problem_accuracy(rhgd_problem p, const double *x, const double *y, double *accuracy);

/* rhgd_problem_check checks the problem's oracles at (x, y) (NULL for
 * both: its starting point) as Go's solver.CheckProblem does: each
 * gradient by the Taylor slope of its objective, hess_gy by its slope,
 * symmetry and tangency and against finite differences of grad_gy, the
 * cross derivatives against finite differences and for adjointness,
 * hess_gy_inv against hess_gy, and cached evaluations against fresh ones;
 * only the oracles the problem has, Riemannian, on the full sum. options
 * is NULL or comma-separated key=value pairs: seed (of the random tangent
 * directions, default 0), tol (relative tolerance of the comparisons that
 * are not slopes, > 0; leave it out for the default 1e-6: tol=0 is an
 * error), second_order_y and critical ("true": My's
 * retraction is of second order; y is a critical point of g(x, .)). It
 * copies the report into buf as JSON, as rhgd_last_error copies, and
 * returns its full length:
 *   {"ok": true if every check passed,
 *    "reports": [{"name", "ok", "slope", "want", "at_least", "exact",
 *                 "fitted", "steps", "errors", "residuals": {name: value},
 *                 "msg"}, ...]}
 * with null for a NaN or infinite number (a slope not measured). A failed
 * check is not an error: the call returns the length and "ok": false; an
 * oracle's error fails its check, with the error in "msg". Each call runs
 * the checks again: give a buffer large enough (a few kB per report). */
RHGD_API int rhgd_problem_check(rhgd_problem p, const double *x, const double *y, const char *options, char *buf,
                                size_t len);

/* ------------------------------------------------------------------ */
/* Solvers                                                             */
/* ------------------------------------------------------------------ */

/* A solver handle: RHGD (the paper's Algorithm 1; RSHGD, Algorithm 2, with
 * batches) on one problem, with its settings, buffers and last result. */
typedef struct rhgd_solver {
    uint64_t id;
} rhgd_solver;

/* rhgd_solver_new creates a solver for p.
 *
 * estimator is a spec: a name, optionally followed by a colon and
 * comma-separated key=value options ("cg:tol=1e-8,maxiter=100"). On a
 * built-in problem the name alone ("cg") is the paper's spec for that
 * problem; a spec with options stands for itself, its options left out
 * taking the estimator's defaults below, as on any other problem. NULL or
 * "" takes the problem's default (CG with its defaults for a callback
 * problem). The estimators and their options ("never 0": 0 is an error
 * naming the key, since it would be the default, not 0):
 *   hinv              the exact inverse Hessian: the problem's hess_gy_inv, or,
 *                     without it, derived from hess_gy when the lower dimension
 *                     D ≤ maxdim (D products and a Cholesky factor per point)
 *     maxdim=N        the largest lower dimension at which hess_gy_inv is
 *                     derived (default 500; never 0)
 *   cg                conjugate gradients on H v = grad_y f
 *     maxiter=N       iteration cap (default 50; never 0)
 *     tol=X           stop once ‖b − H v‖ ≤ tol·‖b‖ (default 1e-10; never 0)
 *     warm=B          start from the last epoch's solution (default false)
 *     damping=X|auto  solve (H + δI) v = b: δ = X, or auto: from a Lanczos
 *                     estimate of H's spectrum (default 0: none)
 *   ns (neumann)      truncated Neumann series γ Σ_{i<T} (I − γH)^i
 *     gamma=X         step γ (default 1/λ̂_max by power iteration; never 0)
 *     terms=N         terms T (default 50; never 0)
 *     power=N         power iterations estimating λ_max to check γ; negative:
 *                     no check (default 10; never 0)
 *     damping=X|auto  the series of (H + δI)⁻¹: δ = X, or auto, as cg's
 *                     (default 0: none)
 *   ad                reverse-mode differentiation through the lower steps
 *   gda               gradient descent–ascent, for min-max problems
 *   fo (firstorder)   first-order penalty method (F²SA), gradients only (not
 *                     the paper's)
 *     lambda=X        the penalty's first λ (default 10; never 0)
 *     growth=X        λ_k = lambda + growth·k^power; negative: λ fixed (default
 *                     λ adapts to the bias estimate; 10 with power or
 *                     minibatches; never 0)
 *     power=X         the schedule's exponent (default λ adapts to the bias
 *                     estimate; 1/3 with growth, 1/7 with minibatches; never 0)
 *     zsteps=N        z steps per estimate (default the solver's inner; never
 *                     0)
 *     eta=X           z step size (default the solver's eta_y; never 0)
 *     ztol=X          end the z steps at ‖z gradient‖ ≤ ztol·‖ĝ‖/λ (default 0:
 *                     off)
 *   saba (vr)         SABA: variance-reduced joint steps on y, v and x, SAGA
 *                     memories transported on the manifolds (for minibatches;
 *                     inner=1) (not the paper's)
 *     eta=X           v's constant step (default the solver's eta_y; never 0)
 *     shuffle=B       draw the memory blocks in a random order per pass
 *                     (default false: each block with probability its share)
 *   adagd             AdaRHD's gradient descent on H v = grad_y f with
 *                     AdaGrad-norm steps (not the paper's)
 *     maxiter=N       first iteration cap, 50 more every five estimates up to
 *                     500 (default 50; never 0)
 *     tol=X           stop once ‖H v − b‖² < tol (default 0.0001; never 0)
 *     gamma=X         the first AdaGrad accumulator γ₀ (steps 1/γ) (default
 *                     1/eta_y; never 0)
 *
 * settings is NULL or comma-separated key=value pairs over the defaults
 * (a built-in problem's defaults are the paper's):
 *   preset         "paper" (default: fixed lower steps and step sizes),
 *                  "adaptive" (the exact lower solution where the problem
 *                  has one, else an adaptive Barzilai-Borwein lower loop;
 *                  BB upper steps; stops once ||hypergradient|| <= 1e-8
 *                  times its first value: solver.AdaptiveSettings) or
 *                  "adarhd" (AdaRHD's AdaGrad-norm lower and upper steps,
 *                  starting at eta_y and eta_x: solver.AdaRHDSettings)
 *   eta_x, eta_y   step sizes (default 0.1)
 *   inner          lower steps per epoch, S (default 20)
 *   epochs         epoch limit, K (default 200)
 *   grad_tol       stop at ||hypergradient|| <= grad_tol (default 0: off);
 *                  under the "fo" estimator, at ||hypergradient|| plus its
 *                  bias estimate (hypergrad_err_bound) <= grad_tol
 *   rel_grad_tol   stop at ||hypergradient|| <= rel_grad_tol times its first
 *                  value (default 0: off); "fo": plus its bias estimate
 *   runtime        time limit in seconds, or a duration such as "1m30s"
 *                  (default 0: off)
 *   diverge        divergence factor (default 1e8)
 *   fd_step        relative finite-difference step (default eps^(1/3))
 *   seed           seed of the estimators' and batches' randomness
 *   batches        "paper" for a built-in finite-sum problem's minibatch
 *                  sizes (RSHGD), or "full"
 *   batch_lower, batch_upper, batch_cross, batch_hess, batch_report
 *                  RSHGD's minibatch sizes |B1|..|B4| and the report batch
 *   lower_solve    "true": the problem's exact lower solution, where it has
 *                  one, instead of lower steps (default false)
 *   lower_tol, lower_maxiter
 *                  end each epoch's lower loop once ||grad_y g|| <= lower_tol
 *                  times the last ||hypergradient||, after at most
 *                  lower_maxiter steps (defaults 0: off, and 10 inner)
 *   lower_err_bound
 *                  "true": lower_tol bounds the hypergradient error bound's
 *                  lower-level term (hypergrad_err_bound) instead of
 *                  ||grad_y g|| (default false; needs CG or lanczos)
 *   lower_bb       "true": Barzilai-Borwein lower steps with a nonmonotone
 *                  line search on g (default false)
 *   upper_bb, upper_min_step, upper_max_step
 *                  "true": safeguarded Barzilai-Borwein upper steps within
 *                  [upper_min_step, upper_max_step] (defaults false, and
 *                  eta_x/1000 and 1000 eta_x)
 *   lower_adagrad, upper_adagrad
 *                  "true": AdaRHD's AdaGrad-norm lower steps (from 1/eta_y,
 *                  until ||grad_y g||^2 <= 1/epochs or a growing cap) and
 *                  upper steps (from 1/eta_x) (defaults false)
 *   lanczos        Lanczos steps estimating the lower Hessian's extreme
 *                  eigenvalues each epoch, for lower_min_eig and
 *                  hypergrad_err_bound (default 0: off; CG estimates its
 *                  own from its coefficients)
 * Numbers and integers are >= 0; a key given twice is an error. A key
 * whose default is not 0 is never 0: leave it out for its default, as 0
 * is an error naming it (never silently the default). These are: eta_x,
 * eta_y, inner, epochs, diverge, fd_step, lower_maxiter, upper_min_step,
 * upper_max_step. The preset sets the lower_*, upper_* and rel_grad_tol
 * keys, and keys given with it override it. */
RHGD_API int rhgd_solver_new(rhgd_problem p, const char *estimator, const char *settings, rhgd_solver *out);

/* rhgd_solver_settings copies the solver's effective estimator and
 * settings (a spec rhgd_solver_new reads back) into buf and returns the
 * full length. */
RHGD_API int rhgd_solver_settings(rhgd_solver s, char *buf, size_t len);

/* What the epoch callback sees after each epoch k, a size-prefixed struct
 * (see STRUCTS THAT GROW) that the library fills: size is the library's
 * sizeof(rhgd_epoch). Its point is (x_k, y_{k+1}), at which f and the
 * hypergradient were evaluated, before the epoch's upper step moved x to
 * x_{k+1} (the history rows hold the same values). x, y and hypergrad are
 * copies valid only during the callback. */
typedef struct rhgd_epoch {
    size_t size;             /* the library's sizeof(rhgd_epoch) */
    int64_t epoch;           /* k, from 0 */
    double f;                /* f(x_k, y_{k+1}) */
    double hypergrad_norm;   /* ||hypergradient estimate at x_k|| */
    double lower_grad_norm;  /* ||grad_y g|| at the last lower step */
    double elapsed;          /* seconds since the run started */
    int64_t upper_grads;     /* cumulative counts */
    int64_t lower_grads;
    int64_t hess_vecs;
    int64_t cross_vecs;
    int64_t iterations;      /* CG iterations, Neumann terms or AD steps */
    double residual;         /* the estimate's residual (CG) */
    int64_t len_x, len_y;
    const double *x;         /* x_k */
    const double *y;         /* y_{k+1} */
    const double *hypergrad; /* the hypergradient estimate, len_x */
    /* end of the first layout */
    int64_t lower_steps;     /* the epoch's lower steps (0 after an exact lower solve) */
    double upper_step;       /* eta_x of the step from x_k, after any halvings its
                                retraction needed */
    int64_t lower_solves;    /* cumulative exact lower solves (lower_solve) */
    double lower_min_eig;    /* Lanczos estimate of the lower Hessian's smallest
                                eigenvalue (CG, or the lanczos setting); NaN
                                when not estimated */
    double hypergrad_err_bound; /* a-posteriori estimate of ||hypergradient
                                   estimate - true hypergradient||: NaN without
                                   a spectrum estimate, +Inf when
                                   lower_min_eig <= 0; under "fo", its own
                                   gradients-only bias estimate */
} rhgd_epoch;

/* The epoch callback returns 0 to continue and nonzero to cancel the run
 * (status RHGD_STATUS_CANCELLED, not an error). */
typedef int (*rhgd_epoch_fn)(void *user, const rhgd_epoch *epoch);

/* rhgd_solver_run runs the solver from (x0, y0) (NULL for both: the
 * problem's starting point; a given point within float32 rounding of its
 * manifold is projected onto it, with a note: rhgd_problem_notes) until a
 * stopping rule fires, calling callback
 * (may be NULL) with user after each epoch. It returns RHGD_OK when the run
 * ended by a stopping rule (iteration or runtime limit, gradient threshold,
 * cancellation) and an error code when it diverged or an operation failed;
 * either way the result and history are then readable, and after an error
 * x and y are the best iterates seen. */
RHGD_API int rhgd_solver_run(rhgd_solver s, const double *x0, const double *y0, rhgd_epoch_fn callback,
                             void *user);

/* rhgd_solver_cancel asks a running solver to stop after its current epoch;
 * it may be called from any thread, and is a no-op when s is not running. */
RHGD_API int rhgd_solver_cancel(rhgd_solver s);

/* CHECKPOINTS
 *
 * A long run survives its process. rhgd_solver_set_checkpoint makes the
 * solver's later runs (rhgd_solver_run, rhgd_solver_resume) save their
 * whole state to the file path every `every` epochs (>= 1; 0 is
 * RHGD_EINVAL, never a default) and when a run stops by its epoch or
 * runtime limit or a cancellation (the callback, rhgd_solver_cancel),
 * before its final lower solve: the iterates, the best iterate, the
 * counts, the step-size rules' memories, the random streams, the
 * estimator's warm starts and the history so far. Each write goes to a
 * temporary file in path's directory (which must exist), synced and
 * renamed over path, so that a process killed at any moment leaves the
 * last checkpoint whole. path NULL or "" turns checkpoints off.
 *
 * rhgd_solver_resume restores the checkpoint at path into s and runs it
 * to its end, as rhgd_solver_run runs from a start: same callback, return
 * codes, result and history (the checkpoint's epochs, then the new ones).
 * The run ends as the run never stopped would, bit for bit on the same
 * backend, but for the elapsed times, which continue from the
 * checkpoint's and leave out the time in between. s must be a solver of
 * the same problem (a built-in one's name, parameters, data file and
 * seed; callbacks on the same manifolds, whose f at the saved iterate
 * must agree) with the same estimator and settings (rhgd_solver_settings).
 * A missing file, a file that is not a checkpoint, of another format
 * version, truncated or corrupt, or a checkpoint of another problem,
 * other settings or sizes is RHGD_EINVAL with a message naming what
 * differs; nothing runs then and the last run's result is kept. The
 * checkpoint of a finished run resumes to its result at once. The format
 * is described in the Go package solver (checkpoint.go). */
RHGD_API int rhgd_solver_set_checkpoint(rhgd_solver s, const char *path, int64_t every);
RHGD_API int rhgd_solver_resume(rhgd_solver s, const char *path, rhgd_epoch_fn callback, void *user);

/* rhgd_solver_hypergradient estimates the hypergradient at a given x with
 * the solver's estimator and settings, without running it:
 *   - y non-NULL: at (x, y) as given, with no lower steps (AD then
 *     differentiates a path of one point: its grad_x f term alone);
 *   - y NULL: at the lower iterate that the solver's lower solve reaches
 *     at x from the problem's starting y0 (rhgd_problem_start; RHGD_EINVAL
 *     when the problem has none): the exact lower_solve (y0 its warm
 *     start) when the settings say lower_solve=true and the problem has
 *     one, else one epoch's lower loop from y0 (inner steps of eta_y, or
 *     the lower_bb steps; lower_tol, with no earlier hypergradient to scale
 *     it, takes inner steps as a run's first epoch does).
 * len_x and len_y must be the problem's (rhgd_problem_dims); they size x
 * and hypergrad, and y and y_out. x and y are checked to be on Mx and My
 * (a point within float32 rounding of its manifold is projected onto it,
 * with a note: rhgd_problem_notes). The estimate (tangent at x, len_x
 * doubles) goes to hypergrad; y_out (len_y doubles, may be NULL) receives
 * the y used; *lower_grad_norm (may be NULL) is ||grad_y g(x, y)|| at that
 * y on the whole sums, which says how accurate y is: for g strongly convex
 * in y with modulus mu, dist(y, y*(x)) <= lower_grad_norm / mu, and the
 * hypergradient's error is at most a constant times that distance. Equal
 * arguments give equal results (the estimators' random streams restart).
 * The solver's last run result and history are kept. An oracle callback
 * that fails makes the call fail with RHGD_ECALLBACK, a diverging lower
 * loop with RHGD_ENUMERIC; nothing is written then. */
RHGD_API int rhgd_solver_hypergradient(rhgd_solver s, int64_t len_x, const double *x, int64_t len_y, const double *y,
                                       double *hypergrad, double *y_out, double *lower_grad_norm);

/* The outcome of the last run, a size-prefixed struct (see STRUCTS THAT
 * GROW): set size = sizeof(rhgd_result), or start from
 * RHGD_STRUCT_INIT(rhgd_result). rhgd_result_names lists its fields, and
 * rhgd_solver_result_value reads one by name, including fields newer than
 * the caller's header.
 *
 * f is f(x, y) at the run's returned x and y (rhgd_solver_x, rhgd_solver_y)
 * and best_f is f at best_x, best_y (rhgd_solver_best). After K epochs
 * ended by the epoch or runtime limit or a cancellation, the last epoch
 * had moved x to x_K, so the run ends with a final lower solve at x_K, as
 * an epoch starts (the inner steps, the adaptive loop or lower_solve,
 * counted in lower_grads and lower_solves, not in the history), and x =
 * x_K, y = y_{K+1}, f = f(x_K, y_{K+1}); a run stopped before its first
 * epoch returns its start and f there. After the gradient threshold x did
 * not move: x = x_{K-1}, y = y_K and f is the last epoch's f. After an
 * error (RHGD_STATUS_DIVERGED, RHGD_STATUS_FAILURE, including a failing
 * final lower solve), x and y are best_x and best_y and f = best_f. */
typedef struct rhgd_result {
    size_t size;           /* sizeof(rhgd_result), set by the caller */
    int32_t status;        /* RHGD_STATUS_* */
    int32_t error;         /* the code rhgd_solver_run returned */
    int64_t epochs;
    double f;              /* f at the returned x and y (see above) */
    double best_f;         /* the lowest f seen: f(best_x, best_y) */
    double hypergrad_norm; /* the last epoch's ||hypergradient estimate at
                              x_{K-1}||, the point before its upper step: at
                              the returned x only after the gradient
                              threshold */
    double runtime;        /* seconds */
    int64_t upper_grads;
    int64_t lower_grads;
    int64_t hess_vecs;
    int64_t cross_vecs;
    int64_t iterations;
    double residual;
    /* end of the first layout (RHGD_RESULT_SIZE_1) */
    int64_t lower_values;     /* g evaluations (the BB lower steps' line search) */
    int64_t lower_solves;     /* exact lower solves (lower_solve) */
    int64_t retract_failures; /* retractions that failed and were retried with half
                                 the step */
    int64_t lower_x_grads;    /* grad_x g evaluations (the first-order estimator) */
    int64_t upper_y_grads;    /* grad_y f evaluations besides the upper gradient's
                                 (the first-order estimator's z steps) */
} rhgd_result;

/* The size of rhgd_result's first layout, the smallest size accepted. */
#define RHGD_RESULT_SIZE_1 offsetof(rhgd_result, lower_values)

/* rhgd_solver_result fills the first min(out->size, sizeof(rhgd_result))
 * bytes of *out (after size) with the last run's outcome; RHGD_EINVAL
 * before the first run, or when out->size < RHGD_RESULT_SIZE_1. */
RHGD_API int rhgd_solver_result(rhgd_solver s, rhgd_result *out);

/* rhgd_result_names copies the names of the library's rhgd_result fields
 * (after size), comma-separated and in order, into buf, as rhgd_last_error
 * copies, and returns the full length. */
RHGD_API int rhgd_result_names(char *buf, size_t len);

/* rhgd_solver_result_value sets *value to the field name (one of
 * rhgd_result_names) of the last run's outcome, as a double (counts are
 * exact below 2^53). */
RHGD_API int rhgd_solver_result_value(rhgd_solver s, const char *name, double *value);

/* rhgd_solver_best copies the iterates with the lowest f (among the
 * epochs' (x_k, y_{k+1}) and the returned point), best_x (len_x doubles)
 * and best_y (len_y), from the last run; either pointer may be NULL. len_x
 * and len_y must be the problem's. */
RHGD_API int rhgd_solver_best(rhgd_solver s, int64_t len_x, double *best_x, int64_t len_y, double *best_y);

/* rhgd_solver_x and rhgd_solver_y copy the last run's final x and y (the
 * point at which rhgd_result.f was evaluated) into the len doubles at out;
 * len must be the problem's len_x or len_y. */
RHGD_API int rhgd_solver_x(rhgd_solver s, int64_t len, double *out);
RHGD_API int rhgd_solver_y(rhgd_solver s, int64_t len, double *out);

/* Columns of a history row. Columns are only ever appended: the indices
 * below are stable, and RHGD_HISTORY_COLS is the number this header
 * knows; the library may have more (rhgd_history_cols). */
#define RHGD_HISTORY_EPOCH 0
#define RHGD_HISTORY_F 1
#define RHGD_HISTORY_HYPERGRAD_NORM 2
#define RHGD_HISTORY_LOWER_GRAD_NORM 3
#define RHGD_HISTORY_ELAPSED 4
#define RHGD_HISTORY_UPPER_GRADS 5
#define RHGD_HISTORY_LOWER_GRADS 6
#define RHGD_HISTORY_HESS_VECS 7
#define RHGD_HISTORY_CROSS_VECS 8
#define RHGD_HISTORY_ITERATIONS 9
#define RHGD_HISTORY_RESIDUAL 10
#define RHGD_HISTORY_LOWER_STEPS 11
#define RHGD_HISTORY_UPPER_STEP 12
#define RHGD_HISTORY_LOWER_SOLVES 13
#define RHGD_HISTORY_LOWER_MIN_EIG 14
#define RHGD_HISTORY_HYPERGRAD_ERR_BOUND 15
#define RHGD_HISTORY_COLS 16

/* rhgd_solver_history sets *nrows to the number of epochs of the last run
 * and copies min(*nrows, max_rows) rows, one per epoch, into rows (which
 * may be NULL when max_rows is 0). Each row holds cols >= 1 doubles, the
 * row width the caller chose (RHGD_HISTORY_COLS, say): the library's first
 * min(cols, its column count) columns, and NaN in the columns beyond the
 * library's. */
RHGD_API int rhgd_solver_history(rhgd_solver s, int64_t max_rows, int64_t cols, double *rows, int64_t *nrows);

/* rhgd_history_cols sets *ncols to the library's number of history
 * columns (at least RHGD_HISTORY_COLS of the header it was built with). */
RHGD_API int rhgd_history_cols(int64_t *ncols);

/* rhgd_history_names copies the library's history column names
 * ("epoch,f,hypergrad_norm,..."), comma-separated and in column order,
 * into buf, as rhgd_last_error copies, and returns the full length. */
RHGD_API int rhgd_history_names(char *buf, size_t len);

/* rhgd_solver_free releases a solver handle. */
RHGD_API int rhgd_solver_free(rhgd_solver s);

/* rhgd_live_handles sets *n to the number of live handles of all kinds
 * (for leak checks). */
RHGD_API int rhgd_live_handles(int64_t *n);

#ifdef __cplusplus
}
#endif

#endif /* RHGD_H */

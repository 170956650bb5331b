//go:build cgo && !purego

/* lapackx_syevql: the symmetric eigensolver EigSym uses below
 * lapackx's eigQLCutoff, in place of LAPACK's dsyevd.
 *
 * Householder tridiagonalization with the transformation accumulated
 * (EISPACK's tred2), then LAPACK's implicit QL/QR iteration (dsteqr), on
 * rows so that every inner loop is a contiguous vector operation, with
 * those loops in AVX2/FMA where the CPU has them. The iteration was
 * EISPACK's tql2 until issue 20: its explicit origin shift (every later
 * diagonal entry minus the accumulated shift, added back at the end)
 * rounds each eigenvalue at the scale of ‖A‖ rather than of the entries,
 * which made e^A, log A and A^-1/2 of wide spectra 2-6× less accurate than
 * with dsyevd (TestEigQLReference); dsteqr's implicit shift, relative
 * deflation test and per-block scaling match dsyevd's accuracy below
 * n = 25 (where dsyevd is dsteqr) and stay within 1.5× of it to n = 50. At small orders LAPACK's time goes to its unvectorized
 * reference Fortran (dsteqr's dlasr, dstedc's secular equations) and to
 * level-2 BLAS calls too short to pay their overhead: at n = 50 this runs
 * in about half of dsyevd's time, at the same residual and orthogonality
 * (BenchmarkEigDriver, TestEigQLAccuracy). */

#include <float.h>
#include <math.h>
#include <string.h>

#define EPS 0x1p-52
#define QL_MAXIT 30 /* dsteqr's MAXIT: iterations per eigenvalue, on average */

/* hypot2 returns sqrt(x² + y²), by the plain formula where it neither
 * overflows nor loses precision to underflow. */
static inline double hypot2(double x, double y) {
	double z = x * x + y * y;
	if (z > 0x1p-900 && z < 0x1p900)
		return sqrt(z);
	return hypot(x, y);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define RHGD_HAVE_AVX2 1
#include <immintrin.h>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
static inline double hsum(__m256d v) {
	__m128d lo = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
	return _mm_cvtsd_f64(_mm_add_sd(lo, _mm_unpackhi_pd(lo, lo)));
}
#define RHGD_AVX2 1
#define FN(x) x##_avx2
#include "syevql_body.h"
#undef FN
#undef RHGD_AVX2
#pragma GCC pop_options
#endif

#define FN(x) x##_base
#include "syevql_body.h"
#undef FN

#ifdef RHGD_HAVE_AVX2
static int have_avx2;

__attribute__((constructor)) static void lapackx_syevql_init(void) {
	__builtin_cpu_init();
	have_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

/* lapackx_syevql_vectorized reports whether lapackx_syevql runs the AVX2 code. */
__attribute__((visibility("hidden"))) int lapackx_syevql_vectorized(void) {
#ifdef RHGD_HAVE_AVX2
	return have_avx2;
#else
	return 0;
#endif
}

/* lapackx_resid computes the m×n residuals r_i = A v_i − w_i v_i of the
 * rows of v against the n×n row-major a (A symmetric, so its rows are its
 * columns), each as if in twice the working precision (Dot2); see resid in
 * syevql_body.h. */
__attribute__((visibility("hidden"))) void lapackx_resid(int n, int m, const double *a, const double *v, const double *w, double *r) {
#ifdef RHGD_HAVE_AVX2
	if (have_avx2) {
		resid_avx2(n, m, a, v, w, r);
		return;
	}
#endif
	resid_base(n, m, a, v, w, r);
}

/* lapackx_syevql computes the eigenvalues w (ascending) and eigenvectors of
 * the symmetric n×n row-major a, reading its lower (lower ≠ 0) or upper
 * triangle, and overwrites a with the unit eigenvectors, one per row. e is
 * n doubles of scratch. base ≠ 0 forces the code without AVX2, for tests.
 * It returns 0, or a positive value if the iteration did not converge or
 * produced NaN. */
__attribute__((visibility("hidden"))) int lapackx_syevql(int n, double *a, double *w, double *e, int lower, int base) {
#ifdef RHGD_HAVE_AVX2
	if (have_avx2 && !base)
		return syevql_avx2(n, a, w, e, lower);
#endif
	return syevql_base(n, a, w, e, lower);
}

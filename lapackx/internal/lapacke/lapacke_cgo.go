//go:build cgo && !purego

// Keep in sync with lapacke_purego.go.

package lapacke

// Thin bindings to LAPACKE's _work routines in column-major layout, so that
// LAPACKE passes the arrays straight to LAPACK: no transposition, no hidden
// malloc. Callers own every array and have checked sizes; these functions
// only cross into C. A row-major Go buffer is the transpose of the
// column-major matrix LAPACK sees; each caller documents how it uses that.

/*
// syevql.c calls libm (hypot, and sqrt's errno path): not a BLAS choice,
// so it is named here rather than in link_cgo.go.
#cgo LDFLAGS: -lm
#include <stdint.h>
#include <string.h>
#include <lapacke.h>

// Wrappers for the routines with scalar outputs, which live on the C stack
// here: the address of a Go local passed to C would escape to the heap and
// cost an allocation per call.

static lapack_int rhgd_dgees(lapack_int n, double *a, lapack_int lda, double *wr, double *wi, double *vs, lapack_int ldvs,
		double *work, lapack_int lwork) {
	lapack_int sdim;
	return LAPACKE_dgees_work(LAPACK_COL_MAJOR, 'V', 'N', NULL, n, a, lda, &sdim, wr, wi, vs, ldvs, work, lwork, NULL);
}

typedef struct { lapack_int info; lapack_int index; } rhgd_batch_result;

// lapackx_syevql and lapackx_syevql_vectorized are in syevql.c.
int lapackx_syevql(int n, double *a, double *w, double *e, int lower, int base);
int lapackx_syevql_vectorized(void);
void lapackx_resid(int n, int m, const double *a, const double *v, const double *w, double *r);

// lapackx_syevql_batch runs lapackx_syevql (lower triangle) on count n×n
// matrices stored one after the other in a, stopping at the first that
// fails: one crossing from Go for the whole batch.
static rhgd_batch_result lapackx_syevql_batch(int n, int count, double *a, double *w, double *e) {
	rhgd_batch_result r = {0, 0};
	for (int i = 0; i < count; i++) {
		r.info = lapackx_syevql(n, a + (size_t)i*n*n, w + (size_t)i*n, e, 1, 0);
		if (r.info != 0) {
			r.index = i;
			return r;
		}
	}
	return r;
}

// rhgd_align returns p advanced to the next 64-byte boundary (at most 7
// doubles further).
static double *rhgd_align(double *p) {
	return (double *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
}

// rhgd_dsyevd_or_ql runs dsyevd on a copy of the n×n column-major a (lda
// = n) in scratch, with its work array, the copy and the eigenvalues all
// on 64-byte boundaries: some OpenBLAS kernel sets (Prescott, Core2,
// Sandybridge) round differently with the alignment of their operands,
// and a matrix's place in a batch must not change its eigenvectors. It
// copies the result back into a and w. Where dsyevd reports that it
// failed (info > 0: some OpenBLAS builds' divide and conquer does not
// converge on valid input), a still holds the input and lapackx_syevql
// solves it instead, which needs nothing from OpenBLAS's LAPACK; fellback
// says so. fail (tests only) makes every dsyevd call report failure after
// it has run. Column-major 'L' is the row-major upper triangle, which
// syevql reads with lower = 0, and both return the eigenvectors in the
// column-major columns. scratch holds n·n + n + 24 doubles.
typedef struct { lapack_int info; int fellback; } rhgd_eig_result;

static rhgd_eig_result rhgd_dsyevd_or_ql(char jobz, char uplo, lapack_int n, double *a, double *w,
		double *work, lapack_int lwork, lapack_int *iwork, lapack_int liwork, double *scratch, int fail) {
	rhgd_eig_result r = {0, 0};
	size_t nn = (size_t)n * n;
	double *s = rhgd_align(scratch), *sw = rhgd_align(s + nn), *wk = rhgd_align(work);
	memcpy(s, a, nn * sizeof(double));
	r.info = LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, jobz, uplo, n, s, n, sw, wk, lwork - (lapack_int)(wk - work),
		iwork, liwork);
	if (fail && r.info == 0)
		r.info = n + 1;
	if (r.info == 0) {
		memcpy(a, s, nn * sizeof(double));
		memcpy(w, sw, (size_t)n * sizeof(double));
		return r;
	}
	if (r.info > 0) {
		r.fellback = 1;
		r.info = lapackx_syevql(n, a, w, work, uplo == 'U', 0);
	}
	return r;
}

// rhgd_dsyevd_batch runs rhgd_dsyevd_or_ql ('V', 'L') on count n×n
// matrices stored one after the other in a, in place, stopping at the
// first that fails: one crossing from Go for the whole batch. fellback
// counts the matrices that needed the fallback.
typedef struct { lapack_int info; lapack_int index; int fellback; } rhgd_eigbatch_result;

static rhgd_eigbatch_result rhgd_dsyevd_batch(lapack_int n, lapack_int count, double *a, double *w,
		double *work, lapack_int lwork, lapack_int *iwork, lapack_int liwork, double *scratch, int fail) {
	rhgd_eigbatch_result r = {0, 0, 0};
	for (lapack_int i = 0; i < count; i++) {
		rhgd_eig_result e = rhgd_dsyevd_or_ql('V', 'L', n, a + (size_t)i*n*n, w + (size_t)i*n,
			work, lwork, iwork, liwork, scratch, fail);
		r.fellback += e.fellback;
		if (e.info != 0) {
			r.info = e.info;
			r.index = i;
			return r;
		}
	}
	return r;
}

typedef struct { lapack_int info; double scale; } rhgd_trsyl_result;

static rhgd_trsyl_result rhgd_dtrsyl(char trana, char tranb, lapack_int isgn, lapack_int m, lapack_int n,
		const double *a, lapack_int lda, const double *b, lapack_int ldb, double *c, lapack_int ldc) {
	rhgd_trsyl_result r;
	r.info = LAPACKE_dtrsyl_work(LAPACK_COL_MAJOR, trana, tranb, isgn, m, n, a, lda, b, ldb, c, ldc, &r.scale);
	return r;
}
*/
import "C"

import (
	"sync/atomic"
	"unsafe"
)

// Available reports whether this build links LAPACKE.
const Available = true

func dptr(s []float64) *C.double {
	if len(s) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&s[0]))
}

func sptr(s []float32) *C.float {
	if len(s) == 0 {
		return nil
	}
	return (*C.float)(unsafe.Pointer(&s[0]))
}

func iptr(s []int32) *C.lapack_int {
	if len(s) == 0 {
		return nil
	}
	return (*C.lapack_int)(unsafe.Pointer(&s[0]))
}

const colMajor = C.LAPACK_COL_MAJOR

// DsyevdScratch is the scratch length DsyevdOrQL and DsyevdBatch need
// for n×n matrices.
func DsyevdScratch(n int) int { return n*n + n + 24 }

// DsyevdBatch runs DsyevdOrQL ('V', lower triangle of the column-major
// view) on count n×n matrices stored one after the other in a, with w
// holding n eigenvalues per matrix, in one cgo call; work has 8 doubles
// more than dsyevd needs and backup DsyevdScratch(n). It returns the info
// and index of the first matrix that fails (0, 0 on success) and the
// number of matrices that needed the fallback.
func DsyevdBatch(n, count int, a, w, work []float64, iwork []int32, backup []float64) (info, index, fellback int) {
	if len(backup) < DsyevdScratch(n) {
		panic("lapacke: DsyevdBatch: scratch shorter than DsyevdScratch(n)")
	}
	r := C.rhgd_dsyevd_batch(C.lapack_int(n), C.lapack_int(count), dptr(a), dptr(w), dptr(work), C.lapack_int(len(work)),
		(*C.lapack_int)(unsafe.Pointer(&iwork[0])), C.lapack_int(len(iwork)), dptr(backup), cbool(FailDsyevd.Load()))
	return int(r.info), int(r.index), int(r.fellback)
}

// DsyevdOrQL calls LAPACKE_dsyevd_work in column-major layout on a copy
// of the n×n a (lda = n) in backup (DsyevdScratch(n)), with every operand
// on a 64-byte boundary so that the result does not depend on where a
// lies (work has 8 doubles more than dsyevd needs), and copies the result
// back; where dsyevd reports failure (info > 0) it runs Syevql on a
// instead: row-major upper for column-major 'L', with the eigenvectors in
// the same place as dsyevd's. It returns the info of the solver that ran
// last and whether it fell back.
func DsyevdOrQL(jobz, uplo byte, n int, a, w, work []float64, iwork []int32, backup []float64) (info int, fellback bool) {
	if len(a) < n*n || len(backup) < DsyevdScratch(n) {
		panic("lapacke: DsyevdOrQL: a shorter than n·n or scratch than DsyevdScratch(n)")
	}
	r := C.rhgd_dsyevd_or_ql(C.char(jobz), C.char(uplo), C.lapack_int(n), dptr(a), dptr(w), dptr(work), C.lapack_int(len(work)),
		iptr(iwork), C.lapack_int(len(iwork)), dptr(backup), cbool(FailDsyevd.Load()))
	return int(r.info), r.fellback != 0
}

// FailDsyevd, for tests only, makes DsyevdOrQL and DsyevdBatch treat
// every dsyevd call as failed (after it has run and overwritten its
// matrix), so that their fallback runs.
var FailDsyevd atomic.Bool

// Syevql computes the eigenvalues w (ascending) and eigenvectors of the
// symmetric n×n row-major a, reading its lower (lower set) or upper
// triangle, and overwrites a with the unit eigenvectors, one per row: rhgd's
// own tridiagonal-QL solver (syevql.c), not a LAPACK routine. e is n
// entries of scratch; base forces the code without AVX2, for tests. It
// returns 0, or a positive value if the iteration did not converge.
func Syevql(n int, a, w, e []float64, lower, base bool) int {
	return int(C.lapackx_syevql(C.int(n), dptr(a), dptr(w), dptr(e), cbool(lower), cbool(base)))
}

// SyevqlBatch runs Syevql (lower triangle) on count n×n matrices stored
// one after the other in a, with w holding n eigenvalues per matrix, in
// one cgo call. It returns the info and index of the first matrix that
// fails (0, 0 on success).
func SyevqlBatch(n, count int, a, w, e []float64) (info, index int) {
	r := C.lapackx_syevql_batch(C.int(n), C.int(count), dptr(a), dptr(w), dptr(e))
	return int(r.info), int(r.index)
}

// Resid sets r_i = A v_i − w_i v_i for the first m rows v_i of v (n×n
// row-major, as is the symmetric a), each entry as if computed in twice
// the working precision and rounded once (Ogita, Rump and Oishi's Dot2,
// AVX2 where the CPU has it): syevql.c's lapackx_resid. r is m×n.
func Resid(n, m int, a, v, w, r []float64) {
	if m == 0 || n == 0 {
		return
	}
	if len(a) < n*n || len(v) < m*n || len(w) < m || len(r) < m*n {
		panic("lapacke: Resid: short slices")
	}
	C.lapackx_resid(C.int(n), C.int(m), dptr(a), dptr(v), dptr(w), dptr(r))
}

// SyevqlVectorized reports whether Syevql runs its AVX2/FMA code on this
// CPU; without it Syevql is slower and is used only at smaller orders.
var SyevqlVectorized = C.lapackx_syevql_vectorized() != 0

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Dsyevd calls LAPACKE_dsyevd_work in column-major layout and returns its info.
func Dsyevd(jobz, uplo byte, n int, a []float64, lda int, w, work []float64, iwork []int32) int {
	return int(C.LAPACKE_dsyevd_work(colMajor, C.char(jobz), C.char(uplo), C.lapack_int(n), dptr(a), C.lapack_int(lda),
		dptr(w), dptr(work), C.lapack_int(len(work)), iptr(iwork), C.lapack_int(len(iwork))))
}

// Ssyevd calls LAPACKE_ssyevd_work, dsyevd's float32 counterpart, in
// column-major layout and returns its info.
func Ssyevd(jobz, uplo byte, n int, a []float32, lda int, w, work []float32, iwork []int32) int {
	return int(C.LAPACKE_ssyevd_work(colMajor, C.char(jobz), C.char(uplo), C.lapack_int(n), sptr(a), C.lapack_int(lda),
		sptr(w), sptr(work), C.lapack_int(len(work)), iptr(iwork), C.lapack_int(len(iwork))))
}

// Dpotrf calls LAPACKE_dpotrf_work in column-major layout and returns its info.
func Dpotrf(uplo byte, n int, a []float64, lda int) int {
	return int(C.LAPACKE_dpotrf_work(colMajor, C.char(uplo), C.lapack_int(n), dptr(a), C.lapack_int(lda)))
}

// Dpotrs calls LAPACKE_dpotrs_work in column-major layout and returns its info.
func Dpotrs(uplo byte, n, nrhs int, a []float64, lda int, b []float64, ldb int) int {
	return int(C.LAPACKE_dpotrs_work(colMajor, C.char(uplo), C.lapack_int(n), C.lapack_int(nrhs), dptr(a), C.lapack_int(lda), dptr(b), C.lapack_int(ldb)))
}

// Dsygst calls LAPACKE_dsygst_work in column-major layout and returns its info.
func Dsygst(itype int, uplo byte, n int, a []float64, lda int, b []float64, ldb int) int {
	return int(C.LAPACKE_dsygst_work(colMajor, C.lapack_int(itype), C.char(uplo), C.lapack_int(n), dptr(a), C.lapack_int(lda), dptr(b), C.lapack_int(ldb)))
}

// Dpotri calls LAPACKE_dpotri_work in column-major layout and returns its info.
func Dpotri(uplo byte, n int, a []float64, lda int) int {
	return int(C.LAPACKE_dpotri_work(colMajor, C.char(uplo), C.lapack_int(n), dptr(a), C.lapack_int(lda)))
}

// Dtrtri calls LAPACKE_dtrtri_work in column-major layout and returns its info.
func Dtrtri(uplo, diag byte, n int, a []float64, lda int) int {
	return int(C.LAPACKE_dtrtri_work(colMajor, C.char(uplo), C.char(diag), C.lapack_int(n), dptr(a), C.lapack_int(lda)))
}

// Dgeqrf calls LAPACKE_dgeqrf_work in column-major layout and returns its info.
func Dgeqrf(m, n int, a []float64, lda int, tau, work []float64, lwork int) int {
	return int(C.LAPACKE_dgeqrf_work(colMajor, C.lapack_int(m), C.lapack_int(n), dptr(a), C.lapack_int(lda), dptr(tau), dptr(work), C.lapack_int(lwork)))
}

// Dorgqr calls LAPACKE_dorgqr_work in column-major layout and returns its info.
func Dorgqr(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) int {
	return int(C.LAPACKE_dorgqr_work(colMajor, C.lapack_int(m), C.lapack_int(n), C.lapack_int(k), dptr(a), C.lapack_int(lda), dptr(tau), dptr(work), C.lapack_int(lwork)))
}

// Dgelqf calls LAPACKE_dgelqf_work in column-major layout and returns its info.
func Dgelqf(m, n int, a []float64, lda int, tau, work []float64, lwork int) int {
	return int(C.LAPACKE_dgelqf_work(colMajor, C.lapack_int(m), C.lapack_int(n), dptr(a), C.lapack_int(lda), dptr(tau), dptr(work), C.lapack_int(lwork)))
}

// Dorglq calls LAPACKE_dorglq_work in column-major layout and returns its info.
func Dorglq(m, n, k int, a []float64, lda int, tau, work []float64, lwork int) int {
	return int(C.LAPACKE_dorglq_work(colMajor, C.lapack_int(m), C.lapack_int(n), C.lapack_int(k), dptr(a), C.lapack_int(lda), dptr(tau), dptr(work), C.lapack_int(lwork)))
}

// Dgetrf calls LAPACKE_dgetrf_work in column-major layout and returns its info.
func Dgetrf(m, n int, a []float64, lda int, ipiv []int32) int {
	return int(C.LAPACKE_dgetrf_work(colMajor, C.lapack_int(m), C.lapack_int(n), dptr(a), C.lapack_int(lda), iptr(ipiv)))
}

// Dgetrs calls LAPACKE_dgetrs_work in column-major layout and returns its info.
func Dgetrs(trans byte, n, nrhs int, a []float64, lda int, ipiv []int32, b []float64, ldb int) int {
	return int(C.LAPACKE_dgetrs_work(colMajor, C.char(trans), C.lapack_int(n), C.lapack_int(nrhs), dptr(a), C.lapack_int(lda), iptr(ipiv), dptr(b), C.lapack_int(ldb)))
}

// Dgees calls LAPACKE_dgees_work in column-major layout (through a C wrapper
// that keeps its scalar outputs on the C stack) and returns its info.
// cDgees computes the real Schur form without sorting, so no select
// callback crosses back into Go; bwork is unused when sort = 'N'. lwork =
// -1 is a workspace query answered in work[0].
func Dgees(n int, a []float64, lda int, wr, wi, vs []float64, ldvs int, work []float64, lwork int) int {
	return int(C.rhgd_dgees(C.lapack_int(n), dptr(a), C.lapack_int(lda), dptr(wr), dptr(wi), dptr(vs), C.lapack_int(ldvs),
		dptr(work), C.lapack_int(lwork)))
}

// Dtrsyl calls LAPACKE_dtrsyl_work in column-major layout (through a C wrapper
// that keeps its scalar outputs on the C stack) and returns its info.
func Dtrsyl(trana, tranb byte, isgn, m, n int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) (scale float64, info int) {
	r := C.rhgd_dtrsyl(C.char(trana), C.char(tranb), C.lapack_int(isgn), C.lapack_int(m), C.lapack_int(n),
		dptr(a), C.lapack_int(lda), dptr(b), C.lapack_int(ldb), dptr(c), C.lapack_int(ldc))
	return float64(r.scale), int(r.info)
}

//go:build cgo

package ctest

/*
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rhgd.h"

// Two bilevel problems written in C on the manifolds of the specs
// grassmann: and simplex:, with Euclidean oracles (RHGD_EUCLIDEAN) that the
// library converts, and closed-form solutions.

// ctest_pca: PCA as a bilevel problem on Gr(n, p) x R^(p x m): the lower
// level fits the data D (n x m) in the subspace, g(X, y) = ½‖D − X y‖²_F,
// y*(X) = XᵀD; the upper level maximizes the variance kept,
// f(X, y) = −½‖y‖²_F, so F(X) = −½ tr(Xᵀ D Dᵀ X), minimized on the span
// of the top p eigenvectors of D Dᵀ.
typedef struct {
	int64_t n, p, m;
	double *d;  // n x m, row-major
	double *r;  // n x m scratch: X y − D
} ctest_pca;

// ctest_pca_resid sets q->r = X y − D.
static void ctest_pca_resid(ctest_pca *q, const double *x, const double *y) {
	for (int64_t i = 0; i < q->n; i++)
		for (int64_t j = 0; j < q->m; j++) {
			double s = -q->d[i * q->m + j];
			for (int64_t k = 0; k < q->p; k++) s += x[i * q->p + k] * y[k * q->m + j];
			q->r[i * q->m + j] = s;
		}
}

static int ctest_pca_f(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_pca *q = u;
	double s = 0;
	(void)x, (void)b, (void)nb;
	for (int64_t i = 0; i < q->p * q->m; i++) s += y[i] * y[i];
	*out = -0.5 * s;
	return 0;
}
static int ctest_pca_fx(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_pca *q = u;
	(void)x, (void)y, (void)b, (void)nb;
	memset(out, 0, sizeof(double) * q->n * q->p);
	return 0;
}
static int ctest_pca_fy(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_pca *q = u;
	(void)x, (void)b, (void)nb;
	for (int64_t i = 0; i < q->p * q->m; i++) out[i] = -y[i];
	return 0;
}
static int ctest_pca_g(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_pca *q = u;
	double s = 0;
	(void)b, (void)nb;
	ctest_pca_resid(q, x, y);
	for (int64_t i = 0; i < q->n * q->m; i++) s += q->r[i] * q->r[i];
	*out = 0.5 * s;
	return 0;
}
// ∇_X g = (X y − D) yᵀ
static int ctest_pca_gx(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_pca *q = u;
	(void)b, (void)nb;
	ctest_pca_resid(q, x, y);
	for (int64_t i = 0; i < q->n; i++)
		for (int64_t k = 0; k < q->p; k++) {
			double s = 0;
			for (int64_t j = 0; j < q->m; j++) s += q->r[i * q->m + j] * y[k * q->m + j];
			out[i * q->p + k] = s;
		}
	return 0;
}
// ∇_y g = Xᵀ(X y − D)
static int ctest_pca_gy(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_pca *q = u;
	(void)b, (void)nb;
	ctest_pca_resid(q, x, y);
	for (int64_t k = 0; k < q->p; k++)
		for (int64_t j = 0; j < q->m; j++) {
			double s = 0;
			for (int64_t i = 0; i < q->n; i++) s += x[i * q->p + k] * q->r[i * q->m + j];
			out[k * q->m + j] = s;
		}
	return 0;
}
// ∇²_yy g·v = XᵀX v
static int ctest_pca_hess(void *u, const double *x, const double *y, const int64_t *b, int64_t nb,
                          const double *v, double *out) {
	ctest_pca *q = u;
	(void)y, (void)b, (void)nb;
	for (int64_t k = 0; k < q->p; k++)
		for (int64_t j = 0; j < q->m; j++) {
			double s = 0;
			for (int64_t l = 0; l < q->p; l++) {
				double g = 0;
				for (int64_t i = 0; i < q->n; i++) g += x[i * q->p + k] * x[i * q->p + l];
				s += g * v[l * q->m + j];
			}
			out[k * q->m + j] = s;
		}
	return 0;
}
// ∇²_xy g·v = X (y vᵀ + v yᵀ) − D vᵀ, an n x p matrix for v p x m
static int ctest_pca_cross_xy(void *u, const double *x, const double *y, const int64_t *b, int64_t nb,
                              const double *v, double *out) {
	ctest_pca *q = u;
	(void)b, (void)nb;
	for (int64_t i = 0; i < q->n; i++)
		for (int64_t k = 0; k < q->p; k++) {
			double s = 0;
			for (int64_t j = 0; j < q->m; j++) s -= q->d[i * q->m + j] * v[k * q->m + j];
			for (int64_t l = 0; l < q->p; l++) {
				double a = 0;  // (y vᵀ + v yᵀ)[l][k]
				for (int64_t j = 0; j < q->m; j++)
					a += y[l * q->m + j] * v[k * q->m + j] + v[l * q->m + j] * y[k * q->m + j];
				s += x[i * q->p + l] * a;
			}
			out[i * q->p + k] = s;
		}
	return 0;
}
// ∇²_yx g·U = (UᵀX + XᵀU) y − UᵀD, a p x m matrix for U n x p
static int ctest_pca_cross_yx(void *u, const double *x, const double *y, const int64_t *b, int64_t nb,
                              const double *w, double *out) {
	ctest_pca *q = u;
	(void)b, (void)nb;
	for (int64_t k = 0; k < q->p; k++)
		for (int64_t j = 0; j < q->m; j++) {
			double s = 0;
			for (int64_t i = 0; i < q->n; i++) s -= w[i * q->p + k] * q->d[i * q->m + j];
			for (int64_t l = 0; l < q->p; l++) {
				double a = 0;  // (UᵀX + XᵀU)[k][l]
				for (int64_t i = 0; i < q->n; i++)
					a += w[i * q->p + k] * x[i * q->p + l] + x[i * q->p + k] * w[i * q->p + l];
				s += a * y[l * q->m + j];
			}
			out[k * q->m + j] = s;
		}
	return 0;
}
static int ctest_pca_problem(ctest_pca *q, rhgd_manifold mx, rhgd_manifold my, rhgd_problem *out) {
	rhgd_oracles o = RHGD_STRUCT_INIT(rhgd_oracles);
	o.f = ctest_pca_f, o.grad_fx = ctest_pca_fx, o.grad_fy = ctest_pca_fy;
	o.g = ctest_pca_g, o.grad_gx = ctest_pca_gx, o.grad_gy = ctest_pca_gy;
	o.hess_gy = ctest_pca_hess, o.cross_gxy = ctest_pca_cross_xy, o.cross_gyx = ctest_pca_cross_yx;
	return rhgd_problem_callbacks(mx, my, &o, RHGD_EUCLIDEAN, q, out);
}

// ctest_rw: data reweighting on Δ(k) x R^d. The weights x of k points a_i
// (rows of a, k x d) fit y by weighted least squares,
// g(x, y) = ½ Σ x_i ‖y − a_i‖², y*(x) = Σ x_i a_i on the simplex; the
// upper level is a linear validation loss with an entropy term,
// f(x, y) = cᵀy + τ Σ x_i log x_i, so F(x) = Σ x_i (a_i·c) + τ Σ x_i log x_i
// and x* = softmax(−A c / τ).
typedef struct {
	int64_t k, d;
	double *a, *c;  // k x d, d
	double tau;
} ctest_rw;

static double ctest_rw_sum(const ctest_rw *q, const double *x) {
	double s = 0;
	for (int64_t i = 0; i < q->k; i++) s += x[i];
	return s;
}
static int ctest_rw_f(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_rw *q = u;
	double s = 0;
	(void)b, (void)nb;
	for (int64_t j = 0; j < q->d; j++) s += q->c[j] * y[j];
	for (int64_t i = 0; i < q->k; i++) s += q->tau * x[i] * log(x[i]);
	*out = s;
	return 0;
}
static int ctest_rw_fx(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_rw *q = u;
	(void)y, (void)b, (void)nb;
	for (int64_t i = 0; i < q->k; i++) out[i] = q->tau * (log(x[i]) + 1);
	return 0;
}
static int ctest_rw_fy(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_rw *q = u;
	(void)x, (void)y, (void)b, (void)nb;
	memcpy(out, q->c, sizeof(double) * q->d);
	return 0;
}
static int ctest_rw_g(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_rw *q = u;
	double s = 0;
	(void)b, (void)nb;
	for (int64_t i = 0; i < q->k; i++)
		for (int64_t j = 0; j < q->d; j++) {
			double e = y[j] - q->a[i * q->d + j];
			s += 0.5 * x[i] * e * e;
		}
	*out = s;
	return 0;
}
static int ctest_rw_gx(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_rw *q = u;
	(void)x, (void)b, (void)nb;
	for (int64_t i = 0; i < q->k; i++) {
		double s = 0;
		for (int64_t j = 0; j < q->d; j++) {
			double e = y[j] - q->a[i * q->d + j];
			s += 0.5 * e * e;
		}
		out[i] = s;
	}
	return 0;
}
static int ctest_rw_gy(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
	ctest_rw *q = u;
	double sx = ctest_rw_sum(q, x);
	(void)b, (void)nb;
	for (int64_t j = 0; j < q->d; j++) {
		double s = sx * y[j];
		for (int64_t i = 0; i < q->k; i++) s -= x[i] * q->a[i * q->d + j];
		out[j] = s;
	}
	return 0;
}
static int ctest_rw_hess(void *u, const double *x, const double *y, const int64_t *b, int64_t nb,
                         const double *v, double *out) {
	ctest_rw *q = u;
	double sx = ctest_rw_sum(q, x);
	(void)y, (void)b, (void)nb;
	for (int64_t j = 0; j < q->d; j++) out[j] = sx * v[j];
	return 0;
}
static int ctest_rw_cross_xy(void *u, const double *x, const double *y, const int64_t *b, int64_t nb,
                             const double *v, double *out) {
	ctest_rw *q = u;
	(void)x, (void)b, (void)nb;
	for (int64_t i = 0; i < q->k; i++) {
		double s = 0;
		for (int64_t j = 0; j < q->d; j++) s += (y[j] - q->a[i * q->d + j]) * v[j];
		out[i] = s;
	}
	return 0;
}
static int ctest_rw_cross_yx(void *u, const double *x, const double *y, const int64_t *b, int64_t nb,
                             const double *w, double *out) {
	ctest_rw *q = u;
	(void)x, (void)b, (void)nb;
	for (int64_t j = 0; j < q->d; j++) {
		double s = 0;
		for (int64_t i = 0; i < q->k; i++) s += w[i] * (y[j] - q->a[i * q->d + j]);
		out[j] = s;
	}
	return 0;
}
static int ctest_rw_problem(ctest_rw *q, rhgd_manifold mx, rhgd_manifold my, rhgd_problem *out) {
	rhgd_oracles o = RHGD_STRUCT_INIT(rhgd_oracles);
	o.f = ctest_rw_f, o.grad_fx = ctest_rw_fx, o.grad_fy = ctest_rw_fy;
	o.g = ctest_rw_g, o.grad_gx = ctest_rw_gx, o.grad_gy = ctest_rw_gy;
	o.hess_gy = ctest_rw_hess, o.cross_gxy = ctest_rw_cross_xy, o.cross_gyx = ctest_rw_cross_yx;
	return rhgd_problem_callbacks(mx, my, &o, RHGD_EUCLIDEAN, q, out);
}
*/
import "C"

import "unsafe"

// cdoubles returns a C copy of v, which the caller frees.
func cdoubles(v []float64) *C.double {
	c := (*C.double)(C.malloc(C.size_t(8 * max(len(v), 1))))
	copy(unsafe.Slice((*float64)(unsafe.Pointer(c)), len(v)), v)
	return c
}

// PCA is ctest_pca, PCA as a bilevel problem on Gr(n, p) × R^(p×m) in C
// memory.
type PCA struct{ q *C.ctest_pca }

// NewPCA returns the problem's data: D, n × m row-major.
func NewPCA(n, p, m int, d []float64) *PCA {
	q := (*C.ctest_pca)(C.calloc(1, C.sizeof_ctest_pca))
	q.n, q.p, q.m = C.int64_t(n), C.int64_t(p), C.int64_t(m)
	q.d, q.r = cdoubles(d), cdoubles(make([]float64, n*m))
	return &PCA{q}
}

// Free releases its C memory.
func (q *PCA) Free() {
	C.free(unsafe.Pointer(q.q.d))
	C.free(unsafe.Pointer(q.q.r))
	C.free(unsafe.Pointer(q.q))
}

// PCAProblem builds the problem on mx = Gr(n, p), my = R^(p×m) through
// rhgd_problem_callbacks, with Euclidean oracles.
func PCAProblem(q *PCA, mx, my int64) (int64, int) {
	var h C.rhgd_problem
	rc := C.ctest_pca_problem(q.q, mh(mx), mh(my), &h)
	return int64(h.id), int(rc)
}

// Reweight is ctest_rw, data reweighting on Δ(k) × R^d in C memory.
type Reweight struct{ q *C.ctest_rw }

// NewReweight returns the problem's data: the k points a (k × d
// row-major), the validation direction c and the entropy weight tau.
func NewReweight(k, d int, a, c []float64, tau float64) *Reweight {
	q := (*C.ctest_rw)(C.calloc(1, C.sizeof_ctest_rw))
	q.k, q.d, q.tau = C.int64_t(k), C.int64_t(d), C.double(tau)
	q.a, q.c = cdoubles(a), cdoubles(c)
	return &Reweight{q}
}

// Free releases its C memory.
func (q *Reweight) Free() {
	C.free(unsafe.Pointer(q.q.a))
	C.free(unsafe.Pointer(q.q.c))
	C.free(unsafe.Pointer(q.q))
}

// ReweightProblem builds the problem on mx = Δ(k), my = R^d through
// rhgd_problem_callbacks, with Euclidean oracles.
func ReweightProblem(q *Reweight, mx, my int64) (int64, int) {
	var h C.rhgd_problem
	rc := C.ctest_rw_problem(q.q, mh(mx), mh(my), &h)
	return int64(h.id), int(rc)
}

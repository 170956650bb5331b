/*
 * ctest.h: C code that exercises rhgd's C ABI, for the Go tests of
 * package cbindings (through package ctest: import "C" is not allowed in
 * _test.go files) and for the standalone threads test
 * (cbindings/testdata/threads_main.c, linked against build/librhgd.so).
 * Header-only, so that package ctest has no .c file and still builds
 * without cgo.
 */
#ifndef RHGD_CTEST_H
#define RHGD_CTEST_H

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rhgd.h" /* a link to cbindings/rhgd.h in this directory, so that the build cache sees its changes */

/* ---------------------------------------------------------------- */
/* A quadratic bilevel problem in R^k x R^m with a closed form:      */
/*   g(x, y) = 1/2 y'Ay - y'Bx,  A = diag(a) > 0, so y*(x) = A^-1 B x */
/*   f(x, y) = 1/2 |y - c|^2 + lambda/2 |x|^2                        */
/* Euclidean oracles; on R^n they are also the Riemannian ones.      */
/* ---------------------------------------------------------------- */

typedef struct {
    int k, m;
    double lambda;
    const double *a;    /* m */
    const double *b;    /* m x k */
    const double *c;    /* m */
    long calls;         /* oracle calls */
    long fail_at;       /* grad_gy and lower_steps return 7 at this call (0: never) */
    long grad_gys;      /* grad_gy calls */
    long lower_steps;   /* lower_steps calls */
    long steps_batches; /* lower_steps calls with a batch (never expected) */
    long vjps;          /* lower_steps_vjp calls */
} ctest_quad;

static inline int ctest_quad_f(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    ctest_quad *q = u;
    (void)batch, (void)nbatch;
    double s = 0, t = 0;
    q->calls++;
    for (int i = 0; i < q->m; i++) s += (y[i] - q->c[i]) * (y[i] - q->c[i]);
    for (int j = 0; j < q->k; j++) t += x[j] * x[j];
    *out = 0.5 * s + 0.5 * q->lambda * t;
    return 0;
}

static inline int ctest_quad_g(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    ctest_quad *q = u;
    (void)batch, (void)nbatch;
    double s = 0;
    q->calls++;
    for (int i = 0; i < q->m; i++) {
        double bx = 0;
        for (int j = 0; j < q->k; j++) bx += q->b[i * q->k + j] * x[j];
        s += 0.5 * q->a[i] * y[i] * y[i] - y[i] * bx;
    }
    *out = s;
    return 0;
}

static inline int ctest_quad_grad_fx(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    ctest_quad *q = u;
    (void)y, (void)batch, (void)nbatch;
    q->calls++;
    for (int j = 0; j < q->k; j++) out[j] = q->lambda * x[j];
    return 0;
}

static inline int ctest_quad_grad_fy(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    ctest_quad *q = u;
    (void)x, (void)batch, (void)nbatch;
    q->calls++;
    for (int i = 0; i < q->m; i++) out[i] = y[i] - q->c[i];
    return 0;
}

static inline int ctest_quad_grad_gx(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    ctest_quad *q = u;
    (void)x, (void)batch, (void)nbatch;
    q->calls++;
    for (int j = 0; j < q->k; j++) {
        double s = 0;
        for (int i = 0; i < q->m; i++) s -= q->b[i * q->k + j] * y[i];
        out[j] = s;
    }
    return 0;
}

static inline int ctest_quad_grad_gy(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    ctest_quad *q = u;
    (void)batch, (void)nbatch;
    q->calls++;
    q->grad_gys++;
    if (q->fail_at > 0 && q->calls >= q->fail_at) return 7;
    for (int i = 0; i < q->m; i++) {
        double bx = 0;
        for (int j = 0; j < q->k; j++) bx += q->b[i * q->k + j] * x[j];
        out[i] = q->a[i] * y[i] - bx;
    }
    return 0;
}

/* lower_steps: steps of y <- y - eta grad_y g, the gradient computed as
 * grad_gy computes it, with its Frobenius norms. */
static inline int ctest_quad_lower_steps(void *u, const double *x, const double *y, const int64_t *batch,
                                         int64_t nbatch, int64_t steps, double eta, double *y_out,
                                         double *grad_norms) {
    ctest_quad *q = u;
    q->calls++;
    q->lower_steps++;
    if (batch != NULL || nbatch != 0) q->steps_batches++;
    if (q->fail_at > 0 && q->calls >= q->fail_at) return 7;
    double *gy = malloc((size_t)q->m * sizeof *gy);
    if (gy == NULL) return 8;
    memcpy(y_out, y, (size_t)q->m * sizeof *y_out);
    double t = -eta;
    for (int64_t s = 0; s < steps; s++) {
        double ss = 0;
        for (int i = 0; i < q->m; i++) {
            double bx = 0;
            for (int j = 0; j < q->k; j++) bx += q->b[i * q->k + j] * x[j];
            gy[i] = q->a[i] * y_out[i] - bx;
        }
        for (int i = 0; i < q->m; i++) ss += gy[i] * gy[i];
        grad_norms[s] = sqrt(ss);
        for (int i = 0; i < q->m; i++) y_out[i] = y_out[i] + t * gy[i];
    }
    free(gy);
    return 0;
}

/* lower_steps_vjp: the reverse sweep of the affine steps
 * y_{s+1} = (1 - eta a) y_s + eta B x: dx = eta sum_s B' mu_s,
 * mu_{s-1} = (1 - eta a) mu_s from mu = lam, dy = mu_0. */
static inline int ctest_quad_lower_steps_vjp(void *u, const double *x, const double *y, const int64_t *batch,
                                             int64_t nbatch, int64_t steps, double eta, const double *lam,
                                             double *dx, double *dy) {
    ctest_quad *q = u;
    (void)x, (void)y;
    q->calls++;
    q->vjps++;
    if (batch != NULL || nbatch != 0) q->steps_batches++;
    memcpy(dy, lam, (size_t)q->m * sizeof *dy);
    for (int j = 0; j < q->k; j++) dx[j] = 0;
    for (int64_t s = 0; s < steps; s++) {
        for (int j = 0; j < q->k; j++) {
            double t = 0;
            for (int i = 0; i < q->m; i++) t += q->b[i * q->k + j] * dy[i];
            dx[j] += eta * t;
        }
        for (int i = 0; i < q->m; i++) dy[i] -= eta * q->a[i] * dy[i];
    }
    return 0;
}

/* A lower_steps that must never be called: it counts its calls in the
 * quad's steps_batches and fails. */
static inline int ctest_trap_steps(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                                   int64_t steps, double eta, double *y_out, double *grad_norms) {
    ctest_quad *q = u;
    (void)x, (void)y, (void)batch, (void)nbatch, (void)steps, (void)eta, (void)y_out, (void)grad_norms;
    q->steps_batches++;
    return 99;
}

static inline int ctest_quad_hess_gy(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, const double *v, double *out) {
    ctest_quad *q = u;
    (void)x, (void)y, (void)batch, (void)nbatch;
    q->calls++;
    for (int i = 0; i < q->m; i++) out[i] = q->a[i] * v[i];
    return 0;
}

static inline int ctest_quad_hess_gy_inv(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, const double *v, double *out) {
    ctest_quad *q = u;
    (void)x, (void)y, (void)batch, (void)nbatch;
    q->calls++;
    for (int i = 0; i < q->m; i++) out[i] = v[i] / q->a[i];
    return 0;
}

/* cross_gxy(v) = D_y grad_x g [v] = -B'v (in R^k) */
static inline int ctest_quad_cross_gxy(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, const double *v, double *out) {
    ctest_quad *q = u;
    (void)x, (void)y, (void)batch, (void)nbatch;
    q->calls++;
    for (int j = 0; j < q->k; j++) {
        double s = 0;
        for (int i = 0; i < q->m; i++) s -= q->b[i * q->k + j] * v[i];
        out[j] = s;
    }
    return 0;
}

/* cross_gyx(w) = D_x grad_y g [w] = -B w (in R^m) */
static inline int ctest_quad_cross_gyx(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                                        const double *w, double *out) {
    ctest_quad *q = u;
    (void)x, (void)y, (void)batch, (void)nbatch;
    q->calls++;
    for (int i = 0; i < q->m; i++) {
        double s = 0;
        for (int j = 0; j < q->k; j++) s -= q->b[i * q->k + j] * w[j];
        out[i] = s;
    }
    return 0;
}

/* ctest_quad_oracles returns the oracles; full = 0 leaves hess_gy,
 * cross_gxy, cross_gyx and hess_gy_inv to the library (finite
 * differences), full = 1 gives them all, full = 2 all but hess_gy_inv. */
static inline rhgd_oracles ctest_quad_oracles(int full) {
    rhgd_oracles o = RHGD_STRUCT_INIT(rhgd_oracles);
    o.f = ctest_quad_f;
    o.grad_fx = ctest_quad_grad_fx;
    o.grad_fy = ctest_quad_grad_fy;
    o.g = ctest_quad_g;
    o.grad_gx = ctest_quad_grad_gx;
    o.grad_gy = ctest_quad_grad_gy;
    if (full) {
        o.hess_gy = ctest_quad_hess_gy;
        o.cross_gxy = ctest_quad_cross_gxy;
        o.cross_gyx = ctest_quad_cross_gyx;
    }
    if (full == 1) o.hess_gy_inv = ctest_quad_hess_gy_inv;
    return o;
}

/* ctest_quad_problem_steps builds the quadratic problem (ctest_quad_oracles(full))
 * with lower_steps: mode 1 gives ctest_quad_lower_steps, mode 3 also
 * ctest_quad_lower_steps_vjp, mode 4 the vjp alone; mode 2 is a
 * caller built against the header before lower_steps: size ends after
 * lower_solve, and the lower_steps slot holds ctest_trap_steps, which the
 * library must not read. */
static inline int ctest_quad_problem_steps(ctest_quad *q, rhgd_manifold mx, rhgd_manifold my, int full, int flags,
                                           int mode, rhgd_problem *out) {
    rhgd_oracles o = ctest_quad_oracles(full);
    if (mode == 1 || mode == 3) o.lower_steps = ctest_quad_lower_steps;
    if (mode >= 3) o.lower_steps_vjp = ctest_quad_lower_steps_vjp;
    if (mode == 2) {
        o.lower_steps = ctest_trap_steps;
        o.size = offsetof(rhgd_oracles, lower_steps);
    }
    return rhgd_problem_callbacks(mx, my, &o, flags, q, out);
}

/* A no-op gradient oracle, to time one callback crossing. */
static inline int ctest_noop_grad(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    (void)u, (void)x, (void)y, (void)out, (void)batch, (void)nbatch;
    return 0;
}

/* ---------------------------------------------------------------- */
/* A finite-sum problem on R^2 x R^2 with N = 4 components:          */
/*   g_i(x, y) = 1/2 a_i |y|^2 - b_i y'x,  f_i = 1/2 |y - c_i|^2      */
/*   + lambda/2 |x|^2; the oracles average over the batch. With the   */
/*   means abar, bbar, cbar: y*(x) = (bbar/abar) x = kappa x and      */
/*   x* = kappa cbar / (kappa^2 + lambda). Records the batches seen.  */
/* ---------------------------------------------------------------- */

#define CTEST_FSUM_N 4
static const double ctest_fsum_a[CTEST_FSUM_N] = {1, 2, 3, 2}, ctest_fsum_b[CTEST_FSUM_N] = {1, 0.5, 2, 0.5};
static const double ctest_fsum_c[CTEST_FSUM_N][2] = {{1, 0}, {0, -1}, {2, 1}, {1, -4}};
#define CTEST_FSUM_LAMBDA 0.1

typedef struct {
    long full_calls;    /* oracle calls with the full sum (batch NULL) */
    long batch_calls;   /* oracle calls with a minibatch */
    long bad_batches;   /* batches with an index out of range, or NULL with nbatch > 0 */
    long lower_solves;  /* lower_solve calls */
    long hinv_batches;  /* hess_gy_inv calls with a minibatch */
    long hinv_nbatch;   /* the last such minibatch's size */
} ctest_fsum;

/* ctest_fsum_mean averages w over the batch (all components when NULL). */
static inline double ctest_fsum_mean(ctest_fsum *q, const double *w, const int64_t *batch, int64_t nbatch) {
    double s = 0;
    if (batch == NULL) {
        q->full_calls++;
        if (nbatch != 0) q->bad_batches++;
        for (int i = 0; i < CTEST_FSUM_N; i++) s += w[i];
        return s / CTEST_FSUM_N;
    }
    q->batch_calls++;
    if (nbatch < 1) {
        q->bad_batches++;
        return 0;
    }
    for (int64_t j = 0; j < nbatch; j++) {
        if (batch[j] < 0 || batch[j] >= CTEST_FSUM_N) {
            q->bad_batches++;
            return 0;
        }
        s += w[batch[j]];
    }
    return s / (double)nbatch;
}

static inline void ctest_fsum_cbar(ctest_fsum *q, const int64_t *batch, int64_t nbatch, double c[2]) {
    double c0[CTEST_FSUM_N], c1[CTEST_FSUM_N];
    for (int i = 0; i < CTEST_FSUM_N; i++) c0[i] = ctest_fsum_c[i][0], c1[i] = ctest_fsum_c[i][1];
    c[0] = ctest_fsum_mean(q, c0, batch, nbatch);
    c[1] = ctest_fsum_mean(q, c1, batch, nbatch);
}

static inline int ctest_fsum_f(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                               double *out) {
    /* 1/2 mean |y - c_i|^2 = 1/2 |y|^2 - y'cbar + 1/2 mean |c_i|^2 */
    ctest_fsum *q = u;
    double c[2], cc[CTEST_FSUM_N];
    ctest_fsum_cbar(q, batch, nbatch, c);
    for (int i = 0; i < CTEST_FSUM_N; i++)
        cc[i] = ctest_fsum_c[i][0] * ctest_fsum_c[i][0] + ctest_fsum_c[i][1] * ctest_fsum_c[i][1];
    *out = 0.5 * (y[0] * y[0] + y[1] * y[1]) - (y[0] * c[0] + y[1] * c[1]) + 0.5 * ctest_fsum_mean(q, cc, batch, nbatch) +
           0.5 * CTEST_FSUM_LAMBDA * (x[0] * x[0] + x[1] * x[1]);
    return 0;
}
static inline int ctest_fsum_fx(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                                double *out) {
    (void)u, (void)y, (void)batch, (void)nbatch;
    out[0] = CTEST_FSUM_LAMBDA * x[0], out[1] = CTEST_FSUM_LAMBDA * x[1];
    return 0;
}
static inline int ctest_fsum_fy(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                                double *out) {
    double c[2];
    (void)x;
    ctest_fsum_cbar(u, batch, nbatch, c);
    out[0] = y[0] - c[0], out[1] = y[1] - c[1];
    return 0;
}
static inline int ctest_fsum_gy(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                                double *out) {
    double a = ctest_fsum_mean(u, ctest_fsum_a, batch, nbatch), b = ctest_fsum_mean(u, ctest_fsum_b, batch, nbatch);
    out[0] = a * y[0] - b * x[0], out[1] = a * y[1] - b * x[1];
    return 0;
}
static inline int ctest_fsum_gx(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                                double *out) {
    double b = ctest_fsum_mean(u, ctest_fsum_b, batch, nbatch);
    (void)x;
    out[0] = -b * y[0], out[1] = -b * y[1];
    return 0;
}
static inline int ctest_fsum_lower_solve(void *u, const double *x, const double *y, const int64_t *batch,
                                         int64_t nbatch, double *out) {
    ctest_fsum *q = u;
    double a = ctest_fsum_mean(q, ctest_fsum_a, batch, nbatch), b = ctest_fsum_mean(q, ctest_fsum_b, batch, nbatch);
    (void)y;
    q->lower_solves++;
    out[0] = b / a * x[0], out[1] = b / a * x[1];
    return 0;
}

/* hess_gy_inv: the Hessian of g_B in y is mean_B(a) I, on R^2 Riemannian
 * and Euclidean alike; records the minibatches it gets. */
static inline int ctest_fsum_hess_gy_inv(void *u, const double *x, const double *y, const int64_t *batch,
                                         int64_t nbatch, const double *v, double *out) {
    ctest_fsum *q = u;
    double a = ctest_fsum_mean(q, ctest_fsum_a, batch, nbatch);
    (void)x, (void)y;
    if (batch != NULL) q->hinv_batches++, q->hinv_nbatch = nbatch;
    out[0] = v[0] / a, out[1] = v[1] / a;
    return 0;
}

/* ctest_fsum_oracles returns the finite-sum problem's oracles: Euclidean,
 * Hessian and cross products left to finite differences, lower_solve when
 * asked, and size as given (0: sizeof). */
static inline rhgd_oracles ctest_fsum_oracles(int lower_solve, size_t size) {
    rhgd_oracles o = RHGD_STRUCT_INIT(rhgd_oracles);
    if (size) o.size = size;
    o.f = ctest_fsum_f;
    o.grad_fx = ctest_fsum_fx;
    o.grad_fy = ctest_fsum_fy;
    o.grad_gx = ctest_fsum_gx;
    o.grad_gy = ctest_fsum_gy;
    o.n_f = o.n_g = CTEST_FSUM_N;
    if (lower_solve) o.lower_solve = ctest_fsum_lower_solve;
    return o;
}

/* ctest_fsum_problem_hinv builds the finite-sum problem with Euclidean
 * oracles and hess_gy_inv. */
static inline int ctest_fsum_problem_hinv(ctest_fsum *q, rhgd_manifold mx, rhgd_manifold my, rhgd_problem *out) {
    rhgd_oracles o = ctest_fsum_oracles(0, 0);
    o.hess_gy_inv = ctest_fsum_hess_gy_inv;
    return rhgd_problem_callbacks(mx, my, &o, RHGD_EUCLIDEAN, q, out);
}

/* ---------------------------------------------------------------- */
/* A lower level on SPD(2) with a closed-form Riemannian inverse      */
/* Hessian, given with Euclidean oracles (RHGD_EUCLIDEAN):            */
/*   g(x, Y) = <Y, S(x)> - log det Y,  S(x) = S0 + x_0 E0 + x_1 E1,   */
/*   f(x, Y) = 1/2 |Y - C|_F^2 + lambda/2 |x|^2,  x in R^2,           */
/* so y*(x) = S(x)^-1. The Riemannian gradient of g (affine-invariant */
/* metric) is Y S Y - Y and its Hessian Hess g[V] = (V S Y + Y S V)/2 */
/* (the identity at y*): hess_gy_inv solves (Y S) U + U (S Y) = 2 W   */
/* with rhgd_sylvester, a kernel called from a callback.              */
/* ---------------------------------------------------------------- */

static const double ctest_spd_s0[4] = {2, 0.5, 0.5, 3}, ctest_spd_e0[4] = {1, 0, 0, -1},
                    ctest_spd_e1[4] = {0, 1, 1, 0.5}, ctest_spd_c[4] = {0.6, 0.1, 0.1, 0.3};
#define CTEST_SPD_LAMBDA 0.2

typedef struct {
    long hinv_calls;  /* hess_gy_inv calls */
    long hess_calls;  /* hess_gy calls */
    long batch_calls; /* hess_gy_batch calls */
    long batch_k;     /* the last hess_gy_batch call's k */
} ctest_spd;

static inline void ctest_spd_s(const double *x, double *s) {
    for (int i = 0; i < 4; i++) s[i] = ctest_spd_s0[i] + x[0] * ctest_spd_e0[i] + x[1] * ctest_spd_e1[i];
}
static inline void ctest_spd_inv(const double *y, double *inv) {
    double d = y[0] * y[3] - y[1] * y[2];
    inv[0] = y[3] / d, inv[1] = -y[1] / d, inv[2] = -y[2] / d, inv[3] = y[0] / d;
}
static inline void ctest_spd_mul(const double *a, const double *b, double *c) {
    c[0] = a[0] * b[0] + a[1] * b[2], c[1] = a[0] * b[1] + a[1] * b[3];
    c[2] = a[2] * b[0] + a[3] * b[2], c[3] = a[2] * b[1] + a[3] * b[3];
}
static inline double ctest_spd_dot(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}
static inline int ctest_spd_f(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                              double *out) {
    double d[4];
    (void)u, (void)batch, (void)nbatch;
    for (int i = 0; i < 4; i++) d[i] = y[i] - ctest_spd_c[i];
    *out = 0.5 * ctest_spd_dot(d, d) + 0.5 * CTEST_SPD_LAMBDA * (x[0] * x[0] + x[1] * x[1]);
    return 0;
}
static inline int ctest_spd_fx(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                               double *out) {
    (void)u, (void)y, (void)batch, (void)nbatch;
    out[0] = CTEST_SPD_LAMBDA * x[0], out[1] = CTEST_SPD_LAMBDA * x[1];
    return 0;
}
static inline int ctest_spd_fy(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                               double *out) {
    (void)u, (void)x, (void)batch, (void)nbatch;
    for (int i = 0; i < 4; i++) out[i] = y[i] - ctest_spd_c[i];
    return 0;
}
static inline int ctest_spd_g(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                              double *out) {
    double s[4];
    (void)u, (void)batch, (void)nbatch;
    ctest_spd_s(x, s);
    *out = ctest_spd_dot(y, s) - log(y[0] * y[3] - y[1] * y[2]);
    return 0;
}
static inline int ctest_spd_gy(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                               double *out) {
    double s[4], inv[4];
    (void)u, (void)batch, (void)nbatch;
    ctest_spd_s(x, s);
    ctest_spd_inv(y, inv);
    for (int i = 0; i < 4; i++) out[i] = s[i] - inv[i];
    return 0;
}
static inline int ctest_spd_gx(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                               double *out) {
    (void)u, (void)x, (void)batch, (void)nbatch;
    out[0] = ctest_spd_dot(y, ctest_spd_e0), out[1] = ctest_spd_dot(y, ctest_spd_e1);
    return 0;
}
/* The Euclidean Hessian of -log det: Y^-1 V Y^-1. */
static inline void ctest_spd_hess_(const double *y, const double *v, double *out) {
    double inv[4], t[4];
    ctest_spd_inv(y, inv);
    ctest_spd_mul(inv, v, t);
    ctest_spd_mul(t, inv, out);
}
static inline int ctest_spd_hess_gy(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch,
                                    const double *v, double *out) {
    ctest_spd *q = u;
    (void)x, (void)batch, (void)nbatch;
    q->hess_calls++;
    ctest_spd_hess_(y, v, out);
    return 0;
}
/* hess_gy_batch: the k products row by row, as hess_gy computes each. */
static inline int ctest_spd_hess_gy_batch(void *u, const double *x, const double *y, const int64_t *batch,
                                          int64_t nbatch, int64_t k, const double *v, double *out) {
    ctest_spd *q = u;
    (void)x, (void)batch, (void)nbatch;
    q->batch_calls++;
    q->batch_k = k;
    for (int64_t i = 0; i < k; i++) ctest_spd_hess_(y, v + 4 * i, out + 4 * i);
    return 0;
}
static inline int ctest_spd_cross_gxy(void *u, const double *x, const double *y, const int64_t *batch,
                                      int64_t nbatch, const double *v, double *out) {
    (void)u, (void)x, (void)y, (void)batch, (void)nbatch;
    out[0] = ctest_spd_dot(v, ctest_spd_e0), out[1] = ctest_spd_dot(v, ctest_spd_e1);
    return 0;
}
static inline int ctest_spd_cross_gyx(void *u, const double *x, const double *y, const int64_t *batch,
                                      int64_t nbatch, const double *w, double *out) {
    (void)u, (void)x, (void)y, (void)batch, (void)nbatch;
    for (int i = 0; i < 4; i++) out[i] = w[0] * ctest_spd_e0[i] + w[1] * ctest_spd_e1[i];
    return 0;
}
/* The Riemannian inverse Hessian: U with (Y S) U + U (S Y) = 2 W. */
static inline int ctest_spd_hess_gy_inv(void *u, const double *x, const double *y, const int64_t *batch,
                                        int64_t nbatch, const double *w, double *out) {
    ctest_spd *q = u;
    double s[4], ys[4], sy[4], w2[4];
    (void)batch, (void)nbatch;
    q->hinv_calls++;
    ctest_spd_s(x, s);
    ctest_spd_mul(y, s, ys);
    ctest_spd_mul(s, y, sy);
    for (int i = 0; i < 4; i++) w2[i] = 2 * w[i];
    return rhgd_sylvester(2, 2, ys, sy, w2, out) == RHGD_OK ? 0 : 5;
}

/* The inverse of the Euclidean Hessian, Y W Y: not the Riemannian
 * inverse away from y*, a planted error for the checks. */
static inline int ctest_spd_hess_gy_inv_euclid(void *u, const double *x, const double *y, const int64_t *batch,
                                               int64_t nbatch, const double *w, double *out) {
    ctest_spd *q = u;
    double t[4];
    (void)x, (void)batch, (void)nbatch;
    q->hinv_calls++;
    ctest_spd_mul(y, w, t);
    ctest_spd_mul(t, y, out);
    return 0;
}

/* ctest_spd_problem builds the problem on R^2 x SPD(my) with Euclidean
 * oracles, with hess_gy_inv: none (hinv 0), the Riemannian inverse (1) or
 * the Euclidean one (2, wrong); hinv 3: none, and hess_gy_batch; hinv 4:
 * a caller built before hess_gy_batch (size ends before it), the slot
 * holding ctest_spd_hess_gy_batch, which the library must not read. */
static inline int ctest_spd_problem(ctest_spd *q, rhgd_manifold mx, rhgd_manifold my, int hinv, rhgd_problem *out) {
    rhgd_oracles o = RHGD_STRUCT_INIT(rhgd_oracles);
    o.f = ctest_spd_f;
    o.grad_fx = ctest_spd_fx;
    o.grad_fy = ctest_spd_fy;
    o.g = ctest_spd_g;
    o.grad_gx = ctest_spd_gx;
    o.grad_gy = ctest_spd_gy;
    o.hess_gy = ctest_spd_hess_gy;
    o.cross_gxy = ctest_spd_cross_gxy;
    o.cross_gyx = ctest_spd_cross_gyx;
    if (hinv == 1) o.hess_gy_inv = ctest_spd_hess_gy_inv;
    if (hinv == 2) o.hess_gy_inv = ctest_spd_hess_gy_inv_euclid;
    if (hinv == 3 || hinv == 4) o.hess_gy_batch = ctest_spd_hess_gy_batch;
    if (hinv == 4) o.size = offsetof(rhgd_oracles, hess_gy_batch);
    return rhgd_problem_callbacks(mx, my, &o, RHGD_EUCLIDEAN, q, out);
}

/* ctest_fsum_xstar sets x to the closed-form x*. */
static inline void ctest_fsum_xstar(double *x) {
    double a = 0, b = 0, c0 = 0, c1 = 0;
    for (int i = 0; i < CTEST_FSUM_N; i++)
        a += ctest_fsum_a[i], b += ctest_fsum_b[i], c0 += ctest_fsum_c[i][0], c1 += ctest_fsum_c[i][1];
    double k = b / a;
    x[0] = k * c0 / CTEST_FSUM_N / (k * k + CTEST_FSUM_LAMBDA);
    x[1] = k * c1 / CTEST_FSUM_N / (k * k + CTEST_FSUM_LAMBDA);
}

/* ---------------------------------------------------------------- */
/* Epoch callback: records f per epoch, cancels at cancel_at.       */
/* ---------------------------------------------------------------- */

typedef struct {
    long calls;
    long cancel_at;    /* return 1 at this epoch (< 0: never) */
    int cancel_via;    /* 1: call rhgd_solver_cancel(solver) instead */
    int rerun;         /* 1: try rhgd_solver_run(solver) from the callback */
    int rerun_code;    /* what that returned */
    rhgd_solver solver;
    double f[1024];
    double x0;         /* x[0] at the last epoch */
    double y0;         /* y[0] at the last epoch */
    double hg0;        /* hypergrad[0] at the last epoch */
    int64_t len_x, len_y;
} ctest_epochs;

static inline int ctest_epoch_cb(void *u, const rhgd_epoch *e) {
    ctest_epochs *r = u;
    if (e->epoch < 1024) r->f[e->epoch] = e->f;
    r->calls++;
    r->x0 = e->x[0];
    r->y0 = e->y[0];
    r->hg0 = e->hypergrad[0];
    r->len_x = e->len_x;
    r->len_y = e->len_y;
    if (r->rerun) {
        r->rerun_code = rhgd_solver_run(r->solver, NULL, NULL, NULL, NULL);
        r->rerun = 0;
    }
    if (r->cancel_at >= 0 && e->epoch == r->cancel_at) {
        if (r->cancel_via) return rhgd_solver_cancel(r->solver) == RHGD_OK ? 0 : 99;
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- */
/* Timing loops: b.N calls made from C, so that each costs one       */
/* C-to-Go crossing, as for a C caller.                              */
/* ---------------------------------------------------------------- */

static inline int ctest_loop_expsym(long iters, int64_t n, const double *a, double *out) {
    for (long i = 0; i < iters; i++) {
        int rc = rhgd_expsym(n, a, out);
        if (rc != RHGD_OK) return rc;
    }
    return 0;
}

static inline int ctest_loop_logsym(long iters, int64_t n, const double *a, double *out) {
    for (long i = 0; i < iters; i++) {
        int rc = rhgd_logsym(n, a, out);
        if (rc != RHGD_OK) return rc;
    }
    return 0;
}

static inline int ctest_loop_lyap(long iters, int64_t n, const double *a, const double *c, double *out) {
    for (long i = 0; i < iters; i++) {
        int rc = rhgd_lyapunov_sym(n, a, c, out);
        if (rc != RHGD_OK) return rc;
    }
    return 0;
}

/* ctest_loop_oracle calls one oracle of p iters times from C. */
static inline int ctest_loop_oracle(long iters, rhgd_problem p, const char *name, const double *x, const double *y,
                             const double *v, double *out) {
    for (long i = RHGD_NO_HANDLE; i < iters; i++) {
        int rc = rhgd_problem_oracle(p, name, x, y, v, out);
        if (rc != RHGD_OK) return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------- */
/* Threads: independent handles on several pthreads at once.        */
/* ---------------------------------------------------------------- */

#define CTEST_SYN_N 40
#define CTEST_SYN_D 10
#define CTEST_SYN_R 4
#define CTEST_EPOCHS 25

typedef struct {
    int id;
    int rounds;
    pthread_barrier_t *barrier;
    /* results */
    double synx[CTEST_SYN_D * CTEST_SYN_R];
    double quadx[3];
    double expa[16];
    char err[512];
} ctest_worker;

static inline void ctest_sym4(double *a, int id) {
    /* a symmetric 4 x 4 matrix that depends on id */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j <= i; j++) {
            double v = sin(1.0 + id + 3.0 * i + 7.0 * j);
            a[i * 4 + j] = a[j * 4 + i] = v;
        }
}

/* ctest_run_synthetic runs the built-in synthetic problem (small sizes,
 * seed 3) with HINV for CTEST_EPOCHS epochs and copies x into x. */
static inline int ctest_run_synthetic(double *x, const char *estimator, char *err, size_t errlen) {
    const char *params[] = {"n=40", "d=10", "r=4"};
    rhgd_problem p = RHGD_NO_HANDLE;
    rhgd_solver s = RHGD_NO_HANDLE;
    int rc = rhgd_problem_builtin("synthetic", 3, params, NULL, 3, &p);
    if (rc == RHGD_OK) rc = rhgd_solver_new(p, estimator, "epochs=25", &s);
    if (rc == RHGD_OK) rc = rhgd_solver_run(s, NULL, NULL, NULL, NULL);
    if (rc == RHGD_OK) rc = rhgd_solver_x(s, CTEST_SYN_D * CTEST_SYN_R, x);
    if (rc != RHGD_OK) {
        char msg[400];
        rhgd_last_error(msg, sizeof msg);
        snprintf(err, errlen, "synthetic: %s: %s", rhgd_strerror(rc), msg);
    }
    if (s.id) rhgd_solver_free(s);
    if (p.id) rhgd_problem_free(p);
    return rc;
}

/* ctest_run_quad solves the quadratic problem with lambda = 0.1, k = 3,
 * m = 4 through callbacks and copies x into x. */
static inline int ctest_run_quad(double *x, int full, const char *estimator, char *err, size_t errlen) {
    static const double a[4] = {1.0, 2.0, 3.0, 4.0};
    static const double b[12] = {1, 0, 0.5, 0, 1, 0, 0.2, 0.3, 1, 1, 1, 1};
    static const double c[4] = {1, -1, 0.5, 2};
    ctest_quad q = {3, 4, 0.1, a, b, c, 0, 0, 0, 0, 0, 0};
    rhgd_oracles o = ctest_quad_oracles(full);
    rhgd_manifold mx = RHGD_NO_HANDLE, my = RHGD_NO_HANDLE;
    rhgd_problem p = RHGD_NO_HANDLE;
    rhgd_solver s = RHGD_NO_HANDLE;
    double x0[3] = {0, 0, 0}, y0[4] = {0, 0, 0, 0};
    int rc = rhgd_manifold_new("euclid:r=3", &mx);
    if (rc == RHGD_OK) rc = rhgd_manifold_new("euclid:r=4", &my);
    if (rc == RHGD_OK) rc = rhgd_problem_callbacks(mx, my, &o, RHGD_RIEMANNIAN, &q, &p);
    if (rc == RHGD_OK) rc = rhgd_solver_new(p, estimator, "eta_x=0.5,eta_y=0.2,inner=30,epochs=300", &s);
    if (rc == RHGD_OK) rc = rhgd_solver_run(s, x0, y0, NULL, NULL);
    if (rc == RHGD_OK) rc = rhgd_solver_x(s, 3, x);
    if (rc != RHGD_OK) {
        char msg[400];
        rhgd_last_error(msg, sizeof msg);
        snprintf(err, errlen, "quad: %s: %s", rhgd_strerror(rc), msg);
    }
    if (s.id) rhgd_solver_free(s);
    if (p.id) rhgd_problem_free(p);
    if (mx.id) rhgd_manifold_free(mx);
    if (my.id) rhgd_manifold_free(my);
    return rc;
}

/* ctest_worker_main: a worker's rounds. A failing worker keeps meeting the
 * barriers, so that the others never wait forever. */
static inline void *ctest_worker_main(void *arg) {
    ctest_worker *w = arg;
    char spec[64], msg[256];
    for (int round = 0; round < w->rounds; round++) {
        if (!w->err[0]) {
            double a[16];
            ctest_sym4(a, w->id);
            if (rhgd_expsym(4, a, w->expa) != RHGD_OK) {
                rhgd_last_error(msg, sizeof msg);
                snprintf(w->err, sizeof w->err, "thread %d: expsym: %s", w->id, msg);
            }
        }
        if (!w->err[0]) ctest_run_synthetic(w->synx, "hinv", w->err, sizeof w->err);
        if (!w->err[0]) ctest_run_quad(w->quadx, 1, "cg", w->err, sizeof w->err);
        /* Each thread fails with its own message, waits until every thread
         * has failed, and must still read its own message. */
        snprintf(spec, sizeof spec, "bogus%d", w->id);
        rhgd_manifold m;
        int rc = rhgd_manifold_new(spec, &m);
        if (!w->err[0] && rc != RHGD_EINVAL)
            snprintf(w->err, sizeof w->err, "thread %d: manifold %s: %s, want RHGD_EINVAL", w->id, spec, rhgd_strerror(rc));
        pthread_barrier_wait(w->barrier);
        rhgd_last_error(msg, sizeof msg);
        if (!w->err[0] && strstr(msg, spec) == NULL)
            snprintf(w->err, sizeof w->err, "thread %d reads another thread's error: %s", w->id, msg);
        pthread_barrier_wait(w->barrier);
    }
    return NULL;
}

/* ctest_threads runs nthreads workers (at most 16) for rounds rounds each
 * and compares every result with the same computation done serially
 * first: bitwise, since each computation is deterministic. It returns 0,
 * or 1 with a message in err. */
static inline int ctest_threads(int nthreads, int rounds, char *err, size_t errlen) {
    ctest_worker ref[16], w[16];
    pthread_t th[16];
    pthread_barrier_t barrier;
    if (nthreads < 1 || nthreads > 16) {
        snprintf(err, errlen, "nthreads = %d", nthreads);
        return 1;
    }
    for (int i = 0; i < nthreads; i++) {
        double a[16];
        memset(&ref[i], 0, sizeof ref[i]);
        ctest_sym4(a, i);
        if (rhgd_expsym(4, a, ref[i].expa) != RHGD_OK ||
            ctest_run_synthetic(ref[i].synx, "hinv", err, errlen) != RHGD_OK ||
            ctest_run_quad(ref[i].quadx, 1, "cg", err, errlen) != RHGD_OK)
            return 1;
    }
    pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
    for (int i = 0; i < nthreads; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].id = i;
        w[i].rounds = rounds;
        w[i].barrier = &barrier;
        if (pthread_create(&th[i], NULL, ctest_worker_main, &w[i]) != 0) {
            snprintf(err, errlen, "pthread_create failed");
            return 1;
        }
    }
    for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&barrier);
    for (int i = 0; i < nthreads; i++) {
        if (w[i].err[0]) {
            snprintf(err, errlen, "%s", w[i].err);
            return 1;
        }
        if (memcmp(w[i].synx, ref[i].synx, sizeof w[i].synx) != 0 ||
            memcmp(w[i].quadx, ref[i].quadx, sizeof w[i].quadx) != 0 ||
            memcmp(w[i].expa, ref[i].expa, sizeof w[i].expa) != 0) {
            snprintf(err, errlen, "thread %d: results differ from the serial ones (x[0] %.17g vs %.17g)", i,
                     w[i].synx[0], ref[i].synx[0]);
            return 1;
        }
    }
    return 0;
}

#endif /* RHGD_CTEST_H */

/*
 * abi_growth.c: a program built as if against the first layout of rhgd.h's
 * growing structs, run against the current library (make test-c). Its
 * structs are copies of rhgd_oracles, rhgd_epoch and rhgd_result as they
 * were first published, without the fields appended since (n_f, n_g,
 * lower_solve and lower_steps; lower_steps, upper_step and lower_solves;
 * lower_values, lower_solves and retract_failures), and it reads the
 * history with the first layout's 11 columns. Each struct and row buffer
 * is followed by guard bytes: the library must read none of them (garbage
 * there would be taken for lower_solve and lower_steps callbacks and a
 * negative n_f) and write none of them. The program solves a quadratic problem with a closed form and
 * exits nonzero on any difference.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rhgd.h"

/* The first layouts, copied. */
typedef struct {
    size_t size;
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
} oracles_1;

typedef struct {
    size_t size;
    int64_t epoch;
    double f, hypergrad_norm, lower_grad_norm, elapsed;
    int64_t upper_grads, lower_grads, hess_vecs, cross_vecs, iterations;
    double residual;
    int64_t len_x, len_y;
    const double *x, *y, *hypergrad;
} epoch_1;

typedef struct {
    size_t size;
    int32_t status, error;
    int64_t epochs;
    double f, best_f, hypergrad_norm, runtime;
    int64_t upper_grads, lower_grads, hess_vecs, cross_vecs, iterations;
    double residual;
} result_1;

#define HISTORY_COLS_1 11

_Static_assert(sizeof(oracles_1) == RHGD_ORACLES_SIZE_1, "oracles_1 is not rhgd_oracles' first layout");
_Static_assert(sizeof(result_1) == RHGD_RESULT_SIZE_1, "result_1 is not rhgd_result's first layout");
_Static_assert(sizeof(oracles_1) < sizeof(rhgd_oracles) && sizeof(result_1) < sizeof(rhgd_result) &&
                   sizeof(epoch_1) < sizeof(rhgd_epoch) && HISTORY_COLS_1 < RHGD_HISTORY_COLS,
               "the header has not grown since the first layout: nothing to test");

#define GUARD 64
#define JUNK 0xA5

static int failures;
#define CHECK(cond, what)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, what); \
            failures++;                                                     \
        }                                                                   \
    } while (0)

static int untouched(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != JUNK) return 0;
    return 1;
}

/* f(x, y) = 1/2 |y - c|^2 + lambda/2 |x|^2, g(x, y) = 1/2 |y|^2 - y'x on
 * R^2 x R^2: y*(x) = x, F(x) = 1/2 |x - c|^2 + lambda/2 |x|^2, minimized
 * at x* = c / (1 + lambda). */
static const double C_[2] = {1.0, -2.0}, LAMBDA = 0.5;

static int q_f(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
    (void)u, (void)b, (void)nb;
    *out = 0.5 * ((y[0] - C_[0]) * (y[0] - C_[0]) + (y[1] - C_[1]) * (y[1] - C_[1])) +
           0.5 * LAMBDA * (x[0] * x[0] + x[1] * x[1]);
    return 0;
}
static int q_fx(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
    (void)u, (void)y, (void)b, (void)nb;
    out[0] = LAMBDA * x[0], out[1] = LAMBDA * x[1];
    return 0;
}
static int q_fy(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
    (void)u, (void)x, (void)b, (void)nb;
    out[0] = y[0] - C_[0], out[1] = y[1] - C_[1];
    return 0;
}
static int q_gx(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
    (void)u, (void)x, (void)b, (void)nb;
    out[0] = -y[0], out[1] = -y[1];
    return 0;
}
static int q_gy(void *u, const double *x, const double *y, const int64_t *b, int64_t nb, double *out) {
    (void)u, (void)b, (void)nb;
    out[0] = y[0] - x[0], out[1] = y[1] - x[1];
    return 0;
}

static int epochs_seen;
static double last_f;
static int on_epoch(void *u, const rhgd_epoch *e) {
    const epoch_1 *e1 = (const epoch_1 *)e; /* as the old program sees it */
    (void)u;
    CHECK(e1->size >= sizeof(epoch_1), "epoch record smaller than the first layout");
    CHECK(e1->epoch == epochs_seen, "epoch number");
    CHECK(e1->len_x == 2 && e1->len_y == 2 && e1->x != NULL && e1->hypergrad != NULL, "epoch record");
    epochs_seen++;
    last_f = e1->f;
    return 0;
}

int main(void) {
    struct {
        oracles_1 o;
        unsigned char guard[GUARD];
    } ob;
    memset(&ob, JUNK, sizeof ob);
    memset(&ob.o, 0, sizeof ob.o);
    ob.o.size = sizeof ob.o;
    ob.o.f = q_f, ob.o.grad_fx = q_fx, ob.o.grad_fy = q_fy, ob.o.grad_gx = q_gx, ob.o.grad_gy = q_gy;

    rhgd_manifold mx = RHGD_NO_HANDLE, my = RHGD_NO_HANDLE;
    rhgd_problem p = RHGD_NO_HANDLE;
    rhgd_solver s = RHGD_NO_HANDLE;
    CHECK(rhgd_manifold_new("euclid:r=2", &mx) == RHGD_OK && rhgd_manifold_new("euclid:r=2", &my) == RHGD_OK,
          "manifolds");
    int rc = rhgd_problem_callbacks(mx, my, (const rhgd_oracles *)&ob.o, RHGD_EUCLIDEAN, NULL, &p);
    if (rc != RHGD_OK) {
        char msg[512];
        rhgd_last_error(msg, sizeof msg);
        fprintf(stderr, "rhgd_problem_callbacks with the first layout: %s: %s\n", rhgd_strerror(rc), msg);
        return 1;
    }
    CHECK(rhgd_solver_new(p, "cg", "eta_x=1,eta_y=0.5,inner=30,epochs=300", &s) == RHGD_OK, "solver");
    double x0[2] = {0, 0}, y0[2] = {0, 0}, x[2], y[2], f;
    CHECK(rhgd_solver_run(s, x0, y0, on_epoch, NULL) == RHGD_OK, "run");
    CHECK(rhgd_solver_x(s, 2, x) == RHGD_OK, "x");
    CHECK(rhgd_solver_y(s, 2, y) == RHGD_OK, "y");
    q_f(NULL, x, y, NULL, 0, &f); /* the result's f is f at its x and y */
    CHECK(fabs(x[0] - C_[0] / (1 + LAMBDA)) < 1e-8 && fabs(x[1] - C_[1] / (1 + LAMBDA)) < 1e-8, "missed x*");

    struct {
        result_1 r;
        unsigned char guard[GUARD];
    } rb;
    memset(&rb, JUNK, sizeof rb);
    rb.r.size = sizeof rb.r;
    CHECK(rhgd_solver_result(s, (rhgd_result *)&rb.r) == RHGD_OK, "result");
    CHECK(rb.r.size == sizeof rb.r, "the library changed size");
    CHECK(untouched(rb.guard, GUARD), "rhgd_solver_result wrote past the caller's size");
    CHECK(rb.r.status == RHGD_STATUS_ITERATION_LIMIT && rb.r.epochs == 300 && rb.r.epochs == epochs_seen,
          "result fields");
    CHECK(rb.r.f == f && rb.r.upper_grads > 0 && rb.r.error == RHGD_OK, "result values");

    rb.r.size = sizeof rb.r - 1;
    CHECK(rhgd_solver_result(s, (rhgd_result *)&rb.r) == RHGD_EINVAL, "a size below the first layout accepted");

    int64_t n = 0;
    CHECK(rhgd_solver_history(s, 0, HISTORY_COLS_1, NULL, &n) == RHGD_OK && n == 300, "history rows");
    size_t cells = (size_t)n * HISTORY_COLS_1;
    unsigned char *hb = malloc(cells * sizeof(double) + GUARD);
    memset(hb, JUNK, cells * sizeof(double) + GUARD);
    double *rows = (double *)hb;
    CHECK(rhgd_solver_history(s, n, HISTORY_COLS_1, rows, &n) == RHGD_OK, "history");
    CHECK(untouched(hb + cells * sizeof(double), GUARD), "rhgd_solver_history wrote past the caller's rows");
    CHECK(rows[(n - 1) * HISTORY_COLS_1 + RHGD_HISTORY_F] == last_f, "history's f");
    CHECK(rows[(n - 1) * HISTORY_COLS_1 + RHGD_HISTORY_EPOCH] == (double)(n - 1), "history's epoch");
    free(hb);

    rhgd_solver_free(s);
    rhgd_problem_free(p);
    rhgd_manifold_free(mx);
    rhgd_manifold_free(my);
    int64_t live = -1;
    rhgd_live_handles(&live);
    CHECK(live == 0, "handles left");
    if (failures) return 1;
    printf("abi growth: a program built with the first layouts runs against librhgd %s unchanged\n", rhgd_version());
    return 0;
}

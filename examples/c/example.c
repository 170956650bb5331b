/*
 * example.c: rhgd from C. `make test-c` builds and runs it; by hand, from
 * the repository root after `make lib` (the rpath lets it run from any
 * directory):
 *   cc -I cbindings examples/c/example.c -Lbuild -lrhgd -lm -Wl,-rpath,"$PWD/build" -o example
 * It exits with status 1 if any check fails, so make test can run it.
 *
 * 1. matrix kernels and their errors;
 * 2. a bilevel problem given by C callbacks, checked against its closed
 *    form;
 * 3. the paper's synthetic problem, built in, with an epoch callback.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rhgd.h"

static int failures = 0;

#define CHECK(cond, ...)                        \
    do {                                        \
        if (!(cond)) {                          \
            fprintf(stderr, "FAIL: " __VA_ARGS__); \
            fprintf(stderr, "\n");              \
            failures++;                         \
        }                                       \
    } while (0)

/* ok reports a failed call with the library's message. */
static int ok(int rc, const char *what) {
    if (rc != RHGD_OK) {
        char msg[512];
        rhgd_last_error(msg, sizeof msg);
        fprintf(stderr, "FAIL: %s: %s: %s\n", what, rhgd_strerror(rc), msg);
        failures++;
    }
    return rc == RHGD_OK;
}

/* ---- 2. A bilevel problem by callbacks -------------------------------
 * Hyperparameter-style toy in R^2 x R^2: the lower level fits y to x,
 *   g(x, y) = 1/2 |y - x|^2 + 1/2 mu |y|^2     =>  y*(x) = x / (1 + mu),
 * the upper level pulls y* toward a target t with a ridge on x,
 *   f(x, y) = 1/2 |y - t|^2 + 1/2 lambda |x|^2,
 * so x* = t / (1 + mu) / (1/(1 + mu)^2 + lambda). Euclidean gradients;
 * the library fills the Hessian and cross products by differences. */
typedef struct {
    double mu, lambda, t[2];
} toy;

static int toy_f(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    const toy *p = u;
    (void)batch, (void)nbatch;
    double a = y[0] - p->t[0], b = y[1] - p->t[1];
    *out = 0.5 * (a * a + b * b) + 0.5 * p->lambda * (x[0] * x[0] + x[1] * x[1]);
    return 0;
}
static int toy_grad_fx(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    const toy *p = u;
    (void)y, (void)batch, (void)nbatch;
    out[0] = p->lambda * x[0];
    out[1] = p->lambda * x[1];
    return 0;
}
static int toy_grad_fy(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    const toy *p = u;
    (void)x, (void)batch, (void)nbatch;
    out[0] = y[0] - p->t[0];
    out[1] = y[1] - p->t[1];
    return 0;
}
static int toy_grad_gx(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    (void)u, (void)batch, (void)nbatch;
    out[0] = x[0] - y[0];
    out[1] = x[1] - y[1];
    return 0;
}
static int toy_grad_gy(void *u, const double *x, const double *y, const int64_t *batch, int64_t nbatch, double *out) {
    const toy *p = u;
    (void)batch, (void)nbatch;
    out[0] = y[0] - x[0] + p->mu * y[0];
    out[1] = y[1] - x[1] + p->mu * y[1];
    return 0;
}

/* ---- 3. Epoch callback ------------------------------------------------ */
typedef struct {
    int printed;
    double first_f, last_f;
} progress;

static int on_epoch(void *user, const rhgd_epoch *e) {
    progress *p = user;
    if (e->epoch == 0) p->first_f = e->f;
    p->last_f = e->f;
    if (e->epoch % 50 == 0) {
        printf("  epoch %3lld  f = %+.6f  |hypergrad| = %.3e\n", (long long)e->epoch, e->f, e->hypergrad_norm);
        p->printed++;
    }
    return 0; /* nonzero would cancel the run */
}

int main(void) {
    printf("rhgd %s (header %s)\n", rhgd_version(), RHGD_VERSION);
    CHECK(strcmp(rhgd_version(), RHGD_VERSION) == 0, "library and header versions differ");

    /* ---- 1. Kernels ---- */
    double a[9] = {2, 1, 0, 1, 3, 1, 0, 1, 4}; /* SPD */
    double e[9], l[9], s[9];
    if (ok(rhgd_expsym(3, a, e), "expsym") && ok(rhgd_logsym(3, e, l), "logsym")) {
        double err = 0;
        for (int i = 0; i < 9; i++) err = fmax(err, fabs(l[i] - a[i]));
        printf("log(exp(A)) - A: %.2e\n", err);
        CHECK(err < 1e-12, "log(exp(A)) differs from A by %g", err);
    }
    if (ok(rhgd_sqrtsym(3, a, s), "sqrtsym")) {
        double err = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double v = 0;
                for (int k = 0; k < 3; k++) v += s[i * 3 + k] * s[k * 3 + j];
                err = fmax(err, fabs(v - a[i * 3 + j]));
            }
        CHECK(err < 1e-12, "sqrt(A)^2 differs from A by %g", err);
    }
    double dist;
    double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double diag[9] = {M_E, 0, 0, 0, 1, 0, 0, 0, 1 / M_E};
    if (ok(rhgd_spd_dist(3, eye, diag, &dist), "spd_dist"))
        CHECK(fabs(dist - sqrt(2.0)) < 1e-14, "d(I, diag(e, 1, 1/e)) = %.17g, want sqrt 2", dist);

    /* An error: the logarithm of a matrix that is not positive definite. */
    double indef[4] = {1, 0, 0, -1}, out4[4];
    int rc = rhgd_logsym(2, indef, out4);
    char msg[256];
    int n = rhgd_last_error(msg, sizeof msg);
    printf("logsym of an indefinite matrix: %s (%d-byte message): %s\n", rhgd_strerror(rc), n, msg);
    CHECK(rc == RHGD_EINVAL && n > 0 && strstr(msg, "positive definite") != NULL, "logsym error");
    rc = rhgd_expsym(2, NULL, out4);
    CHECK(rc == RHGD_EINVAL, "NULL input accepted");

    /* ---- 2. Callbacks ---- */
    toy t = {0.5, 0.1, {1.0, -2.0}};
    rhgd_oracles o = RHGD_STRUCT_INIT(rhgd_oracles);
    o.f = toy_f;
    o.grad_fx = toy_grad_fx;
    o.grad_fy = toy_grad_fy;
    o.grad_gx = toy_grad_gx;
    o.grad_gy = toy_grad_gy;
    rhgd_manifold rx = RHGD_NO_HANDLE, ry = RHGD_NO_HANDLE;
    rhgd_problem p = RHGD_NO_HANDLE;
    rhgd_solver sol = RHGD_NO_HANDLE;
    double x0[2] = {0, 0}, y0[2] = {0, 0}, x[2];
    if (ok(rhgd_manifold_new("euclid:r=2", &rx), "manifold") && ok(rhgd_manifold_new("euclid:r=2", &ry), "manifold") &&
        ok(rhgd_problem_callbacks(rx, ry, &o, RHGD_EUCLIDEAN, &t, &p), "problem") &&
        ok(rhgd_solver_new(p, "cg", "eta_x=1,eta_y=0.5,inner=30,epochs=2000,grad_tol=1e-12", &sol), "solver") &&
        ok(rhgd_solver_run(sol, x0, y0, NULL, NULL), "run") && ok(rhgd_solver_x(sol, 2, x), "x")) {
        rhgd_result r = RHGD_STRUCT_INIT(rhgd_result);
        rhgd_solver_result(sol, &r);
        double k = 1 / (1 + t.mu), c = k / (k * k + t.lambda);
        printf("callbacks: x = (%.10f, %.10f), closed form (%.10f, %.10f); %s after %lld epochs\n", x[0], x[1],
               c * t.t[0], c * t.t[1], rhgd_status_string(r.status), (long long)r.epochs);
        CHECK(fabs(x[0] - c * t.t[0]) < 1e-8 && fabs(x[1] - c * t.t[1]) < 1e-8, "callback problem missed x*");
    }
    rhgd_solver_free(sol);
    rhgd_problem_free(p);
    rhgd_manifold_free(rx);
    rhgd_manifold_free(ry);

    /* ---- 3. The synthetic problem, built in ---- */
    const char *params[] = {"n=60", "d=20", "r=5"};
    progress pr = {0, 0, 0};
    p = (rhgd_problem){0};
    sol = (rhgd_solver){0};
    if (ok(rhgd_problem_builtin("synthetic", 3, params, NULL, 1, &p), "builtin") &&
        ok(rhgd_solver_new(p, "hinv", "epochs=200", &sol), "solver")) {
        char desc[256];
        rhgd_problem_describe(p, desc, sizeof desc);
        printf("%s\n", desc);
        if (ok(rhgd_solver_run(sol, NULL, NULL, on_epoch, &pr), "run")) {
            int64_t rows = 0;
            rhgd_solver_history(sol, 0, RHGD_HISTORY_COLS, NULL, &rows);
            double *hist = malloc((size_t)rows * RHGD_HISTORY_COLS * sizeof(double));
            rhgd_solver_history(sol, rows, RHGD_HISTORY_COLS, hist, &rows);
            printf("  %lld epochs; f from %.6f to %.6f\n", (long long)rows, hist[RHGD_HISTORY_F],
                   hist[(rows - 1) * RHGD_HISTORY_COLS + RHGD_HISTORY_F]);
            CHECK(rows == 200 && pr.printed == 4, "history has %lld rows, %d progress lines", (long long)rows, pr.printed);
            CHECK(hist[(rows - 1) * RHGD_HISTORY_COLS + RHGD_HISTORY_F] == pr.last_f, "history and callback disagree");
            CHECK(pr.last_f < pr.first_f, "f did not decrease");
            free(hist);
        }
    }
    rhgd_solver_free(sol);
    rhgd_problem_free(p);

    int64_t live = -1;
    rhgd_live_handles(&live);
    CHECK(live == 0, "%lld handles left", (long long)live);
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}

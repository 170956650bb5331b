//go:build cgo

// rhgd.c: the public names of the C ABI.
#include "rhgd.h"
#include "_cgo_export.h"

// The public names. As in libtailscale, a thin C layer maps the header's
// names onto the Go exports (rhgdgo_*): the compiler then checks every
// definition here against the prototype in rhgd.h, const qualifiers
// included, which a Go export's generated prototype cannot carry. The
// Go exports are hidden (-fvisibility=hidden); only RHGD_API names are
// in the library's dynamic symbol table.

const char *rhgd_version(void) { return RHGD_VERSION; }

const char *rhgd_strerror(int code) {
	switch (code) {
	case RHGD_OK: return "RHGD_OK";
	case RHGD_EINVAL: return "RHGD_EINVAL";
	case RHGD_ENOTCONV: return "RHGD_ENOTCONV";
	case RHGD_ENUMERIC: return "RHGD_ENUMERIC";
	case RHGD_EBADHANDLE: return "RHGD_EBADHANDLE";
	case RHGD_EINTERNAL: return "RHGD_EINTERNAL";
	case RHGD_ECALLBACK: return "RHGD_ECALLBACK";
	case RHGD_EBUSY: return "RHGD_EBUSY";
	}
	return "unknown code";
}

const char *rhgd_status_string(int status) {
	switch (status) {
	case RHGD_STATUS_NOT_TERMINATED: return "NotTerminated";
	case RHGD_STATUS_GRADIENT_THRESHOLD: return "GradientThreshold";
	case RHGD_STATUS_ITERATION_LIMIT: return "IterationLimit";
	case RHGD_STATUS_RUNTIME_LIMIT: return "RuntimeLimit";
	case RHGD_STATUS_CANCELLED: return "Cancelled";
	case RHGD_STATUS_DIVERGED: return "Diverged";
	case RHGD_STATUS_FAILURE: return "Failure";
	}
	return "unknown status";
}

int rhgd_init(const char *backend, int64_t threads, int shared) {
	return rhgdgo_init((char *)backend, threads, shared);
}
int rhgd_set_threads(int64_t n) { return rhgdgo_set_threads(n); }
int rhgd_set_shared_windows(int on) { return rhgdgo_set_shared_windows(on); }
int rhgd_info(char *buf, size_t len) { return rhgdgo_info(buf, len); }

int rhgd_expsym(int64_t n, const double *a, double *out) { return rhgdgo_expsym(n, (double *)a, out); }
int rhgd_logsym(int64_t n, const double *a, double *out) { return rhgdgo_logsym(n, (double *)a, out); }
int rhgd_sqrtsym(int64_t n, const double *a, double *out) { return rhgdgo_sqrtsym(n, (double *)a, out); }
int rhgd_expm(int64_t n, const double *a, double *out) { return rhgdgo_expm(n, (double *)a, out); }
int rhgd_lyapunov_sym(int64_t n, const double *a, const double *c, double *x) {
	return rhgdgo_lyapunov_sym(n, (double *)a, (double *)c, x);
}
int rhgd_lyapunov_sym_many(int64_t n, int64_t count, const double *a, const double *c, double *x) {
	return rhgdgo_lyapunov_sym_many(n, count, (double *)a, (double *)c, x);
}
int rhgd_spd_exp(int64_t n, const double *x, const double *u, double *out) {
	return rhgdgo_spd_exp(n, (double *)x, (double *)u, out);
}
int rhgd_spd_log(int64_t n, const double *x, const double *y, double *out) {
	return rhgdgo_spd_log(n, (double *)x, (double *)y, out);
}
int rhgd_spd_dist(int64_t n, const double *x, const double *y, double *dist) {
	return rhgdgo_spd_dist(n, (double *)x, (double *)y, dist);
}
int rhgd_stiefel_retr_qr(int64_t n, int64_t p, const double *x, const double *u, double *out) {
	return rhgdgo_stiefel_retr_qr(n, p, (double *)x, (double *)u, out);
}
int rhgd_coupling_retr(int64_t m, int64_t n, const double *a, const double *b,
                       const double *gamma, const double *u, double *out) {
	return rhgdgo_coupling_retr(m, n, (double *)a, (double *)b, (double *)gamma, (double *)u, out);
}

int rhgd_spectral_eig_batch(int64_t n, int64_t count, const double *a, double *w, double *v) {
	return rhgdgo_spectral_eig_batch(n, count, (double *)a, w, v);
}
int rhgd_spectral_exp_batch(int64_t n, int64_t count, const double *a, double *out) {
	return rhgdgo_spectral_exp_batch(n, count, (double *)a, out);
}
int rhgd_spectral_log_batch(int64_t n, int64_t count, const double *a, double *out) {
	return rhgdgo_spectral_log_batch(n, count, (double *)a, out);
}
int rhgd_spectral_reeig_batch(int64_t n, int64_t count, double eps, const double *a, double *out) {
	return rhgdgo_spectral_reeig_batch(n, count, eps, (double *)a, out);
}
int rhgd_spectral_exp_batch_backward(int64_t n, int64_t count, const double *a, const double *g, double *grad) {
	return rhgdgo_spectral_exp_batch_backward(n, count, (double *)a, (double *)g, grad);
}
int rhgd_spectral_log_batch_backward(int64_t n, int64_t count, const double *a, const double *g, double *grad) {
	return rhgdgo_spectral_log_batch_backward(n, count, (double *)a, (double *)g, grad);
}
int rhgd_spectral_reeig_batch_backward(int64_t n, int64_t count, double eps, const double *a, const double *g,
                                       double *grad) {
	return rhgdgo_spectral_reeig_batch_backward(n, count, eps, (double *)a, (double *)g, grad);
}

int rhgd_manifold_new(const char *spec, rhgd_manifold *out) { return rhgdgo_manifold_new((char *)spec, (int64_t *)out); }
int rhgd_manifold_coupling(int64_t m, int64_t n, const double *a, const double *b,
                           const char *options, rhgd_manifold *out) {
	return rhgdgo_manifold_coupling(m, n, (double *)a, (double *)b, (char *)options, (int64_t *)out);
}
int rhgd_manifold_product(int64_t k, const rhgd_manifold *factors, rhgd_manifold *out) {
	return rhgdgo_manifold_product(k, (int64_t *)factors, (int64_t *)out);
}
int rhgd_manifold_free(rhgd_manifold m) { return rhgdgo_manifold_free(m.id); }
int rhgd_manifold_shape(rhgd_manifold m, int64_t *rows, int64_t *cols, int64_t *factors) {
	return rhgdgo_manifold_shape(m.id, rows, cols, factors);
}
int rhgd_manifold_factor(rhgd_manifold m, int64_t i, rhgd_manifold *out) { return rhgdgo_manifold_factor(m.id, i, (int64_t *)out); }
int rhgd_manifold_describe(rhgd_manifold m, char *buf, size_t len) { return rhgdgo_manifold_describe(m.id, buf, len); }
int rhgd_manifold_len(rhgd_manifold m, int64_t *len, int64_t *dim) { return rhgdgo_manifold_len(m.id, len, dim); }
int rhgd_manifold_check_point(rhgd_manifold m, const double *x) {
	return rhgdgo_manifold_check_point(m.id, (double *)x);
}
int rhgd_manifold_snap_point(rhgd_manifold m, const double *x, double *out, char *note, size_t len) {
	return rhgdgo_manifold_snap_point(m.id, (double *)x, out, note, len);
}
int rhgd_manifold_rand_point(rhgd_manifold m, uint64_t seed, double *x) {
	return rhgdgo_manifold_rand_point(m.id, seed, x);
}
int rhgd_manifold_project(rhgd_manifold m, const double *x, const double *v, double *out) {
	return rhgdgo_manifold_project(m.id, (double *)x, (double *)v, out);
}
int rhgd_manifold_retract(rhgd_manifold m, const double *x, const double *u, double t, double *out) {
	return rhgdgo_manifold_retract(m.id, (double *)x, (double *)u, t, out);
}

uint64_t rhgd_default_seed(void) { return rhgdgo_default_seed(); }
int rhgd_problem_names(char *buf, size_t len) { return rhgdgo_problem_names(buf, len); }
int rhgd_problem_params(const char *name, char *buf, size_t len) {
	return rhgdgo_problem_params((char *)name, buf, len);
}
int rhgd_problem_builtin(const char *name, int64_t nparams, const char *const *params,
                         const char *data, uint64_t seed, rhgd_problem *out) {
	return rhgdgo_problem_builtin((char *)name, nparams, (char **)params, (char *)data, seed, (int64_t *)out);
}
int rhgd_problem_callbacks(rhgd_manifold mx, rhgd_manifold my, const rhgd_oracles *oracles,
                           int flags, void *user, rhgd_problem *out) {
	return rhgdgo_problem_callbacks(mx.id, my.id, (rhgd_oracles *)oracles, flags, (uintptr_t)user, (int64_t *)out);
}
int rhgd_problem_free(rhgd_problem p) { return rhgdgo_problem_free(p.id); }
int rhgd_problem_manifolds(rhgd_problem p, rhgd_manifold *mx, rhgd_manifold *my) {
	return rhgdgo_problem_manifolds(p.id, (int64_t *)mx, (int64_t *)my);
}
int rhgd_problem_dims(rhgd_problem p, int64_t *len_x, int64_t *len_y) { return rhgdgo_problem_dims(p.id, len_x, len_y); }
int rhgd_problem_start(rhgd_problem p, double *x0, double *y0) { return rhgdgo_problem_start(p.id, x0, y0); }
int rhgd_problem_set_start(rhgd_problem p, const double *x0, const double *y0) {
	return rhgdgo_problem_set_start(p.id, (double *)x0, (double *)y0);
}
int rhgd_problem_describe(rhgd_problem p, char *buf, size_t len) { return rhgdgo_problem_describe(p.id, buf, len); }
int rhgd_problem_notes(rhgd_problem p, char *buf, size_t len) { return rhgdgo_problem_notes(p.id, buf, len); }
int rhgd_problem_oracle(rhgd_problem p, const char *name, const double *x, const double *y,
                        const double *v, double *out) {
	return rhgdgo_problem_oracle(p.id, (char *)name, (double *)x, (double *)y, (double *)v, out);
}

int rhgd_problem_accuracy(rhgd_problem p, const double *x, const double *y, double *accuracy) {
	return rhgdgo_problem_accuracy(p.id, (double *)x, (double *)y, accuracy);
}
int rhgd_problem_check(rhgd_problem p, const double *x, const double *y, const char *options, char *buf,
                       size_t len) {
	return rhgdgo_problem_check(p.id, (double *)x, (double *)y, (char *)options, buf, len);
}

int rhgd_solver_new(rhgd_problem p, const char *estimator, const char *settings, rhgd_solver *out) {
	return rhgdgo_solver_new(p.id, (char *)estimator, (char *)settings, (int64_t *)out);
}
int rhgd_solver_settings(rhgd_solver s, char *buf, size_t len) { return rhgdgo_solver_settings(s.id, buf, len); }
int rhgd_solver_run(rhgd_solver s, const double *x0, const double *y0, rhgd_epoch_fn callback, void *user) {
	return rhgdgo_solver_run(s.id, (double *)x0, (double *)y0, callback, (uintptr_t)user);
}
int rhgd_solver_cancel(rhgd_solver s) { return rhgdgo_solver_cancel(s.id); }
int rhgd_solver_set_checkpoint(rhgd_solver s, const char *path, int64_t every) {
	return rhgdgo_solver_set_checkpoint(s.id, (char *)path, every);
}
int rhgd_solver_resume(rhgd_solver s, const char *path, rhgd_epoch_fn callback, void *user) {
	return rhgdgo_solver_resume(s.id, (char *)path, callback, (uintptr_t)user);
}
int rhgd_solver_hypergradient(rhgd_solver s, int64_t len_x, const double *x, int64_t len_y, const double *y,
                              double *hypergrad, double *y_out, double *lower_grad_norm) {
	return rhgdgo_solver_hypergradient(s.id, len_x, (double *)x, len_y, (double *)y, hypergrad, y_out,
	                                   lower_grad_norm);
}
int rhgd_solver_result(rhgd_solver s, rhgd_result *out) { return rhgdgo_solver_result(s.id, out); }
int rhgd_solver_x(rhgd_solver s, int64_t len, double *out) { return rhgdgo_solver_x(s.id, len, out); }
int rhgd_solver_y(rhgd_solver s, int64_t len, double *out) { return rhgdgo_solver_y(s.id, len, out); }
int rhgd_result_names(char *buf, size_t len) { return rhgdgo_result_names(buf, len); }
int rhgd_solver_result_value(rhgd_solver s, const char *name, double *value) {
	return rhgdgo_solver_result_value(s.id, (char *)name, value);
}
int rhgd_solver_best(rhgd_solver s, int64_t len_x, double *best_x, int64_t len_y, double *best_y) {
	return rhgdgo_solver_best(s.id, len_x, best_x, len_y, best_y);
}
int rhgd_solver_history(rhgd_solver s, int64_t max_rows, int64_t cols, double *rows, int64_t *nrows) {
	return rhgdgo_solver_history(s.id, max_rows, cols, rows, nrows);
}
int rhgd_history_cols(int64_t *ncols) { return rhgdgo_history_cols(ncols); }
int rhgd_history_names(char *buf, size_t len) { return rhgdgo_history_names(buf, len); }
int rhgd_solver_free(rhgd_solver s) { return rhgdgo_solver_free(s.id); }
int rhgd_live_handles(int64_t *n) { return rhgdgo_live_handles(n); }

/* The manifold toolkit (toolkit.go). */
int rhgd_manifold_inner(rhgd_manifold m, const double *x, const double *u, const double *v, double *out) {
	return rhgdgo_manifold_inner(m.id, (double *)x, (double *)u, (double *)v, out);
}
int rhgd_manifold_norm(rhgd_manifold m, const double *x, const double *u, double *out) {
	return rhgdgo_manifold_norm(m.id, (double *)x, (double *)u, out);
}
int rhgd_manifold_supports(rhgd_manifold m, const char *method, int *out) {
	return rhgdgo_manifold_supports(m.id, (char *)method, out);
}
int rhgd_manifold_dist(rhgd_manifold m, const double *x, const double *y, double *out) {
	return rhgdgo_manifold_dist(m.id, (double *)x, (double *)y, out);
}
int rhgd_manifold_exp(rhgd_manifold m, const double *x, const double *u, double t, double *out) {
	return rhgdgo_manifold_exp(m.id, (double *)x, (double *)u, t, out);
}
int rhgd_manifold_log(rhgd_manifold m, const double *x, const double *y, double *out) {
	return rhgdgo_manifold_log(m.id, (double *)x, (double *)y, out);
}
int rhgd_manifold_egrad2rgrad(rhgd_manifold m, const double *x, const double *egrad, double *out) {
	return rhgdgo_manifold_egrad2rgrad(m.id, (double *)x, (double *)egrad, out);
}
int rhgd_manifold_ehess2rhess(rhgd_manifold m, const double *x, const double *egrad, const double *ehess,
                              const double *u, double *out) {
	return rhgdgo_manifold_ehess2rhess(m.id, (double *)x, (double *)egrad, (double *)ehess, (double *)u, out);
}
int rhgd_manifold_transport(rhgd_manifold m, const double *x, const double *y, const double *u, double *out) {
	return rhgdgo_manifold_transport(m.id, (double *)x, (double *)y, (double *)u, out);
}
int rhgd_manifold_rand_tangent(rhgd_manifold m, const double *x, uint64_t seed, double *out) {
	return rhgdgo_manifold_rand_tangent(m.id, (double *)x, seed, out);
}
int rhgd_manifold_check_tangent(rhgd_manifold m, const double *x, const double *u) {
	return rhgdgo_manifold_check_tangent(m.id, (double *)x, (double *)u);
}
int rhgd_sylvester(int64_t m, int64_t n, const double *a, const double *b, const double *c, double *x) {
	return rhgdgo_sylvester(m, n, (double *)a, (double *)b, (double *)c, x);
}
int rhgd_lyapunov(int64_t n, const double *a, const double *c, double *x) {
	return rhgdgo_lyapunov(n, (double *)a, (double *)c, x);
}
int rhgd_expsym_frechet(int64_t n, const double *a, const double *e, double *out) {
	return rhgdgo_expsym_frechet(n, (double *)a, (double *)e, out);
}
int rhgd_logsym_frechet(int64_t n, const double *a, const double *e, double *out) {
	return rhgdgo_logsym_frechet(n, (double *)a, (double *)e, out);
}
int rhgd_sqrtsym_frechet(int64_t n, const double *a, const double *e, double *out) {
	return rhgdgo_sqrtsym_frechet(n, (double *)a, (double *)e, out);
}

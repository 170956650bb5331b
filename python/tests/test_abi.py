"""The 0.2 ABI from Python: finite-sum callback problems get RSHGD's
minibatches, lower_solve, hess_gy_inv and lower_steps reach the solver,
handles of one kind are refused where another is expected, and results
carry the best iterates and every history column."""

import collections
import ctypes

import numpy as np
import pytest

import rhgd
from rhgd import _lib
from rhgd._handle import _new_handle

# g_i(x, y) = 1/2 a_i |y|^2 - b_i y'x,  f_i(x, y) = 1/2 |y - c_i|^2 + lam/2 |x|^2 on R^2 x R^2:
# y*(x) = kappa x with kappa = mean(b) / mean(a), x* = kappa mean(c) / (kappa^2 + lam).
A = np.array([1.0, 2.0, 3.0, 2.0])
B = np.array([1.0, 0.5, 2.0, 0.5])
C = np.array([[1.0, 0.0], [0.0, -1.0], [2.0, 1.0], [1.0, -4.0]])
LAM = 0.1
KAPPA = B.mean() / A.mean()
XSTAR = KAPPA * C.mean(axis=0) / (KAPPA ** 2 + LAM)


def finite_sum(seen, lower_solve=False, gradients="euclidean", hinv=None):
    def idx(batch):
        if batch is None:
            seen["full"] += 1
            return np.arange(len(A))
        seen["batch"] += 1
        assert batch.dtype == np.int64 and len(batch) > 0 and batch.min() >= 0 and batch.max() < len(A)
        return batch

    def f(x, y, batch):
        i = idx(batch)
        return 0.5 * np.mean(np.sum((y - C[i]) ** 2, axis=1)) + 0.5 * LAM * x @ x

    def lsolve(x, y, batch):
        i = idx(batch)
        seen["solve"] += 1
        return B[i].mean() / A[i].mean() * x

    def hess_gy_inv(x, y, v, batch):
        seen.setdefault("hinv_sizes", set()).add(None if batch is None else len(batch))
        return v / A[idx(batch)].mean()

    if hinv is None:
        hinv = gradients == "riemannian"
    return rhgd.Problem(
        rhgd.Euclidean(2), rhgd.Euclidean(2), f=f,
        grad_fx=lambda x, y, batch: LAM * x,
        grad_fy=lambda x, y, batch: y - C[idx(batch)].mean(axis=0),
        grad_gy=lambda x, y, batch: A[idx(batch)].mean() * y - B[idx(batch)].mean() * x,
        grad_gx=lambda x, y, batch: -B[idx(batch)].mean() * y,
        hess_gy=lambda x, y, v, batch: A[idx(batch)].mean() * v,
        cross_gxy=lambda x, y, v, batch: -B[idx(batch)].mean() * v,
        hess_gy_inv=hess_gy_inv if hinv else None,
        lower_solve=lsolve if lower_solve else None,
        gradients=gradients, n_f=len(A), n_g=len(A), x0=np.zeros(2), y0=np.zeros(2))


def test_rshgd_batches_reach_python():
    seen = dict(full=0, batch=0, solve=0)
    p = finite_sum(seen)
    r = rhgd.minimize(p, estimator="cg", epochs=40, inner=5, eta_x=0.5, eta_y=0.2, batch_lower=2, batch_upper=2,
                      batch_cross=3, batch_hess=3, seed=4)
    assert r.status_name == "IterationLimit"
    assert seen["batch"] > 0


def test_lower_solve_and_hinv():
    seen = dict(full=0, batch=0, solve=0)
    p = finite_sum(seen, lower_solve=True, gradients="riemannian")
    r = rhgd.minimize(p, estimator="hinv", epochs=300, eta_x=0.5, lower_solve=True, grad_tol=1e-11)
    assert seen["solve"] > 0 and r.lower_solves == seen["solve"]
    np.testing.assert_allclose(r.x, XSTAR, atol=1e-8)
    assert r.best_x.shape == (2,) and r.best_f <= r.history["f"].min() + 1e-15


def test_hinv_beside_euclidean_oracles():
    # hess_gy_inv is Riemannian whatever gradients= says (on R^2 the same
    # as the Euclidean inverse); it gets the batch the Hessian would: all
    # components without minibatches, RSHGD's B4 (batch_hess) with them.
    seen = dict(full=0, batch=0, solve=0)
    p = finite_sum(seen, hinv=True)
    r = rhgd.minimize(p, estimator="hinv", epochs=500, eta_x=0.5, eta_y=0.2, inner=30, grad_tol=1e-11)
    np.testing.assert_allclose(r.x, XSTAR, atol=1e-8)
    assert seen.pop("hinv_sizes") == {len(A)}
    rhgd.minimize(p, estimator="hinv", epochs=10, inner=5, eta_x=0.5, eta_y=0.2, batch_lower=2, batch_upper=2,
                  batch_cross=3, batch_hess=1, seed=4)
    assert seen["hinv_sizes"] == {1}


def test_history_columns_and_results():
    seen = dict(full=0, batch=0, solve=0)
    r = rhgd.minimize(finite_sum(seen), estimator="cg", epochs=3)
    n = ctypes.c_int64()
    _lib.check(_lib.lib().rhgd_history_cols(ctypes.byref(n)))
    assert n.value >= _lib.HISTORY_COLS
    names = _lib.copy_out(_lib.lib().rhgd_history_names).split(",")
    assert tuple(names[:_lib.HISTORY_COLS]) == _lib.HISTORY_NAMES
    assert set(r.history) == set(_lib.HISTORY_NAMES)
    fields = _lib.copy_out(_lib.lib().rhgd_result_names).split(",")
    assert fields == [name for name, _ in _lib.Result._fields_[1:]]


def test_handle_kinds_distinct():
    lib = _lib.lib()
    m = rhgd.Euclidean(2)
    with pytest.raises(ctypes.ArgumentError):
        lib.rhgd_solver_free(_lib.ManifoldT(m.handle))
    assert lib.rhgd_solver_free(_lib.SolverT(m.handle)) == _lib.EBADHANDLE


def _quad_handles(lower_steps, seen):
    """The quadratic problem g = 1/2 sum_i a_i y_i^2 - y'Bx, f = 1/2 |y - c|^2
    + lam/2 |x|^2 on R^3 x R^4 by raw rhgd_oracles (Euclidean), with a
    Python lower_steps when asked: the ctypes layout of _lib.Oracles and
    _lib.STEPS_FN, as rhgd.torch uses them."""
    a, c = np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, -1.0, 0.5, 2.0])
    b = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.0], [0.2, 0.3, 1.0], [1.0, 1.0, 1.0]])
    lx, ly = 3, 4

    def arr(p, n):
        return np.ctypeslib.as_array((ctypes.c_double * n).from_address(p))

    def grad_gy(x, y):
        return a * y - b @ x

    def value(fn):
        def cb(user, x, y, batch, nbatch, out):
            arr(out, 1)[0] = fn(arr(x, lx), arr(y, ly))
            return 0
        return _lib.VALUE_FN(cb)

    def grad(fn, n, name):
        def cb(user, x, y, batch, nbatch, out):
            seen[name] = seen.get(name, 0) + 1
            arr(out, n)[:] = fn(arr(x, lx), arr(y, ly))
            return 0
        return _lib.VALUE_FN(cb)

    def hvp(fn, n):
        def cb(user, x, y, batch, nbatch, v, out):
            arr(out, n)[:] = fn(arr(v, ly))
            return 0
        return _lib.HVP_FN(cb)

    def steps(user, x, y, batch, nbatch, n, eta, y_out, grad_norms):
        seen["lower_steps"] = seen.get("lower_steps", 0) + 1
        seen["batch"] = seen.get("batch", 0) + (batch is not None or nbatch != 0)
        xs, yo, norms = arr(x, lx), arr(y_out, ly), arr(grad_norms, n)
        yo[:] = arr(y, ly)
        for s in range(n):
            gy = grad_gy(xs, yo)
            norms[s] = np.linalg.norm(gy)
            yo -= eta * gy
        return 0

    c_fns = dict(f=value(lambda x, y: 0.5 * (y - c) @ (y - c) + 0.05 * x @ x),
                 grad_fx=grad(lambda x, y: 0.1 * x, lx, "grad_fx"), grad_fy=grad(lambda x, y: y - c, ly, "grad_fy"),
                 grad_gy=grad(grad_gy, ly, "grad_gy"), hess_gy=hvp(lambda v: a * v, ly),
                 cross_gxy=hvp(lambda v: -b.T @ v, lx))
    if lower_steps:
        c_fns["lower_steps"] = _lib.STEPS_FN(steps)
    o = _lib.Oracles(**c_fns)
    mx, my = rhgd.Euclidean(lx), rhgd.Euclidean(ly)
    ph = _new_handle(_lib.lib().rhgd_problem_callbacks, mx.handle, my.handle, ctypes.byref(o), 1, None)
    return ph, (c_fns, o, mx, my)


def test_lower_steps_from_python():
    lib = _lib.lib()
    xs, grads = [], []
    for fused in (False, True):
        seen = {}
        ph, keep = _quad_handles(fused, seen)
        try:
            sh = _new_handle(lib.rhgd_solver_new, ph, b"cg", b"epochs=30,inner=10,eta_x=0.5,eta_y=0.2")
            try:
                x0, y0 = np.zeros(3), np.zeros(4)
                _lib.check(lib.rhgd_solver_run(sh, x0.ctypes.data, y0.ctypes.data, _lib.EPOCH_FN(), None))
                x = np.zeros(3)
                _lib.check(lib.rhgd_solver_x(sh, 3, x.ctypes.data))
                xs.append(x)
            finally:
                lib.rhgd_solver_free(sh)
        finally:
            lib.rhgd_problem_free(ph)
        grads.append(seen.get("grad_gy", 0))  # on a Euclidean My only the lower steps call it
        if fused:
            assert seen["lower_steps"] == 31 and seen["batch"] == 0  # each epoch and the final lower solve
    assert grads[0] - grads[1] == 31 * 10 and grads[1] == 0
    # The same gradients and steps (y - eta g rounds as y + (-eta) g):
    # only the norms may round otherwise, and the solver only checks them.
    np.testing.assert_array_equal(xs[1], xs[0])


def _spd_problem(n, batch, seen):
    """g(x, Y) = <Y, S(x)> - log det Y, f = 1/2 |Y - C|^2 + lam/2 |x|^2 on
    R^2 x SPD(n), Euclidean oracles; with hess_gy_batch when batch (each
    row as hess_gy computes it, so the products are bitwise the same)."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((n, n))
    s0 = a @ a.T / n + np.eye(n)
    e0, e1 = np.diag(np.linspace(-1, 1, n)), (a + a.T) / (4 * n)
    c = np.eye(n) * 0.7
    S = lambda x: s0 + x[0] * e0 + x[1] * e1  # noqa: E731

    def hess(x, y, v):
        seen["hess_gy"] += 1
        yi = np.linalg.inv(y)
        return yi @ v @ yi

    def hess_batch(x, y, V):
        seen["hess_gy_batch"] += 1
        seen["k"] = V.shape[0]
        assert V.shape == (V.shape[0], n, n)
        yi = np.linalg.inv(y)
        return np.stack([yi @ v @ yi for v in V])

    return rhgd.Problem(
        rhgd.Euclidean(2), rhgd.SPD(n), f=lambda x, y: 0.5 * np.sum((y - c) ** 2) + 0.05 * x @ x,
        grad_fx=lambda x, y: 0.1 * x, grad_fy=lambda x, y: y - c,
        g=lambda x, y: np.sum(y * S(x)) - np.linalg.slogdet(y)[1],
        grad_gy=lambda x, y: S(x) - np.linalg.inv(y),
        grad_gx=lambda x, y: np.array([np.sum(y * e0), np.sum(y * e1)]),
        hess_gy=hess, cross_gxy=lambda x, y, v: np.array([np.sum(v * e0), np.sum(v * e1)]),
        hess_gy_batch=hess_batch if batch else None)


def test_hess_gy_batch_callbacks():
    # rhgd.Problem's hess_gy_batch(x, y, V), V of shape (k, *y.shape): the
    # library's derived 'hinv' on SPD(4) (dimension 10) calls it once per
    # point with k = 10 in place of 10 hess_gy calls, and gives bitwise the
    # hypergradient of the problem without it (its rows are hess_gy's, and
    # the library converts each as it converts hess_gy's); Problem.check
    # compares it with hess_gy.
    x, y = np.array([0.1, -0.2]), np.eye(4) + 0.1 * np.ones((4, 4))
    seen = [collections.Counter(), collections.Counter()]
    h = [rhgd.hypergradient(_spd_problem(4, b, seen[b]), x, y, estimator="hinv", inner=5, eta_y=0.2)
         for b in (False, True)]
    assert np.array_equal(h[0], h[1])
    assert seen[1]["hess_gy_batch"] == 1 and seen[1]["k"] == 10 and seen[1]["hess_gy"] == 0
    assert seen[0]["hess_gy"] == 10
    rep = _spd_problem(4, True, collections.Counter()).check(x, y)
    assert {r["name"]: r["ok"] for r in rep["reports"]}["HessGyBatch"], rep

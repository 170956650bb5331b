"""The 0.2 ABI from Python: finite-sum callback problems get RSHGD's
minibatches, lower_solve and hess_gy_inv reach the solver, handles of one
kind are refused where another is expected, and results carry the best
iterates and every history column."""

import ctypes

import numpy as np
import pytest

import rhgd
from rhgd import _lib

# g_i(x, y) = 1/2 a_i |y|^2 - b_i y'x,  f_i(x, y) = 1/2 |y - c_i|^2 + lam/2 |x|^2 on R^2 x R^2:
# y*(x) = kappa x with kappa = mean(b) / mean(a), x* = kappa mean(c) / (kappa^2 + lam).
A = np.array([1.0, 2.0, 3.0, 2.0])
B = np.array([1.0, 0.5, 2.0, 0.5])
C = np.array([[1.0, 0.0], [0.0, -1.0], [2.0, 1.0], [1.0, -4.0]])
LAM = 0.1
KAPPA = B.mean() / A.mean()
XSTAR = KAPPA * C.mean(axis=0) / (KAPPA ** 2 + LAM)


def finite_sum(seen, lower_solve=False, gradients="euclidean"):
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

    return rhgd.Problem(
        rhgd.Euclidean(2), rhgd.Euclidean(2), f=f,
        grad_fx=lambda x, y, batch: LAM * x,
        grad_fy=lambda x, y, batch: y - C[idx(batch)].mean(axis=0),
        grad_gy=lambda x, y, batch: A[idx(batch)].mean() * y - B[idx(batch)].mean() * x,
        grad_gx=lambda x, y, batch: -B[idx(batch)].mean() * y,
        hess_gy=lambda x, y, v, batch: A[idx(batch)].mean() * v,
        cross_gxy=lambda x, y, v, batch: -B[idx(batch)].mean() * v,
        hess_gy_inv=(lambda x, y, v, batch: v / A[idx(batch)].mean()) if gradients == "riemannian" else None,
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

"""Bilevel problems from Python: the paper's synthetic problem written in
numpy against the same problem built into the library (Go), callbacks,
errors, threads."""

import gc
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import rhgd

from _synthetic import D, R, draw

NU = 0.01


def synthetic_data(seed=11):
    x, y, w0 = draw(np.random.default_rng(seed))
    return dict(X=x, Y=y, W0=w0, M0=np.eye(D), nu=np.array(NU))


def sym(a):
    return (a + a.T) / 2


class SyntheticNumpy:
    """The synthetic problem (paper, Sec. 4.1) in numpy, with the Riemannian
    oracles of problems/synthetic:  f(W, M) = -tr(M XᵀY Wᵀ) on St(d, r),
    g(W, M) = <M, XᵀX> + <M⁻¹, W YᵀY Wᵀ + νI> on SPD(d)."""

    def __init__(self, data):
        x, y = data["X"], data["Y"]
        self.a, self.c, self.yty, self.nu = x.T @ x, x.T @ y, y.T @ y, float(data["nu"])

    def b(self, w):
        return w @ self.yty @ w.T + self.nu * np.eye(len(w))

    @staticmethod
    def proj(w, v):
        return v - w @ sym(w.T @ v)

    def f(self, w, m):
        return -np.sum((m @ self.c) * w)

    def grad_fx(self, w, m):
        return -self.proj(w, m @ self.c)

    def grad_fy(self, w, m):
        return -m @ sym(w @ self.c.T) @ m

    def g(self, w, m):
        return np.sum(m * self.a) + np.sum(np.linalg.inv(m) * self.b(w))

    def grad_gy(self, w, m):
        return sym(m @ self.a @ m - self.b(w))

    def grad_gx(self, w, m):
        return self.proj(w, 2 * np.linalg.solve(m, w @ self.yty))

    def hess_gy(self, w, m, u):
        t = self.a @ m + np.linalg.solve(m, self.b(w))
        return sym(u @ t)

    def cross_gxy(self, w, m, v):
        mi = np.linalg.inv(m)
        return -2 * self.proj(w, mi @ v @ mi @ w @ self.yty)

    def cross_gyx(self, w, m, u):
        p = u @ self.yty @ w.T
        return -(p + p.T)

    def hess_gy_inv(self, w, m, v):
        l = np.linalg.cholesky(m)
        li = np.linalg.inv(l)
        lam, q = np.linalg.eigh(sym(li @ (m @ self.a @ m + self.b(w)) @ li.T))
        z = (2 * q.T @ li @ v @ li.T @ q) / (lam[:, None] + lam[None, :])
        lq = l @ q
        return sym(lq @ z @ lq.T)

    # Euclidean gradients (the library converts them and fills the
    # second-order oracles by finite differences)
    def egrad_fx(self, w, m):
        return -m @ self.c

    def egrad_fy(self, w, m):
        return -w @ self.c.T

    def egrad_gy(self, w, m):
        mi = np.linalg.inv(m)
        return self.a - mi @ self.b(w) @ mi

    def egrad_gx(self, w, m):
        return 2 * np.linalg.solve(m, w @ self.yty)


def python_problem(data, riemannian=True):
    s = SyntheticNumpy(data)
    mx, my = rhgd.Stiefel(D, R), rhgd.SPD(D)
    if riemannian:
        return rhgd.Problem(mx, my, f=s.f, grad_fx=s.grad_fx, grad_fy=s.grad_fy, grad_gy=s.grad_gy, g=s.g,
                            grad_gx=s.grad_gx, hess_gy=s.hess_gy, cross_gxy=s.cross_gxy, cross_gyx=s.cross_gyx,
                            hess_gy_inv=s.hess_gy_inv, gradients="riemannian", x0=data["W0"], y0=data["M0"])
    return rhgd.Problem(mx, my, f=s.f, grad_fx=s.egrad_fx, grad_fy=s.egrad_fy, grad_gy=s.egrad_gy, g=s.g,
                        grad_gx=s.egrad_gx, gradients="euclidean", x0=data["W0"], y0=data["M0"])


@pytest.mark.parametrize("estimator", ["hinv", "cg", "ns", "ad"])
def test_python_problem_matches_go(estimator):
    """The same problem, same data, same start: numpy oracles through
    callbacks and the Go problem give the same trajectory."""
    data = synthetic_data()
    go = rhgd.builtin("synthetic", data=data)
    py = python_problem(data)
    rg = rhgd.minimize(go, estimator=estimator, epochs=25)
    rp = rhgd.minimize(py, estimator=estimator if estimator not in ("cg", "ns") else
                       {"cg": "cg:maxiter=50,tol=1e-10", "ns": "ns:gamma=1,terms=50"}[estimator], epochs=25,
                           eta_x=0.5, eta_y=0.5)  # the paper's, which the built-in problem carries
    assert rg.settings == rp.settings
    assert rg.nit == rp.nit == 25 and rg.status_name == rp.status_name == "IterationLimit"
    fg, fp = rg.history["f"], rp.history["f"]
    assert np.max(np.abs(fg - fp)) < 1e-10 * np.max(np.abs(fg)), (fg - fp)
    assert np.max(np.abs(rg.x.ravel() - rp.x.ravel())) < 1e-10
    assert np.max(np.abs(rg.y.ravel() - rp.y.ravel())) < 1e-10
    assert rp.x.shape == (D, R) and rp.y.shape == (D, D)


def test_euclidean_gradients_with_finite_differences():
    """Euclidean numpy gradients, Hessian and cross derivative left to the
    library's finite differences: the run agrees with the exact Go one to
    the differences' accuracy."""
    data = synthetic_data(12)
    rg = rhgd.minimize(rhgd.builtin("synthetic", data=data), estimator="cg", epochs=15)
    rp = rhgd.minimize(python_problem(data, riemannian=False), estimator="cg:maxiter=50,tol=1e-10", epochs=15,
                       eta_x=0.5, eta_y=0.5)
    assert np.max(np.abs(rg.history["f"] - rp.history["f"])) < 1e-7
    assert rg.x.shape == rp.x.shape == (D, R)
    assert np.max(np.abs(rg.x - rp.x)) < 1e-6


def test_oracles_match_go():
    """Each numpy oracle against the Go problem's at the start."""
    data = synthetic_data(13)
    go, py = rhgd.builtin("synthetic", data=data), python_problem(data)
    x, y = go.start()
    rng = np.random.default_rng(1)
    v = rng.standard_normal((D, D))
    v = (v + v.T) / 2
    u = rhgd.Stiefel(D, R).project(x.reshape(D, R), rng.standard_normal((D, R)))
    for name, vec in [("f", None), ("g", None), ("grad_fx", None), ("grad_fy", None), ("grad_gy", None),
                      ("grad_gx", None), ("hess_gy", v), ("cross_gxy", v), ("cross_gyx", u), ("hess_gy_inv", v)]:
        a, b = go.oracle(name, x, y, vec), py.oracle(name, x, y, vec)
        assert np.max(np.abs(a - b)) <= 1e-12 * max(1.0, np.max(np.abs(a))), name


def quad():
    """min_x 1/2|y*(x) - c|^2 + lambda/2 |x|^2, y*(x) = A⁻¹Bx, with its
    closed-form solution."""
    rng = np.random.default_rng(3)
    k, m, lam = 3, 5, 0.1
    a = np.diag(np.linspace(1, 3, m))
    b, c = rng.standard_normal((m, k)), rng.standard_normal(m)
    mm = np.linalg.solve(a, b)
    xstar = np.linalg.solve(mm.T @ mm + lam * np.eye(k), mm.T @ c)
    eta_x = 1 / np.linalg.eigvalsh(mm.T @ mm + lam * np.eye(k))[-1]  # F's smoothness
    oracles = dict(
        f=lambda x, y: 0.5 * np.sum((y - c) ** 2) + 0.5 * lam * np.sum(x ** 2),
        grad_fx=lambda x, y: lam * x, grad_fy=lambda x, y: y - c,
        grad_gy=lambda x, y: a @ y - b @ x, grad_gx=lambda x, y: -b.T @ y)
    return k, m, oracles, xstar, eta_x


def test_minimize_callables_closed_form():
    k, m, o, xstar, eta_x = quad()
    r = rhgd.minimize(rhgd.Problem(rhgd.Euclidean(k), rhgd.Euclidean(m), **o), np.zeros(k), np.zeros(m),
                      estimator="cg", eta_x=eta_x, eta_y=0.3, inner=40, epochs=5000, grad_tol=1e-10)
    assert r.success and r.status_name == "GradientThreshold"
    assert np.max(np.abs(r.x - xstar)) < 1e-8
    assert r.x.shape == (k,)


def test_result_fun_is_f_at_x_y():
    """fun is f at the returned x and y, and best_f at best_x and best_y
    (issue 27: fun was f at the point before the last upper step, beside
    the x after it). After the epoch limit the run solved the lower problem
    at the returned x: with lower_solve, y is y*(x) exactly."""
    k, m, o, _, eta_x = quad()
    a = np.diag(np.linspace(1, 3, m))  # quad()'s A: y*(x) = y - A⁻¹ grad_gy(x, y)
    lower = lambda x, y: y - np.linalg.solve(a, o["grad_gy"](x, y))
    g = lambda x, y: y @ o["grad_gy"](x, y) - 0.5 * y @ a @ y  # ½yᵀAy − yᵀBx, as Bx = Ay − grad_gy
    p = rhgd.Problem(rhgd.Euclidean(k), rhgd.Euclidean(m), **o, g=g, lower_solve=lower,
                     x0=np.ones(k), y0=np.zeros(m))
    for settings in (dict(inner=5, eta_y=0.3), dict(lower_solve=True),
                     dict(preset="adaptive", lower_solve=False, rel_grad_tol=0), dict(preset="adarhd")):
        r = rhgd.minimize(p, estimator="cg", eta_x=eta_x, epochs=6, **settings)
        assert r.status_name == "IterationLimit" and r.nit == 6, settings
        f = p.oracle("f", r.x, r.y)
        assert abs(r.fun - f) <= 1e-14 * max(1.0, abs(f)), (settings, r.fun, f)
        bf = p.oracle("f", r.best_x, r.best_y)
        assert abs(r.best_f - bf) <= 1e-14 * max(1.0, abs(bf)), (settings, r.best_f, bf)
        if settings.get("lower_solve"):
            assert np.max(np.abs(r.y - lower(r.x, r.y))) <= 1e-14 and r.lower_solves == 7
    # A built-in problem on manifolds, the paper's settings.
    g = rhgd.builtin("synthetic", n=30, d=8, r=3)
    r = rhgd.minimize(g, estimator="hinv", epochs=4)
    assert r.status_name == "IterationLimit"
    assert abs(r.fun - g.oracle("f", r.x, r.y)) <= 1e-12 * abs(r.fun)
    assert abs(r.best_f - g.oracle("f", r.best_x, r.best_y)) <= 1e-12 * abs(r.best_f)


def test_minimize_takes_a_problem():
    """minimize has one signature: a Problem, the start and settings. The
    removed form with the manifolds and oracles as minimize's keywords, and
    anything that is not a Problem, are TypeErrors saying what to build."""
    k, m, o, _, _ = quad()
    with pytest.raises(TypeError, match=r"got f, grad_fx, grad_fy, grad_gx, grad_gy, mx, my.*rhgd\.Problem\(mx, my"):
        rhgd.minimize(mx=rhgd.Euclidean(k), my=rhgd.Euclidean(m), x0=np.zeros(k), y0=np.zeros(m), **o)
    p = rhgd.Problem(rhgd.Euclidean(k), rhgd.Euclidean(m), **o)
    with pytest.raises(TypeError, match="got lower_solve"):
        rhgd.minimize(p, np.zeros(k), np.zeros(m), lower_solve=lambda x, y: y)
    with pytest.raises(TypeError, match="got str"):
        rhgd.minimize("synthetic")
    with pytest.raises(TypeError):
        rhgd.minimize(p, np.zeros(k), np.zeros(m), "cg")  # the estimator is a keyword
    r = rhgd.minimize(p, np.zeros(k), np.zeros(m), estimator="cg", epochs=3)
    assert r.nit == 3


def test_callback_cancel_and_errors():
    k, m, o, _, _ = quad()
    p = rhgd.Problem(rhgd.Euclidean(k), rhgd.Euclidean(m), **o, x0=np.zeros(k), y0=np.zeros(m))
    seen = []

    def stop_at_3(info):
        seen.append((info["epoch"], info["f"], info["x"]))
        return info["epoch"] == 3

    r = rhgd.minimize(p, estimator="cg", epochs=50, callback=stop_at_3)
    assert r.status_name == "Cancelled" and not r.success and r.nit == 4
    assert [s[0] for s in seen] == [0, 1, 2, 3]
    assert np.array_equal(r.history["f"], [s[1] for s in seen])
    assert seen[0][2].shape == (k,) and seen[1][2] is not seen[0][2]

    # An exception in the epoch callback stops the run and propagates.
    with pytest.raises(ZeroDivisionError):
        rhgd.minimize(p, epochs=50, callback=lambda info: 1 / 0)

    # An exception in an oracle: CallbackError caused by it, with the result.
    def bad(x, y):
        raise KeyError("oops")

    pb = rhgd.Problem(rhgd.Euclidean(k), rhgd.Euclidean(m), f=o["f"], grad_fx=o["grad_fx"],
                      grad_fy=o["grad_fy"], grad_gy=bad, grad_gx=o["grad_gx"], x0=np.zeros(k), y0=np.zeros(m))
    with pytest.raises(rhgd.CallbackError, match="the grad_gy callback raised KeyError: 'oops'") as e:
        rhgd.minimize(pb, estimator="cg", epochs=5)
    assert isinstance(e.value.__cause__, KeyError)
    assert e.value.result is not None and e.value.result.status_name == "Failure"

    # An oracle returning the wrong size.
    pw = rhgd.Problem(rhgd.Euclidean(k), rhgd.Euclidean(m), f=o["f"], grad_fx=lambda x, y: np.zeros(k + 1),
                      grad_fy=o["grad_fy"], grad_gy=o["grad_gy"], grad_gx=o["grad_gx"],
                      x0=np.zeros(k), y0=np.zeros(m))
    with pytest.raises(rhgd.CallbackError) as e:
        rhgd.minimize(pw, estimator="cg", epochs=5)
    assert isinstance(e.value.__cause__, ValueError) and "grad_fx returned 4 entries" in str(e.value.__cause__)

    # Bad settings and estimators.
    with pytest.raises(rhgd.InvalidArgument, match="eta_x"):
        rhgd.Solver(p, "cg", eta_x=-1)
    with pytest.raises(rhgd.InvalidArgument, match="unknown estimator"):
        rhgd.Solver(p, "newton")
    # Without hess_gy_inv, 'hinv' derives the inverse from hess_gy (here
    # finite differences of grad_gy) up to its maxdim, and is missing above.
    with pytest.raises(rhgd.InvalidArgument, match=r"missing oracle: \[hess_gy_inv\].*maxdim = 1,.*dimension 5"):
        rhgd.Solver(p, "hinv:maxdim=1")
    assert rhgd.Solver(p, "hinv").settings.startswith("hinv")


def test_problem_keyword_only():
    """Problem takes the manifolds positionally and every oracle by name:
    oracles given in order are a TypeError, not a silent swap."""
    k, m, o, _, _ = quad()
    e1, e2 = rhgd.Euclidean(k), rhgd.Euclidean(m)
    with pytest.raises(TypeError):
        rhgd.Problem(e1, e2, o["f"], o["grad_fx"], o["grad_fy"], o["grad_gy"])
    with pytest.raises(TypeError, match="grad_gy"):
        rhgd.Problem(e1, e2, f=o["f"], grad_fx=o["grad_fx"], grad_fy=o["grad_fy"])
    assert rhgd.Problem(e1, e2, **o).len_x == k


def test_finite_difference_oracles():
    k, m, o, _, _ = quad()
    p = rhgd.Problem(rhgd.Euclidean(k), rhgd.Euclidean(m), **o)
    rng = np.random.default_rng(5)
    x, y, v = rng.standard_normal(k), rng.standard_normal(m), rng.standard_normal(m)
    a = np.diag(np.linspace(1, 3, m))
    assert np.max(np.abs(p.oracle("hess_gy", x, y, v) - a @ v)) < 1e-8
    with pytest.raises(rhgd.InvalidArgument, match="no hess_gy_inv"):
        p.oracle("hess_gy_inv", x, y, v)


def test_builtin_params_and_errors():
    assert "synthetic" in rhgd.problem_names()
    params = rhgd.problem_params("synthetic")
    assert params["nu"][0] == "0.01" and params["d"][0] == "50"
    with pytest.raises(rhgd.InvalidArgument, match='unknown parameter "bogus"'):
        rhgd.builtin("synthetic", bogus=1)
    with pytest.raises(rhgd.InvalidArgument, match="unknown problem"):
        rhgd.builtin("nope")
    with pytest.raises(rhgd.InvalidArgument):
        rhgd.builtin("synthetic", data={"X": np.zeros((5, 3))})  # no Y
    p = rhgd.builtin("synthetic", n=30, d=8, r=3, seed=4)
    assert p.describe.startswith("synthetic: St(8,3) × SPD(8)") and (p.len_x, p.len_y) == (24, 64)
    r = rhgd.minimize(p, estimator="hinv", epochs=5)
    assert r.settings.startswith("hinv;preset=paper,eta_x=0.5,eta_y=0.5,inner=20,epochs=5,")
    with pytest.raises(rhgd.InvalidArgument, match="has no accuracy"):
        p.accuracy(r.x, r.y)


# A child started from a shell's background job inherits SIGINT ignored
# (bash without job control), and Python then installs no handler of its
# own: the tests restore Python's, as an interactive session has it.
RESTORE_SIGINT = "signal.signal(signal.SIGINT, signal.default_int_handler)\n"


def test_keyboard_interrupt():
    """Ctrl-C during a run on the main thread stops it within an epoch and
    raises KeyboardInterrupt (with and without an epoch callback)."""
    code = ("import os, signal, threading, rhgd\n"
            + RESTORE_SIGINT +
            "p = rhgd.builtin('synthetic', n=40, d=12, r=4)\n"
            "for cb in (None, lambda info: False):\n"
            "    s = rhgd.Solver(p, 'hinv', epochs=10**8)\n"
            "    threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
            "    try:\n"
            "        s.run(callback=cb)\n"
            "        raise SystemExit('not interrupted')\n"
            "    except KeyboardInterrupt:\n"
            "        r = s.result()\n"
            "        assert r.status_name == 'Cancelled' and 0 < r.nit < 10**8, r.status_name\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=os.environ.copy(), timeout=120)


def test_keyboard_interrupt_before_the_run():
    """A Ctrl-C that lands after Solver.run installs its handler but before
    the library's run starts (its cancel then finds no run to cancel) still
    stops the run after its first epoch: under load the Timer of the test
    above hit that window, and the run went on for 10**8 epochs."""
    code = ("import os, signal, time, rhgd, rhgd._lib as L\n"
            "real = L.lib()\n"
            "class Late:\n"
            "    def __getattr__(self, name): return getattr(real, name)\n"
            "    def rhgd_solver_run(self, *a):\n"
            "        os.kill(os.getpid(), signal.SIGINT); time.sleep(0.05)  # the handler runs here\n"
            "        return real.rhgd_solver_run(*a)\n"
            "L.lib = lambda: Late()\n"
            + RESTORE_SIGINT +
            "p = rhgd.builtin('synthetic', n=40, d=12, r=4)\n"
            "for cb in (None, lambda info: False):\n"
            "    s = rhgd.Solver(p, 'hinv', epochs=10**8)\n"
            "    try:\n"
            "        s.run(callback=cb)\n"
            "        raise SystemExit('not interrupted')\n"
            "    except KeyboardInterrupt:\n"
            "        r = s.result()\n"
            "        assert r.status_name == 'Cancelled' and r.nit == 1, (r.status_name, r.nit)\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=os.environ.copy(), timeout=60)


def run_builtin(seed):
    p = rhgd.builtin("synthetic", n=40, d=12, r=4, seed=seed)
    return rhgd.minimize(p, estimator="hinv", epochs=30).x


def test_threads():
    """Independent problems on Python threads (ctypes releases the GIL):
    the serial results, bitwise."""
    serial = [run_builtin(s) for s in range(4)]
    with ThreadPoolExecutor(4) as ex:
        parallel = list(ex.map(run_builtin, range(4)))
    for a, b in zip(serial, parallel):
        assert np.array_equal(a, b)


def test_busy_and_cancel_from_another_thread():
    p = rhgd.builtin("synthetic", n=40, d=12, r=4, seed=1)
    s = rhgd.Solver(p, "hinv", epochs=100000)
    started = threading.Event()
    out = {}

    def run():
        out["r"] = s.run(callback=lambda info: started.set())

    t = threading.Thread(target=run)
    t.start()
    assert started.wait(30)
    with pytest.raises(rhgd.BusyError):
        s.run()
    time.sleep(0.05)
    s.cancel()
    t.join(30)
    assert out["r"].status_name == "Cancelled" and 0 < out["r"].nit < 100000


def test_handles_are_freed():
    gc.collect()
    before = rhgd.live_handles()
    p = rhgd.builtin("synthetic", n=30, d=8, r=3)
    m = rhgd.SPD(3)
    s = rhgd.Solver(p, "cg", epochs=2)
    s.run()
    assert rhgd.live_handles() == before + 5  # the problem with its two manifolds, m, s
    del p, m, s
    gc.collect()
    assert rhgd.live_handles() == before


def test_manifolds():
    prod = rhgd.Product(rhgd.Stiefel(4, 2), rhgd.SPD(2), rhgd.Euclidean(3))
    assert prod.size == 8 + 4 + 3 and prod.dim == 5 + 3 + 3
    x = prod.rand_point(3)
    prod.check_point(x)
    w, m, e = prod.split(x)
    assert w.shape == (4, 2) and m.shape == (2, 2) and e.shape == (3,)
    m[0, 1] = 10.0  # a view: x is now off the manifold
    with pytest.raises(rhgd.InvalidArgument):
        prod.check_point(x)
    with pytest.raises(rhgd.InvalidArgument, match="retr"):
        rhgd.SPD(3, retraction="polar")
    st = rhgd.Stiefel(5, 2, retraction="polar")
    x = st.rand_point(1)
    y = st.retract(x, st.project(x, np.ones((5, 2))), 0.1)
    assert np.allclose(y.T @ y, np.eye(2), atol=1e-14)


def test_first_order_estimator_gradients_only():
    """The first-order estimator ('fo') needs the five gradients alone: no
    Hessian or cross-derivative product is made (nor filled by finite
    differences), its grad_x g and extra grad_y f evaluations are counted,
    and, on F²SA's schedule (growth given), its penalty iterate approaches
    the closed-form solution as λ grows."""
    k, m, o, xstar, eta_x = quad()
    p = rhgd.Problem(rhgd.Euclidean(k), rhgd.Euclidean(m), **o)
    errs = []
    for epochs in (300, 3000):
        r = rhgd.minimize(p, np.zeros(k), np.zeros(m), estimator="fo:growth=10", eta_x=eta_x, eta_y=0.3, inner=20,
                          epochs=epochs)
        assert r.hess_vecs == 0 and r.cross_vecs == 0
        # grad_x g at y and z, and for the bias estimate (the history's
        # hypergrad_err_bound) at z₂, at z before its last step and at y'.
        assert r.lower_x_grads == 5 * r.nit and r.upper_y_grads > 0
        errs.append(np.max(np.abs(r.x - xstar)) / max(1.0, np.max(np.abs(xstar))))
    print("fo: relative max |x - x*| after 300 and 3000 epochs:", errs)
    assert errs[1] < 0.7 * errs[0] and errs[1] < 2e-3  # O(1/λ): λ doubles from 300 to 3000 epochs

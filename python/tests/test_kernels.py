"""The kernels against scipy and numpy, their errors, and the no-copy path."""

import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.linalg as sla

import rhgd

RNG = np.random.default_rng(20240601)


def sym(n):
    a = RNG.standard_normal((n, n))
    return (a + a.T) / 2


def spd(n, cond=10.0):
    q, _ = np.linalg.qr(RNG.standard_normal((n, n)))
    lam = np.geomspace(1.0, cond, n)
    s = (q * lam) @ q.T
    return (s + s.T) / 2


def rel(a, b):
    return np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300)


@pytest.mark.parametrize("n", [1, 2, 7, 60])
def test_expsym_vs_scipy(n):
    a = sym(n)
    assert rel(rhgd.expsym(a), sla.expm(a)) < 1e-12


@pytest.mark.parametrize("n", [1, 3, 40])
def test_logsym_sqrtsym_vs_scipy(n):
    s = spd(n)
    assert rel(rhgd.logsym(s), np.real(sla.logm(s))) < 1e-11
    assert rel(rhgd.sqrtsym(s), np.real(sla.sqrtm(s))) < 1e-11
    # numpy's eigh-based spectral functions
    lam, v = np.linalg.eigh(s)
    assert rel(rhgd.logsym(s), (v * np.log(lam)) @ v.T) < 1e-12
    assert rel(rhgd.sqrtsym(s), (v * np.sqrt(lam)) @ v.T) < 1e-12


@pytest.mark.parametrize("n", [2, 9, 50])
def test_expm_general_vs_scipy(n):
    a = RNG.standard_normal((n, n)) / np.sqrt(n)
    assert rel(rhgd.expm(a), sla.expm(a)) < 1e-12


@pytest.mark.parametrize("n", [1, 5, 80])
def test_lyapunov_vs_scipy(n):
    a, c = spd(n), sym(n)
    x = rhgd.lyapunov_sym(a, c)
    want = sla.solve_continuous_lyapunov(a, c)  # A X + X A^H = C
    assert rel(x, want) < 1e-10
    assert np.array_equal(x, x.T)
    assert np.max(np.abs(a @ x + x @ a - c)) < 1e-12 * np.max(np.abs(c)) * n


@pytest.mark.parametrize("n", [1, 5, 120])
def test_lyapunov_many(n):
    """Each solution against scipy and its own residual, bit for bit what
    lyapunov_sym gives for that right-hand side alone, batch axes kept; in
    place; the first bad right-hand side named."""
    a = spd(n, 1e3)
    c = np.stack([np.stack([sym(n) * 10.0 ** (i - j) for j in range(3)]) for i in range(2)])  # (2, 3, n, n)
    x = rhgd.lyapunov_sym_many(a, c)
    assert x.shape == c.shape
    for i in range(2):
        for j in range(3):
            xi, ci = x[i, j], c[i, j]
            assert np.array_equal(xi, rhgd.lyapunov_sym(a, ci))
            assert rel(xi, sla.solve_continuous_lyapunov(a, ci)) < 1e-10
            assert np.max(np.abs(a @ xi + xi @ a - ci)) < 1e-12 * np.max(np.abs(ci)) * n
    cc = c.copy()
    assert rhgd.lyapunov_sym_many(a, cc, out=cc) is cc
    assert np.array_equal(cc, x)
    bad = c.reshape(-1, n, n).copy()
    bad[4, 0, 0] = np.nan
    with pytest.raises(rhgd.InvalidArgument, match="c: matrix 4: "):
        rhgd.lyapunov_sym_many(a, bad)
    with pytest.raises(ValueError, match="shape"):
        rhgd.lyapunov_sym_many(a, np.zeros((2, n + 1, n + 1)))
    with pytest.raises(ValueError, match="non-empty"):
        rhgd.lyapunov_sym_many(a, np.zeros((0, n, n)))


def test_spd_maps_vs_formulas():
    n = 6
    x, y = spd(n), spd(n, 100.0)
    u = sym(n)
    lam, v = np.linalg.eigh(x)
    xh, xih = (v * np.sqrt(lam)) @ v.T, (v / np.sqrt(lam)) @ v.T
    want_exp = xh @ sla.expm(xih @ u @ xih) @ xh
    assert rel(rhgd.spd_exp(x, u), want_exp) < 1e-11
    want_log = xh @ np.real(sla.logm(xih @ y @ xih)) @ xh
    assert rel(rhgd.spd_log(x, y), want_log) < 1e-10
    # distance from the generalized eigenvalues of (Y, X)
    want_d = np.sqrt(np.sum(np.log(sla.eigvalsh(y, x)) ** 2))
    assert abs(rhgd.spd_dist(x, y) - want_d) < 1e-12 * want_d


def test_stiefel_qr_vs_numpy():
    n, p = 9, 4
    x, _ = np.linalg.qr(RNG.standard_normal((n, p)))
    u = RNG.standard_normal((n, p))
    u -= x @ ((x.T @ u + u.T @ x) / 2)  # tangent
    q, r = np.linalg.qr(x + u)
    q *= np.sign(np.diag(r))  # R with a positive diagonal
    assert rel(rhgd.stiefel_retr_qr(x, u), q) < 1e-13


def sinkhorn(k, a, b, iters=20000):
    """Plain Sinkhorn balancing of the positive kernel k onto (a, b)."""
    r = np.ones(len(a))
    for _ in range(iters):
        c = b / (k.T @ r)
        r = a / (k @ c)
    return r[:, None] * k * c[None, :]


def test_coupling_vs_numpy_sinkhorn():
    a = np.array([0.2, 0.3, 0.5])
    b = np.array([0.1, 0.4, 0.25, 0.25])
    g = sinkhorn(np.exp(RNG.standard_normal((3, 4))), a, b)
    u = 0.05 * RNG.standard_normal((3, 4))
    u -= u.mean(axis=1, keepdims=True)
    out = rhgd.coupling_retr(a, b, g, u)
    want = sinkhorn(g * np.exp(u / g), a, b)
    assert rel(out, want) < 1e-10
    assert np.allclose(out.sum(axis=1), a, atol=1e-13) and np.allclose(out.sum(axis=0), b, atol=1e-13)


def test_out_and_copies():
    a = sym(5)
    out = np.empty((5, 5))
    r = rhgd.expsym(a, out=out)
    assert r is out and rel(out, sla.expm(a)) < 1e-12
    # in place
    b = a.copy()
    rhgd.expsym(b, out=b)
    assert np.array_equal(b, out)
    # non-contiguous, float32 and list inputs are copied, not rejected
    big = np.zeros((10, 10))
    big[::2, ::2] = a
    assert np.array_equal(rhgd.expsym(big[::2, ::2]), out)
    assert rel(rhgd.expsym(a.astype(np.float32)), sla.expm(a.astype(np.float32).astype(float))) < 1e-12
    assert rel(rhgd.expsym(a.tolist()), out) == 0
    with pytest.raises(ValueError, match="out must be"):
        rhgd.expsym(a, out=np.empty((5, 5), dtype=np.float32))
    with pytest.raises(ValueError, match="out must be"):
        rhgd.expsym(a, out=np.empty((5, 5), order="F"))


def test_errors():
    with pytest.raises(rhgd.InvalidArgument, match="not positive definite") as e:
        rhgd.logsym(np.diag([1.0, -1.0]))
    assert e.value.code == -1 and str(e.value).startswith("rhgd: ")
    assert isinstance(e.value, ValueError)
    with pytest.raises(rhgd.InvalidArgument, match="not symmetric"):
        rhgd.expsym(np.array([[1.0, 2.0], [0.0, 1.0]]))
    with pytest.raises(rhgd.InvalidArgument, match="non-finite"):
        rhgd.expsym(np.array([[np.nan, 0], [0, 1.0]]))
    with pytest.raises(rhgd.NumericalError, match="overflow"):
        rhgd.expm(np.diag([1000.0, 1.0]))
    with pytest.raises(rhgd.InvalidArgument, match="orthonormal"):
        rhgd.stiefel_retr_qr(np.ones((3, 2)), np.zeros((3, 2)))
    with pytest.raises(rhgd.InvalidArgument, match="marginal"):
        rhgd.coupling_retr([0.5, 0.5], [1.0, 1.0], np.full((2, 2), 0.25), np.zeros((2, 2)))
    with pytest.raises(rhgd.NotConverged):
        m = rhgd.Coupling([0.5, 0.5], [0.25, 0.75], maxiter=1)
        g = sinkhorn(np.exp(RNG.standard_normal((2, 2))), m.a, m.b)
        m.retract(g, m.project(g, RNG.standard_normal((2, 2))), 20.0)
    # shapes are checked before the library sees the arrays
    with pytest.raises(ValueError, match="square"):
        rhgd.expsym(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="shape"):
        rhgd.lyapunov_sym(np.eye(3), np.eye(2))


def test_lazy_load():
    """Importing rhgd loads nothing; the first computation does."""
    code = ("import rhgd, numpy\n"
            "maps = lambda: open('/proc/self/maps').read()\n"
            "assert rhgd._lib._lib is None and 'librhgd' not in maps()\n"
            "rhgd.expsym(numpy.eye(2))\n"
            "assert rhgd._lib._lib is not None and 'librhgd' in maps()\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=os.environ.copy())


def marginal_error(g, a, b):
    """(|G 1 - a|_1 + |G' 1 - b|_1) / sum(a), the retraction's measure."""
    return (np.abs(g.sum(1) - a).sum() + np.abs(g.sum(0) - b).sum()) / a.sum()


def slow_step():
    """A 40 x 40 retraction step whose Sinkhorn balancing needs 1186
    iterations to reach 1e-13 (POT's sinkhorn_log: 730 to its default
    threshold)."""
    n = 40
    rng = np.random.default_rng(2024)
    a = 0.5 + rng.random(n)
    b = 0.5 + rng.random(n)
    a, b = a / a.sum(), b / b.sum()
    c = rhgd.Coupling(a, b)
    g = c.rand_point(3)
    u = c.project(g, rng.standard_normal((n, n)) * g) * 20
    return a, b, g, u


def test_coupling_retr_limits_and_best_plan():
    """coupling_retr's default cap balances a step past 1000 iterations;
    maxiter and tol are the caller's, and NotConverged carries the best
    plan."""
    a, b, g, u = slow_step()
    r = rhgd.coupling_retr(a, b, g, u)
    assert marginal_error(r, a, b) <= 1e-13 * 1.01
    out = np.empty_like(g)
    with pytest.raises(rhgd.NotConverged, match=r"marginal error .* > tolerance 1e-13 after 1000 iterations") as e:
        rhgd.coupling_retr(a, b, g, u, out=out, maxiter=1000)
    assert e.value.plan is out and np.all(out > 0)
    assert 1e-13 < marginal_error(out, a, b) < 1e-6  # the best plan, not the start
    assert "maxiter=" in str(e.value)
    r9 = rhgd.coupling_retr(a, b, g, u, tol=1e-9)
    assert 1e-13 < marginal_error(r9, a, b) <= 1e-9 * 1.01


def test_coupling_tol_consistent_with_points():
    """Coupling(tol=1e-9): its retraction's results, balanced to 1e-9, are
    its points (they were checked to 1e-10 and rejected)."""
    rng = np.random.default_rng(7)
    loose = 0
    for n in (5, 30):
        a = 0.5 + rng.random(n)
        b = 0.5 + rng.random(n + 2)
        b *= a.sum() / b.sum()
        m = rhgd.Coupling(a, b, tol=1e-9)
        g = m.rand_point(n)
        for scale in (0.5, 3.0):
            y = m.retract(g, m.project(g, rng.standard_normal(g.shape) * g) * scale)
            m.check_point(y)
            loose += marginal_error(y, m.a, m.b) > 1e-10
    assert loose > 0, "no result beyond 1e-10: the test cannot tell the tolerances apart"

"""The manifold toolkit (inner, norm, dist, exp, log, egrad2rgrad,
ehess2rhess, transport, rand_tangent, check_tangent), the Sylvester and
Lyapunov solves and the Frechet derivatives: identities they guarantee,
scipy where it has the same function, and their errors."""

import pathlib

import numpy as np
import pytest
import scipy.linalg as sla

import rhgd

RNG = np.random.default_rng(20241125)

A4 = np.array([0.1, 0.2, 0.3, 0.4])
B3 = np.array([0.5, 0.25, 0.25])

# Every manifold kind: (id, factory, has exp, log, dist).
KINDS = [
    ("spd", lambda: rhgd.SPD(4), (True, True, True)),
    ("spd-parallel", lambda: rhgd.SPD(3, transport="parallel"), (True, True, True)),
    ("spd-log-euclidean", lambda: rhgd.SPD(3, transport="parallel", metric="log-euclidean"), (True, True, True)),
    ("spd-bures-wasserstein", lambda: rhgd.SPD(3, metric="bures-wasserstein"), (True, True, True)),
    ("stiefel", lambda: rhgd.Stiefel(5, 2), (True, False, False)),
    ("euclidean", lambda: rhgd.Euclidean(3, 2), (True, True, True)),
    ("euclidean-vector", lambda: rhgd.Euclidean(4), (True, True, True)),
    ("coupling", lambda: rhgd.Coupling(A4, B3), (False, False, False)),
    ("product-spd-euclidean", lambda: rhgd.Product(rhgd.SPD(3), rhgd.Euclidean(2)), (True, True, True)),
    ("product-stiefel-coupling", lambda: rhgd.Product(rhgd.Stiefel(4, 2), rhgd.Coupling(A4, B3)),
     (False, False, False)),
]


@pytest.fixture(params=KINDS, ids=[k[0] for k in KINDS])
def kind(request):
    _, make, has = request.param
    return make(), has


def rel(a, b):
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


def test_metric_and_tangents(kind):
    m, _ = kind
    x = m.rand_point(1)
    u, v = m.rand_tangent(x, 2), m.rand_tangent(x, 3)
    assert u.shape == m.shape and v.shape == m.shape
    m.check_tangent(x, u)
    assert m.norm(x, u) == pytest.approx(1, abs=1e-10)
    w = 2 * u - 0.5 * v
    assert m.norm(x, w) ** 2 == pytest.approx(m.inner(x, w, w), rel=1e-12)
    assert m.inner(x, u, v) == pytest.approx(m.inner(x, v, u), rel=1e-12, abs=1e-14)
    assert m.inner(x, w, v) == pytest.approx(2 * m.inner(x, u, v) - 0.5 * m.inner(x, v, v), rel=1e-10, abs=1e-12)
    # The projection of an ambient vector is tangent, idempotent and
    # orthogonal: <v - P v, t>_x = 0 for tangent t.
    amb = RNG.standard_normal(m.shape)
    p = m.project(x, amb)
    m.check_tangent(x, p)
    assert rel(m.project(x, p), p) < 1e-10
    assert abs(m.inner(x, amb - p, u)) < 1e-10 * m.norm(x, amb)


def test_gradient_and_hessian(kind):
    """egrad2rgrad is the Riemannian gradient by its definition,
    <grad f, v>_x = <egrad, v> for tangent v; ehess2rhess is tangent and
    self-adjoint, and its quadratic form is the second derivative of f
    along the exponential map where there is one."""
    m, (has_exp, _, _) = kind
    x = m.rand_point(4)
    u, v = m.rand_tangent(x, 5), m.rand_tangent(x, 6)
    c, w = RNG.standard_normal(m.shape), RNG.standard_normal(m.shape)

    # f(x) = <c, x> + sum(sin(w x)) + (sum x)^2/2: every derivative non-zero.
    def f(p):
        return np.sum(c * p) + np.sum(np.sin(w * p)) + np.sum(p) ** 2 / 2

    def egrad(p):
        return c + w * np.cos(w * p) + np.sum(p)

    def ehess(p, d):
        return -w * w * np.sin(w * p) * d + np.sum(d)

    g = m.egrad2rgrad(x, egrad(x))
    m.check_tangent(x, g)
    assert m.inner(x, g, v) == pytest.approx(np.sum(egrad(x) * v), rel=1e-10, abs=1e-12)
    hu = m.ehess2rhess(x, egrad(x), ehess(x, u), u)
    hv = m.ehess2rhess(x, egrad(x), ehess(x, v), v)
    m.check_tangent(x, hu)
    scale = m.norm(x, hu) + m.norm(x, hv)
    assert abs(m.inner(x, hu, v) - m.inner(x, u, hv)) < 1e-10 * scale
    if has_exp:
        # (f(Exp(h u)) - 2 f(x) + f(Exp(-h u)))/h^2 = <Hess f[u], u> + O(h^2).
        errs = []
        for h in (0.1, 0.025):
            d2 = (f(m.exp(x, u, h)) - 2 * f(x) + f(m.exp(x, u, -h))) / h ** 2
            errs.append(abs(d2 - m.inner(x, hu, u)))
        assert errs[1] < errs[0] / 8  # O(h^2): a quarter of h, a sixteenth of the error


def test_transport(kind):
    m, _ = kind
    x = m.rand_point(7)
    u, v = m.rand_tangent(x, 8), m.rand_tangent(x, 9)
    y = m.retract(x, u, 0.3)
    tu, tv = m.transport(x, y, u), m.transport(x, y, v)
    m.check_tangent(y, tu)
    assert rel(m.transport(x, y, 2 * u - 3 * v), 2 * tu - 3 * tv) < 1e-10
    assert rel(m.transport(x, x, u), u) < 1e-8


def test_exp_log_dist(kind):
    m, (has_exp, has_log, has_dist) = kind
    assert (m.supports("exp"), m.supports("log"), m.supports("dist")) == (has_exp, has_log, has_dist)
    x = m.rand_point(10)
    u = m.rand_tangent(x, 11)
    if has_exp:
        y = m.exp(x, u, 0.5)
        m.check_point(y)
        assert rel(m.exp(x, 0.5 * u), y) < 1e-12
    else:
        with pytest.raises(rhgd.InvalidArgument, match="exp is unsupported"):
            m.exp(x, u)
    if has_log:
        assert rel(m.log(x, m.exp(x, 0.7 * u)), 0.7 * u) < 1e-8
    else:
        with pytest.raises(rhgd.InvalidArgument, match="log is unsupported"):
            m.log(x, x)
    if has_dist:
        for t in (1e-3, 0.1, 0.5):
            assert m.dist(x, m.exp(x, u, t)) == pytest.approx(t * m.norm(x, u), rel=1e-8)
        assert m.dist(x, x) == pytest.approx(0, abs=1e-7)
    else:
        with pytest.raises(rhgd.InvalidArgument, match="dist is unsupported"):
            m.dist(x, x)


def test_unsupported_names_manifold_and_factors():
    m = rhgd.Product(rhgd.SPD(2), rhgd.Stiefel(3, 1))
    x = m.rand_point(1)
    with pytest.raises(rhgd.InvalidArgument, match=r"log is unsupported.*stiefel:n=3,p=1") as e:
        m.log(x, x)
    assert "factors lacking it: 1" in str(e.value)
    with pytest.raises(rhgd.InvalidArgument, match="coupling:m=4,n=3"):
        rhgd.Coupling(A4, B3).dist(np.outer(A4, B3), np.outer(A4, B3))
    with pytest.raises(rhgd.InvalidArgument, match="want exp, log or dist"):
        m.supports("retract")


def test_rand_tangent_seeds():
    m = rhgd.Stiefel(6, 3)
    x = m.rand_point(0)
    assert np.array_equal(m.rand_tangent(x, 5), m.rand_tangent(x, 5))
    assert not np.array_equal(m.rand_tangent(x, 5), m.rand_tangent(x, 6))


def test_bad_input():
    m = rhgd.SPD(3)
    x = m.rand_point(1)
    u = m.rand_tangent(x, 2)
    nan = u.copy()
    nan[1, 2] = np.nan
    notspd = -x
    with pytest.raises(rhgd.InvalidArgument, match="u: .*NaN"):
        m.norm(x, nan)
    with pytest.raises(rhgd.InvalidArgument, match="v: "):
        m.inner(x, u, np.full((3, 3), np.inf))
    with pytest.raises(rhgd.InvalidArgument, match="x: "):
        m.egrad2rgrad(notspd, u)
    with pytest.raises(rhgd.InvalidArgument, match="ehess: "):
        m.ehess2rhess(x, u, nan, u)
    with pytest.raises(rhgd.InvalidArgument, match="y: "):
        m.transport(x, notspd, u)
    with pytest.raises(rhgd.InvalidArgument, match="y: "):
        m.log(x, notspd)
    with pytest.raises(rhgd.InvalidArgument, match="x: "):
        m.rand_tangent(notspd)
    asym = u.copy()
    asym[0, 1] += 1
    with pytest.raises(rhgd.InvalidArgument, match="u: .*symmetric"):
        m.check_tangent(x, asym)
    with pytest.raises(rhgd.InvalidArgument, match="u: "):
        m.exp(x, asym)
    with pytest.raises(ValueError, match=r"u has shape \(4,\)"):
        m.norm(x, np.ones(4))
    st = rhgd.Stiefel(4, 2)
    xs = st.rand_point(3)
    with pytest.raises(rhgd.InvalidArgument, match="u: "):
        st.check_tangent(xs, xs)  # X itself is normal at X


def test_coupling_limits_and_best_plan():
    """Coupling(a, b, maxiter=, tol=) sets the Sinkhorn retraction's
    limits, and its NotConverged carries the best plan found."""
    rng = np.random.default_rng(3)
    a, b = 0.5 + rng.random(6), 0.5 + rng.random(5)
    b *= a.sum() / b.sum()
    strict = rhgd.Coupling(a, b)
    g = strict.rand_point(1)
    u = strict.project(g, 4 * rng.standard_normal(g.shape) * g)

    def marginal_error(p):
        return (np.abs(p.sum(1) - a).sum() + np.abs(p.sum(0) - b).sum()) / a.sum()

    r = strict.retract(g, u)
    assert marginal_error(r) <= 1e-13 * 1.01
    capped = rhgd.Coupling(a, b, maxiter=2)
    assert "maxiter=2" in capped.spec
    with pytest.raises(rhgd.NotConverged, match="maxiter=") as e:
        capped.retract(g, u)
    plan = e.value.plan
    assert plan.shape == g.shape and np.all(plan > 0) and np.all(np.isfinite(plan))
    assert 1e-13 < marginal_error(plan) < marginal_error(g * np.exp(u / g))  # better than the unbalanced start
    loose = rhgd.Coupling(a, b, tol=1e-6)
    r6 = loose.retract(g, u)
    assert marginal_error(r6) <= 1e-6 * 1.01
    loose.check_point(r6)


def test_sylvester_and_lyapunov():
    m, n = 6, 4
    a = RNG.standard_normal((m, m)) + 5 * np.eye(m)
    b = RNG.standard_normal((n, n)) + 5 * np.eye(n)
    c = RNG.standard_normal((m, n))
    x = rhgd.sylvester(a, b, c)
    assert np.linalg.norm(a @ x + x @ b - c) < 1e-12 * np.linalg.norm(c)
    assert rel(x, sla.solve_sylvester(a, b, c)) < 1e-10
    q = RNG.standard_normal((m, m))
    xl = rhgd.lyapunov(a, q)
    assert np.linalg.norm(a @ xl + xl @ a.T - q) < 1e-12 * np.linalg.norm(q)
    assert rel(xl, sla.solve_continuous_lyapunov(a, q)) < 1e-10
    out = c.copy()
    assert rhgd.sylvester(a, b, out, out=out) is out and rel(out, x) < 1e-13
    with pytest.raises(rhgd.NumericalError, match="singular"):
        rhgd.sylvester(np.eye(2), -np.eye(2), np.eye(2))
    with pytest.raises(rhgd.InvalidArgument, match="b: "):
        rhgd.sylvester(a, np.full((n, n), np.nan), c)
    with pytest.raises(ValueError, match="c has shape"):
        rhgd.sylvester(a, b, c.T)


def sym(n):
    s = RNG.standard_normal((n, n))
    return (s + s.T) / 2


@pytest.mark.parametrize("n", [1, 3, 8])
def test_expsym_frechet_vs_scipy(n):
    a, e = sym(n), sym(n)
    d = rhgd.expsym_frechet(a, e)
    assert rel(d, sla.expm_frechet(a, e, compute_expm=False)) < 1e-11
    assert np.array_equal(d, d.T)


@pytest.mark.parametrize("name", ["log", "sqrt"])
def test_frechet_vs_central_difference(name):
    """The central difference (f(A + hE) - f(A - hE))/2h misses Df(A)[E] by
    O(h^2): a quarter of h, a sixteenth of the error."""
    f, df = getattr(rhgd, name + "sym"), getattr(rhgd, name + "sym_frechet")
    n = 5
    q, _ = np.linalg.qr(RNG.standard_normal((n, n)))
    a = (q * np.geomspace(0.5, 4, n)) @ q.T
    a = (a + a.T) / 2
    e = sym(n)
    d = df(a, e)
    errs = [np.linalg.norm((f(a + h * e) - f(a - h * e)) / (2 * h) - d) for h in (1e-2, 2.5e-3)]
    assert errs[0] < 1e-3 * np.linalg.norm(d)
    assert np.log(errs[0] / errs[1]) / np.log(4) == pytest.approx(2, abs=0.2)
    with pytest.raises(rhgd.InvalidArgument, match="a: "):
        df(-a, e)
    with pytest.raises(rhgd.InvalidArgument, match="e: "):
        df(a, e + np.triu(np.ones((n, n)), 1))


def test_readme_snippet():
    """python/README.md's toolkit snippet runs as written."""
    text = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()
    sec = text.index("## The manifold toolkit")
    a = text.index("```python\n", sec) + len("```python\n")
    ns = {}
    exec(compile(text[a:text.index("```\n", a)], "README.md", "exec"), ns)
    ns["m"].check_tangent(ns["y"], ns["w"])

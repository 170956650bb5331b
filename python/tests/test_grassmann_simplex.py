"""The Grassmann manifold and the probability simplex from Python: the
manifold objects and their point checks (shapes, points off the manifold,
float32), the toolkit's values against numpy computations of pymanopt's
Grassmann formulas (and against pymanopt's own outputs, saved in
grassmann/testdata/pymanopt.json) and of the simplex's Fisher geometry
(Manopt's multinomialfactory with one column), and bilevel problems on them
(numpy callbacks and rhgd.torch) solved to closed-form answers."""

import json
import pathlib
import warnings

import numpy as np
import pytest

import rhgd

REPO = pathlib.Path(__file__).resolve().parents[2]


def qr_pos(a):
    """The Q factor of a with R's diagonal positive."""
    q, r = np.linalg.qr(a)
    return q * np.where(np.diag(r) < 0, -1.0, 1.0)


def grass_point(rng, n, p):
    return qr_pos(rng.standard_normal((n, p)))


# ---------------------------------------------------------------------------
# The manifold objects and their point checks


def test_objects():
    g = rhgd.Grassmann(5, 2, retraction="exp")
    assert (g.spec, g.shape, g.size, g.dim) == ("grassmann:n=5,p=2,retr=exp", (5, 2), 10, 6)
    s = rhgd.Simplex(4)
    assert (s.spec, s.shape, s.size, s.dim) == ("simplex:n=4", (4,), 4, 3)
    for m in (g, s):
        for method in ("exp", "log", "dist"):
            assert m.supports(method)
    with pytest.raises(rhgd.InvalidArgument, match=r'p="5" is not an integer in \[1, 4\]'):
        rhgd.Grassmann(5, 5)
    with pytest.raises(rhgd.InvalidArgument, match="want qr, polar or exp"):
        rhgd.Grassmann(5, 2, retraction="cayley")
    with pytest.raises(rhgd.InvalidArgument, match=r'n="1" is not an integer'):
        rhgd.Simplex(1)
    # As factors of a product: the spec, the exp/log/dist of both, and a
    # float32 point snapped factor by factor.
    pr = rhgd.Product(rhgd.Grassmann(4, 2), rhgd.Simplex(3))
    assert (pr.spec, pr.shape, pr.dim) == ("product(grassmann:n=4,p=2; simplex:n=3)", (11,), 6)
    assert all(pr.supports(method) for method in ("exp", "log", "dist"))
    x = pr.rand_point(1)
    with pytest.raises(rhgd.InvalidArgument):
        pr.check_point(x.astype(np.float32).astype(np.float64))
    pr.check_point(x.astype(np.float32))


def test_grassmann_point_checks():
    rng = np.random.default_rng(1)
    g = rhgd.Grassmann(6, 2)
    x = grass_point(rng, 6, 2)
    g.check_point(x)
    with pytest.raises(ValueError, match=r"x has shape \(2, 6\).*transposed\?"):
        g.check_point(x.T)
    with pytest.raises(rhgd.InvalidArgument, match=r"^rhgd: x: grassmann: columns not orthonormal"):
        g.check_point(x * 1.01)
    bad = x.copy()
    bad[0, 0] = np.nan
    with pytest.raises(rhgd.InvalidArgument, match="x"):
        g.check_point(bad)
    # float32: projected onto Gr (its polar factor), the same subspace to
    # float32 rounding; as a tensor too.
    x32 = x.astype(np.float32)
    with pytest.raises(rhgd.InvalidArgument):
        g.check_point(x32.astype(np.float64))
    g.check_point(x32)
    u = g.project(x32, rng.standard_normal((6, 2)))
    assert np.linalg.norm(x.T @ u) < 1e-6
    with pytest.raises(rhgd.InvalidArgument, match="^rhgd: y: .*beyond float32 rounding"):
        g.dist(x, (x * 1.01).astype(np.float32))


def test_simplex_point_checks():
    s = rhgd.Simplex(5)
    x = np.array([0.1, 0.2, 0.3, 0.25, 0.15])
    s.check_point(x)
    s.check_point(x.reshape(5, 1))  # a column is the same vector
    with pytest.raises(ValueError, match=r"x has shape \(4,\)"):
        s.check_point(x[:4])
    with pytest.raises(rhgd.InvalidArgument, match=r"^rhgd: x: simplex: not a point of the simplex: Σx − 1 = 0.01"):
        s.check_point(x + np.array([0.01, 0, 0, 0, 0]))
    with pytest.raises(rhgd.InvalidArgument, match=r"^rhgd: x: .*point\[2\] = -0.1 is not positive"):
        s.check_point(np.array([0.3, 0.3, -0.1, 0.25, 0.25]))
    with pytest.raises(rhgd.InvalidArgument, match=r"^rhgd: x: .*point\[1\] = 0 is not positive"):
        s.check_point(np.array([0.5, 0, 0.2, 0.2, 0.1]))
    # float32: divided by its sum.
    x32 = (x / 3 * 3).astype(np.float32) * np.float32(1 + 2e-7)
    assert abs(float(np.sum(x32.astype(np.float64))) - 1) > 1e-10
    s.check_point(x32)
    r = s.retract(x32, np.zeros(5))
    assert abs(np.sum(r) - 1) < 1e-15
    assert np.allclose(r, x, rtol=1e-6, atol=0)
    with pytest.raises(rhgd.InvalidArgument, match="beyond float32 rounding"):
        s.check_point((x * 1.001).astype(np.float32))


@pytest.mark.parametrize("make", [lambda: rhgd.Grassmann(6, 2), lambda: rhgd.Grassmann(5, 3, retraction="polar"),
                                  lambda: rhgd.Simplex(5)], ids=["grassmann", "grassmann-polar", "simplex"])
def test_toolkit_identities(make):
    """What tests/test_toolkit.py checks on the other manifolds: the metric
    and the projection, ⟨egrad2rgrad, v⟩ = ⟨egrad, v⟩, a self-adjoint
    Hessian whose quadratic form is the second derivative along exp (for a
    function on Gr: f(XO) = f(X)), the transport's tangency and
    linearity, log(exp(u)) = u and dist(x, exp(x, tu)) = t‖u‖."""
    m = make()
    rng = np.random.default_rng(9)
    x = m.rand_point(1)
    u, v = 0.5 * m.rand_tangent(x, 2), m.rand_tangent(x, 3)
    m.check_tangent(x, u)
    assert m.norm(x, u) == pytest.approx(0.5, rel=1e-12)
    assert m.inner(x, u, v) == pytest.approx(m.inner(x, v, u), rel=1e-12, abs=1e-15)
    amb = rng.standard_normal(m.shape)
    pv = m.project(x, amb)
    m.check_tangent(x, pv)
    np.testing.assert_allclose(m.project(x, pv), pv, atol=1e-14)
    assert abs(m.inner(x, amb - pv, u)) < 1e-12 * np.linalg.norm(amb)

    if isinstance(m, rhgd.Grassmann):
        n = m.shape[0]
        a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        a, b = a + a.T, b + b.T

        def f(p):
            return np.trace(p.T @ a @ p) + 0.5 * np.trace(p.T @ b @ p) ** 2

        def egrad(p):
            return 2 * a @ p + 2 * np.trace(p.T @ b @ p) * b @ p

        def ehess(p, d):
            return 2 * a @ d + 2 * np.trace(p.T @ b @ p) * b @ d + 4 * np.trace(p.T @ b @ d) * b @ p
    else:
        c, w = rng.standard_normal(m.shape), rng.standard_normal(m.shape)

        def f(p):
            return np.sum(c * p) + np.sum(np.sin(w * p))

        def egrad(p):
            return c + w * np.cos(w * p)

        def ehess(p, d):
            return -w * w * np.sin(w * p) * d

    g = m.egrad2rgrad(x, egrad(x))
    m.check_tangent(x, g)
    assert m.inner(x, g, v) == pytest.approx(np.sum(egrad(x) * v), rel=1e-12, abs=1e-13)
    hu = m.ehess2rhess(x, egrad(x), ehess(x, u), u)
    hv = m.ehess2rhess(x, egrad(x), ehess(x, v), v)
    m.check_tangent(x, hu)
    assert abs(m.inner(x, hu, v) - m.inner(x, u, hv)) < 1e-12 * (m.norm(x, hu) + m.norm(x, hv))
    errs = []
    for h in (0.1, 0.025):
        d2 = (f(m.exp(x, u, h)) - 2 * f(x) + f(m.exp(x, u, -h))) / h ** 2
        errs.append(abs(d2 - m.inner(x, hu, u)))
    assert errs[1] < errs[0] / 8  # O(h²)

    y = m.retract(x, u, 0.3)
    tu, tv = m.transport(x, y, u), m.transport(x, y, v)
    m.check_tangent(y, tu)
    np.testing.assert_allclose(m.transport(x, y, 2 * u - 3 * v), 2 * tu - 3 * tv, atol=1e-13)

    np.testing.assert_allclose(m.log(x, m.exp(x, u, 0.7)), 0.7 * u, atol=1e-12)
    for t in (1e-3, 0.1, 0.7):
        assert m.dist(x, m.exp(x, u, t)) == pytest.approx(t * 0.5, rel=1e-9)


# ---------------------------------------------------------------------------
# Reference values across the ABI


def test_grassmann_against_pymanopt_outputs():
    """pymanopt's own Grassmann outputs (grassmann/testdata/pymanopt.json,
    made by gen_pymanopt.py) through the C ABI: projection, Hessian
    conversion, polar retraction, transport, log, dist, and exp up to its
    columns' signs (pymanopt re-orthonormalizes by an unsigned QR)."""
    ref = json.loads((REPO / "grassmann/testdata/pymanopt.json").read_text())
    assert len(ref["cases"]) == 5
    for c in ref["cases"]:
        n, p = c["n"], c["p"]
        a = {k: np.array(v).reshape(n, p) for k, v in c.items() if isinstance(v, list)}
        m = rhgd.Grassmann(n, p, retraction="polar")
        x, y, u = a["x"], a["y"], a["u"]
        np.testing.assert_allclose(m.project(x, a["v"]), a["projection"], atol=1e-14)
        np.testing.assert_allclose(m.ehess2rhess(x, a["egrad"], a["ehess"], u), a["rhess"], atol=1e-13)
        np.testing.assert_allclose(m.retract(x, u), a["retraction"], atol=1e-14)
        np.testing.assert_allclose(m.transport(x, y, u), a["transport"], atol=1e-14)
        np.testing.assert_allclose(m.log(x, y), a["log"], atol=1e-12 * np.linalg.cond(x.T @ y))
        assert abs(m.dist(x, y) - c["dist"]) < 1e-13
        e = m.exp(x, u)
        for j in range(p):
            assert min(np.linalg.norm(e[:, j] - a["exp"][:, j]), np.linalg.norm(e[:, j] + a["exp"][:, j])) < 1e-14


@pytest.mark.parametrize("n,p", [(5, 2), (7, 3), (4, 1)])
def test_grassmann_formulas(n, p):
    """New inputs against numpy computations of pymanopt's formulas
    (pymanopt/manifolds/grassmann.py): inner tr(UᵀV), projection V − X XᵀV,
    the polar retraction U Vᵀ of the SVD of X + U, the QR retraction
    qf(X + U) with R's diagonal positive (Manopt's grassmannfactory),
    exp X V cos Σ Vᵀ + W sin Σ Vᵀ (U = W Σ Vᵀ), log W atan(Σ) Vᵀ with
    W Σ Vᵀ = (Y − X XᵀY)(XᵀY)⁻¹, and the distance ‖arccos σ(XᵀY)‖."""
    rng = np.random.default_rng(10 * n + p)
    x, y = grass_point(rng, n, p), grass_point(rng, n, p)
    proj = lambda v: v - x @ (x.T @ v)  # noqa: E731
    v, w = rng.standard_normal((n, p)), rng.standard_normal((n, p))
    u = proj(v)
    u *= 0.8 / np.linalg.norm(u)
    ms = {r: rhgd.Grassmann(n, p, retraction=r) for r in ("qr", "polar", "exp")}
    m = ms["qr"]

    assert abs(m.inner(x, u, proj(w)) - np.trace(u.T @ proj(w))) < 1e-14
    assert abs(m.norm(x, u) - 0.8) < 1e-14
    np.testing.assert_allclose(m.project(x, v), proj(v), atol=1e-14)
    np.testing.assert_allclose(m.egrad2rgrad(x, v), proj(v), atol=1e-14)

    np.testing.assert_allclose(m.retract(x, u, 0.7), qr_pos(x + 0.7 * u), atol=1e-14)
    W, _, Vt = np.linalg.svd(x + 0.7 * u, full_matrices=False)
    np.testing.assert_allclose(ms["polar"].retract(x, u, 0.7), W @ Vt, atol=1e-14)

    W, sig, Vt = np.linalg.svd(u, full_matrices=False)
    e = x @ Vt.T @ np.diag(np.cos(sig)) @ Vt + W @ np.diag(np.sin(sig)) @ Vt
    np.testing.assert_allclose(m.exp(x, u), e, atol=1e-14)
    np.testing.assert_allclose(ms["exp"].retract(x, u), e, atol=1e-14)

    W, sig, Vt = np.linalg.svd((y - x @ (x.T @ y)) @ np.linalg.inv(x.T @ y), full_matrices=False)
    np.testing.assert_allclose(m.log(x, y), W @ np.diag(np.arctan(sig)) @ Vt,
                               atol=1e-13 * np.linalg.cond(x.T @ y))
    theta = np.arccos(np.clip(np.linalg.svd(x.T @ y, compute_uv=False), -1, 1))
    assert abs(m.dist(x, y) - np.linalg.norm(theta)) < 1e-12
    # The quotient: another basis of the same subspaces changes nothing.
    o = qr_pos(rng.standard_normal((p, p)))
    assert abs(m.dist(x @ o, y) - m.dist(x, y)) < 1e-12
    assert m.dist(x, x @ o) < 1e-7


@pytest.mark.parametrize("n", [2, 5])
def test_simplex_formulas(n):
    """New inputs against numpy computations of the Fisher geometry of the
    simplex (Manopt's multinomialfactory with one column; Åström et al.'s
    sphere isometry x ↦ 2√x for the geodesics): inner Σ uv/x, projection
    v − (Σv) x, Riemannian gradient x ∘ (g − Σ x g), the retraction
    x ∘ exp(u/x) normalized, the distance 2 arccos Σ √(x y) and the
    exponential (cos θ √x + sin θ w)², θ = ‖u‖_x/2, w = (u/√x)/‖u‖_x."""
    rng = np.random.default_rng(n)
    m = rhgd.Simplex(n)
    x, y = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
    v, w, g = rng.standard_normal(n), rng.standard_normal(n), rng.standard_normal(n)
    proj = lambda a: a - a.sum() * x  # noqa: E731
    u = proj(v)
    u *= 0.3 / np.sqrt(np.sum(u * u / x))
    assert abs(m.inner(x, u, proj(w)) - np.sum(u * proj(w) / x)) < 1e-13
    np.testing.assert_allclose(m.project(x, v), proj(v), atol=1e-14)
    np.testing.assert_allclose(m.egrad2rgrad(x, g), x * (g - np.dot(x, g)), atol=1e-15)
    r = x * np.exp(0.9 * u / x)
    np.testing.assert_allclose(m.retract(x, u, 0.9), r / r.sum(), atol=1e-15)
    assert abs(m.dist(x, y) - 2 * np.arccos(np.sum(np.sqrt(x * y)))) < 1e-12
    theta, wd = 0.15, (u / np.sqrt(x)) / 0.3
    np.testing.assert_allclose(m.exp(x, u), (np.cos(theta) * np.sqrt(x) + np.sin(theta) * wd) ** 2, atol=1e-15)
    assert abs(m.dist(x, m.exp(x, u)) - 0.3) < 1e-13


# ---------------------------------------------------------------------------
# Bilevel problems to closed forms: numpy callbacks


def reweight_data(k=6, d=3, tau=0.5, seed=4):
    rng = np.random.default_rng(seed)
    a, c = rng.standard_normal((k, d)), rng.standard_normal(d)
    s = a @ c
    xs = np.exp(-(s - s.min()) / tau)
    xs /= xs.sum()
    return a, c, tau, xs, xs @ a


def test_numpy_callbacks_reweighting_on_simplex():
    """Data reweighting with numpy oracles on Δ(k) × R^d: the weights x of
    k points a_i fit y*(x) = Σ x_i a_i (g = ½ Σ x_i ‖y − a_i‖²); the upper
    level f = cᵀy + τ Σ x log x has the optimum x* = softmax(−Ac/τ)."""
    a, c, tau, xs, ys = reweight_data()
    k, d = a.shape
    p = rhgd.Problem(
        rhgd.Simplex(k), rhgd.Euclidean(d),
        f=lambda x, y: float(c @ y + tau * np.sum(x * np.log(x))),
        grad_fx=lambda x, y: tau * (np.log(x) + 1), grad_fy=lambda x, y: c.copy(),
        g=lambda x, y: float(0.5 * np.sum(x * np.sum((y - a) ** 2, axis=1))),
        grad_gx=lambda x, y: 0.5 * np.sum((y - a) ** 2, axis=1), grad_gy=lambda x, y: x.sum() * y - x @ a,
        hess_gy=lambda x, y, v: x.sum() * v, cross_gxy=lambda x, y, v: (y - a) @ v,
        cross_gyx=lambda x, y, u: u @ (y - a))
    x0, y0 = np.full(k, 1 / k), np.zeros(d)
    rep = p.check(x0 * np.linspace(0.5, 1.5, k) / np.mean(np.linspace(0.5, 1.5, k)), y0 + 0.3)
    assert all(r["ok"] for r in rep["reports"]), rep
    r = rhgd.minimize(p, x0, y0, estimator="cg", eta_x=1.0, eta_y=0.5, inner=20, epochs=300, grad_tol=1e-12)
    assert r.success, r.message
    np.testing.assert_allclose(r.x, xs, rtol=1e-9)
    np.testing.assert_allclose(r.y, ys, atol=1e-9)


def test_problem_start_checks_name_the_argument():
    """A callback problem's starts: transposed, off Gr, and float32 (noted
    once as a ProjectedInput warning naming x0)."""
    rng = np.random.default_rng(2)
    n, p_, m = 5, 2, 3
    d = rng.standard_normal((n, m))
    prob = pca_numpy(d, p_)
    x = grass_point(rng, n, p_)
    y = np.zeros((p_, m))
    with pytest.raises(ValueError, match=r"x0 has shape \(2, 5\).*transposed"):
        prob.set_start(x.T, y)
    with pytest.raises(rhgd.InvalidArgument, match=r"^rhgd: x0: grassmann: columns not orthonormal"):
        prob.set_start(x * 1.1, y)
    with pytest.warns(rhgd.ProjectedInput, match="x0: ‖XᵀX − I‖_F"):
        prob.set_start(x.astype(np.float32), y)
    x0, _ = prob.start()
    assert np.linalg.norm(x0.T @ x0 - np.eye(p_)) < 1e-14


def pca_numpy(d, p):
    """PCA as a bilevel problem on Gr(n, p) × R^(p×m) with numpy oracles:
    g = ½‖D − X y‖², y*(X) = XᵀD, f = −½‖y‖², F(X) = −½ tr(Xᵀ D Dᵀ X)."""
    n, m = d.shape
    return rhgd.Problem(
        rhgd.Grassmann(n, p), rhgd.Euclidean(p, m),
        f=lambda x, y: -0.5 * float(np.sum(y * y)), grad_fx=lambda x, y: np.zeros((n, p)), grad_fy=lambda x, y: -y,
        g=lambda x, y: 0.5 * float(np.sum((x @ y - d) ** 2)), grad_gx=lambda x, y: (x @ y - d) @ y.T,
        grad_gy=lambda x, y: x.T @ (x @ y - d), hess_gy=lambda x, y, v: x.T @ x @ v,
        cross_gxy=lambda x, y, v: x @ (y @ v.T + v @ y.T) - d @ v.T,
        cross_gyx=lambda x, y, u: (u.T @ x + x.T @ u) @ y - u.T @ d)


def pca_data(n=7, m=6, p=2, seed=5):
    """D = Q S Wᵀ with singular values 3, 2.4, 1.2, 0.8, 0.5, 0.3: the top
    two eigenvalues of DDᵀ are 9 and 5.76, 4.32 above the third."""
    rng = np.random.default_rng(seed)
    q, w = qr_pos(rng.standard_normal((n, n))), qr_pos(rng.standard_normal((m, m)))
    s = np.zeros((n, m))
    s[np.arange(6), np.arange(6)] = [3, 2.4, 1.2, 0.8, 0.5, 0.3]
    d = q @ s @ w.T
    lam, vecs = np.linalg.eigh(d @ d.T)
    top = vecs[:, -p:]
    return d, top @ top.T, -0.5 * lam[-p:].sum()


def test_numpy_callbacks_pca_on_grassmann():
    d, proj, fstar = pca_data()
    n, m = d.shape
    prob = pca_numpy(d, 2)
    x0 = prob.mx.rand_point(seed=3)
    rep = prob.check(x0, np.ones((2, m)))
    assert all(r["ok"] for r in rep["reports"]), rep
    r = rhgd.minimize(prob, x0, np.zeros((2, m)), estimator="cg", eta_x=0.1, eta_y=0.5, inner=20, epochs=400,
                      grad_tol=1e-11)
    assert r.success, r.message
    assert np.linalg.norm(r.x @ r.x.T - proj, 2) < 1e-9
    np.testing.assert_allclose(r.y, r.x.T @ d, atol=1e-8)
    assert abs(r.fun - fstar) < 1e-9

"""rhgd.torch on the Grassmann manifold and the probability simplex:
problems written in PyTorch (f and g only) with a Grassmann or simplex
variable, upper or lower, solved to closed-form answers."""

import math

import numpy as np
import pytest

from _torch import F64, torch  # skips this module without PyTorch

import rhgd
import rhgd.torch as rt


def test_pca_upper_grassmann():
    """PCA as a bilevel problem, Gr(7, 2) upper: the lower level fits the
    data D in the subspace, g(X, y) = ½‖D − X y‖², y*(X) = XᵀD; the upper
    f = −½‖y‖², F(X) = −½ tr(Xᵀ D Dᵀ X), is least on the span of the top
    two eigenvectors of DDᵀ (numpy's eigh), for each retraction, from
    tensors in to tensors out."""
    rng = np.random.default_rng(5)
    n, m, p = 7, 6, 2
    q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    w = np.linalg.qr(rng.standard_normal((m, m)))[0]
    s = np.zeros((n, m))
    s[np.arange(6), np.arange(6)] = [3, 2.4, 1.2, 0.8, 0.5, 0.3]
    d = q @ s @ w.T
    lam, vecs = np.linalg.eigh(d @ d.T)
    top = vecs[:, -p:]
    D = torch.from_numpy(d)

    def f(X, y):
        return -0.5 * torch.sum(y * y)

    def g(X, y):
        return 0.5 * torch.sum((D - X @ y) ** 2)

    for retr in ("qr", "polar", "exp"):
        mx = rhgd.Grassmann(n, p, retraction=retr)
        x0 = mx.rand_point(seed=3, dtype=F64)
        r = rt.minimize(f, g, mx, rhgd.Euclidean(p, m), x0, torch.zeros(p, m, dtype=F64), estimator="cg",
                        eta_x=0.1, eta_y=0.5, inner=20, epochs=400, grad_tol=1e-10)
        assert r.success, (retr, r.message)
        assert isinstance(r.x, torch.Tensor) and r.x.shape == (n, p)
        x = r.x.numpy()
        assert np.linalg.norm(x @ x.T - top @ top.T, 2) < 1e-8, retr
        np.testing.assert_allclose(r.y.numpy(), x.T @ d, atol=1e-8)
        assert abs(r.fun + 0.5 * lam[-p:].sum()) < 1e-9


def rotation(t):
    """R(t) ∈ SO(4): the rotation by t in the planes (e1, e3) and (e2, e4),
    built from t's cos and sin so that autograd differentiates it."""
    c, s = torch.cos(t), torch.sin(t)
    z = torch.zeros_like(c)
    return torch.stack([torch.stack([c, z, -s, z]), torch.stack([z, c, z, -s]),
                        torch.stack([s, z, c, z]), torch.stack([z, s, z, c])])


def test_subspace_lower_grassmann():
    """Gr(4, 2) lower: g(x, Y) = −½ tr(Yᵀ A(x) Y), A(x) = R(x) Λ R(x)ᵀ,
    Λ = diag(3, 2, 1, 0), whose minimizer is the top-2 eigenspace
    Y*(x) = span(r₁(x), r₂(x)), r₁ = cos x e1 + sin x e3, r₂ = cos x e2 +
    sin x e4. The upper f(x, Y) = −½ ‖Yᵀu‖², u = α r₁(φ) + β r₂(ψ), makes
    F(x) = −½ (α² cos²(x − φ) + β² cos²(x − ψ)), least at
    x* = ½ arg(α² e^{2iφ} + β² e^{2iψ}), with Y* = Y*(x*); u is not in
    Y*'s span, so ∇_Y f does not vanish there. The Riemannian Hessian of g
    (the Grassmann's Weingarten term on autograd's Euclidean products) and
    the cross terms carry the hypergradient."""
    alpha, beta, phi, psi = 1.0, 0.8, 0.6, 0.2
    xstar = 0.5 * np.angle(alpha ** 2 * np.exp(2j * phi) + beta ** 2 * np.exp(2j * psi))
    lam = torch.diag(torch.tensor([3.0, 2.0, 1.0, 0.0], dtype=F64))
    u = torch.tensor([alpha * math.cos(phi), beta * math.cos(psi), alpha * math.sin(phi), beta * math.sin(psi)],
                     dtype=F64)
    e = torch.eye(4, dtype=F64)[:, :2]
    ystar = (rotation(torch.tensor(xstar, dtype=F64)) @ e).numpy()

    def g(x, Y):
        r = rotation(x[0])
        return -0.5 * torch.trace(Y.T @ r @ lam @ r.T @ Y)

    def f(x, Y):
        return -0.5 * torch.sum((Y.T @ u) ** 2) + 0 * x.sum()

    my = rhgd.Grassmann(4, 2)
    for est in ("cg", "ns:gamma=0.4,terms=50", "hinv"):  # hinv: derived by the library (Gr(4, 2): 4 products)
        r = rt.minimize(f, g, rhgd.Euclidean(1), my, torch.zeros(1, dtype=F64), my.rand_point(seed=1, dtype=F64),
                        estimator=est, eta_x=0.25, eta_y=0.3, inner=30, epochs=300, grad_tol=1e-10)
        assert r.success, (est, r.message)
        assert abs(r.x.item() - xstar) < 1e-8, (est, r.x, xstar)
        Y = r.y.numpy()
        assert np.linalg.norm(Y @ Y.T - ystar @ ystar.T, 2) < 1e-8, est
        want = -0.5 * (alpha ** 2 * math.cos(xstar - phi) ** 2 + beta ** 2 * math.cos(xstar - psi) ** 2)
        assert abs(r.fun - want) < 1e-12


def test_reweighting_upper_simplex():
    """Data reweighting, Δ(6) upper: weights x of six points a_i fit
    y*(x) = Σ x_i a_i (g = ½ Σ x_i ‖y − a_i‖²); the upper level
    f = cᵀy + τ Σ x log x has x* = softmax(−Ac/τ) in closed form."""
    rng = np.random.default_rng(4)
    k, d, tau = 6, 3, 0.5
    a, c = rng.standard_normal((k, d)), rng.standard_normal(d)
    s = a @ c
    xs = np.exp(-(s - s.min()) / tau)
    xs /= xs.sum()
    A, C = torch.from_numpy(a), torch.from_numpy(c)

    def f(x, y):
        return C @ y + tau * torch.sum(x * torch.log(x))

    def g(x, y):
        return 0.5 * torch.sum(x * torch.sum((y - A) ** 2, dim=1))

    x0 = torch.full((k,), 1 / k, dtype=F64)
    r = rt.minimize(f, g, rhgd.Simplex(k), rhgd.Euclidean(d), x0, torch.zeros(d, dtype=F64), estimator="cg",
                    eta_x=1.0, eta_y=0.5, inner=20, epochs=300, grad_tol=1e-12)
    assert r.success, r.message
    np.testing.assert_allclose(r.x.numpy(), xs, rtol=1e-9)
    np.testing.assert_allclose(r.y.numpy(), xs @ a, atol=1e-9)
    # float32 starts: the weights in float32 are divided by their sum,
    # with a note.
    with pytest.warns(rhgd.ProjectedInput, match="x0: Σx − 1"):
        p = rt.Problem(f, g, rhgd.Simplex(k), rhgd.Euclidean(d),
                       x0=torch.tensor([0.1, 0.2, 0.3, 0.1, 0.2, 0.1], dtype=torch.float32),
                       y0=torch.zeros(d))
    x0b, _ = p.start()
    assert abs(x0b.sum() - 1) < 1e-15


def test_softmax_lower_simplex():
    """Δ(5) lower: g(x, y) = Σ y log y − xᵀy is least at y*(x) =
    softmax(x) (its Riemannian Hessian in the Fisher metric is the
    identity there); the upper f(x, y) = ½‖x‖² + cᵀy makes
    F(x) = ½‖x‖² + cᵀ softmax(x), strongly convex for this small c, least
    where x = −(diag(s) − s sᵀ) c, s = softmax(x): found here in numpy by
    iterating that map (a contraction), y* = softmax(x*)."""
    c = np.array([0.8, -0.5, 0.3, -0.9, 0.4])
    xs = np.zeros(5)
    for _ in range(200):
        sm = np.exp(xs - xs.max())
        sm /= sm.sum()
        xs = -(sm * c - sm * (sm @ c))
    sm = np.exp(xs - xs.max())
    sm /= sm.sum()
    assert np.linalg.norm(xs + sm * c - sm * (sm @ c)) < 1e-15
    C = torch.from_numpy(c)

    def g(x, y):
        return torch.sum(y * torch.log(y)) - x @ y

    def f(x, y):
        return 0.5 * torch.sum(x * x) + C @ y

    for est in ("cg", "hinv"):  # hinv: derived by the library in the Fisher metric (4 products)
        r = rt.minimize(f, g, rhgd.Euclidean(5), rhgd.Simplex(5), torch.zeros(5, dtype=F64),
                        torch.full((5,), 0.2, dtype=F64), estimator=est, eta_x=0.5, eta_y=0.5, inner=20, epochs=300,
                        grad_tol=1e-11)
        assert r.success, (est, r.message)
        np.testing.assert_allclose(r.x.numpy(), xs, atol=1e-10)
        np.testing.assert_allclose(r.y.numpy(), sm, rtol=1e-10)

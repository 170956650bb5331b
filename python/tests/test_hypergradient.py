"""rhgd.hypergradient: the hypergradient at a given point, against the
closed form of a quadratic bilevel problem, with y given, with the exact
lower solution, with the lower steps, for numpy and torch problems; and
its errors."""

import numpy as np
import pytest

import rhgd

K, M, LAM = 3, 5, 0.1


class Quad:
    """g(x, y) = ½yᵀAy − yᵀBx, f(x, y) = ½|y − c|² + ½λ|x|² on R^K × R^M:
    y*(x) = A⁻¹Bx, and the estimators' formula at any y, grad_x f − G_xy
    H⁻¹ grad_y f = λx + BᵀA⁻¹(y − c), is grad F(x) at y = y*(x)."""

    def __init__(self, seed=5):
        rng = np.random.default_rng(seed)
        q, _ = np.linalg.qr(rng.standard_normal((M, M)))
        self.a = q @ np.diag(np.linspace(1, 4, M)) @ q.T
        self.a = (self.a + self.a.T) / 2
        self.b, self.c = rng.standard_normal((M, K)), rng.standard_normal(M)
        self.x = rng.standard_normal(K)
        self.y0 = rng.standard_normal(M)

    def ystar(self, x):
        return np.linalg.solve(self.a, self.b @ x)

    def formula(self, x, y):
        return LAM * x + self.b.T @ np.linalg.solve(self.a, y - self.c)

    def problem(self, start=True, grad_gy=None, **kw):
        a, b, c = self.a, self.b, self.c
        return rhgd.Problem(
            rhgd.Euclidean(K), rhgd.Euclidean(M),
            f=lambda x, y: 0.5 * np.sum((y - c) ** 2) + 0.5 * LAM * np.sum(x ** 2),
            grad_fx=lambda x, y: LAM * x, grad_fy=lambda x, y: y - c,
            grad_gy=grad_gy or (lambda x, y: a @ y - b @ x),
            g=lambda x, y: 0.5 * y @ a @ y - y @ b @ x, grad_gx=lambda x, y: -b.T @ y,
            hess_gy=lambda x, y, v: a @ v, cross_gxy=lambda x, y, v: -b.T @ v,
            hess_gy_inv=lambda x, y, v: np.linalg.solve(a, v),
            lower_solve=lambda x, y: np.linalg.solve(a, b @ x), gradients="riemannian",
            x0=np.zeros(K) if start else None, y0=self.y0 if start else None, **kw)


def close(a, b, rtol):
    return np.max(np.abs(a - b)) <= rtol * max(1.0, np.max(np.abs(b)))


@pytest.mark.parametrize("estimator", ["hinv", "cg"])
def test_y_given(estimator):
    """At y = y*(x) the estimate is grad F(x); at another y it is the
    estimators' formula there, and lower_grad_norm is |Ay − Bx|."""
    q = Quad()
    p = q.problem()
    ys = q.ystar(q.x)
    hg = rhgd.hypergradient(p, q.x, ys, estimator)
    assert hg.shape == (K,)
    n = rhgd.live_handles()
    rhgd.hypergradient(p, q.x, ys, estimator)
    assert rhgd.live_handles() == n  # the solver was freed
    assert close(hg, q.formula(q.x, ys), 1e-12), (hg, q.formula(q.x, ys))
    hg, y, n = rhgd.hypergradient(p, q.x, q.y0, estimator, full_output=True)
    assert close(hg, q.formula(q.x, q.y0), 1e-12)
    assert np.array_equal(y, q.y0) and y.shape == (M,)
    assert n == pytest.approx(np.linalg.norm(q.a @ q.y0 - q.b @ q.x), rel=1e-13)


def test_y_none_lower_solve():
    """y None with lower_solve=True: y is the problem's exact y*(x), and
    the estimate grad F(x)."""
    q = Quad()
    hg, y, n = rhgd.hypergradient(q.problem(), q.x, estimator="cg", lower_solve=True, full_output=True)
    ys = q.ystar(q.x)
    assert close(y, ys, 1e-14)
    assert close(hg, q.formula(q.x, ys), 1e-12)
    assert n <= 1e-13 * np.linalg.norm(q.b @ q.x)


def test_y_none_inner_steps():
    """y None: the settings' lower steps from the problem's y0. Many steps
    reach y*(x) (eta_y = 0.25 on eigenvalues 1..4 contracts by 0.75 a
    step), and grad F(x); three steps give the iterate replayed by hand,
    and the estimate there."""
    q = Quad()
    p = q.problem()
    hg, y, n = rhgd.hypergradient(p, q.x, estimator="hinv", inner=200, eta_y=0.25, full_output=True)
    ys = q.ystar(q.x)
    assert close(y, ys, 1e-13)
    assert close(hg, q.formula(q.x, ys), 1e-12)
    assert n <= 1e-13 * np.linalg.norm(q.b @ q.x)
    want = q.y0.copy()
    for _ in range(3):
        want -= 0.25 * (q.a @ want - q.b @ q.x)
    hg, y, n = rhgd.hypergradient(p, q.x, estimator="cg", inner=3, eta_y=0.25, full_output=True)
    assert close(y, want, 1e-14)
    assert close(hg, q.formula(q.x, want), 1e-12)
    assert n == pytest.approx(np.linalg.norm(q.a @ want - q.b @ q.x), rel=1e-13)
    # Without lower_solve=True the problem's lower_solve is not used.
    assert not close(y, ys, 1e-3)


def test_torch_problem():
    """The same problem written in PyTorch (f and g only, derivatives from
    autograd) agrees with the closed form."""
    torch = pytest.importorskip("torch")
    import rhgd.torch as rt

    q = Quad()
    a, b, c = (torch.from_numpy(v) for v in (q.a, q.b, q.c))

    def f(x, y):
        return 0.5 * torch.sum((y - c) ** 2) + 0.5 * LAM * torch.sum(x ** 2)

    def g(x, y):
        return 0.5 * y @ a @ y - y @ b @ x

    p = rt.Problem(f, g, rhgd.Euclidean(K), rhgd.Euclidean(M), x0=np.zeros(K), y0=q.y0)
    ys = q.ystar(q.x)
    truth = q.formula(q.x, ys)
    assert close(rhgd.hypergradient(p, q.x, ys, "cg"), truth, 1e-12)
    hg, y, n = rhgd.hypergradient(p, q.x, estimator="cg", inner=200, eta_y=0.25, full_output=True)
    assert close(y, ys, 1e-13) and close(hg, truth, 1e-12) and n <= 1e-12
    # Tensors in, tensors out (x's dtype), as the problem's oracles.
    hg, y, n = rhgd.hypergradient(p, torch.from_numpy(q.x).float(), estimator="cg", inner=200, eta_y=0.25,
                                  full_output=True)
    assert isinstance(hg, torch.Tensor) and hg.dtype == torch.float32 and isinstance(y, torch.Tensor)
    assert close(hg.double().numpy(), truth, 1e-6) and isinstance(n, float)


def test_errors():
    q = Quad()
    with pytest.raises(rhgd.InvalidArgument, match=r"y is None and the problem has no starting point.*Problem\.set_start"):
        rhgd.hypergradient(q.problem(start=False), q.x)
    with pytest.raises(ValueError, match=r"x has shape \(2,\); .* needs shape \(3,\)"):
        rhgd.hypergradient(q.problem(), q.x[:2])
    with pytest.raises(rhgd.InvalidArgument, match="non-finite"):
        rhgd.hypergradient(q.problem(), [1.0, np.nan, 0.0], q.y0)
    with pytest.raises(TypeError, match="takes a Problem"):
        rhgd.hypergradient("synthetic", q.x)
    with pytest.raises(rhgd.InvalidArgument, match="eta_x"):
        rhgd.hypergradient(q.problem(), q.x, eta_x=-1)

    # A callback's exception surfaces as the cause, as in Solver.run.
    def boom(x, y):
        raise ZeroDivisionError("no lower gradient here")

    p = q.problem(grad_gy=boom)
    before = rhgd.live_handles()
    with pytest.raises(rhgd.CallbackError, match="the grad_gy callback raised ZeroDivisionError") as e:
        rhgd.hypergradient(p, q.x, estimator="cg")
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    assert p.error is None
    assert rhgd.live_handles() == before  # the solver was freed

    def interrupt(x, y):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rhgd.hypergradient(q.problem(grad_gy=interrupt), q.x, estimator="cg")

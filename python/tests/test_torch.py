"""rhgd.torch: problems written in PyTorch (f and g only) against closed
forms, finite differences and the same problems built into the library:
exact oracles, the same trajectories, finite sums (RSHGD), one autograd
graph per point, errors, and the examples."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from _torch import EXAMPLES  # PyTorch, or this module skipped; python/examples on sys.path
import torch

import rhgd
import rhgd.torch as rt

import torch_hyperrep  # noqa: E402  (python/examples)
import torch_synthetic  # noqa: E402  (python/examples)

CG, NS = "cg:maxiter=50,tol=1e-10", "ns:gamma=1,terms=50"


def synthetic(tmp_path, n=40, d=10, r=4):
    """The built-in synthetic problem, and the same problem written in torch
    on its saved data (with the closed-form pieces the tests compare to)."""
    path = str(tmp_path / "synthetic.npz")
    p = rhgd.builtin("synthetic", n=n, d=d, r=r, save=path)
    z = dict(np.load(path))
    tp = rt.Problem(*torch_synthetic.problem(z), rhgd.Stiefel(d, r), rhgd.SPD(d), x0=z["W0"], y0=z["M0"])
    X, Y = torch.from_numpy(z["X"]), torch.from_numpy(z["Y"])
    closed = dict(A=(X.T @ X).numpy(), C=(X.T @ Y).numpy(), YtY=(Y.T @ Y).numpy(), nu=float(z["nu"]))
    return p, tp, z, closed


def raw(tp, name, x, y, v=None, batch=None):
    """Call the torch problem's C callback name directly (its Euclidean
    output, before the manifolds convert it)."""
    cb = tp._c[name]
    n = dict(f=1, g=1, grad_fx=tp.len_x, grad_gx=tp.len_x, cross_gxy=tp.len_x).get(name, tp.len_y)
    out = np.empty(n)
    x, y = np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(y, dtype=float)
    b = None if batch is None else np.ascontiguousarray(batch, dtype=np.int64)
    bp, nb = (None, 0) if b is None else (b.ctypes.data, b.size)
    args = (None, x.ctypes.data, y.ctypes.data, bp, nb)
    if v is not None:
        v = np.ascontiguousarray(v, dtype=float)
        rc = cb(*args, v.ctypes.data, out.ctypes.data)
    else:
        rc = cb(*args, out.ctypes.data)
    assert rc == 0, tp.error
    return out[0] if n == 1 else out


def sym(a):
    return (a + a.T) / 2


def test_euclidean_oracles_closed_form(tmp_path):
    """The Euclidean gradients and products autograd gives are the closed
    forms of the synthetic problem to rounding (1e-12 relative)."""
    _, tp, z, c = synthetic(tmp_path)
    rng = np.random.default_rng(3)
    W, M = z["W0"], np.eye(10) + 0.1 * sym(rng.standard_normal((10, 10)))
    V, U = sym(rng.standard_normal((10, 10))), rng.standard_normal((10, 4))
    Mi = np.linalg.inv(M)
    B = W @ c["YtY"] @ W.T + c["nu"] * np.eye(10)
    want = dict(
        f=-np.sum((M @ c["C"]) * W),
        g=np.sum(M * c["A"]) + np.sum(Mi * B),
        grad_fx=-M @ c["C"], grad_fy=-W @ c["C"].T,
        grad_gy=c["A"] - Mi @ B @ Mi, grad_gx=2 * Mi @ W @ c["YtY"],
        hess_gy=Mi @ V @ Mi @ B @ Mi + Mi @ B @ Mi @ V @ Mi,
        cross_gxy=-2 * Mi @ V @ Mi @ W @ c["YtY"],
        cross_gyx=-Mi @ (U @ c["YtY"] @ W.T + W @ c["YtY"] @ U.T) @ Mi)
    vecs = dict(hess_gy=V, cross_gxy=V, cross_gyx=U)
    for name, w in want.items():
        got = raw(tp, name, W, M, vecs.get(name))
        np.testing.assert_allclose(np.ravel(got), np.ravel(w), rtol=1e-12, atol=1e-12 * np.max(np.abs(w)),
                                   err_msg=name)


def test_riemannian_oracles_match_builtin(tmp_path):
    """Through the library (egrad→rgrad, ehess→rhess in Go), every oracle of
    the torch problem equals the built-in problem's to 1e-12 relative."""
    p, tp, z, _ = synthetic(tmp_path)
    rng = np.random.default_rng(4)
    x = p.mx.rand_point(5)
    y = p.my.retract(z["M0"], p.my.project(z["M0"], 0.2 * rng.standard_normal((10, 10))))
    v = p.my.project(y, rng.standard_normal((10, 10)))
    u = p.mx.project(x, rng.standard_normal((10, 4)))
    for name, w in [("f", None), ("g", None), ("grad_fx", None), ("grad_fy", None), ("grad_gx", None),
                    ("grad_gy", None), ("hess_gy", v), ("cross_gxy", v), ("cross_gyx", u)]:
        a, b = p.oracle(name, x, y, w), tp.oracle(name, x, y, w)
        assert np.max(np.abs(a - b)) <= 1e-12 * max(1.0, np.max(np.abs(a))), name


def test_taylor_and_finite_differences():
    """On the hyper-representation (eigh inside, no closed form in the
    test): the first-order Taylor remainders of g and of ∇_y g, ∇_x g along
    a direction shrink with slope 2 (the gradients and the products are the
    derivatives), and central finite differences agree with autograd only
    to their own accuracy (~1e-8), while autograd is exact."""
    data = torch_hyperrep.make_data(N=16, d=6, k=2, n_train=8)
    f, g, mx, my, nf, ng = torch_hyperrep.problem(data)
    tp = rt.Problem(f, g, mx, my, n_f=nf, n_g=ng)
    rng = np.random.default_rng(5)
    W, beta = data["W0"], rng.standard_normal(3)
    dW, dbeta = rng.standard_normal(W.shape), rng.standard_normal(3)
    gW, gb = raw(tp, "grad_gx", W, beta), raw(tp, "grad_gy", W, beta)
    g0 = raw(tp, "g", W, beta)
    cross = raw(tp, "cross_gyx", W, beta, dW)  # D_W ∇_β g [dW]
    hess = raw(tp, "hess_gy", W, beta, dbeta)
    crossxy = raw(tp, "cross_gxy", W, beta, dbeta)  # D_β ∇_W g [dβ]
    ts = np.array([1e-2, 5e-3, 2.5e-3])
    rem = dict(g=[], grad_gy=[], grad_gx=[])
    for t in ts:
        Wt, bt = W + t * dW, beta + t * dbeta
        rem["g"].append(abs(raw(tp, "g", Wt, bt) - g0 - t * (np.sum(gW * dW.ravel()) + gb @ dbeta)))
        rem["grad_gy"].append(np.linalg.norm(raw(tp, "grad_gy", Wt, bt) - gb - t * (cross + hess)))
        rem["grad_gx"].append(np.linalg.norm(raw(tp, "grad_gx", W, bt) - gW - t * crossxy))
    for k, r in rem.items():
        slopes = np.diff(np.log(r)) / np.diff(np.log(ts))
        assert np.all(slopes > 1.8), (k, slopes, r)
    h = 1e-5
    fd = (raw(tp, "grad_gy", W, beta + h * dbeta) - raw(tp, "grad_gy", W, beta - h * dbeta)) / (2 * h)
    np.testing.assert_allclose(fd, hess, rtol=1e-6, atol=1e-8)
    fd = (raw(tp, "grad_gx", W, beta + h * dbeta) - raw(tp, "grad_gx", W, beta - h * dbeta)) / (2 * h)
    np.testing.assert_allclose(fd, crossxy, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("est", [CG, NS, "ad"])
def test_synthetic_trajectory_matches_builtin(tmp_path, est):
    """The synthetic problem in torch follows the built-in problem's
    trajectory to 1e-9 over 100 epochs, same data, start and settings."""
    p, tp, z, _ = synthetic(tmp_path)
    s = dict(eta_x=0.5, eta_y=0.5, inner=20, epochs=100)
    r1 = rhgd.minimize(p, estimator=est, **s)
    r2 = rhgd.Solver(tp, est, **s).run()
    assert r1.nit == r2.nit == 100
    assert np.max(np.abs(r1.history["f"] - r2.history["f"])) < 1e-9
    assert np.max(np.abs(r1.history["hypergrad_norm"] - r2.history["hypergrad_norm"])) < 1e-9
    assert np.max(np.abs(r1.x - r2.x)) < 1e-9 and np.max(np.abs(r1.y - r2.y)) < 1e-9


def hyperrep_pair(N=24, d=6, k=2, n_train=12):
    data = torch_hyperrep.make_data(N=N, d=d, k=k, n_train=n_train)
    p = rhgd.builtin("hyperrep", data=data, **{"lambda": 0.1})
    f, g, mx, my, nf, ng = torch_hyperrep.problem(data, lam=0.1)
    return p, rt.Problem(f, g, mx, my, n_f=nf, n_g=ng, x0=data["W0"], y0=data["beta0"])


@pytest.mark.parametrize("est,batches", [(CG, False), ("ns:gamma=0.05,terms=50", False),
                                         (CG, True)])
def test_hyperrep_trajectory_matches_builtin(est, batches):
    """The hyper-representation in torch (finite sums: f over the validation
    set, g over the training set) follows the built-in problem to 1e-9 over
    100 epochs, for RHGD and for RSHGD, whose minibatches reach f and g."""
    p, tp = hyperrep_pair()
    s = dict(eta_x=0.05, eta_y=0.05, inner=10, epochs=100)
    if batches:
        s.update(batch_lower=4, batch_upper=6, batch_cross=6, batch_hess=6, seed=3)
    r1 = rhgd.minimize(p, estimator=est, **s)
    r2 = rhgd.Solver(tp, est, **s).run()
    assert r1.nit == r2.nit == 100
    assert np.max(np.abs(r1.history["f"] - r2.history["f"])) < 1e-9
    assert np.max(np.abs(np.ravel(r1.x) - np.ravel(r2.x))) < 1e-9
    assert np.max(np.abs(np.ravel(r1.y) - np.ravel(r2.y))) < 1e-9


def synthetic_hinv(A, YtY, nu):
    """The synthetic problem's Riemannian inverse Hessian in torch:
    H⁻¹[V] = (LQ)[(2 Qᵀ L⁻¹VL⁻ᵀ Q) ⊘ (λ_i + λ_j)](LQ)ᵀ, M = LLᵀ,
    L⁻¹(MAM + B)L⁻ᵀ = QΛQᵀ (problems/synthetic's formula)."""
    eye = torch.eye(A.shape[0], dtype=torch.float64)

    def hinv(W, M, V):
        K = M @ A @ M + W @ YtY @ W.T + nu * eye
        L = torch.linalg.cholesky(M)
        Li = torch.linalg.inv(L)
        lam, Q = torch.linalg.eigh(Li @ K @ Li.T)
        P = L @ Q
        return P @ (2 * (Q.T @ Li @ V @ Li.T @ Q) / (lam[:, None] + lam[None, :])) @ P.T
    return hinv


def test_hinv_with_users_inverse_hessian(tmp_path):
    """With the user's inverse Hessian, HINV runs on the torch problem and
    follows the built-in problem to 1e-9 over 100 epochs; so does CG on the
    same (Riemannian-converted) problem. With minibatches the inverse gets
    the batch (it is the minibatch's Hessian that it inverts)."""
    p, _, z, c = synthetic(tmp_path)
    tp0 = synthetic(tmp_path)[1]
    hinv = synthetic_hinv(torch.from_numpy(c["A"]), torch.from_numpy(c["YtY"]), c["nu"])
    tp = rt.Problem(tp0._f.fn, tp0._g.fn, p.mx, p.my, x0=z["W0"], y0=z["M0"], hess_gy_inv=hinv)
    x, y = p.start()
    v = p.my.project(y, np.random.default_rng(2).standard_normal(y.shape))
    np.testing.assert_allclose(tp.oracle("hess_gy_inv", x, y, v), p.oracle("hess_gy_inv", x, y, v), atol=1e-12)
    s = dict(eta_x=0.5, eta_y=0.5, inner=20, epochs=100)
    for est in ("hinv", CG):
        r1, r2 = rhgd.minimize(p, estimator=est, **s), rhgd.Solver(tp, est, **s).run()
        assert np.max(np.abs(r1.history["f"] - r2.history["f"])) < 1e-9, est
        assert np.max(np.abs(r1.x - r2.x)) < 1e-9, est
    e = rhgd.Euclidean(3)
    bp = rt.Problem(lambda x, y, b: torch.sum((y - x) ** 2), lambda x, y, b: torch.sum(y ** 2), e, e, n_f=4, n_g=4,
                    hess_gy_inv=lambda x, y, v: v / 2)
    r = rhgd.Solver(bp, "hinv", epochs=2, batch_lower=2, batch_hess=2).run(np.zeros(3), np.ones(3))
    assert r.success and bp.crossings["hess_gy_inv"] == 2


def test_one_graph_per_point(tmp_path):
    """CG's Hessian products at one point reuse one autograd graph: g is
    evaluated far fewer times than there are products."""
    p, tp, z, _ = synthetic(tmp_path)
    calls = [0]
    g0 = tp._g.fn

    def g(W, M):
        calls[0] += 1
        return g0(W, M)

    tp._g.fn = g
    r = rhgd.Solver(tp, CG, eta_x=0.5, eta_y=0.5, inner=5, epochs=10).run()
    assert r.hess_vecs > 100
    # per epoch: a gradient at each lower step, one graph at the last point
    assert calls[0] <= r.nit * (5 + 3), (calls[0], r.hess_vecs)


def test_one_forward_per_point():
    """At one point, g's value, both gradients and the products share one
    forward pass, and ∇_y g alone does not differentiate what depends on x
    only (a lower step's backward pass stops at y)."""
    calls, xonly = [0], [0]

    class Count(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.clone()

        @staticmethod
        def backward(ctx, g):
            xonly[0] += 1
            return g

    def g(x, y):
        calls[0] += 1
        return torch.sum(Count.apply(x) ** 2 * y) + 0.5 * torch.sum(y * y)

    f = lambda x, y: torch.sum(x * y)
    mx, my = rhgd.Euclidean(3), rhgd.Euclidean(3)
    tp = rt.Problem(f, g, mx, my)
    x, y, v = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0]), np.ones(3)
    np.testing.assert_allclose(tp.oracle("grad_gy", x, y), x ** 2 + y)
    assert xonly[0] == 0
    assert tp.oracle("g", x, y) == pytest.approx(np.sum(x ** 2 * y) + 0.5 * np.sum(y * y))
    np.testing.assert_allclose(tp.oracle("grad_gx", x, y), 2 * x * y)
    np.testing.assert_allclose(tp.oracle("hess_gy", x, y, v), v)
    np.testing.assert_allclose(tp.oracle("cross_gxy", x, y, v), 2 * x * v)
    assert calls[0] == 1


def test_ad_keeps_the_lower_path(tmp_path):
    """minimize with AD keeps the lower path's graphs: the backward sweep
    evaluates g at no new point (one forward per lower point per epoch),
    and the trajectory is the one without the kept graphs."""
    p, tp, z, _ = synthetic(tmp_path)
    calls = [0]

    def g(W, M):
        calls[0] += 1
        return tp._g.fn(W, M)

    x0, y0 = p.start()
    r = rt.minimize(tp._f.fn, g, tp.mx, tp.my, x0, y0, estimator="ad", eta_x=0.5, eta_y=0.5, inner=5, epochs=4)
    assert calls[0] <= r.epochs * (5 + 1) + 5, calls[0]  # and the 5 steps of the final lower solve
    want = rhgd.Solver(tp, "ad", eta_x=0.5, eta_y=0.5, inner=5, epochs=4).run(x0, y0)
    np.testing.assert_allclose(r.x, want.x, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="keep_points"):
        tp.keep_points(0)


def test_adaptive_preset(tmp_path):
    """The adaptive preset runs on a torch problem and lowers the
    hypergradient."""
    _, tp, _, _ = synthetic(tmp_path)
    r = rhgd.Solver(tp, None, preset="adaptive", epochs=40).run()
    assert r.success
    assert r.history["hypergrad_norm"][-1] < 0.5 * r.history["hypergrad_norm"][0]


def test_minimize_and_lower_solve():
    """rhgd.torch.minimize on a quadratic with a known lower solution: the
    lower_solve oracle (callable) runs under the setting."""
    rng = np.random.default_rng(1)
    k, m = 3, 5
    Bm = torch.from_numpy(rng.standard_normal((m, k)))
    c = torch.from_numpy(rng.standard_normal(m))
    f = lambda x, y: 0.5 * torch.sum((y - c) ** 2) + 0.05 * torch.sum(x ** 2)
    g = lambda x, y: 0.5 * torch.sum(y ** 2) - y @ (Bm @ x)
    r = rt.minimize(f, g, rhgd.Euclidean(k), rhgd.Euclidean(m), np.zeros(k), np.zeros(m), estimator="cg",
                    eta_x=0.1, epochs=2000, grad_tol=1e-9)
    # the solution of min_x ½|Bx − c|² + 0.05|x|²
    Bn, cn = Bm.numpy(), c.numpy()
    want = np.linalg.solve(Bn.T @ Bn + 0.1 * np.eye(k), Bn.T @ cn)
    np.testing.assert_allclose(r.x, want, atol=1e-7)
    r2 = rt.minimize(f, g, rhgd.Euclidean(k), rhgd.Euclidean(m), np.zeros(k), np.zeros(m), estimator="cg",
                     eta_x=0.1, epochs=5, lower_solve=lambda x, y: Bm @ x)
    assert r2.lower_solves == 0  # the oracle alone does not change the run
    r3 = rhgd.Solver(rt.Problem(f, g, rhgd.Euclidean(k), rhgd.Euclidean(m), lower_solve=lambda x, y: Bm @ x),
                     "cg", eta_x=0.1, epochs=5, lower_solve=True).run(np.zeros(k), np.zeros(m))
    assert r3.lower_solves > 0


def test_errors(tmp_path):
    """A failing f or g stops the run with CallbackError naming the oracle
    and the exception; a non-scalar value is refused; hinv on a lower
    level whose inverse Hessian is neither given nor derived (SPD) runs as
    CG, with a warning."""
    _, tp, z, _ = synthetic(tmp_path)
    e2 = rhgd.Euclidean(2)

    def bad(x, y):
        raise ZeroDivisionError("boom")

    p = rt.Problem(bad, lambda x, y: torch.sum(y ** 2), e2, e2)
    with pytest.raises(rhgd.CallbackError, match="ZeroDivisionError: boom") as ei:
        rhgd.Solver(p, "cg", epochs=2).run(np.zeros(2), np.ones(2))
    assert isinstance(ei.value.__cause__, ZeroDivisionError)
    p = rt.Problem(lambda x, y: x + y, lambda x, y: torch.sum(y ** 2), e2, e2)
    with pytest.raises(rhgd.CallbackError, match="want one"):
        rhgd.Solver(p, "cg", epochs=2).run(np.zeros(2), np.ones(2))
    # Above hinv_max_dim (SPD(10): dimension 55), 'hinv' runs as CG.
    tq = rt.Problem(*torch_synthetic.problem(z), rhgd.Stiefel(10, 4), rhgd.SPD(10), hinv_max_dim=54)
    with pytest.warns(UserWarning, match="'hinv' runs as 'cg'.*dimension 55, above hinv_max_dim = 54"):
        assert rhgd.Solver(tq, "hinv").settings.startswith("cg")
    with pytest.raises(TypeError):
        rt.Problem(None, None, e2, e2)


def run_example(name):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(EXAMPLES.parent)] + [x for x in [env.get("PYTHONPATH")] if x])
    out = subprocess.run([sys.executable, str(EXAMPLES / name), "--small"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_example_synthetic():
    out = run_example("torch_synthetic.py")
    diff = float(out.strip().splitlines()[-1].split()[-1])
    assert diff < 1e-9, out


def test_example_hyperrep():
    out = run_example("torch_hyperrep.py")
    assert out.count("->") == 2, out


def test_readme_snippet():
    """python/README.md's torch snippet runs as written and lowers f."""
    text = (EXAMPLES.parent / "README.md").read_text()
    sec = text.index("## Problems written in PyTorch")
    a = text.index("```python\n", sec) + len("```python\n")
    code = text[a:text.index("```\n", a)]
    ns = {}
    exec(compile(code.replace("epochs=100", "epochs=5"), "README.md", "exec"), ns)
    res = ns["res"]
    assert res.nit == 5 and res.history["f"][-1] < res.history["f"][0]


def test_example_spdnet():
    """The SPD network (BiMap, ReEig, LogEig through eigh; cross-entropy
    lower level) on a Product of Stiefel manifolds lowers f."""
    out = run_example("torch_spdnet.py")
    f0, f1 = (float(t.rstrip(",")) for t in out.split()[1:4:2])
    assert f1 < f0, out


def test_coupling_lower_level():
    """An entropic transport plan on the Coupling manifold as the lower
    variable (cost C + x 1ᵀ ∘ C shifted by the upper variable): the
    Riemannian gradient the library makes of autograd's Euclidean one has
    the Taylor slope 2 along the Sinkhorn retraction in the Fisher metric,
    and CG runs, its plans couplings of the marginals."""
    rng = np.random.default_rng(6)
    m, n = 4, 5
    a, b = np.full(m, 1 / m), np.full(n, 1 / n)
    C = torch.from_numpy(rng.random((m, n)))
    T = torch.from_numpy(np.outer(a, b) * (1 + 0.5 * rng.standard_normal((m, n))).clip(0.2))
    mx, my = rhgd.Euclidean(m), rhgd.Coupling(a, b)
    f = lambda x, G: 0.5 * torch.sum((G - T) ** 2) + 1e-3 * torch.sum(x ** 2)
    g = lambda x, G: torch.sum((C + x[:, None] * C) * G) + 0.1 * torch.sum(G * (torch.log(G) - 1))
    tp = rt.Problem(f, g, mx, my)
    x, y = rng.standard_normal(m), my.rand_point(3)
    v = my.project(y, rng.standard_normal((m, n)) * y)
    grad = tp.oracle("grad_gy", x, y).reshape(m, n)
    g0, slope = tp.oracle("g", x, y), np.sum(grad * v / y)  # Fisher metric ⟨u, v⟩_y = Σ u v / y
    ts = np.array([1e-2, 5e-3, 2.5e-3])
    rem = [abs(tp.oracle("g", x, my.retract(y, v, t)) - g0 - t * slope) for t in ts]
    assert np.all(np.diff(np.log(rem)) / np.diff(np.log(ts)) > 1.8), rem
    r = rt.minimize(f, g, mx, my, np.zeros(m), np.outer(a, b), estimator="cg", eta_x=0.1, eta_y=0.5, inner=20,
                    epochs=5)
    assert r.success and np.all(np.isfinite(r.history["f"]))
    np.testing.assert_allclose(r.y.sum(1), a, atol=1e-9)
    np.testing.assert_allclose(r.y.sum(0), b, atol=1e-9)


def test_float32_data_says_float64():
    """Data made in float32 meets rhgd's float64 points inside f: the error
    says what to do, not only torch's dtype mismatch."""
    rng = np.random.default_rng(0)
    A = torch.from_numpy(rng.standard_normal((3, 3)).astype(np.float32))
    A = A @ A.T + torch.eye(3)

    def f(x, y):
        return torch.sum(x * x) + torch.sum(y * y)

    def g(x, y):
        return 0.5 * torch.sum(y * (A @ y)) - torch.sum(x * y)

    mx, my = rhgd.Euclidean(3), rhgd.Euclidean(3)
    with pytest.raises(rhgd.CallbackError, match="float64"):
        rt.minimize(f, g, mx, my, np.ones(3), np.zeros(3), estimator="cg", epochs=3)


def test_check_torch_problem(tmp_path):
    """Problem.check (Go's CheckProblem) passes on a torch-written problem:
    autograd's gradients by their Taylor slopes, its exact Hessian and
    cross products against finite differences at tol 1e-6."""
    p, tp, z, _ = synthetic(tmp_path)
    x, y = z["W0"], rhgd.SPD(z["M0"].shape[0]).rand_point(2)  # M away from I, where grad_W g vanishes
    rep = tp.check(x, y, seed=5)
    assert rep["ok"], [(r["name"], r["msg"]) for r in rep["reports"] if not r["ok"]]
    assert {"HessGy: Hessian", "CrossGxy: cross derivative", "CrossGyx: cross derivative"} <= \
        {r["name"] for r in rep["reports"]}


def test_hinv_derived_by_the_library_on_spd(tmp_path):
    """On a non-Euclidean lower level (SPD(10): dimension 55) without
    hess_gy_inv, 'hinv' is the library's derived inverse, with no warning:
    its hypergradient at (W0, y*(W0)) is CG's at a tight tolerance and the
    built-in problem's, whose inverse Hessian is given (both to 1e-9:
    rounding of problems whose lower Hessian has a condition number near 10,
    far below)."""
    p, tp, z, _ = synthetic(tmp_path)
    W = z["W0"]
    _, M, _ = rhgd.hypergradient(p, W, estimator="hinv", inner=200, full_output=True)  # y near y*(W)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rhgd.Solver(tp, "hinv").settings.startswith("hinv")
        h = rhgd.hypergradient(tp, W, M, estimator="hinv")
    cg = rhgd.hypergradient(tp, W, M, estimator="cg:tol=1e-14,maxiter=300")
    given = rhgd.hypergradient(p, W, M, estimator="hinv")
    assert np.linalg.norm(h - cg) <= 1e-9 * np.linalg.norm(cg)
    assert np.linalg.norm(h - given) <= 1e-9 * np.linalg.norm(given)


def _spd10(batch):
    """An SPD(10) lower level (dimension 55) in torch: g(x, Y) = <Y, S(x)> −
    log det Y, S(x) = A + 0.1 (x + xᵀ)(x + xᵀ)ᵀ/2, f = ½|Y − C|² + 0.05|x|²,
    y*(x) = S(x)⁻¹; batch=False leaves out hess_gy_batch."""
    n = 10
    rng = np.random.default_rng(8)
    a = rng.standard_normal((n, n))
    A = torch.tensor(a @ a.T / n + np.eye(n))
    C = torch.tensor(0.5 * np.eye(n) + 0.05 * (a + a.T) / 2)

    def S(x):
        z = x + x.T
        return A + 0.1 * z @ z.T / 2
    return rt.Problem(lambda x, y: 0.5 * torch.sum((y - C) ** 2) + 0.05 * torch.sum(x * x),
                      lambda x, y: torch.sum(y * S(x)) - torch.logdet(y),
                      rhgd.Euclidean(n, n), rhgd.SPD(n), _hess_gy_batch=batch), S


def test_hinv_derived_batched_on_spd():
    """The library's derived 'hinv' on SPD(10) asks for the 55 Hessian
    products of a point in one hess_gy_batch crossing (one batched backward
    pass), with no hess_gy crossing, and gives the hypergradient of the
    derivation by 55 hess_gy crossings and CG's at a tight tolerance (both to
    1e-9, as the derived-hinv test above: the batched and single products
    differ by rounding, and H's condition number here is near 10). Over a
    run, one hess_gy_batch crossing per epoch (each epoch's estimate is at
    one point)."""
    n = 10
    x = 0.1 * np.random.default_rng(9).standard_normal((n, n))
    pb, S = _spd10(True)
    y = np.linalg.inv(S(torch.tensor(x)).numpy()) + 0.01 * np.eye(n)  # near y*(x)
    h = rhgd.hypergradient(pb, x, y, estimator="hinv", inner=1, eta_y=1e-12)
    assert pb.crossings["hess_gy_batch"] == 1 and pb.crossings.get("hess_gy", 0) == 0
    assert pb.hess_batch_off is None
    pu, _ = _spd10(False)
    hu = rhgd.hypergradient(pu, x, y, estimator="hinv", inner=1, eta_y=1e-12)
    assert pu.crossings["hess_gy"] == 55 and "hess_gy_batch" not in pu.crossings
    cg = rhgd.hypergradient(pb, x, y, estimator="cg:tol=1e-14,maxiter=300", inner=1, eta_y=1e-12)
    assert np.linalg.norm(h - hu) <= 1e-9 * np.linalg.norm(hu)
    assert np.linalg.norm(h - cg) <= 1e-9 * np.linalg.norm(cg)

    pb, _ = _spd10(True)
    r = rhgd.minimize(pb, x, np.eye(n), estimator="hinv", epochs=4, eta_x=0.2, eta_y=0.2, inner=5)
    assert r.nit == 4 and pb.crossings["hess_gy_batch"] == 4 and pb.crossings.get("hess_gy", 0) == 0


def test_hess_gy_batch_fallback(monkeypatch):
    """Where torch cannot batch g's backward (simulated: is_grads_batched
    raises, as vmap does on an op without a batching rule), hess_gy_batch
    loops over its directions inside the one crossing: the first call
    records why in hess_batch_off and later calls do not try again; the
    hypergradient is that of the batched products to rounding (1e-9, as
    above), and no warning is issued."""
    tries = []
    grad = torch.autograd.grad

    def no_batch(*args, **kw):
        if kw.get("is_grads_batched"):
            tries.append(1)
            raise RuntimeError("Batching rule not implemented for aten::simulated")
        return grad(*args, **kw)
    n = 10
    x = 0.1 * np.random.default_rng(9).standard_normal((n, n))
    pb, S = _spd10(True)
    y = np.linalg.inv(S(torch.tensor(x)).numpy()) + 0.01 * np.eye(n)
    want = rhgd.hypergradient(pb, x, y, estimator="hinv", inner=1, eta_y=1e-12)
    monkeypatch.setattr(torch.autograd, "grad", no_batch)
    p, _ = _spd10(True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = rhgd.hypergradient(p, x, y, estimator="hinv", inner=1, eta_y=1e-12)
        h2 = rhgd.hypergradient(p, x, y + 0.01 * np.eye(n), estimator="hinv", inner=1, eta_y=1e-12)
    assert "simulated" in p.hess_batch_off and len(tries) == 1
    assert p.crossings["hess_gy_batch"] == 2 and p.crossings.get("hess_gy", 0) == 0
    assert np.linalg.norm(h - want) <= 1e-9 * np.linalg.norm(want)
    assert np.all(np.isfinite(h2))


def test_hess_gy_batch_fallback_on_a_real_op():
    """A g through rhgd.torch.logm on an SPD lower level: torch 1.13's
    vmap cannot batch the op's backward (no batching rule), so
    hess_gy_batch falls back to its loop, silently, and the derived
    'hinv' hypergradient is CG's at a tight tolerance (to 1e-9)."""
    n = 4
    a = torch.randn(n, n, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    a = 0.3 * (a + a.T)

    def g(x, y):
        return 0.5 * torch.sum((rt.logm(y) - a - 0.1 * (x + x.T)) ** 2)

    def f(x, y):
        return 0.5 * torch.sum((y - 1.5 * torch.eye(n, dtype=torch.float64)) ** 2) + 0.01 * torch.sum(x ** 2)

    p = rt.Problem(f, g, rhgd.Euclidean(n, n), rhgd.SPD(n))
    x, y = torch.zeros(n, n, dtype=torch.float64), torch.matrix_exp(a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = rhgd.hypergradient(p, x, y, "hinv")
    if torch.__version__ < "2":  # a later torch may batch it
        assert p.hess_batch_off is not None
    assert p.crossings["hess_gy_batch"] == 1 and p.crossings.get("hess_gy", 0) == 0
    want = rhgd.hypergradient(p, x, y, "cg:tol=1e-13")
    assert float((h - want).norm()) <= 1e-9 * float(want.norm())

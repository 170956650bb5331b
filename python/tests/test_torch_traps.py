"""A user's own problem in PyTorch without traps (issue 27): a lost autograd
graph, a transposed or flattened start, NaN gradients from eigh at
repeated eigenvalues, tensors in and out, dtype and device, progress and
plots. Each test failed before its fix."""

import sys

import numpy as np
import pytest

from _torch import F64  # PyTorch, or this module skipped; python/examples on sys.path
import torch

import rhgd
import rhgd.torch as rt
from rhgd._arrays import f64

import torch_metric  # noqa: E402  (python/examples)


def _eigh_sqrt(M):
    w, V = torch.linalg.eigh(M)
    return (V * w.sqrt()) @ V.T


# Four ways to lose the graph, each applied to f or to g.
def _item(fn):
    return lambda x, y: fn(x, y).item()


def _detach(fn):
    return lambda x, y: fn(x.detach(), y.detach())


def _numpy(fn):
    return lambda x, y: torch.as_tensor(fn(torch.from_numpy(x.detach().numpy()), torch.from_numpy(y.detach().numpy())))


def _no_grad(fn):
    def h(x, y):
        with torch.no_grad():
            return fn(x, y)
    return h


@pytest.mark.parametrize("lose", [_item, _detach, _numpy, _no_grad], ids=["item", "detach", "numpy", "no_grad"])
@pytest.mark.parametrize("which", ["f", "g"])
def test_lost_graph_is_an_error_naming_the_function(metric, lose, which):
    """f or g without an autograd graph raises, naming the function and the
    likely causes (before: zero gradients, ĝ = 0 and IterationLimit, or, for
    g under no_grad, a hint to damp CG)."""
    f, g = metric["f"], metric["g"]
    if which == "f":
        f = lose(f)
    else:
        g = lose(g)
    with pytest.raises(rhgd.CallbackError) as info:
        rt.minimize(f, g, metric["mx"], metric["my"], metric["M0"], metric["W0"], estimator="cg", epochs=3)
    msg = str(info.value)
    assert f"{which} returned" in msg and "autograd" in msg and "no_grad" in msg, msg
    assert "damping" not in msg
    assert isinstance(info.value.__cause__, rt.GraphLost)


def test_truly_zero_gradients_stay_zero():
    """f that does not depend on x (only through y*(x)), and g whose
    cross derivative vanishes in part, run as before: a gradient that is
    truly zero is zero, not an error."""
    A = torch.diag(torch.tensor([1.0, 2.0, 3.0], dtype=F64))
    B = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=F64)
    c = torch.tensor([1.0, -1.0, 0.5], dtype=F64)

    def f(x, y):  # no x: grad_fx is zero
        return 0.5 * torch.sum((y - c) ** 2)

    def g(x, y):
        return 0.5 * y @ A @ y - y @ (B @ x)

    p = rt.Problem(f, g, rhgd.Euclidean(2), rhgd.Euclidean(3))
    x, y = np.array([0.3, -0.2]), np.array([0.1, 0.2, 0.3])
    assert np.all(p.oracle("grad_fx", x, y) == 0)
    r = rhgd.minimize(p, x, y, estimator="cg", epochs=300, eta_x=0.5, eta_y=0.2, grad_tol=1e-8)
    assert r.status_name == "GradientThreshold"
    # F(x) = ½|A⁻¹Bx − c|²: its gradient BᵀA⁻¹(A⁻¹Bx − c) vanishes at the least-squares x.
    Ai = np.linalg.inv(A.numpy())
    xs = np.linalg.lstsq(Ai @ B.numpy(), c.numpy(), rcond=None)[0]
    np.testing.assert_allclose(r.x, xs, atol=1e-6)


def test_transposed_or_flat_start_is_refused(metric):
    """A (3, 10) W0 for a (10, 3) point, or a flat (100,) M0, is refused
    with its shape and the manifold's (before: read as the right size)."""
    p = rt.Problem(metric["f"], metric["g"], metric["mx"], metric["my"])
    M0, W0 = metric["M0"], metric["W0"]
    with pytest.raises(ValueError, match=r"y0 has shape \(3, 10\).*needs shape \(10, 3\).*transposed"):
        rhgd.minimize(p, M0, W0.T, epochs=1)
    with pytest.raises(ValueError, match=r"x0 has shape \(100,\).*needs shape \(10, 10\)"):
        rhgd.minimize(p, M0.reshape(-1), W0, epochs=1)
    with pytest.raises(ValueError, match=r"x has shape \(100,\)"):
        p.oracle("f", M0.reshape(-1), W0)
    with pytest.raises(ValueError, match=r"x has shape"):
        metric["mx"].retract(M0.reshape(-1), M0.reshape(-1))
    # A vector is a vector whichever way it stands (same entries, same
    # order); a Product's points are flat, as documented.
    e = rhgd.Euclidean(3)
    for v in (np.ones(3), np.ones((3, 1)), np.ones((1, 3))):
        assert e.norm(np.zeros(3), v) == pytest.approx(3 ** 0.5)
    prod = rhgd.Product(rhgd.Euclidean(2), rhgd.SPD(2))
    x = prod.rand_point(seed=1)
    assert x.shape == (6,) and prod.retract(x, np.zeros(6)).shape == (6,)


def test_eigh_at_repeated_eigenvalues_names_the_cause(metric):
    """M^{1/2} by torch.linalg.eigh at M0 = I: NaN gradients, and the error
    says why and what to use instead (before: 'grad_fx: non-finite value')."""
    Xva, lva = metric["data"][2], metric["data"][3]

    def f(M, W):
        return torch.nn.functional.cross_entropy(Xva @ _eigh_sqrt(M) @ W, lva)

    with pytest.raises(rhgd.NumericalError) as info:
        rt.minimize(f, metric["g"], metric["mx"], metric["my"], torch.eye(10, dtype=F64), metric["W0"],
                    estimator="cg", epochs=2)
    msg = str(info.value)
    assert "grad_fx" in msg and "eigendecomposition" in msg and "repeated eigenvalues" in msg, msg
    assert "cholesky" in msg and "rhgd.torch.sqrtm" in msg
    # At distinct eigenvalues the same f runs.
    r = rt.minimize(f, metric["g"], metric["mx"], metric["my"], metric["M0"], metric["W0"], estimator="cg",
                    epochs=2)
    assert np.isfinite(r.fun)


def test_manifolds_take_and_give_tensors():
    """Every toolkit method takes torch tensors and gives tensors of the
    caller's dtype and device; float64 CPU tensors are read without a copy;
    a tensor that requires grad is read through detach (before: numpy only,
    and torch's 'Can't call numpy() on Tensor that requires grad')."""
    m = rhgd.Stiefel(5, 2)
    x = m.rand_point(seed=1, dtype=F64)
    assert isinstance(x, torch.Tensor) and x.dtype == F64 and x.shape == (5, 2)
    xn = x.numpy()
    assert np.shares_memory(f64(x, "x"), xn)  # no copy in
    u = m.rand_tangent(x, seed=2)
    v = m.project(x, torch.ones(5, 2, dtype=F64, requires_grad=True))
    y = m.retract(x, u, 0.3)
    outs = dict(rand_tangent=u, project=v, retract=y, exp=m.exp(x, u, 0.3), egrad2rgrad=m.egrad2rgrad(x, v),
                ehess2rhess=m.ehess2rhess(x, v, u, u), transport=m.transport(x, y, u))
    for name, t in outs.items():
        assert isinstance(t, torch.Tensor) and t.dtype == F64 and t.shape == (5, 2), name
    np.testing.assert_allclose(m.retract(x.numpy(), u.numpy(), 0.3), y.numpy(), rtol=0, atol=0)
    for val in (m.inner(x, u, v), m.norm(x, u)):
        assert isinstance(val, torch.Tensor) and val.ndim == 0
    assert float(m.norm(x, u)) == pytest.approx(1.0)
    # float32 in, float32 out (computed in float64).
    x32, u32 = x.float(), u.float()
    assert m.retract(x32, u32).dtype == torch.float32
    s = rhgd.SPD(3)
    a, b = s.rand_point(seed=3, dtype=F64), s.rand_point(seed=4, dtype=F64)
    assert isinstance(s.log(a, b), torch.Tensor) and isinstance(s.dist(a, b), torch.Tensor)
    np.testing.assert_allclose(float(s.dist(a, b)), s.dist(a.numpy(), b.numpy()), rtol=1e-15)
    # numpy stays numpy.
    assert isinstance(m.retract(x.numpy(), u.numpy()), np.ndarray) and isinstance(m.norm(xn, u.numpy()), float)


def test_tensors_in_and_out_of_a_run(metric):
    """A start that requires grad is accepted (read through detach), and
    the result's x, y, best_x, best_y and the callback's arrays are tensors
    of the start's dtype."""
    seen = []
    M0 = metric["M0"].clone().requires_grad_(True)
    r = rt.minimize(metric["f"], metric["g"], metric["mx"], metric["my"], M0, metric["W0"], estimator="cg",
                    epochs=3, callback=lambda info: seen.append(type(info["x"])))
    for k in ("x", "y", "best_x", "best_y"):
        assert isinstance(r[k], torch.Tensor) and r[k].dtype == F64, k
    assert r.x.shape == (10, 10) and r.y.shape == (10, 3)
    assert seen == [torch.Tensor] * 3
    p = rt.Problem(metric["f"], metric["g"], metric["mx"], metric["my"], x0=metric["M0"], y0=metric["W0"])
    assert all(isinstance(t, torch.Tensor) for t in p.start())
    r2 = rhgd.minimize(p, estimator="cg", epochs=3)
    assert isinstance(r2.x, torch.Tensor)
    torch.testing.assert_close(r2.x, r.x, rtol=0, atol=0)


def test_float32_problem_agrees_with_float64(metric):
    """dtype=torch.float32 evaluates f and g in float32 (the data too) with
    the solver in float64: oracles agree with float64's to float32's
    accuracy, and a run with a CG tolerance float32 can reach ends near the
    float64 run."""
    data32 = tuple(t.float() if t.is_floating_point() else t for t in metric["data"])
    f32, g32, mx, my, _ = torch_metric.problem(data32)
    p64 = rt.Problem(metric["f"], metric["g"], mx, my)
    p32 = rt.Problem(f32, g32, mx, my, dtype=torch.float32)
    M, W = metric["M0"].numpy(), 0.1 * np.ones((10, 3))
    rng = np.random.default_rng(1)
    v = rng.standard_normal((10, 3))
    for name, vec in (("f", None), ("g", None), ("grad_fx", None), ("grad_fy", None), ("grad_gy", None),
                      ("hess_gy", v), ("cross_gxy", v)):
        a, b = np.asarray(p64.oracle(name, M, W, vec)), np.asarray(p32.oracle(name, M, W, vec))
        assert np.max(np.abs(a - b)) <= 2e-5 * max(1.0, np.max(np.abs(a))), name
    kw = dict(estimator="cg:tol=1e-6", epochs=20, eta_x=0.5, eta_y=0.1)
    r64 = rhgd.minimize(p64, metric["M0"], metric["W0"], **kw)
    r32 = rhgd.minimize(p32, metric["M0"].float(), metric["W0"].float(), **kw)
    assert r32.x.dtype == torch.float32
    assert abs(r32.fun - r64.fun) <= 1e-5 * abs(r64.fun)
    # f and g with float64 data under dtype=float32: torch's dtype error,
    # with rhgd's hint in the problem's terms.
    bad = rt.Problem(metric["f"], metric["g"], mx, my, dtype=torch.float32)
    with pytest.raises(rhgd.CallbackError, match="float32 tensors"):
        bad.oracle("grad_gy", M, W)
    with pytest.raises(TypeError, match="dtype"):
        rt.Problem(metric["f"], metric["g"], mx, my, dtype=torch.int32)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here (torch.cuda.is_available() is "
                                                          "False): the device= path runs where one exists")
def test_cuda_problem_agrees_with_cpu(metric):
    """device='cuda': f and g run on the GPU, results come back to the
    start's device."""
    dev = torch.device("cuda")
    data = tuple(t.to(dev) for t in metric["data"])
    f, g, mx, my, _ = torch_metric.problem(data)
    kw = dict(estimator="cg", epochs=5, eta_x=0.5, eta_y=0.1)
    r_cpu = rt.minimize(metric["f"], metric["g"], mx, my, metric["M0"], metric["W0"], **kw)
    r_gpu = rt.minimize(f, g, mx, my, metric["M0"].to(dev), metric["W0"].to(dev), device=dev, **kw)
    assert r_gpu.x.device.type == "cuda"
    assert abs(r_gpu.fun - r_cpu.fun) <= 1e-10 * abs(r_cpu.fun)


@pytest.mark.parametrize("mode", ["line", "tqdm", True])
def test_progress(metric, capfd, mode):
    """progress= shows the epochs on stderr ('line' without tqdm)."""
    if mode == "tqdm":
        pytest.importorskip("tqdm", reason="progress='tqdm' needs python3-tqdm")
    p = rt.Problem(metric["f"], metric["g"], metric["mx"], metric["my"])
    rhgd.minimize(p, metric["M0"], metric["W0"], estimator="cg", epochs=4, progress=mode)
    err = capfd.readouterr().err
    assert "4/4" in err and "f" in err, err
    with pytest.raises(ValueError, match="progress="):
        rhgd.minimize(p, metric["M0"], metric["W0"], epochs=1, progress="yes")


def test_plot_writes_the_three_panels(metric, tmp_path):
    """rhgd.plot draws f and ‖ĝ‖ by epoch and ‖ĝ‖ by time for one run or
    several; the PNG opens and has the figure's size, with the panels' ink
    in each third."""
    pytest.importorskip("matplotlib", reason="rhgd.plot needs python3-matplotlib")
    import matplotlib.image
    p = rt.Problem(metric["f"], metric["g"], metric["mx"], metric["my"])
    runs = {est: rhgd.minimize(p, metric["M0"], metric["W0"], estimator=est, epochs=10) for est in ("cg", "ns")}
    path = tmp_path / "runs.png"
    fig = rhgd.plot(runs, path, title="test")
    assert len(fig.axes) == 3 and [a.get_yscale() for a in fig.axes[1:]] == ["log", "log"]
    img = matplotlib.image.imread(str(path))
    assert img.shape[0] == int(3.8 * 120) and img.shape[1] == int(13 * 120)
    ink = img[..., :3].mean(axis=2) < 0.5  # dark pixels: lines, axes, text
    w = img.shape[1] // 3
    assert all(ink[:, i * w:(i + 1) * w].sum() > 1000 for i in range(3))
    single = rhgd.plot(runs["cg"], tmp_path / "one.svg")
    assert (tmp_path / "one.svg").stat().st_size > 0 and len(single.axes[0].lines) == 1
    with pytest.raises(TypeError, match="OptimizeResult"):
        rhgd.plot({"a": 1})


def test_example_metric(tmp_path):
    """python/examples/torch_metric.py at the tests' size: tensors in and
    out, progress and the plot."""
    pytest.importorskip("matplotlib", reason="the example plots with python3-matplotlib")
    runs = torch_metric.main(small=True, out=str(tmp_path), progress="line")
    assert (tmp_path / "torch_metric.png").stat().st_size > 10000
    for name, r in runs.items():
        assert isinstance(r.x, torch.Tensor) and np.isfinite(r.fun), name


def test_builtin_data_as_tensors_that_require_grad(tmp_path):
    """A built-in problem's data given as tensors that require grad (a
    pipeline's outputs) are read through detach: the same problem as from
    numpy (before: torch's numpy-conversion error)."""
    path = str(tmp_path / "s.npz")
    ref = rhgd.builtin("synthetic", n=20, d=5, r=2, save=path)
    z = dict(np.load(path))
    p = rhgd.builtin("synthetic", data={k: torch.from_numpy(v).requires_grad_(v.dtype.kind == "f")
                                        for k, v in z.items()})
    x, y = ref.start()
    assert p.oracle("f", x, y) == ref.oracle("f", x, y)

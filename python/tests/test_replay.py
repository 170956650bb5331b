"""rhgd.torch's fused lower loop replays g's recorded operations
(rhgd._replay): the run is bitwise the one that calls g at every step, and
a g the recording could misread is called instead, with the reason in
Problem.replay_off."""

import numpy as np
import pytest

from _torch import F64  # PyTorch, or this module skipped
import torch

import rhgd
import rhgd.torch as rt
from rhgd import _replay

KW = dict(estimator="cg", epochs=5, eta_x=0.5, eta_y=0.1, inner=12)


def runs(metric, g, f=None, dtype=None, **kw):
    """The run with replay and the run without, and the replaying problem."""
    out = []
    for replay in (True, False):
        p = rt.Problem(f or metric["f"], g, metric["mx"], metric["my"], replay=replay, dtype=dtype)
        out.append((rhgd.minimize(p, metric["M0"], metric["W0"], **{**KW, **kw}), p))
    return out[0][0], out[1][0], out[0][1]


def assert_same_run(a, b):
    np.testing.assert_array_equal(a.history["f"], b.history["f"])
    np.testing.assert_array_equal(a.history["lower_grad_norm"], b.history["lower_grad_norm"])
    np.testing.assert_array_equal(np.asarray(a.x), np.asarray(b.x))
    np.testing.assert_array_equal(np.asarray(a.y), np.asarray(b.y))


def test_replay_is_bitwise_the_run_that_calls_g(metric):
    a, b, p = runs(metric, metric["g"])
    assert p.replay_off is None and p._step_graph
    assert_same_run(a, b)


def test_replay_in_float32(metric):
    import torch_metric  # conftest put python/examples on the path
    f, g, *_ = torch_metric.problem(tuple(t.float() if t.is_floating_point() else t for t in metric["data"]))
    a, b, p = runs(metric, g, f=f, dtype=torch.float32)
    assert p.replay_off is None
    assert_same_run(a, b)


def test_replay_calls_g_once_per_loop(metric):
    calls = [0]

    def g(M, W):
        calls[0] += 1
        return metric["g"](M, W)
    a, b, p = runs(metric, g)
    # a loop: the first step, the replay's check there, and at the first loop the check at the second point
    assert calls[0] < (KW["epochs"] + 1) * 3 + 5 + (KW["epochs"] + 1) * KW["inner"]
    assert_same_run(a, b)


def g_random(metric):
    def g(M, W):
        return metric["g"](M, W) * (1 + 0 * torch.rand(()))
    return g


def g_item(metric):
    def g(M, W):
        v = metric["g"](M, W)
        return v if float(W.sum()) < 1e9 else 2 * v
    return g


def g_inplace(metric):
    def g(M, W):
        t = W * 1.0
        t.mul_(1.0)
        return metric["g"](M, t)
    return g


@pytest.mark.parametrize("make, why", [(g_random, "random"), (g_item, "recording failed"),
                                       (g_inplace, "in place")], ids=["random", "item", "inplace"])
def test_what_could_differ_is_not_replayed(metric, make, why):
    """A g that draws random numbers, reads a tensor's value in Python or
    writes in place is called at every step, and replay_off says why."""
    a, b, p = runs(metric, make(metric))
    assert p._step_graph is False and why in p.replay_off
    assert_same_run(a, b)


def test_a_value_made_outside_torch_is_found(metric):
    """g computes a part of itself in numpy (invisible to the recording,
    which freezes it): from x, the check at the next loop's first point
    finds it; from y, the check at the first loop's second point. Either
    way the run is the one that calls g."""
    Xtr, ltr = metric["data"][:2]
    n = Xtr.shape[0]
    Ytr = torch.nn.functional.one_hot(ltr, 3).to(F64)

    def g_x(M, W):
        L = torch.from_numpy(np.linalg.cholesky(M.detach().numpy()))  # x through numpy
        return 0.5 * torch.sum((Xtr @ L @ W - Ytr) ** 2) / n + 0.05 * torch.sum(W ** 2)

    def g_y(M, W):
        s = torch.from_numpy(np.asarray(W.detach().numpy().sum()))  # y through numpy
        return metric["g"](M, W) + 0.1 * torch.sum(W ** 2) * s

    for g, where in ((g_x, "first point"), (g_y, "second step")):
        a, b, p = runs(metric, g)
        assert p._step_graph is False and where in p.replay_off, p.replay_off
        assert_same_run(a, b)


def scheduled_runs(metric, **kw):
    """The run with replay and the run without of a g that reads a Python
    number the callback changes after each epoch (a schedule), and the
    replaying problem."""
    scale = [1.0]

    def g(M, W):
        return scale[0] * metric["g"](M, W)

    def cb(info):
        scale[0] = 1.0 + 0.1 * (info["epoch"] + 1)
    res = []
    for replay in (True, False):
        scale[0] = 1.0
        p = rt.Problem(metric["f"], g, metric["mx"], metric["my"], replay=replay)
        res.append((rhgd.minimize(p, metric["M0"], metric["W0"], callback=cb, **kw), p))
    (a, p), (b, _) = res
    return a, b, p


def test_python_state_changed_between_loops_is_found(metric):
    """g reads a Python number that changes between epochs (a schedule
    set from the callback): the recording froze the old one, and the next
    loop's check drops it."""
    a, b, p = scheduled_runs(metric, **KW)
    assert p._step_graph is False and "first point" in p.replay_off
    assert_same_run(a, b)


def test_recording_splits_the_work_on_x(metric):
    """The replayed gradient equals autograd's bitwise, and the x-only
    work (the Cholesky factor and the features) is not in the per-step
    half."""
    M, W = metric["M0"], torch.randn(10, 3, dtype=F64)
    sg, why = _replay.record(metric["g"], M, torch.zeros(10, 3, dtype=F64), ())
    assert why is None
    Wr = W.clone().requires_grad_(True)
    (ref,) = torch.autograd.grad(metric["g"](M, Wr), Wr)
    b = sg.bind(M, ())
    assert torch.equal(b.grad(W), ref)
    v, gy = b.both(W)
    assert torch.equal(gy, ref) and float(v) == float(metric["g"](M, W))
    code = sg.post_grad.code
    assert "cholesky" not in code and "cholesky" in sg.pre.code
    assert code.count("aten.mm") == 2  # Z W and Zᵀ r: the features Z = X L come from pre


def test_argument_checks_are_kept():
    """An operation with no result (torch's check of a Cholesky factor) is
    kept where its input is computed, so a failure still raises."""
    def g(x, y):
        A = torch.outer(y, y) + x
        return torch.linalg.cholesky(A).diagonal().sum() + (y ** 2).sum()
    x = torch.eye(3, dtype=F64)
    sg, why = _replay.record(g, x, torch.ones(3, dtype=F64), ())
    assert why is None and "_linalg_check_errors" in sg.post_grad.code
    b = sg.bind(-4 * x, ())
    with pytest.raises(RuntimeError, match="positive-definite"):
        b.grad(torch.zeros(3, dtype=F64))


def test_rhgd_torch_matrix_functions_are_recorded():
    """rhgd.torch's logm (hyper-representation's features) is one operator
    to the recording (torch.ops.rhgd.symfn), not numpy it cannot see: the
    recording is kept, its x-only half holds the logm, and the run is
    bitwise the one that calls g."""
    import torch_hyperrep
    data = torch_hyperrep.make_data(N=24, d=6, k=2, n_train=12)
    f, g, mx, my, nf, ng = torch_hyperrep.problem(data)
    out = []
    for replay in (True, False):
        p = rt.Problem(f, g, mx, my, n_f=nf, n_g=ng, replay=replay)
        out.append((rhgd.minimize(p, data["W0"], data["beta0"], estimator="cg", epochs=4, eta_x=0.2, eta_y=0.2,
                                  inner=10), p))
    (a, p), (b, _) = out
    assert p.replay_off is None and "rhgd.symfn" in p._step_graph.pre.code
    assert "symfn" not in p._step_graph.post_grad.code
    assert_same_run(a, b)


def test_matrix_function_of_y(metric):
    """A matrix function of y itself (its backward runs numpy, which the
    recording cannot see into): the recording is refused or dropped, and
    the run is the one that calls g."""
    eye = torch.eye(3, dtype=F64)

    def g(M, W):
        return metric["g"](M, W) + 0.01 * torch.trace(rt.logm(eye + W.T @ W))
    a, b, p = runs(metric, g)
    assert p._step_graph is False, p.replay_off
    assert_same_run(a, b)


@pytest.mark.parametrize("preset", ["adaptive", "bb"])
def test_point_by_point_replay_is_bitwise_the_run_that_calls_g(metric, preset):
    """Where g is called point by point (the adaptive preset's BB lower
    loop with a tolerance), its value and ∇_y g at a point whose x was
    seen come from the recording: the run is bitwise the one that calls g,
    and g is called once or twice per x."""
    calls = [0]

    def g(M, W):
        calls[0] += 1
        return metric["g"](M, W)
    kw = dict(preset="adaptive") if preset == "adaptive" else dict(lower_bb=True, lower_tol=0.1)
    out = []
    for replay in (True, False):
        calls[0] = 0
        p = rt.Problem(metric["f"], g, metric["mx"], metric["my"], replay=replay)
        out.append((rhgd.minimize(p, metric["M0"], metric["W0"], estimator="cg", epochs=6, eta_x=0.5, eta_y=0.1,
                                  inner=10, **kw), p, calls[0]))
    (a, p, ca), (b, _, cb) = out
    assert p.replay_off is None and p._bound is not None
    assert ca < cb / 2, (ca, cb)
    assert_same_run(a, b)


def test_point_by_point_replay_finds_a_changed_setting(metric):
    """g reads a Python number that changes between epochs: the next x's
    check finds the recording stale and drops it; the run is the one that
    calls g."""
    a, b, p = scheduled_runs(metric, estimator="cg", epochs=5, eta_x=0.5, eta_y=0.1, inner=10, lower_bb=True,
                             lower_tol=0.1)
    assert p._step_graph is False and "new point" in p.replay_off
    assert_same_run(a, b)

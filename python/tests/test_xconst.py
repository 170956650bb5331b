"""rhgd._xconst.XConst, the reuse of g's x-only operations across the
steps of one lower loop: the same gradients, bit for bit, as computing
everything at every step, for the functions where reuse is safe and for
those where it must give up (in-place writes the mode does not see,
random numbers, control flow on y, changing Python values, parameters
that require grad, masks made from y); and it does reuse where it pays."""

import sys

import numpy as np
import pytest

from _torch import F64  # PyTorch, or this module skipped; python/examples on sys.path
import torch

import rhgd
import rhgd.torch as rt
from rhgd._xconst import XConst

import torch_hyperrep  # noqa: E402

gen = torch.Generator().manual_seed(5)
A = torch.randn(30, 6, 6, dtype=F64, generator=gen)
A = A @ A.transpose(-1, -2) + torch.eye(6, dtype=F64)
X = torch.randn(40, 6, dtype=F64, generator=gen)
x0 = torch.linalg.qr(torch.randn(6, 3, dtype=F64, generator=gen))[0]


def features(x):
    return rt.logm(x.T @ A[:20] @ x).reshape(20, -1)[:, :4]


def g_plain(x, w):
    return 0.5 * torch.sum((features(x) @ w) ** 2) + 0.5 * torch.sum(w ** 2)


def g_setitem(x, w):  # y written into a buffer made from x, by an indexing assignment
    B = torch.zeros(6, 3, dtype=F64) + x.sum()
    B[:4] = w * 2
    return torch.sum((X @ B) ** 2) + torch.sum(w ** 2)


def g_random(x, w):  # dropout on features of x: fresh masks each step
    return torch.sum(torch.nn.functional.dropout(features(x), 0.3) @ w) ** 2 + torch.sum(w ** 2)


def g_branch(x, w):  # control flow on y
    f = features(x) if float(w.sum()) > 0 else features(x) * 2
    return torch.sum((f @ w - 1) ** 2) + torch.sum(w ** 2)


def g_counter():
    k = [0]

    def g(x, w):  # an x-only operation whose Python argument changes
        k[0] += 1
        return torch.sum((features(x) * (1 + 0.01 * k[0])) @ w) ** 2 + torch.sum(w ** 2)
    return g


P = torch.ones(4, dtype=F64, requires_grad=True)


def g_param(x, w):  # a parameter that requires grad, closed over
    return torch.sum((features(x) * P) @ w) ** 2 + torch.sum(w ** 2)


def g_mask(x, w):  # a mask from y, through basic indexing, multiplies x-only values
    m = (w > 0)[:, 0]
    return torch.sum(features(x)[:, :4] * m.to(F64)) ** 2 + torch.sum(w ** 2)


def g_inplace_x(x, w):  # an in-place update of an x-only result, then y
    Z = X @ x
    Z.mul_(2)
    return torch.sum((Z[:, :3] @ w[:3]) ** 2) + torch.sum(w ** 2)


BUF = torch.ones(6, 6, dtype=F64)


def g_data_write(x, w):  # y written into the data g closes over, then an x-only-looking use of it
    BUF[0, :3] = w[0].detach()
    return torch.sum((x.T @ BUF @ x) @ w[:3]) ** 2 + torch.sum(w ** 2)


def loop(g, reuse, steps=6, eta=1e-3):
    torch.manual_seed(11)
    BUF.fill_(1.0)
    w = torch.linspace(-0.3, 0.4, 12, dtype=F64).reshape(4, 3)
    xc = XConst() if reuse else None
    grads = []
    for _ in range(steps):
        w.requires_grad_(True)
        if xc is None:
            v = g(x0, w)
        else:
            with xc.call(w):
                v = g(x0, w)
        (gw,) = torch.autograd.grad(v, w)
        grads.append(gw)
        w = w.detach() - eta * gw
    return grads, xc


@pytest.mark.parametrize("g", [g_plain, g_setitem, g_random, g_branch, "counter", g_param, g_mask, g_inplace_x,
                               g_data_write],
                         ids=["plain", "setitem", "random", "branch", "counter", "param", "mask", "inplace_x",
                              "data_write"])
def test_the_same_gradients_bit_for_bit(g):
    """With the mode, every step's gradient is bitwise the one computed
    from scratch."""
    ref, _ = loop(g_counter() if g == "counter" else g, False)
    got, xc = loop(g_counter() if g == "counter" else g, True)
    for k, (a, b) in enumerate(zip(ref, got)):
        assert torch.equal(a, b), (k, (a - b).abs().max())
    if g is g_plain:
        assert xc.reused > 0 and not xc.off  # logm of x's matrices, computed once


def test_fused_lower_loop_reuses_and_agrees():
    """rhgd.torch's fused lower loop reuses the feature map of a
    hyper-representation (logm of x's matrices) across its steps, and the
    run is bitwise the one without reuse."""
    data = torch_hyperrep.make_data(N=24, d=6, k=2, n_train=12)
    f, g, mx, my, nf, _ = torch_hyperrep.problem(data)
    gf = lambda W, b: g(W, b, torch.arange(12))  # noqa: E731  full sums: the fused loop's case
    ff = lambda W, b: f(W, b, torch.arange(12))  # noqa: E731
    runs = []
    for reuse in (True, False):
        p = rt.Problem(ff, gf, mx, my, replay=False, reuse_x=reuse)
        runs.append(rhgd.minimize(p, data["W0"], data["beta0"], estimator="cg", epochs=5, eta_x=0.2, eta_y=0.2,
                                  inner=15))
    np.testing.assert_array_equal(runs[0].history["f"], runs[1].history["f"])
    np.testing.assert_array_equal(runs[0].x, runs[1].x)

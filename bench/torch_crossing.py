#!/usr/bin/python3
"""The cost of one callback crossing (Go → C → Python → torch and back)
beside the cost of the Hessian-vector product it carries, for rhgd.torch.

On the paper's synthetic problem at d (default 50: M is 50 × 50), it times

  crossing   p.oracle('hess_gy') of a Python callback problem whose
             hess_gy returns at once (numpy, no torch): the round trip
             Python → C → Go → C → Python and back, with the manifold's
             ehess→rhess conversion in Go — an upper bound of one
             crossing of a run, which starts in Go;
  torch hvp  the HVP alone in torch: one backward pass through the
             retained graph of ∇_M g (autograd.grad(..., retain_graph=True));
  via rhgd   p.oracle('hess_gy') of the rhgd.torch problem at one point
             (the graph built once and reused): crossing + HVP + conversion;
  graph      building the graph at a new point (∇_M g with create_graph).

Run:  RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 bench/torch_crossing.py [-d 50]
"""
import argparse
import time

import numpy as np
import torch

import rhgd
import rhgd.torch as rt


def per_call(fn, reps):
    fn()
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t) / reps)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-d", type=int, default=50)
    ap.add_argument("-r", type=int, default=20)
    ap.add_argument("-reps", type=int, default=2000)
    a = ap.parse_args()
    d, r, n = a.d, a.r, 2 * a.d
    rng = np.random.default_rng(1)
    X = rng.standard_normal((n, d))
    Y = rng.standard_normal((n, r))
    X /= np.linalg.norm(X)
    Y /= np.linalg.norm(Y)
    nu = 0.01
    Xt, Yt = torch.from_numpy(X), torch.from_numpy(Y)
    A, C, YtY = Xt.T @ Xt, Xt.T @ Yt, Yt.T @ Yt
    eye = torch.eye(d, dtype=torch.float64)

    def f(W, M):
        return -torch.sum((M @ C) * W)

    def g(W, M):
        return torch.sum(M * A) + torch.sum(torch.linalg.inv(M) * (W @ YtY @ W.T + nu * eye))

    mx, my = rhgd.Stiefel(d, r), rhgd.SPD(d)
    x, y = mx.rand_point(1), my.rand_point(2)
    v = my.project(y, rng.standard_normal((d, d)))

    tp = rt.Problem(f, g, mx, my)
    zero = np.zeros((d, d))
    np_p = rhgd.Problem(mx, my, f=lambda x, y: 0.0, grad_fx=lambda x, y: np.zeros_like(x),
                        grad_fy=lambda x, y: zero, grad_gy=lambda x, y: zero, hess_gy=lambda x, y, v: zero,
                        cross_gxy=lambda x, y, v: np.zeros_like(x))

    # as rhgd.torch builds it: W requires grad too (for the cross products)
    W = torch.from_numpy(x).clone().requires_grad_(True)
    M = torch.from_numpy(y).clone().requires_grad_(True)
    gy = torch.autograd.grad(g(W, M), (W, M), create_graph=True)[1]
    vt = torch.from_numpy(v)

    def build():
        Wb = torch.from_numpy(x).clone().requires_grad_(True)
        Mb = torch.from_numpy(y).clone().requires_grad_(True)
        return torch.autograd.grad(g(Wb, Mb), (Wb, Mb), create_graph=True)

    t_cross = per_call(lambda: np_p.oracle("hess_gy", x, y, v), a.reps)
    # The marginal crossing: on R^2 × R^2, where Go's work is nil,
    # oracle('hess_gy') makes two callbacks (grad_gy for the conversion, then
    # hess_gy) and oracle('grad_gy') one; the difference is one crossing.
    e2, z2 = rhgd.Euclidean(2), np.zeros(2)
    tiny = rhgd.Problem(e2, e2, f=lambda x, y: 0.0, grad_fx=lambda x, y: z2, grad_fy=lambda x, y: z2,
                        grad_gy=lambda x, y: z2, hess_gy=lambda x, y, v: z2)
    t1 = per_call(lambda: tiny.oracle("grad_gy", z2, z2), a.reps)
    t2 = per_call(lambda: tiny.oracle("hess_gy", z2, z2, z2), a.reps)
    # The callback's body called from Python (no Go): rhgd.torch's own
    # work (views, the point's key, from_numpy, the copy out) plus the HVP.
    out = np.empty((d, d))
    cb = tp._c["hess_gy"]
    body = lambda: cb(None, x.ctypes.data, y.ctypes.data, None, 0, v.ctypes.data, out.ctypes.data)
    t_body = per_call(body, a.reps)
    t_hvp = per_call(lambda: torch.autograd.grad(gy, M, vt, retain_graph=True), a.reps)
    t_rhgd = per_call(lambda: tp.oracle("hess_gy", x, y, v), a.reps)
    t_graph = per_call(build, max(1, a.reps // 10))
    print(f"d = {d}, torch {torch.__version__}, {torch.get_num_threads()} torch threads")
    print(f"one crossing Go→C→Python→Go (marginal, on R^2):    {(t2 - t1) * 1e6:8.1f} µs")
    print(f"oracle('hess_gy') of an empty numpy problem, d={d}: {t_cross * 1e6:8.1f} µs "
          "(Python→Go→Python, 2 callbacks, point checks, ehess→rhess)")
    print(f"rhgd.torch hess_gy callback body (HVP + own work):  {t_body * 1e6:8.1f} µs")
    print(f"torch HVP alone (retained graph):                   {t_hvp * 1e6:8.1f} µs")
    print(f"rhgd.torch hess_gy oracle (cached graph):           {t_rhgd * 1e6:8.1f} µs")
    print(f"building the graph at a new point:                  {t_graph * 1e6:8.1f} µs")


if __name__ == "__main__":
    main()

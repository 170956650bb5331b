"""Per-epoch time of 'hinv' on an SPD(n) lower level written in rhgd.torch,
with the library's derived inverse through one hess_gy_batch crossing per
point and through D hess_gy crossings (rhgd.torch.Problem(..., _hess_gy_batch=False),
the path before hess_gy_batch), against 'cg'; interleaved, one thread.

    make lib
    RHGD_LIBRARY=$PWD/build/librhgd.so PYTHONPATH=$PWD/python python3 bench/torch_hinv_batch.py [n] [reps]
"""
import sys

import numpy as np
import torch

import rhgd
import rhgd.torch as rt

torch.set_num_threads(1); rhgd.set_threads(1)
torch.set_default_dtype(torch.float64)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 7
rng = np.random.default_rng(0)
A0 = rng.standard_normal((n, n)); A = torch.tensor(A0 @ A0.T / n + np.eye(n))
C = torch.tensor(np.eye(n) * 0.5 + 0.05 * (A0 + A0.T) / 2 / np.sqrt(n))
def S(x): z = x + x.T; return A + 0.1 * z @ z.T / 2
g = lambda x, y: torch.sum(y * S(x)) - torch.logdet(y)
f = lambda x, y: 0.5 * torch.sum((y - C) ** 2) + 0.05 * torch.sum(x * x)
x0 = 0.01 * rng.standard_normal((n, n)); y0 = np.eye(n)
cases = [("hinv, hess_gy_batch", "hinv", True), ("hinv, D hess_gy (before)", "hinv", False), ("cg", "cg", True)]
times = {c[0]: [] for c in cases}; cross = {}
for rep in range(reps):
    for name, est, b in cases:
        p = rt.Problem(f, g, rhgd.Euclidean(n, n), rhgd.SPD(n), _hess_gy_batch=b)
        r = rhgd.minimize(p, x0, np.eye(n), estimator=est, epochs=10, eta_x=0.2, eta_y=0.2, inner=20)
        el = np.asarray(r.history["elapsed"]); d = np.diff(np.concatenate([[0.0], el]))
        times[name].extend(d[1:].tolist())  # drop the first epoch (set-up)
        cross[name] = {k: v for k, v in p.crossings.items() if k.startswith("hess") or k == "cross_gxy"}
print(f"SPD({n}) lower, D = {n*(n+1)//2}; epochs=10, inner=20; {reps} interleaved repetitions; ms per epoch (epochs 2-10)")
print(f"{'estimator':28s} {'median':>8s} {'p25':>8s} {'p75':>8s}  crossings per run (hess*, cross_gxy)")
for name in times:
    t = np.array(times[name]) * 1e3
    print(f"{name:28s} {np.median(t):8.2f} {np.percentile(t,25):8.2f} {np.percentile(t,75):8.2f}  {cross[name]}")

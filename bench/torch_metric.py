#!/usr/bin/python3
"""A user's own torch problem, side by side: metric learning for a ridge
classifier (python/examples/torch_metric.py: M ∈ SPD(10), W ∈ R^{10×3}),
solved by rhgd.torch and by the careful RHGD loop a user would write by
hand in plain torch (issue 28), in one process, rounds interleaved.

The hand loop is the same algorithm, step for step: S lower gradient steps
W ← W − η_y ∇_W g (one forward and backward each), then at (M, W) one
forward of f with both gradients, one forward of g with ∇_W g kept as a
graph (create_graph) that every CG product reuses (retain_graph), CG on
∇²_WW g v = ∇_W f in the Euclidean metric to the relative residual tol,
the cross product ∇²_MW g v through the same graph, the Riemannian
gradient M sym(G) M of SPD's affine-invariant metric and its second-order
retraction M + ξ + ½ ξ M⁻¹ ξ. It agrees with rhgd's iterates to rounding
(printed).

Figures, one thread for torch and OpenBLAS, CPU and threads printed:
  (a) time per epoch, same estimator (CG) and settings: the median over
      rounds of each round's median epoch;
  (b) time to ‖grad F(M)‖ ≤ --tol·‖grad F(M0)‖ on the true hypergradient
      (F(M) = f(M, W*(M)) with the ridge solution W*(M) in closed form,
      differentiated by autograd; its time not counted): the hand loop with
      the paper's fixed steps and CG, against rhgd.torch with the adaptive
      preset, the exact lower solution and the derived HINV; medians over
      rounds.

Run: RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 bench/torch_metric.py [--rounds 7] [--epochs 20]
"""
import argparse
import os
import pathlib
import statistics
import sys
import time

import torch

import rhgd
import rhgd.torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python" / "examples"))
import torch_metric  # noqa: E402


def sym(a):
    return 0.5 * (a + a.T)


class HandLoop:
    """RHGD with CG on (f, g) of torch_metric, as a careful user writes it."""

    def __init__(self, f, g, eta_x, eta_y, inner, maxiter=50, tol=1e-10):
        self.f, self.g = f, g
        self.eta_x, self.eta_y, self.inner, self.maxiter, self.tol = eta_x, eta_y, inner, maxiter, tol

    def epoch(self, M, W):
        for _ in range(self.inner):
            W = W.detach().requires_grad_(True)
            (gW,) = torch.autograd.grad(self.g(M, W), W)
            W = W - self.eta_y * gW
        W = W.detach().requires_grad_(True)
        Mr = M.detach().requires_grad_(True)
        fv = self.f(Mr, W)
        gfx, gfy = torch.autograd.grad(fv, (Mr, W))
        (gy,) = torch.autograd.grad(self.g(Mr, W), W, create_graph=True)
        # CG on H v = ∇_W f, the Hessian products through gy's graph.
        v = torch.zeros_like(gfy)
        r = gfy.clone()
        p = r.clone()
        rs = torch.sum(r * r)
        stop = self.tol ** 2 * rs
        for _ in range(self.maxiter):
            (hp,) = torch.autograd.grad(gy, W, p, retain_graph=True)
            alpha = rs / torch.sum(p * hp)
            v = v + alpha * p
            r = r - alpha * hp
            rs_new = torch.sum(r * r)
            if rs_new <= stop:
                break
            p = r + (rs_new / rs) * p
            rs = rs_new
        (cross,) = torch.autograd.grad(gy, Mr, v)
        with torch.no_grad():
            G = gfx - cross
            xi = -self.eta_x * (M @ sym(G) @ M)
            M = sym(M + xi + 0.5 * xi @ torch.linalg.solve(M, xi))
        return M, W.detach(), float(fv)


def true_grad_norm(f, lower, M):
    """‖grad F(M)‖_M, F(M) = f(M, W*(M)), in SPD's affine-invariant metric:
    the Riemannian gradient ξ = M sym(∇F) M, of norm sqrt(tr(M⁻¹ξ M⁻¹ξ))."""
    M = M.detach().requires_grad_(True)
    (G,) = torch.autograd.grad(f(M, lower(M, None)), M)
    with torch.no_grad():
        xi = M @ sym(G) @ M
        A = torch.linalg.solve(M, xi)
        return float(torch.sqrt(torch.trace(A @ A)))


def to_tolerance(hand, p, f, lower, M0, W0, tol, cap):
    """Seconds to the tolerance for the hand loop and for rhgd.torch
    (adaptive, lower_solve, hinv), the true gradient's time excluded; and
    the epochs each took (None where the cap ran out first)."""
    g0 = true_grad_norm(f, lower, M0)
    M, W, t, k = M0, W0, 0.0, None
    for i in range(cap):
        t0 = time.perf_counter()
        M, W, _ = hand.epoch(M, W)
        t += time.perf_counter() - t0
        if true_grad_norm(f, lower, M) <= tol * g0:
            k = i + 1
            break
    spent = [0.0]
    done = [None]

    def cb(info):
        t0 = time.perf_counter()
        stop = true_grad_norm(f, lower, info["x"]) <= tol * g0
        spent[0] += time.perf_counter() - t0
        if stop:
            done[0] = info["epoch"] + 1
        return stop

    t0 = time.perf_counter()
    rhgd.minimize(p, M0, W0, estimator="hinv", preset="adaptive", lower_solve=True, epochs=cap,
                  callback=cb)
    return t, k, time.perf_counter() - t0 - spent[0], done[0]


def main(argv=None):
    """Runs both figures, prints their tables and returns their numbers."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--n", type=int, default=300, help="samples in each of the training and validation sets")
    ap.add_argument("--tol", type=float, default=1e-2, help="figure (b)'s relative tolerance on ‖grad F‖")
    ap.add_argument("--cap", type=int, default=3000, help="figure (b)'s epoch cap")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    rhgd.set_threads(1)
    data = torch_metric.make_data(n=a.n)
    f, g, mx, my, lower = torch_metric.problem(data)
    M0 = torch.diag(torch.linspace(0.8, 1.2, 10, dtype=torch.float64))
    W0 = torch.zeros(10, 3, dtype=torch.float64)
    eta_x, eta_y, inner = 0.5, 0.1, 20
    hand = HandLoop(f, g, eta_x, eta_y, inner)
    p = rhgd.torch.Problem(f, g, mx, my, lower_solve=lower)
    kw = dict(estimator="cg", eta_x=eta_x, eta_y=eta_y, inner=inner)

    def run_hand(k):
        M, W = M0, W0
        ts = []
        for _ in range(k):
            t0 = time.perf_counter()
            M, W, _ = hand.epoch(M, W)
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts), M

    def run_rhgd(k):
        r = rhgd.minimize(p, M0, W0, epochs=k, **kw)
        el = r.history["elapsed"]
        return statistics.median(el[1:] - el[:-1]), r

    _, Mh = run_hand(3)
    _, r = run_rhgd(3)
    print(f"# iterates after 3 epochs: max |M_hand − M_rhgd| = {float((Mh - r.x).abs().max()):.2e}")
    res = {"hand loop": [], "rhgd.torch": []}
    for i in range(a.rounds):
        for name in (("hand loop", "rhgd.torch") if i % 2 == 0 else ("rhgd.torch", "hand loop")):
            t, _ = (run_hand if name == "hand loop" else run_rhgd)(a.epochs)
            res[name].append(t)
    cpu = rhgd.info()["cpu"]["brand"]
    print(f"# {cpu}, {os.cpu_count()} cores; torch {torch.__version__} on 1 thread, OpenBLAS 1 thread; "
          f"metric learning d = 10, n = {a.n}, S = {inner}, CG tol 1e-10; {a.rounds} rounds of {a.epochs} "
          f"epochs, interleaved, medians\n")
    base = statistics.median(res["hand loop"])
    print("(a) per epoch, CG on both sides\n")
    print("| side | ms/epoch | hand loop / side |")
    print("|---|---|---|")
    for name, ts in res.items():
        t = statistics.median(ts)
        print(f"| {name} | {1e3 * t:.2f} | {base / t:.2f}× |")
    tt = [to_tolerance(hand, p, f, lower, M0, W0, a.tol, a.cap) for _ in range(max(1, a.rounds // 2))]
    th, kh = statistics.median(x[0] for x in tt), tt[0][1]
    tr, kr = statistics.median(x[2] for x in tt), tt[0][3]
    print(f"\n(b) to ‖grad F‖ ≤ {a.tol:g}·‖grad F(M0)‖ (true hypergradient), {len(tt)} rounds, medians\n")
    print("| side | seconds | epochs | hand loop / side |")
    print("|---|---|---|---|")
    print(f"| hand loop (paper steps, CG) | {th:.3f} | {kh if kh else f'> {a.cap}'} | 1.00× |")
    print(f"| rhgd.torch (adaptive, lower_solve, hinv) | {tr:.3f} | {kr if kr else f'> {a.cap}'} | {th / tr:.2f}× |")
    return {"epoch_hand_ms": 1e3 * base, "epoch_rhgd_ms": 1e3 * statistics.median(res["rhgd.torch"]),
            "epoch_ratio": base / statistics.median(res["rhgd.torch"]), "tol": a.tol, "tol_hand_s": th,
            "tol_rhgd_s": tr, "tol_ratio": th / tr, "tol_hand_epochs": kh, "tol_rhgd_epochs": kr}


if __name__ == "__main__":
    main()

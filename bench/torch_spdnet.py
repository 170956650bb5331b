#!/usr/bin/python3
"""SPDNet in torch solved by rhgd.torch (python/examples/torch_spdnet.py:
BiMap → ReEig → BiMap → LogEig on 60 SPD matrices of order 12, x on
St(12, 6) × St(6, 3), a softmax head γ the lower variable), with the
eigen-layers from rhgd.torch (reeig, logm: rhgd's batched eigensolver,
Daleckii–Krein derivatives) against the same model written on
torch.linalg.eigh (V diag(max(λ, ε)) Vᵀ and V diag(log λ) Vᵀ, what SPDNet
code writes), both solved by rhgd.torch with the same estimator and
settings, in one process, rounds interleaved.

Figure: time per epoch, the median over rounds of each round's median
epoch; the final f of both sides after the same epochs (they agree to
rounding: the data have distinct eigenvalues, where eigh's derivatives
exist). torch and OpenBLAS on one thread.

The bound: the same model with the eigen-layers left out (the identity
in place of ReEig and LogEig) and the eigh model, both with CG at a fixed
10 products per epoch (cg:maxiter=10,tol=1e-300, so that both do the same
work, which CG to a tolerance would not), interleaved with the rest: an
epoch's time without eigen-layers is what no implementation of them can
go below, so eigh / none bounds the per-epoch ratio any eigen-layers can
reach against eigh's on this engine (Amdahl).

Run: RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 bench/torch_spdnet.py [--rounds 5] [--epochs 10]
"""
import argparse
import os
import pathlib
import statistics
import sys

os.environ.setdefault("RHGD_THREADS", "1")  # before rhgd's first call

import numpy as np  # noqa: E402
import torch  # noqa: E402

import rhgd  # noqa: E402
import rhgd.torch as rt  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python" / "examples"))
import torch_spdnet  # noqa: E402


def reeig_eigh(a, eps):
    lam, v = torch.linalg.eigh(a)
    return (v * torch.clamp(lam, min=eps).unsqueeze(-2)) @ v.transpose(-1, -2)


def logm_eigh(a):
    lam, v = torch.linalg.eigh(a)
    return (v * torch.log(lam).unsqueeze(-2)) @ v.transpose(-1, -2)


def problem(ops, D=12, D1=6, D2=3, classes=3, lam=0.1):
    """f, g, mx, my, n_f, n_g, x0, y0 of the example's problem with the
    eigen-layers ops = (reeig, logm)."""
    reeig, logm = ops
    A, lab = torch_spdnet.make_data(D, classes)
    A, lab = torch.from_numpy(A), torch.from_numpy(lab)
    nt = len(lab) // 2
    mx = rhgd.Product(rhgd.Stiefel(D, D1), rhgd.Stiefel(D1, D2))
    m = D2 * (D2 + 1) // 2
    my = rhgd.Euclidean(m, classes)
    iu = torch.triu_indices(D2, D2)

    def layers(As, W1, W2):
        L = logm(W2.T @ reeig(W1.T @ As @ W1, 1e-4) @ W2)
        return L[:, iu[0], iu[1]]

    def ce(x, gamma, idx):
        W1, W2 = rt.split(mx, x)
        return torch.nn.functional.cross_entropy(layers(A[idx], W1, W2) @ gamma, lab[idx])

    f = lambda x, gamma, batch: ce(x, gamma, nt + batch)  # noqa: E731
    g = lambda x, gamma, batch: ce(x, gamma, batch) + 0.5 * lam * torch.sum(gamma ** 2)  # noqa: E731
    x0 = np.concatenate([np.eye(D, D1).ravel(), np.eye(D1, D2).ravel()])
    y0 = np.random.default_rng(1).standard_normal((m, classes))
    return f, g, mx, my, len(lab) - nt, nt, x0, y0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--estimator", default="cg")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    sides = {"rhgd.torch ops": (rt.reeig, rt.logm), "torch.linalg.eigh": (reeig_eigh, logm_eigh),
             "none": (lambda a, eps: a, lambda a: a)}
    probs = {}
    for name, ops in sides.items():
        f, g, mx, my, nf, ng, x0, y0 = problem(ops)
        probs[name] = (rt.Problem(f, g, mx, my, n_f=nf, n_g=ng), x0, y0)
    kw = dict(eta_x=0.1, eta_y=0.1, inner=20, epochs=a.epochs)
    fixed = "cg:maxiter=10,tol=1e-300"
    # (side, estimator) runs: the two models with the estimator asked for,
    # and the bound's pair at CG's fixed work
    runs = [("rhgd.torch ops", a.estimator), ("torch.linalg.eigh", a.estimator),
            ("torch.linalg.eigh", fixed), ("none", fixed)]
    res = {k: [] for k in runs}
    fun = {}
    for i in range(a.rounds):
        for k in (runs if i % 2 == 0 else runs[::-1]):
            p, x0, y0 = probs[k[0]]
            r = rhgd.minimize(p, x0, y0, estimator=k[1], **kw)
            el = r.history["elapsed"]
            res[k].append(statistics.median(el[1:] - el[:-1]))
            fun[k] = r.fun
    med = {k: statistics.median(v) for k, v in res.items()}
    out = {name: med[(name, a.estimator)] for name in list(sides)[:2]}
    fun = {name: fun[(name, a.estimator)] for name in list(sides)[:2]}
    bound = med[("torch.linalg.eigh", fixed)] / med[("none", fixed)]
    cpu = rhgd.info()["cpu"]["brand"]
    print(f"# {cpu}, {os.cpu_count()} cores; torch {torch.__version__} on 1 thread, OpenBLAS 1 thread; SPDNet "
          f"(60 matrices of order 12, St(12,6) × St(6,3), head 6 × 3), {a.estimator}, S = 20; {a.rounds} rounds "
          f"of {a.epochs} epochs, interleaved, medians\n")
    print("| eigen-layers | ms/epoch | final f | eigh / side |")
    print("|---|---|---|---|")
    base = out["torch.linalg.eigh"]
    for name, t in out.items():
        print(f"| {name} | {1e3 * t:.2f} | {fun[name]:.10f} | {base / t:.2f}× |")
    print(f"\nbound ({fixed}): eigh {1e3 * med[('torch.linalg.eigh', fixed)]:.2f} ms, no eigen-layers "
          f"{1e3 * med[('none', fixed)]:.2f} ms per epoch: no eigen-layers can beat eigh's by more than {bound:.2f}× "
          f"per epoch here")
    return {"rhgd_ms": 1e3 * out["rhgd.torch ops"], "eigh_ms": 1e3 * base, "ratio": base / out["rhgd.torch ops"],
            "df": abs(fun["rhgd.torch ops"] - fun["torch.linalg.eigh"]),
            "bound": bound, "bound_eigh_ms": 1e3 * med[("torch.linalg.eigh", fixed)],
            "bound_none_ms": 1e3 * med[("none", fixed)]}


if __name__ == "__main__":
    main()

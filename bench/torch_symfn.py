#!/usr/bin/python3
"""rhgd.torch's symmetric matrix functions against the torch.linalg.eigh
versions the examples use, at the examples' and the paper's shapes: time
per call of the forward pass, forward + backward (a training step), and
forward + gradient with create_graph + one Hessian-vector product (the
double backward rhgd.torch runs for CG), in one process, rounds
interleaved, medians.

Workloads (the data are random, eigenvalues distinct, so that eigh's
derivatives exist and both sides compute the same numbers; the script
checks that first): each op alone at the shapes below, loss <C, f(A)>
with respect to A (logm (200, 10, 10), reeig (60, 6, 6) with eps = 1 inside the spectra,
logm (60, 3, 3)), and the models' computations around them:
  hyperrep      logm(Wᵀ A_i W) at the paper's size (rhgd.problem_params
                ("hyperrep"): n = 200 matrices A_i of order d = 50,
                W ∈ St(50, 10)): a batch (200, 10, 10), differentiated
                with respect to W, as python/examples/torch_hyperrep.py's
                features() (the example runs N = 60, and bench/torch_hyrep.py
                the paper's size);
  spdnet        python/examples/torch_spdnet.py's layers: BiMap, ReEig
                (eps = 1e-4) on (60, 6, 6), BiMap, LogEig on (60, 3, 3),
                with respect to W1 ∈ St(12, 6) and W2 ∈ St(6, 3);
  metric        M^{1/2} of one 10 x 10 SPD matrix (the metric-learning
                user's case, examples/torch_metric.py), with respect to M.

Each round runs every (workload, measure, side) for --reps calls, the
sides in alternating order; a round's figure is the median call, the
table's the median over rounds. torch runs on one thread
(torch.set_num_threads(1)) and so does OpenBLAS (RHGD_THREADS=1, which
rhgd reads at its first call: the whole process).

Run (from the repository, after make lib):
    RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 bench/torch_symfn.py [--rounds 15] [--reps 20]
"""
import argparse
import os
import platform
import statistics
import time

os.environ["RHGD_THREADS"] = "1"  # before rhgd's first call

import numpy as np  # noqa: E402
import torch  # noqa: E402

import rhgd  # noqa: E402
import rhgd.torch as rt  # noqa: E402

F64 = torch.float64


def eigh_fn(f):
    """The eigh-based V diag(f(λ)) Vᵀ of the examples."""
    def op(a):
        lam, v = torch.linalg.eigh(a)
        return v @ torch.diag_embed(f(lam)) @ v.transpose(-1, -2)
    return op


SIDES = {
    "eigh": dict(logm=eigh_fn(torch.log), sqrtm=eigh_fn(torch.sqrt),
                 reeig=lambda a, eps: eigh_fn(lambda x: torch.clamp(x, min=eps))(a)),
    "rhgd": dict(logm=rt.logm, sqrtm=rt.sqrtm, reeig=rt.reeig),
}


def stiefel(rng, n, p):
    return torch.from_numpy(np.linalg.qr(rng.standard_normal((n, p)))[0])


def spd(rng, shape, n, shift=0.5):
    g = rng.standard_normal((*shape, n, n))
    return torch.from_numpy(g @ np.swapaxes(g, -1, -2) / n + shift * np.eye(n))


def op_alone(rng, name, a, *args):
    """The op by itself: loss <C, f(A)>, differentiated with respect to A."""
    c = torch.from_numpy(rng.standard_normal(a.shape))
    return [a], lambda ops, x: torch.sum(c * ops[name](x, *args))


def workloads(seed=0):
    """name -> (inputs (tensors that require grad), loss(ops, *inputs))."""
    rng = np.random.default_rng(seed)
    out = {}
    out["logm (200, 10, 10) alone"] = op_alone(rng, "logm", spd(rng, (200,), 10))
    out["reeig (60, 6, 6) alone"] = op_alone(rng, "reeig", spd(rng, (60,), 6), 1.0)
    out["logm (60, 3, 3) alone"] = op_alone(rng, "logm", spd(rng, (60,), 3))
    par = rhgd.problem_params("hyperrep")
    n, d, k = (int(par[x][0]) for x in ("n", "d", "k"))
    g = rng.standard_normal((n, d, d))
    A = torch.from_numpy(g @ g.transpose(0, 2, 1) / d + 0.5 * np.eye(d))
    iu = torch.triu_indices(k, k)
    beta, y = torch.from_numpy(rng.standard_normal(k * (k + 1) // 2)), torch.from_numpy(rng.standard_normal(n))

    def hyperrep(ops, W):
        L = ops["logm"](W.T @ A @ W)
        return 0.5 * torch.mean((L[:, iu[0], iu[1]] @ beta - y) ** 2)
    out[f"hyperrep: logm of ({n}, {k}, {k})"] = ([stiefel(rng, d, k)], hyperrep)

    D, D1, D2, N = 12, 6, 3, 60
    g = rng.standard_normal((N, D, 3 * D)) * np.linspace(1, 3, D)[:, None]
    S = torch.from_numpy(g @ g.transpose(0, 2, 1) / (3 * D) + 1e-3 * np.eye(D))
    iu3 = torch.triu_indices(D2, D2)
    gamma, lab = torch.from_numpy(rng.standard_normal((D2 * (D2 + 1) // 2, 3))), torch.from_numpy(rng.integers(0, 3, N))

    def spdnet(ops, W1, W2):
        A1 = ops["reeig"](W1.T @ S @ W1, 1e-4)
        L = ops["logm"](W2.T @ A1 @ W2)
        return torch.nn.functional.cross_entropy(L[:, iu3[0], iu3[1]] @ gamma, lab)
    out[f"spdnet: reeig ({N}, {D1}, {D1}), logm ({N}, {D2}, {D2})"] = ([stiefel(rng, D, D1), stiefel(rng, D1, D2)],
                                                                       spdnet)

    M = spd(rng, (), 10)
    X, T = torch.from_numpy(rng.standard_normal((30, 10))), torch.from_numpy(rng.standard_normal((30, 10)))

    def metric(ops, M):
        return 0.5 * torch.sum((X @ ops["sqrtm"](M) - T) ** 2)
    out["metric: sqrtm of (10, 10)"] = ([M], metric)
    return out


def measures(inputs, loss, ops):
    """measure name -> a call."""
    vs = [torch.from_numpy(np.random.default_rng(1).standard_normal(x.shape)) for x in inputs]

    def fwd():
        with torch.no_grad():
            loss(ops, *inputs)

    def fwd_bwd():
        xs = [x.clone().requires_grad_() for x in inputs]
        torch.autograd.grad(loss(ops, *xs), xs)

    def hvp():
        xs = [x.clone().requires_grad_() for x in inputs]
        gs = torch.autograd.grad(loss(ops, *xs), xs, create_graph=True)
        torch.autograd.grad(gs, xs, grad_outputs=vs)

    return {"forward": fwd, "forward+backward": fwd_bwd, "grad+HVP": hvp}


def agree(inputs, loss):
    """The largest relative difference of the two sides' gradients and
    HVPs (the same numbers, to rounding, at distinct eigenvalues)."""
    vs = [torch.from_numpy(np.random.default_rng(1).standard_normal(x.shape)) for x in inputs]
    res = {}
    for side, ops in SIDES.items():
        xs = [x.clone().requires_grad_() for x in inputs]
        gs = torch.autograd.grad(loss(ops, *xs), xs, create_graph=True)
        hs = torch.autograd.grad(gs, xs, grad_outputs=vs)
        res[side] = [t.detach() for t in gs + hs]
    return max(float((a - b).abs().max() / b.abs().max()) for a, b in zip(res["rhgd"], res["eigh"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args()
    torch.set_num_threads(1)
    work = workloads()
    calls = {}
    for w, (inputs, loss) in work.items():
        print(f"# {w}: gradients and HVPs agree to {agree(inputs, loss):.1e} (relative)")
        for side, ops in SIDES.items():
            for m, fn in measures(inputs, loss, ops).items():
                fn()  # warm up
                calls[(w, m, side)] = fn
    times = {key: [] for key in calls}
    load0 = os.getloadavg()[0]
    for r in range(a.rounds):
        sides = list(SIDES) if r % 2 == 0 else list(SIDES)[::-1]
        for w in work:
            for m in ("forward", "forward+backward", "grad+HVP"):
                for side in sides:
                    fn, ts = calls[(w, m, side)], []
                    for _ in range(a.reps):
                        t0 = time.perf_counter()
                        fn()
                        ts.append(time.perf_counter() - t0)
                    times[(w, m, side)].append(statistics.median(ts))
    load1 = os.getloadavg()[0]
    cpu = rhgd.info()["cpu"]["brand"]
    print(f"# {cpu} ({os.cpu_count()} cores), {platform.python_implementation()} {platform.python_version()}, "
          f"torch {torch.__version__} on {torch.get_num_threads()} thread, RHGD_THREADS={os.environ['RHGD_THREADS']}; "
          f"{a.rounds} rounds of {a.reps} calls, medians; load average {load0:.1f} -> {load1:.1f}\n")
    print("| workload | measure | eigh ms | rhgd ms | eigh / rhgd |")
    print("|---|---|---|---|---|")
    for w in work:
        for m in ("forward", "forward+backward", "grad+HVP"):
            te, tr = (statistics.median(times[(w, m, s)]) for s in ("eigh", "rhgd"))
            print(f"| {w} | {m} | {1e3 * te:.3f} | {1e3 * tr:.3f} | {te / tr:.2f}× |")


if __name__ == "__main__":
    main()

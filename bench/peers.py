#!/usr/bin/python3
"""The peer side of rhgd's benchmark harness (bench/peer.go).

It reads one JSON request per line on stdin and answers one JSON line on
stdout:

    {"cmd": "hello"}                                  -> versions, threads
    {"cmd": "load", "key": k, "op": "numpy.expsym",
     "files": {"a": "/…/a.npy"}, "params": {…}}       -> {"fingerprint": f}
    {"cmd": "time", "key": k, "min_time": 0.2}        -> {"seconds": s, "calls": k}
    {"cmd": "drop"}                                   -> {} (forgets every call)
    {"cmd": "quit"}

"load" reads the .npy inputs rhgd wrote, builds the call, keeps it under
key and runs it once (the warm-up); its fingerprint, Σ_k out_k sin(k+1) over the flattened
row-major output, is compared with rhgd's so that both sides are known to
compute the same thing. "time" repeats the call until min_time has passed
and returns the mean per call, like bench/timing.go. Errors come back as
{"error": "…"}. Thread counts come from the environment the harness sets
(OPENBLAS_NUM_THREADS, OMP_NUM_THREADS) and RHGD_BENCH_THREADS for torch.
"""
import json
import os
import sys
import time

import numpy as np

try:
    import scipy
    import scipy.linalg as sla
except ImportError:  # the ops that need it report so
    scipy = None
try:
    import ot
except ImportError:
    ot = None
try:
    import torch
except ImportError:
    torch = None

THREADS = int(os.environ.get("RHGD_BENCH_THREADS", "0") or 0)
if torch is not None and THREADS > 0:
    torch.set_num_threads(THREADS)

OPS = {}


def op(name, needs=None):
    """Registers a factory (arrays, params) -> call; the call returns the
    output whose fingerprint is compared with rhgd's."""
    def reg(f):
        OPS[name] = (f, needs)
        return f
    return reg


def eigh_func(a, f):
    w, v = np.linalg.eigh(a)
    return (v * f(w)) @ v.T


def torch_eigh_func(a, f):
    w, v = torch.linalg.eigh(a)
    return (v * f(w)) @ v.T


def T(x):
    return torch.from_numpy(np.ascontiguousarray(x))


# Floors and symmetric matrix functions (numpy's eigh-based ones are what
# Pymanopt and most user code do).
@op("numpy.gemm")
def _(a, p):
    x = a["a"]
    return lambda: x @ x


@op("numpy.eigh")
def _(a, p):
    x = a["a"]
    return lambda: np.linalg.eigh(x)[0]


@op("torch.eigh", "torch")
def _(a, p):
    x = T(a["a"])
    return lambda: torch.linalg.eigh(x)[0].numpy()


for fname, f, tf in (("exp", np.exp, lambda w: torch.exp(w)),
                     ("log", np.log, lambda w: torch.log(w)),
                     ("sqrt", np.sqrt, lambda w: torch.sqrt(w))):
    def numpy_factory(a, p, f=f):
        x = a["a"]
        return lambda: eigh_func(x, f)

    def torch_factory(a, p, tf=tf):
        x = T(a["a"])
        return lambda: torch_eigh_func(x, tf).numpy()
    op("numpy." + fname + "sym")(numpy_factory)
    op("torch." + fname + "sym", "torch")(torch_factory)


@op("scipy.expm", "scipy")
def _(a, p):
    x = a["a"]
    return lambda: sla.expm(x)


@op("scipy.logm", "scipy")
def _(a, p):
    x = a["a"]
    return lambda: np.real(sla.logm(x, disp=False)[0])


@op("scipy.sqrtm", "scipy")
def _(a, p):
    x = a["a"]
    return lambda: np.real(sla.sqrtm(x, disp=False)[0])


@op("torch.matrix_exp", "torch")
def _(a, p):
    x = T(a["a"])
    return lambda: torch.linalg.matrix_exp(x).numpy()


@op("scipy.lyapunov", "scipy")
def _(a, p):
    x, c = a["a"], a["c"]
    return lambda: sla.solve_continuous_lyapunov(x, c)


# The SPD exponential map of the affine-invariant metric, as Pymanopt
# (P expm(P⁻¹ξ)) and Geoopt (P^½ exp(P^-½ ξ P^-½) P^½ by eigh) write it.
@op("pymanopt.spdexp", "scipy")
def _(a, p):
    x, u = a["x"], a["u"]
    return lambda: x @ sla.expm(np.linalg.solve(x, u))


@op("geoopt.spdexp", "torch")
def _(a, p):
    x, u = T(a["x"]), T(a["u"])

    def call():
        w, v = torch.linalg.eigh(x)
        s = (v * torch.sqrt(w)) @ v.T
        si = (v * torch.rsqrt(w)) @ v.T
        e = torch_eigh_func(si @ u @ si, torch.exp)
        return (s @ e @ s).numpy()
    return call


# Stiefel retractions of X + U: qf with R's diagonal positive (Pymanopt's
# retraction), the polar factor by the thin SVD, and Householder QR alone.
@op("numpy.qr")
def _(a, p):
    x, u = a["x"], a["u"]
    return lambda: np.linalg.qr(x + u)[0]


@op("numpy.qrretr")
def _(a, p):
    x, u = a["x"], a["u"]

    def call():
        q, r = np.linalg.qr(x + u)
        return q * np.sign(np.sign(np.diag(r)) + 0.5)
    return call


@op("torch.qrretr", "torch")
def _(a, p):
    x, u = T(a["x"]), T(a["u"])

    def call():
        q, r = torch.linalg.qr(x + u)
        return (q * torch.sign(torch.sign(torch.diagonal(r)) + 0.5)).numpy()
    return call


@op("numpy.polar")
def _(a, p):
    x, u = a["x"], a["u"]

    def call():
        w, _, vt = np.linalg.svd(x + u, full_matrices=False)
        return w @ vt
    return call


@op("torch.polar", "torch")
def _(a, p):
    x, u = T(a["x"]), T(a["u"])

    def call():
        w, _, vt = torch.linalg.svd(x + u, full_matrices=False)
        return (w @ vt).numpy()
    return call


# The Sinkhorn retraction balances K = Γ ∘ exp(U ⊘ Γ); POT's sinkhorn_log
# balances exp(−M/reg), so M = −log K with reg = 1 is the same problem,
# stopped at the same marginal tolerance: rhgd's is on the relative L1
# error of both marginals, POT's (stopThr) on the L2 norm of the column
# marginal's error (the row marginal is exact after its last half-step);
# ‖·‖₁ ≤ √n ‖·‖₂ makes stopThr = tol·Σa/√n as strict as rhgd's.
@op("pot.sinkhorn_log", "ot")
def _(a, p):
    ma, mb, m = a["a"], a["b"], -a["logk"]
    thr = p["tol"] * ma.sum() / np.sqrt(mb.size)
    return lambda: ot.bregman.sinkhorn_log(ma, mb, m, 1.0, numItermax=100000, stopThr=thr)


# Batched spectral kernels (bench/cases_batch.go): b matrices of order n
# at once, as users write them in torch: eigh on the (b, n, n) tensor,
# V diag(f(λ)) Vᵀ, and autograd's backward through both for an upstream
# gradient g. The eigendecompositions are checked once (ascending
# eigenvalues, reconstruction residual, orthogonality), as rhgd's side
# checks its own.
def batch_tensor(arr, p):
    n, b = int(p["n"]), int(p["count"])
    return T(arr).reshape(b, n, n)


def check_batch_eigh(x):
    w, v = torch.linalg.eigh(x)
    n = x.shape[-1]
    tol = 64 * n * np.finfo(np.float64).eps
    if not bool((w[:, 1:] >= w[:, :-1]).all()):
        raise RuntimeError("torch.linalg.eigh: eigenvalues not ascending")
    res = torch.linalg.matrix_norm((v * w.unsqueeze(-2)) @ v.mT - x) / torch.linalg.matrix_norm(x)
    orth = (v.mT @ v - torch.eye(n, dtype=x.dtype)).abs().amax()
    if float(res.max()) > tol or float(orth) > tol:
        raise RuntimeError(f"torch.linalg.eigh: residual {float(res.max()):.2g}, orthogonality {float(orth):.2g}")


@op("torch.eigh_batch", "torch")
def _(a, p):
    x = batch_tensor(a["a"], p)
    check_batch_eigh(x)
    return lambda: torch.linalg.eigh(x)[0].numpy()


def batch_funcs(p):
    eps = float(p.get("eps", 0))
    return {"exp": torch.exp, "log": torch.log, "reeig": lambda w: torch.clamp(w, min=eps)}


def batch_forward(fname):
    def factory(a, p):
        x, f = batch_tensor(a["a"], p), batch_funcs(p)[fname]

        def call():
            w, v = torch.linalg.eigh(x)
            return ((v * f(w).unsqueeze(-2)) @ v.mT).numpy()
        return call
    return factory


def batch_grad(fname):
    def factory(a, p):
        x0, g, f = batch_tensor(a["a"], p), batch_tensor(a["g"], p), batch_funcs(p)[fname]

        def call():
            with torch.enable_grad():
                x = x0.detach().requires_grad_(True)
                w, v = torch.linalg.eigh(x)
                y = (v * f(w).unsqueeze(-2)) @ v.mT
                y.backward(g)
            return x.grad.numpy()
        return call
    return factory


if torch is not None:
    for fname in ("exp", "log", "reeig"):
        op("torch." + fname + "_batch", "torch")(batch_forward(fname))
        op("torch." + fname + "_batch_grad", "torch")(batch_grad(fname))


# One RHGD epoch of the synthetic problem as the authors' PyTorch code
# does it (bench/torch_synthetic.py, the time-to-solution peer): S lower
# steps, the HINV or AD hypergradient, the QR upper step, from the same
# start every call; float64 follows rhgd to rounding, float32 is the
# authors' precision.
def epoch_factory(dtype):
    def factory(a, p):
        import torch_synthetic as ts
        torch.set_grad_enabled(False)
        prob = ts.Synthetic({"X": a["x"], "Y": a["y"], "W0": a["w0"], "M0": a["m0"], "nu": a["nu"]}, dtype)
        est, S, eta_x, eta_y = p["estimator"], int(p["inner"]), float(p["eta_x"]), float(p["eta_y"])

        def call():
            W, M = prob.W0.clone(), prob.M0.clone()
            if est == "hinv":
                for _ in range(S):
                    M = prob.lower_step(W, M, eta_y)
                hg = ts.hinv(prob, W, M)
            else:
                with torch.enable_grad():
                    hg, M = ts.ad(prob, W, M, S, eta_y)
            return ts.qf(W - eta_x * hg).double().numpy()
        return call
    return factory


if torch is not None:
    op("torch.epoch64", "torch")(epoch_factory(torch.float64))
    op("torch.epoch32", "torch")(epoch_factory(torch.float32))


def fingerprint(out):
    v = np.ascontiguousarray(out, dtype=np.float64).ravel()
    return float(np.dot(v, np.sin(np.arange(1, v.size + 1, dtype=np.float64))))


def versions():
    v = {"python": sys.version.split()[0], "numpy": np.__version__}
    for name, mod in (("scipy", scipy), ("pot", ot), ("torch", torch)):
        if mod is not None:
            v[name] = mod.__version__
    return v


def blas_info():
    try:
        import threadpoolctl
        return [{k: d.get(k) for k in ("internal_api", "version", "architecture", "num_threads", "filepath")}
                for d in threadpoolctl.threadpool_info()]
    except Exception as e:  # threadpoolctl missing or failing: say so
        return [{"error": str(e)}]


def main():
    calls = {}
    mods = {"scipy": scipy, "ot": ot, "torch": torch}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            cmd = req["cmd"]
            if cmd == "quit":
                return
            if cmd == "hello":
                rep = {"versions": versions(), "blas": blas_info(),
                       "torch_threads": torch.get_num_threads() if torch is not None else 0,
                       "ops": sorted(k for k, (_, needs) in OPS.items() if needs is None or mods[needs] is not None)}
            elif cmd == "load":
                calls.pop(req["key"], None)
                if req["op"] not in OPS:
                    raise RuntimeError(f"unknown op {req['op']}")
                factory, needs = OPS[req["op"]]
                if needs is not None and mods[needs] is None:
                    raise RuntimeError(f"{req['op']} needs the Python module {needs}")
                arrays = {k: np.load(f) for k, f in req["files"].items()}
                call = factory(arrays, req.get("params") or {})
                rep = {"fingerprint": fingerprint(call())}
                calls[req["key"]] = call
            elif cmd == "time":
                call = calls.get(req["key"])
                if call is None:
                    raise RuntimeError(f"time before a successful load of {req['key']}")
                min_time, k, t0 = float(req["min_time"]), 0, time.perf_counter()
                while True:
                    call()
                    k += 1
                    el = time.perf_counter() - t0
                    if el >= min_time:
                        break
                rep = {"seconds": el / k, "calls": k}
            elif cmd == "drop":
                calls.clear()
                rep = {}
            else:
                raise RuntimeError(f"unknown command {cmd!r}")
        except Exception as e:  # reported per request; the worker lives on
            rep = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(rep) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

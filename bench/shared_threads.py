#!/usr/bin/python3
"""OpenBLAS threads in a Python process (shared mode): time per epoch of a
small torch problem and of hyperrep under three thread policies, in one
process, interleaved, quiet and beside one busy process.

The policies:
  shared      rhgd leaves OpenBLAS to the host: every call may use all
              threads (the default until issue 27);
  windows     shared, with rhgd's one-thread windows on (rhgd.set_windows):
              rhgd's small calls run on one thread, the host's count is
              restored after each;
  threads=1   OpenBLAS on one thread for the whole process
              (RHGD_THREADS=1, rhgd.set_threads(1)): torch's calls too.

Each round runs every policy once, in a rotating order, for a fixed number
of epochs; the table gives the median time per epoch and the process's
user and system CPU time per epoch, and each policy's ratio to 'shared'.

Run: RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 bench/shared_threads.py [--rounds 7] [--busy]
"""
import argparse
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import time

import torch

import rhgd
import rhgd.torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python" / "examples"))
import torch_hyperrep  # noqa: E402
import torch_metric  # noqa: E402

POLICIES = ("shared", "windows", "threads=1")


def set_policy(name, cores):
    rhgd.set_threads(1 if name == "threads=1" else cores)
    rhgd.set_windows(name == "windows")


def workloads():
    """name -> (run(epochs) -> None): each runs that many epochs of one
    problem from the same start."""
    out = {}
    data = torch_metric.make_data(n=300)
    f, g, mx, my, _ = torch_metric.problem(data)
    M0 = torch.diag(torch.linspace(0.8, 1.2, 10, dtype=torch.float64))
    W0 = torch.zeros(10, 3, dtype=torch.float64)
    p = rhgd.torch.Problem(f, g, mx, my)
    out["metric d=10 (torch, cg)"] = lambda k: rhgd.minimize(p, M0, W0, estimator="cg", epochs=k, eta_x=0.5,
                                                             eta_y=0.1)
    hy = rhgd.builtin("hyperrep")
    out["hyperrep (built-in, cg)"] = lambda k: rhgd.minimize(hy, estimator="cg", epochs=k)
    d = torch_hyperrep.make_data(N=100, d=20, k=5, n_train=50)
    tf, tg, tmx, tmy, nf, ng = torch_hyperrep.problem(d)
    tp = rhgd.torch.Problem(tf, tg, tmx, tmy, n_f=nf, n_g=ng)
    x0, y0 = d["W0"], d["beta0"]
    out["hyperrep N=100 d=20 (torch, cg)"] = lambda k: rhgd.minimize(tp, x0, y0, estimator="cg", epochs=k,
                                                                     eta_x=0.5, eta_y=0.5)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--busy", action="store_true", help="beside one busy process (a spinning python)")
    a = ap.parse_args()
    cores = os.cpu_count()
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if a.busy else None
    try:
        work = workloads()
        for run in work.values():  # warm up: graphs, caches, the library
            run(2)
        res = {(w, pol): [] for w in work for pol in POLICIES}
        for r in range(a.rounds):
            order = POLICIES[r % 3:] + POLICIES[:r % 3]
            for w, run in work.items():
                for pol in order:
                    set_policy(pol, cores)
                    t0, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
                    run(a.epochs)
                    t1, c1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
                    res[(w, pol)].append(((t1 - t0) / a.epochs, (c1.ru_utime - c0.ru_utime) / a.epochs,
                                          (c1.ru_stime - c0.ru_stime) / a.epochs))
        set_policy("shared", cores)
    finally:
        if busy is not None:
            busy.kill()
    cpu = rhgd.info()["cpu"]["brand"]
    print(f"# {cpu}, {cores} cores, OpenBLAS {cores} threads unless threads=1; torch {torch.__version__}, "
          f"torch threads {torch.get_num_threads()}; {'beside one busy process' if a.busy else 'quiet'}; "
          f"{a.rounds} rounds of {a.epochs} epochs, medians\n")
    print("| problem | policy | ms/epoch | user ms/epoch | sys ms/epoch | time vs shared |")
    print("|---|---|---|---|---|---|")
    for w in work:
        base = statistics.median(x[0] for x in res[(w, "shared")])
        for pol in POLICIES:
            xs = res[(w, pol)]
            t, u, s = (statistics.median(x[i] for x in xs) for i in range(3))
            print(f"| {w} | {pol} | {1e3 * t:.2f} | {1e3 * u:.2f} | {1e3 * s:.2f} | {t / base:.2f}× |")


if __name__ == "__main__":
    main()

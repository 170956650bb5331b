#!/usr/bin/python3
"""Timings of the Python binding against scipy and numpy, and of one RHGD
run of the paper's synthetic problem driven from Python.

    RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python python3 python/examples/bench.py
    ... bench.py --owned     # rhgd owns OpenBLAS (rhgd.init(shared=False))

Each kernel pair runs alternately (rhgd, reference, rhgd, ...) so that both
see the same machine state; the table gives the median of each and the
ratio reference/rhgd. Go's side of the RHGD run is
`go test -run '^$' -bench SyntheticRun ./cbindings`.
"""

import argparse
import statistics
import time

import numpy as np
import scipy.linalg as sla

import rhgd


def spd(n, rng):
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    s = (q * np.geomspace(1, 100, n)) @ q.T
    return (s + s.T) / 2


def sym(n, rng):
    a = rng.standard_normal((n, n)) / np.sqrt(n)
    return (a + a.T) / 2


def eigh_exp(a):
    lam, v = np.linalg.eigh(a)
    return (v * np.exp(lam)) @ v.T


def eigh_log(a):
    lam, v = np.linalg.eigh(a)
    return (v * np.log(lam)) @ v.T


def alternate(fns, reps):
    """Median seconds of each function, called in turn reps times after one
    untimed call each (rhgd's first call at a size allocates its
    workspace)."""
    for f in fns:
        f()
    times = [[] for _ in fns]
    for _ in range(reps):
        for i, f in enumerate(fns):
            t = time.perf_counter()
            f()
            times[i].append(time.perf_counter() - t)
    return [statistics.median(t) for t in times]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--owned", action="store_true", help="rhgd owns OpenBLAS (not shared with numpy)")
    ap.add_argument("--sizes", default="50,200,1000")
    ap.add_argument("--runs", type=int, default=5, help="repetitions of the synthetic run")
    args = ap.parse_args()
    if args.owned:
        rhgd.init(shared=False)
    rng = np.random.default_rng(0)
    info = rhgd.info()
    print(f"rhgd {rhgd.version()}: {info['library']}, kernels {info.get('core')}, {info['threads']} threads, "
          f"shared={info['shared']}; numpy {np.__version__}, scipy {__import__('scipy').__version__}")
    print(f"{'op':>14} {'n':>5} {'rhgd ms':>10} {'ref':>28} {'ref ms':>10} {'ratio':>7}")
    for n in map(int, args.sizes.split(",")):
        reps = 7 if n <= 200 else 3
        a, s, c = sym(n, rng), spd(n, rng), sym(n, rng)
        cases = [
            ("expsym", lambda: rhgd.expsym(a), "scipy.linalg.expm", lambda: sla.expm(a)),
            ("expsym", lambda: rhgd.expsym(a), "numpy eigh", lambda: eigh_exp(a)),
            ("logsym", lambda: rhgd.logsym(s), "scipy.linalg.logm", lambda: sla.logm(s)),
            ("logsym", lambda: rhgd.logsym(s), "numpy eigh", lambda: eigh_log(s)),
            ("lyapunov_sym", lambda: rhgd.lyapunov_sym(s, c), "solve_continuous_lyapunov",
             lambda: sla.solve_continuous_lyapunov(s, c)),
        ]
        for op, f, ref, g in cases:
            r = 2 if (n >= 1000 and ref == "scipy.linalg.logm") else reps
            tf, tg = alternate([f, g], r)
            print(f"{op:>14} {n:>5} {tf * 1e3:>10.3f} {ref:>28} {tg * 1e3:>10.3f} {tg / tf:>7.2f}", flush=True)

    p = rhgd.builtin("synthetic")  # the paper's sizes: n=100, d=50, r=20
    s = rhgd.Solver(p, "hinv")
    s.run()  # warm up
    ts = []
    for _ in range(args.runs):
        t = time.perf_counter()
        r = s.run()
        ts.append(time.perf_counter() - t)
    print(f"\nsynthetic problem (paper sizes), HINV, {r.nit} epochs from Python: median {statistics.median(ts) * 1e3:.1f} ms "
          f"over {args.runs} runs (runs: {', '.join(f'{t * 1e3:.1f}' for t in ts)}); final f = {r.fun:.6f}")


if __name__ == "__main__":
    main()

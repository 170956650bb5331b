"""Per-iteration wall time of rhgd's saba (Python callbacks through
librhgd) against the numpy SABA port, same settings (blocks of b samples,
steps eta), 640 iterations each, rounds interleaved in one process; no
metric is evaluated inside either clock. Run from the repository:

    RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 \\
        bench/results/2026-11-27-bilevel-quadratic-saba/per_iteration.py
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import bilevel_quadratic as bq  # noqa: E402  (sets one BLAS thread before numpy)
import numpy as np  # noqa: E402
import rhgd  # noqa: E402

rhgd.set_threads(1)
G, F, metric, x0, z0, _ = bq.setup(bq.argparse.Namespace(n=1024, n_outer=None, d=100, d_outer=None, mu=.1, seed=2442))
N = 640


def rhgd_saba(b, eta, seed):
    p = bq.rhgd_problem(rhgd, G, F, True)
    c0 = G.calls + F.calls
    t = time.perf_counter()
    rhgd.minimize(p, x0, z0, estimator="saba:shuffle=true", epochs=N, batch_lower=b, batch_upper=b, batch_report=64,
                  inner=1, eta_x=eta, eta_y=eta, seed=seed)
    return time.perf_counter() - t, G.calls + F.calls - c0


def saba(b, eta, seed):
    tr = bq.Trace("SABA", lambda x: 1.0, [G, F], 1.0, np.inf, 0, max_records=N // 64 + 1)
    bq.saba(G, F, x0, z0, tr, step_size=eta, outer_ratio=1., batch_size=b, eval_freq=64, random_state=seed)
    return tr.elapsed(), tr.calls()


res = {}
for r in range(9):
    for b, eta in ((64, .1), (128, .5)):
        for name, fn in (("rhgd saba", rhgd_saba), ("SABA", saba)):
            t, c = fn(b, eta, r + 1)
            res.setdefault((name, b, eta), []).append((t, c))
for (name, b, eta), v in res.items():
    ts = np.array([t for t, _ in v])
    print(f"{name:10s} b {b:3d} eta {eta}: {1e3 * np.median(ts) / N:.3f} ms per iteration (median of {len(ts)}; "
          f"min {1e3 * ts.min() / N:.3f}, max {1e3 * ts.max() / N:.3f}), {v[0][1] / N:.0f} sample-oracle calls per iteration")

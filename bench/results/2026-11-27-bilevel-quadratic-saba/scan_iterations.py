"""Iterations to ‖∇h‖² ≤ 1e-6‖∇h(x0)‖² of rhgd's saba (read every 8
epochs) and of the numpy SABA port (eval_freq 8) at equal settings, block
size b and one step eta for y, v and x; no clock. Run from the
repository (output: scan_iterations.log):

    RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 \
        bench/results/2026-11-27-bilevel-quadratic-saba/scan_iterations.py
"""
import os, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import bilevel_quadratic as bq
import numpy as np
import rhgd
rhgd.set_threads(1)
G, F, metric, x0, z0, info = bq.setup(bq.argparse.Namespace(n=1024, n_outer=None, d=100, d_outer=None, mu=.1, seed=2442))
g0 = metric(x0)
def run(b, ex, ey, shuffle=True, report=64, maxep=6000):
    p = bq.rhgd_problem(rhgd, G, F, True)
    c0 = G.calls + F.calls
    hit = {}
    def cb(info):
        k = info["epoch"]
        if k % 8 == 0:
            g = metric(info["x"]) / g0
            if not np.isfinite(g) or g > 1e6:
                hit["div"] = k; return True
            if g <= 1e-6:
                hit["k"], hit["calls"] = k, G.calls + F.calls - c0
                return True
        return False
    est = "saba:shuffle=true" if shuffle else "saba"
    try:
        rhgd.minimize(p, x0, z0, estimator=est, callback=cb, epochs=maxep, batch_lower=b, batch_upper=b, batch_report=report, inner=1, eta_x=ex, eta_y=ey, seed=1)
    except Exception as e:
        hit["err"] = str(e)[:60]
    return hit
def saba_run(step, ratio, b):
    tr = bq.Trace("SABA", metric, [G, F], g0, 1e9, 1e-6, max_records=6000 // 8)
    bq.saba(G, F, x0, z0, tr, step_size=step, outer_ratio=ratio, batch_size=b, eval_freq=8)
    r = tr.array()
    return tr.status, len(r) * 8, r[-1, 1]
for b in (64, 128, 256):
    for eta in (0.1, 0.2, 0.3, 0.5):
        print(f"b {b} eta {eta}: rhgd saba {run(b, eta, eta)}  SABA {saba_run(eta, 1., b)}", flush=True)

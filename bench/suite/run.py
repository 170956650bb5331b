"""Running the suite: one run is a problem × a method (run_one, which a
Dask worker can call: it builds the problem itself and returns plain
data), and the whole suite is the product of the problems and the
registered methods (run_suite), on this process or on a Dask cluster
through python/examples/sweep.py's run_sweep."""

import math
import os
import sys
import time
import traceback

import numpy as np

from . import methods as M
from . import problems as P

# The tolerances of the tables: ‖grad F(x_k)‖ ≤ tol·‖grad F(x_0)‖, grad F
# the true hypergradient; a run stops at the last one.
TOLS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6)

# The two configurations: "small" runs in make test (seconds), "full" is
# the documented one.
CONFIGS = {
    "small": dict(size="small", seconds=0.5, epochs=60, stop=1e-4, max_records=60,
                  methods=("rhgd hinv", "rhgd cg", "rhgd gda", "rhgd cg adaptive", "rhgd adarhd", "AdaRHD (Python)",
                           "SOBA", "SABA", "F2SA")),
    "full": dict(size="full", seconds=20.0, epochs=100000, stop=1e-6, max_records=20000, methods=None),
}


class Recorder:
    """One run's record: rows of (seconds, calls, ‖grad F(x)‖/‖grad F(x0)‖),
    the clock and counts the method's own (the truth's time and calls are
    taken out). record(it) returns False once the run should stop. Every
    iterate is measured, except that after the first 20 an iterate is
    skipped while the measuring so far has taken longer than the run
    itself (on spdnet a true hypergradient costs about a second): the
    suite's wall clock stays within about twice the runs' own."""

    def __init__(self, sp, g0, seconds, stop, max_records):
        self.sp, self.g0, self.seconds, self.stop, self.max_records = sp, g0, seconds, stop, max_records
        self.rows, self.excl, self.status, self.last, self.iters = [], 0.0, "ended", None, 0
        self.truth_error = None
        self.base = sp.sample_calls()
        self.t0 = time.perf_counter()

    def record(self, it):
        c0 = time.perf_counter()
        t = c0 - self.t0 - self.excl
        self.iters += 1
        if len(self.rows) >= 20 and self.excl > t and t <= self.seconds:
            return True  # measuring would cost more than the run itself so far: skip this iterate
        sp = self.sp
        x = np.asarray(it["x"], dtype=float)
        y = it.get("y")
        calls = sp.sample_calls()
        if calls is not None:
            calls -= self.base
        else:
            c = it.get("calls") or 0
            calls = sum(c.values()) if isinstance(c, dict) else c
        try:
            g = sp.true_hypergrad(x, sp.y0 if y is None else np.asarray(y, dtype=float))
            r = sp.mx.norm(x, g) / self.g0
        except Exception as e:  # an iterate off the manifold, a failed lower solve: said in the row
            r = math.nan
            self.truth_error = self.truth_error or f"true hypergradient: {type(e).__name__}: {e}".splitlines()[0][:200]
        self.rows.append((t, float(calls), float(r)))
        self.last = (x, y)
        go = True
        if not math.isfinite(r) or r > 1e6:
            self.status, go = "diverged", False
        elif r <= self.stop:
            self.status, go = "reached", False
        elif t > self.seconds:
            self.status, go = "time cap", False
        elif len(self.rows) >= self.max_records:
            self.status, go = "records", False
        self.excl += time.perf_counter() - c0
        return go


_CACHE = {}


def _problem(name, size):
    """The problem, built once per process (a Dask worker keeps its own)
    and reused by the runs that follow, its call counter reset: the
    problems keep no state between runs that a run could see (benchopt's
    counters are read relative to the run's start)."""
    sp = _CACHE.get((name, size))
    if sp is None:
        sp = _CACHE[(name, size)] = P.make(name, size)
    sp.calls.clear()
    return sp


def run_one(task):
    """Run task (a dict: problem, method, config, optional plug = a
    --method spec to load in this process) and return its row: plain
    data, so that it crosses to and from Dask workers."""
    cfg = CONFIGS[task["config"]]
    if task.get("plug"):
        M.load(task["plug"])
    m = M.REGISTRY[task["method"]]
    out = dict(problem=task["problem"], method=task["method"], group=m.group, config=task["config"],
               worker=f"{os.uname().nodename}:{os.getpid()}")
    sp = _problem(task["problem"], cfg["size"])
    out["describe"] = sp.describe
    why = m.applies(sp)
    if why is not None:
        return dict(out, status="n/a", why=why, rows=[])
    g = sp.true_hypergrad(sp.x0, sp.y0)
    g0 = sp.mx.norm(sp.x0, g)
    budget = M.Budget(cfg["epochs"], cfg["seconds"])
    rec = Recorder(sp, g0, cfg["seconds"], cfg["stop"], cfg["max_records"])
    err = None
    try:
        if m.push:
            m.fn(sp, budget, rec.record)
        else:
            gen = m.fn(sp, budget)
            try:
                for it in gen:
                    if not rec.record(it):
                        break
            finally:
                gen.close()
    except Exception as e:  # the run's failure is a result, reported with its cause
        err = f"{type(e).__name__}: {e}".splitlines()[0][:200]
        if os.environ.get("RHGD_SUITE_DEBUG"):
            traceback.print_exc()
    err = err or rec.truth_error
    status = ("failed" if not rec.rows else "error") if err else rec.status
    out.update(status=status, error=err, g0=g0, rows=rec.rows, iterations=rec.iters,
               seconds=rec.rows[-1][0] if rec.rows else None)
    if rec.last is not None:
        x, _ = rec.last
        ystar = sp.problem.oracle("lower_solve", x, sp.y0)
        out["final_f"] = sp.problem.oracle("f", x, ystar)
        out["accuracy"] = sp.accuracy(x, ystar)
        out["solution_error"] = sp.solution_error(x)
    return out


def tasks_for(config, problems=None, methods=None, plugs=()):
    """The suite's tasks: every problem × every method of the config."""
    cfg = CONFIGS[config]
    names = methods or cfg["methods"] or list(M.REGISTRY)
    out = []
    for p in problems or P.NAMES:
        for m in names:
            plug = next((s for s in plugs if s.rpartition(":")[2] == m), None)
            out.append(dict(problem=p, method=m, config=config, plug=plug))
    return out


def run_suite(tasks, scheduler=None, workers=0):
    """Run the tasks: in this process when neither scheduler nor workers
    is given, else on a Dask cluster (scheduler: a running one's address;
    workers: a LocalCluster of that many processes) through
    python/examples/sweep.py's run_sweep."""
    if scheduler is None and not workers:
        return [run_one(t) for t in tasks]
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "python", "examples"))
    import sweep
    from dask.distributed import Client, LocalCluster
    if scheduler:
        client, cluster = Client(scheduler), None
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               env={"RHGD_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
        client = Client(cluster)
    try:
        return sweep.run_sweep(client, tasks, fn=run_one)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

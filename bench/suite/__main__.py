"""python3 -m suite (PYTHONPATH=python:bench, RHGD_LIBRARY=build/librhgd.so):
every suite problem × every method, to a dated Markdown report with
tables and plots.

    python3 -m suite --config small --out build/suite-small        # make test's (seconds)
    python3 -m suite --config full                                 # make suite: build/suite/<date>-full
    python3 -m suite --workers 2                                   # on a 2-process Dask LocalCluster
    python3 -m suite --scheduler tcp://host:8786                   # on a running Dask cluster
    python3 -m suite --method mine.py:my_method                    # plug in an outside method
"""

import argparse
import datetime
import json
import os
import platform
import sys
import time

from . import methods as M
from . import problems as P
from . import report
from . import run


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m suite", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", choices=sorted(run.CONFIGS), default="full")
    ap.add_argument("--out", help="output directory (default build/suite/<date>-<config>)")
    ap.add_argument("--problems", help="comma-separated subset of " + ",".join(P.NAMES))
    ap.add_argument("--methods", help="comma-separated subset of the registered methods")
    ap.add_argument("--method", action="append", default=[],
                    help="FILE.py:FUNCTION or module:function, an outside method (see suite/methods.py); repeatable")
    ap.add_argument("--scheduler", help="a running Dask scheduler's address: the runs go there")
    ap.add_argument("--workers", type=int, default=0, help="run on a Dask LocalCluster of this many processes")
    ap.add_argument("--from", dest="src", metavar="RESULTS.json",
                    help="run nothing: write the report again from a run's results.json (into --out, default its "
                    "directory)")
    a = ap.parse_args(argv)
    if a.src:
        return rerender(a.src, a.out)

    for spec in a.method:
        M.load(spec)
    date = datetime.date.today().isoformat()
    out = a.out or os.path.join("build", "suite", f"{date}-{a.config}")
    problems = a.problems.split(",") if a.problems else list(P.NAMES)
    methods = a.methods.split(",") if a.methods else run.CONFIGS[a.config]["methods"] or list(M.REGISTRY)
    methods = list(methods) + [s.rpartition(":")[2] for s in a.method if s.rpartition(":")[2] not in methods]
    tasks = run.tasks_for(a.config, problems, methods, a.method)
    t0, load0 = time.time(), os.getloadavg()[0]
    results = run.run_suite(tasks, a.scheduler, a.workers)
    wall, load1 = time.time() - t0, os.getloadavg()[0]
    cfg = run.CONFIGS[a.config]
    where = f"Dask scheduler {a.scheduler}" if a.scheduler else \
        f"a Dask LocalCluster of {a.workers} processes" if a.workers else "one process"
    header = (f"# rhgd suite, {date} ({a.config})\n\n"
              f"`python3 -m suite {' '.join(argv if argv is not None else sys.argv[1:])}` on {platform.node()} "
              f"({platform.machine()}, {os.cpu_count()} CPUs), {where}: {len(tasks)} runs "
              f"({sum(r['status'] != 'n/a' for r in results)} applicable) in {wall:.1f} s wall clock; the machine's "
              f"load average was {load0:.1f} at the start and {load1:.1f} at the end (times are wall clock, "
              f"and other processes share the cores).\n\n"
              f"Every run starts from the problem's start; it is measured after each of its iterations by the true "
              f"hypergradient grad F(x_k) = grad_x f − G_xy g[H⁻¹ grad_y f] at the exact lower solution y*(x_k) "
              f"(HINV at lower_solve on a twin of the problem, a pseudo-inverse on plstiefel, closed forms on "
              f"quadratic, grassmann and simplex), outside the method's clock and oracle counts, and stops at "
              f"{cfg['stop']:g}·‖grad F(x₀)‖, after {cfg['seconds']:g} s of its own time, after "
              f"{cfg['max_records']} records, or when it diverges. rhgd's methods run each problem's paper "
              f"settings (built-ins) or the suite's (its own problems); `rhgd cg adaptive` is `preset=adaptive`. "
              f"Oracle calls: grad_fx/grad_fy pairs, grad_gy, Hessian and cross products and lower solves, one "
              f"each; on quadratic, benchopt's sample-oracle calls for every method. n/a: the method does not "
              f"apply (the reason given).\n")
    descs = {m: M.REGISTRY[m].desc for m in methods if m in M.REGISTRY}
    path = report.write(results, out, header, problems, methods, descs)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(dict(config=a.config, wall_seconds=wall, results=results, header=header, problems=problems,
                       methods=methods, descs=descs), f)
    print(f"suite: {len(tasks)} runs in {wall:.1f} s; report {path}")
    return results


def _status(r):
    """A result's status as the current runner names it (an early run
    with an error and records said "ended")."""
    if r.get("error") and r.get("rows") and r["status"] not in ("n/a", "failed"):
        r["status"] = "error"
    return r


def rerender(src, out=None):
    """The report of a finished run again, from its results.json; the
    header (kept in results.json, or in an older run the report's own
    text before its list of methods) stays the run's."""
    with open(src) as f:
        d = json.load(f)
    here = os.path.dirname(os.path.abspath(src))
    out = out or here
    results = [_status(r) for r in d["results"]]
    header = d.get("header")
    if header is None:
        with open(os.path.join(here, "report.md")) as f:
            header = f.read().split("\nMethods:\n")[0].split("\n## Overview")[0].rstrip("\n") + "\n"
    seen = lambda k: list(dict.fromkeys(r[k] for r in results))  # noqa: E731
    problems, methods = d.get("problems") or seen("problem"), d.get("methods") or seen("method")
    descs = d.get("descs") or {m: M.REGISTRY[m].desc for m in methods if m in M.REGISTRY}
    path = report.write(results, out, header, problems, methods, descs)
    print(f"suite: report {path} from {src}")
    return results


if __name__ == "__main__":
    main()

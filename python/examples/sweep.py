#!/usr/bin/python3
"""A hyperparameter sweep of RHGD over a dask.distributed cluster.

Each task solves one bilevel problem (the paper's synthetic problem with
one ν, estimator and step size) through the rhgd Python package in a
worker process; the results are gathered into one table.

    python3 sweep.py                              # a LocalCluster, 2 worker processes
    python3 sweep.py --scheduler tcp://host:8786  # a running cluster
    python3 sweep.py --small --csv out.csv
    python3 sweep.py --checkpoint-dir /shared/ckpt  # tasks survive their workers

With --scheduler the script connects to that scheduler instead of starting
a LocalCluster; every worker must be able to import rhgd and load
librhgd.so (see python/README.md). Dask starts worker processes with
'spawn', which the Go runtime inside librhgd needs: a forked worker could
not use it.

With --checkpoint-dir (a directory every worker sees) each task keeps its
run's checkpoint there (rhgd.minimize's checkpoint=): when a worker dies
mid-task, Dask runs the task again on another worker, which resumes the
run where the checkpoint left it instead of starting over, and returns
the row the uninterrupted run would have (the row's "resumed" says so).
"""

import argparse
import hashlib
import itertools
import os
import socket
import sys


def grid(small=False):
    """The sweep's tasks: a list of parameter dicts."""
    if small:
        nus, ests, etas, seeds, size = [0.01, 0.1], ["hinv", "cg"], [0.5], [1], dict(n=40, d=10, r=4)
    else:
        nus, ests, etas, seeds = [0.001, 0.01, 0.1], ["hinv", "cg", "ns", "ad"], [0.25, 0.5], [1, 2]
        size = dict(n=100, d=50, r=20)  # the paper's
    return [dict(problem="synthetic", nu=nu, estimator=est, eta=eta, seed=seed, epochs=60, **size)
            for nu, est, eta, seed in itertools.product(nus, ests, etas, seeds)]


def checkpoint_path(task, checkpoint_dir):
    """The task's checkpoint file in checkpoint_dir: named by a hash of the
    task's parameters, so that a task run again finds its own."""
    key = hashlib.sha256(repr(sorted(task.items())).encode()).hexdigest()[:20]
    return os.path.join(checkpoint_dir, f"{task['problem']}-{key}.ckpt")


def run_task(task, checkpoint_dir=None, checkpoint_every=10):
    """Solve one task; runs in a worker process. Returns a row of the table.
    With checkpoint_dir the run keeps its checkpoint there, and a task run
    again (its worker died) resumes it; the row's "resumed" says whether
    it did."""
    import rhgd  # imported in the worker: loaded there, never forked into it
    t = dict(task)
    name, est, eta, epochs, seed = t.pop("problem"), t.pop("estimator"), t.pop("eta"), t.pop("epochs"), t.pop("seed")
    p = rhgd.builtin(name, seed=seed, **t)
    ck, every = None, None
    if checkpoint_dir is not None:
        ck, every = checkpoint_path(task, checkpoint_dir), checkpoint_every
    resumed = ck is not None and os.path.exists(ck)
    r = rhgd.minimize(p, estimator=est, eta_x=eta, eta_y=eta, epochs=epochs, checkpoint=ck, checkpoint_every=every)
    return dict(task, status=r.status_name, f=r.fun, best_f=r.best_f, hypergrad_norm=r.hypergrad_norm,
                epochs_run=r.nit, runtime=r.runtime, worker=f"{socket.gethostname()}:{os.getpid()}", resumed=resumed)


def run_sweep(client, tasks, checkpoint_dir=None, fn=None):
    """Map the tasks over the client's cluster and gather the rows, in the
    tasks' order. fn runs one task in a worker (default run_task, with
    checkpoint_dir; another fn, such as bench/suite's run_one, takes the
    task alone and must be importable in the workers)."""
    if fn is None:
        futures = client.map(run_task, tasks, checkpoint_dir=checkpoint_dir, pure=False)
    else:
        futures = client.map(fn, tasks, pure=False)
    return client.gather(futures)


COLUMNS = ["nu", "estimator", "eta", "seed", "status", "f", "best_f", "hypergrad_norm", "runtime", "worker"]


def format_table(rows):
    head = f"{'nu':>7} {'est':>5} {'eta':>5} {'seed':>4} {'status':>15} {'f':>11} {'best f':>11} " \
           f"{'|hypergrad|':>11} {'s':>6}  worker"
    lines = [head]
    for r in rows:
        lines.append(f"{r['nu']:>7g} {r['estimator']:>5} {r['eta']:>5g} {r['seed']:>4} {r['status']:>15} "
                     f"{r['f']:>11.6f} {r['best_f']:>11.6f} {r['hypergrad_norm']:>11.3e} {r['runtime']:>6.3f}  "
                     f"{r['worker']}")
    return "\n".join(lines)


def write_csv(rows, path):
    import csv
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scheduler", help="address of a running dask scheduler (default: start a LocalCluster)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    ap.add_argument("--small", action="store_true", help="a small grid at small sizes (seconds)")
    ap.add_argument("--csv", help="also write the table to this CSV file")
    ap.add_argument("--checkpoint-dir", help="keep each task's checkpoint in this directory, which every worker "
                    "sees: a task whose worker died resumes there")
    args = ap.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    tasks = grid(args.small)
    if args.scheduler:
        client, cluster = Client(args.scheduler), None
    else:
        # One thread per worker and one OpenBLAS thread per task: the
        # workers are the parallelism. RHGD_THREADS sets OpenBLAS's count
        # when rhgd starts in the worker; the workers inherit RHGD_LIBRARY.
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, env={"RHGD_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
        client = Client(cluster)
    try:
        rows = run_sweep(client, tasks, args.checkpoint_dir)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    print(format_table(rows))
    best = min(rows, key=lambda r: r["best_f"])
    print(f"\n{len(rows)} runs on {len({r['worker'] for r in rows})} worker process(es); "
          f"best f = {best['best_f']:.6f} with nu={best['nu']}, {best['estimator']}, eta={best['eta']}")
    if args.csv:
        write_csv(rows, args.csv)
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])

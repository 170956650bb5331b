"""The Dask example on a LocalCluster with 2 worker processes: every row
of the gathered table equals the same run made in this process."""

import os
import pathlib
import sys

import pytest

distributed = pytest.importorskip(
    "distributed", reason="python3-distributed (Dask) is not installed: apt-get install python3-distributed"
)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
import sweep  # noqa: E402


def test_sweep_local_cluster(capsys):
    rows = sweep.main(["--small", "--workers", "2"])
    tasks = sweep.grid(small=True)
    assert len(rows) == len(tasks) == 4
    workers = {r["worker"] for r in rows}
    assert all(w.rsplit(":", 1)[1] != str(os.getpid()) for w in workers), "a task ran in the test process"
    for task, row in zip(tasks, rows):
        here = sweep.run_task(task)
        assert (row["status"], row["epochs_run"]) == (here["status"], here["epochs_run"])
        # The workers run OpenBLAS on one thread, this process on its
        # default count: products may round differently in the last bits.
        for k in ("f", "best_f", "hypergrad_norm"):
            assert abs(row[k] - here[k]) <= 1e-10 * max(1.0, abs(here[k])), (task, k, row[k], here[k])
    out = capsys.readouterr().out
    assert "4 runs on" in out and "best f" in out


def _start(args, log, env):
    """Start a dask command (scheduler or worker) in a session of its own,
    its output to log."""
    import subprocess
    return subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def _stop(procs):
    """Stop the processes started here and their children (a nanny's
    worker), by their process groups."""
    import signal
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    for p in procs:
        try:
            p.wait(timeout=20)
        except Exception:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def test_sweep_survives_killed_worker(tmp_path):
    """A sweep with --checkpoint-dir on real `dask scheduler` and `dask
    worker` processes (2 workers, each under its nanny) on localhost, one
    worker killed with SIGKILL in the middle of a task once the task has
    written a checkpoint: Dask runs the task again on a worker, which
    resumes the checkpoint; every task's row comes back exactly once, the
    killed task's row says it resumed, ran all its epochs and equals,
    bit for bit, the same task run uninterrupted on the cluster."""
    import json
    import shutil
    import signal
    import time

    dask = shutil.which("dask")
    if dask is None:
        pytest.skip("the dask command (python3-distributed) is not on PATH")
    from distributed import Client

    here = pathlib.Path(__file__).resolve().parents[1]
    env = dict(os.environ, RHGD_THREADS="1", OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(here), str(here / "examples"), os.environ.get("PYTHONPATH", "")]))
    sched_file = tmp_path / "scheduler.json"
    ckdir = tmp_path / "ckpt"
    ckdir.mkdir()
    log = open(tmp_path / "dask.log", "w")
    procs = [_start([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--scheduler-file", str(sched_file)], log, env)]
    try:
        deadline = time.time() + 60
        while not sched_file.exists() or not sched_file.read_text().strip():
            assert time.time() < deadline, "the scheduler did not start: " + (tmp_path / "dask.log").read_text()
            time.sleep(0.05)
        for i in range(2):
            procs.append(_start([dask, "worker", "--scheduler-file", str(sched_file), "--nthreads", "1",
                                 "--nworkers", "1", "--no-dashboard", "--host", "127.0.0.1",
                                 "--local-directory", str(tmp_path / f"w{i}")], log, env))
        with Client(scheduler_file=str(sched_file), timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            # 4 tasks of about half a second each, checkpoints every 10 epochs.
            tasks = [dict(problem="synthetic", nu=nu, estimator=est, eta=0.5, seed=1, epochs=600, n=100, d=30, r=10)
                     for nu in (0.01, 0.1) for est in ("hinv", "cg")]
            futures = client.map(sweep.run_task, tasks, checkpoint_dir=str(ckdir), pure=False)
            victim = sweep.checkpoint_path(tasks[0], str(ckdir))
            while not os.path.exists(victim):
                assert time.time() < deadline + 60, "the first task wrote no checkpoint"
                time.sleep(0.005)
            pids = client.run(os.getpid)
            where = [w for w, keys in client.processing().items() if futures[0].key in keys]
            assert len(where) == 1, client.processing()
            killed = pids[where[0]]
            os.kill(killed, signal.SIGKILL)
            rows = client.gather(futures)
            assert len(rows) == len(tasks)
            names = [json.dumps({k: r[k] for k in tasks[0]}, sort_keys=True) for r in rows]
            assert sorted(names) == sorted(json.dumps(t, sort_keys=True) for t in tasks), "a row is missing or twice"
            row = rows[0]
            assert row["resumed"], "the killed task started over"
            assert row["worker"].rsplit(":", 1)[1] != str(killed)
            assert (row["status"], row["epochs_run"]) == ("IterationLimit", 600)
            want = client.submit(sweep.run_task, tasks[0], pure=False).result()
            assert not want["resumed"]
            for k in ("f", "best_f", "hypergrad_norm", "epochs_run", "status"):
                assert row[k] == want[k], (k, row[k], want[k])
    finally:
        _stop(procs)
        log.close()

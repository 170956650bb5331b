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

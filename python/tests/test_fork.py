"""fork() after the library is loaded raises ForkError in the child instead
of deadlocking; spawn and forkserver workers work; fork before the load is
fine."""

import multiprocessing as mp
import os
import subprocess
import sys

import numpy as np
import pytest

import rhgd

import _workers


def _child_calls_rhgd(q):
    try:
        rhgd.expsym(np.eye(2))
        q.put("no error")
    except rhgd.ForkError as e:
        q.put("ForkError: " + str(e))
    except BaseException as e:  # pragma: no cover - reported to the parent
        q.put(f"{type(e).__name__}: {e}")


def test_fork_after_load_raises():
    rhgd.expsym(np.eye(2))  # load in this process
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child_calls_rhgd, args=(q,))
    p.start()
    msg = q.get(timeout=60)
    p.join(60)
    assert p.exitcode == 0, "the child did not exit cleanly"
    assert msg.startswith("ForkError: ") and "spawn" in msg and "forkserver" in msg, msg
    # The parent is unaffected.
    assert np.allclose(rhgd.expsym(np.zeros((2, 2))), np.eye(2))


def test_fork_before_load_works():
    """A fresh interpreter that forks before loading: the child loads its own
    copy and works."""
    code = ("import os, numpy, rhgd\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    ok = numpy.allclose(rhgd.expsym(numpy.zeros((2, 2))), numpy.eye(2))\n"
            "    os._exit(0 if ok else 3)\n"
            "_, status = os.waitpid(pid, 0)\n"
            "assert os.waitstatus_to_exitcode(status) == 0, status\n"
            "assert numpy.allclose(rhgd.expsym(numpy.zeros((2, 2))), numpy.eye(2))\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=os.environ.copy(), timeout=120)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_worker_processes(method):
    rhgd.expsym(np.eye(2))  # loaded in the parent: workers must not inherit it by fork
    ctx = mp.get_context(method)
    with ctx.Pool(2) as pool:
        got = pool.map(_workers.expsym_trace, range(4))
        fs = pool.map(_workers.synthetic_f, [1, 2])
    assert got == [_workers.expsym_trace(s) for s in range(4)]
    assert fs == [_workers.synthetic_f(s) for s in [1, 2]]

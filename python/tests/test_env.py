"""RHGD_* set in os.environ after import, before the first computation,
count: the library reads the host's environment as it is then."""

import json
import os
import subprocess
import sys

import pytest

import rhgd

# OpenBLAS's threads and rhgd's thread table: a pure-Go build of the
# library (go build -tags purego) has neither.
pytestmark = pytest.mark.skipif(rhgd.info()["backend"] != "openblas",
                                reason="the OpenBLAS backend's threads (this library is a pure-Go build)")

CODE = """
import json, os, sys, rhgd
os.environ.update(json.loads(sys.argv[1]))
i = rhgd.info()
print(json.dumps({"backend": i["backend"], "threads": i["threads"]}))
"""


def info_after_setting(env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RHGD_") or k == "RHGD_LIBRARY"}
    clean.pop("OPENBLAS_NUM_THREADS", None)
    clean.pop("OMP_NUM_THREADS", None)
    out = subprocess.run([sys.executable, "-c", CODE, json.dumps(env)], env=clean, check=True, capture_output=True,
                         text=True, timeout=120).stdout
    return json.loads(out)


def test_environment_read_at_first_use():
    default = info_after_setting({})
    assert default["backend"] == "openblas"
    n = default["threads"] + 1
    assert info_after_setting({"RHGD_THREADS": str(n)}) == {"backend": "openblas", "threads": n}
    assert info_after_setting({"RHGD_BLAS": "gonum"})["backend"] == "gonum"


WINDOWS = """
import ctypes, json, os, sys
import numpy as np
os.environ.update(json.loads(sys.argv[1]))
import rhgd
rhgd.set_threads(2)  # the host's count, as numpy's pool would have it
blas = ctypes.CDLL("libopenblas.so.0")
p = rhgd.builtin("synthetic", n=20, d=5, r=2)
rhgd.minimize(p, estimator="cg", epochs=3)   # rhgd's small calls, each in a window when they are on
rhgd.expsym(np.eye(4))
i = rhgd.info()
print(json.dumps({"shared": i["shared"], "windows": i["shared_windows"], "after": blas.openblas_get_num_threads()}))
"""


def test_shared_windows_leave_the_host_count():
    """In a Python process (shared mode) rhgd's one-thread windows are on by
    default (issue 27 §3, bench/shared_threads.py) and restore the host's
    OpenBLAS thread count after each call; RHGD_WINDOWS=0 turns them off."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RHGD_") or k == "RHGD_LIBRARY"}
    for env, windows in (({}, True), ({"RHGD_WINDOWS": "0"}, False)):
        out = subprocess.run([sys.executable, "-c", WINDOWS, json.dumps(env)], env=clean, check=True,
                             capture_output=True, text=True, timeout=120).stdout
        assert json.loads(out) == {"shared": True, "windows": windows, "after": 2}, (env, out)

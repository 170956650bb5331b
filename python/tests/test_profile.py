"""Python (the C ABI, shared mode) reads the thread profile `rhgd tune`
writes, as the rhgd command does (issue 32 §1): a profile for this machine
sets the table, one for another CPU is passed over with a note, a corrupt
one is rejected with a warning and the fallback stays."""

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
print(json.dumps({"table": i["thread_table"], "lapack": i["lapack"], "warnings": i.get("warnings") or []}))
"""

CALLS = ["gemm", "symm", "syrk", "syr2k", "trmm", "trsm", "gemv", "symv", "ger", "trmv",
         "potrf", "potri", "getrf", "sygst", "syevd", "qr", "gees"]


def info_with(env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RHGD_") or k == "RHGD_LIBRARY"}
    clean["OPENBLAS_NUM_THREADS"] = "2"
    clean.pop("OMP_NUM_THREADS", None)
    r = subprocess.run([sys.executable, "-c", CODE, json.dumps(env)], env=clean, check=True, capture_output=True,
                       text=True, timeout=120)
    out = json.loads(r.stdout)
    out["stderr"] = r.stderr
    return out


def profile_file(key, order):
    return {"version": 1, "profiles": [{"key": key, "measured": "2026-11-27T00:00:00Z", "load": 0,
                                        "rule": {"min_quiet": 1.1, "min_loaded": 0.8},
                                        "threads_from": {c: (0 if c == "gees" else order) for c in CALLS}}]}


def test_profile_read_from_python(tmp_path):
    path = tmp_path / "threads.json"
    fallback = info_with({"RHGD_PROFILE": str(path)})
    assert fallback["table"]["source"].startswith("fallback"), fallback
    key = fallback["table"]["key"]
    assert key["threads"] == 2

    path.write_text(json.dumps(profile_file(key, 300)))
    mine = info_with({"RHGD_PROFILE": str(path)})
    assert mine["table"]["source"].startswith("profile " + str(path)), mine
    assert mine["table"]["threads_from"]["gemm"] == 300
    assert "gees" not in mine["table"]["threads_from"], "0 is never"
    assert mine["lapack"]["threads_from"]["dsyevd"] == 300

    other = dict(key, cpu="Some Other CPU")
    path.write_text(json.dumps(profile_file(other, 300)))
    foreign = info_with({"RHGD_PROFILE": str(path)})
    assert foreign["table"]["threads_from"] == fallback["table"]["threads_from"]
    assert any("Some Other CPU" in n for n in foreign["table"]["notes"]), foreign

    path.write_text('{"version": 1, "profiles": [')
    corrupt = info_with({"RHGD_PROFILE": str(path)})
    assert corrupt["table"]["threads_from"] == fallback["table"]["threads_from"]
    assert any("thread profile ignored" in w and str(path) in w for w in corrupt["warnings"]), corrupt
    assert "thread profile ignored" in corrupt["stderr"]


def test_profile_under_xdg_cache(tmp_path):
    """Without RHGD_PROFILE the file is rhgd/threads.json under XDG_CACHE_HOME."""
    key = info_with({"RHGD_PROFILE": "off"})["table"]["key"]
    d = tmp_path / "rhgd"
    d.mkdir()
    (d / "threads.json").write_text(json.dumps(profile_file(key, 400)))
    got = info_with({"XDG_CACHE_HOME": str(tmp_path)})
    assert got["table"]["threads_from"]["gemm"] == 400, got
    assert info_with({"XDG_CACHE_HOME": str(tmp_path), "RHGD_PROFILE": "off"})["table"]["source"].startswith("fallback")

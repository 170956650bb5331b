"""RHGD_* set in os.environ after import, before the first computation,
count: the library reads the host's environment as it is then."""

import json
import os
import subprocess
import sys

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

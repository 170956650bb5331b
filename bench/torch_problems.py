#!/usr/bin/python3
"""A user's own problems in PyTorch, solved by rhgd.torch, against what the
user would run otherwise (issue 28's targets): the three side-by-side
benchmarks below, run in turn, one thread for torch and OpenBLAS, their
numbers written as JSON for the benchmark report's targets table
(go run ./bench/cmd/report runs this script; `make bench`).

  metric    bench/torch_metric.py: metric learning, d = 10, against a
            careful hand-written torch loop: per epoch with CG, and time to
            1e-2‖grad F₀‖ on the true hypergradient;
  hyperrep  bench/torch_hyrep.py at the paper's size, against the authors'
            code ported to plain torch: per epoch for CG, NS, HINV and AD,
            and time to 1e-2‖ĝ₀‖ (rhgd.torch adaptive, every oracle from
            autograd, against the port's paper settings);
  spdnet    bench/torch_spdnet.py: SPDNet with rhgd.torch's eigen-layers
            against the same model on torch.linalg.eigh, per epoch.

--quick runs each at a tiny size, once: it checks that the harness runs
(make test's bench-quick), and its numbers judge nothing.

Run: RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 bench/torch_problems.py --json OUT [--quick]
"""
import argparse
import importlib.util
import json
import os
import pathlib
import platform
import sys
import time

os.environ["RHGD_THREADS"] = "1"  # before rhgd's first call: one thread, as torch

HERE = pathlib.Path(__file__).resolve().parent


def load(name):
    """bench/<name>.py as a module (its name clashes with the examples')."""
    spec = importlib.util.spec_from_file_location("bench_" + name, HERE / f"{name}.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", required=True, help="where to write the numbers")
    ap.add_argument("--quick", action="store_true", help="tiny sizes, once: the harness runs, judges nothing")
    ap.add_argument("--only", default="metric,hyperrep,spdnet")
    a = ap.parse_args()
    import torch
    import rhgd
    only = a.only.split(",")
    out = {"quick": a.quick, "cpu": rhgd.info()["cpu"]["brand"], "cores": os.cpu_count(), "threads": 1,
           "torch": torch.__version__, "python": platform.python_version(), "seconds": {}}
    if "metric" in only:
        t0 = time.time()
        argv = ["--rounds", "1", "--epochs", "3", "--n", "60", "--cap", "30"] if a.quick else \
            ["--rounds", "7", "--epochs", "20"]
        out["metric"] = load("torch_metric").main(argv)
        out["metric"]["command"] = "bench/torch_metric.py " + " ".join(argv)
        out["seconds"]["metric"] = time.time() - t0
    if "hyperrep" in only:
        t0 = time.time()
        argv = ["--threads", "1", "--no-go", "--tol", "1e-2", "--rhgd-b", "auto"]
        argv += ["--N", "24", "--d", "6", "--r", "3", "--rounds", "1", "--epochs", "1", "--rounds-b", "1",
                 "--lower-iter", "5", "--cap-epochs", "5", "--cap-epochs-rhgd", "5"] if a.quick else \
            ["--rounds", "3", "--epochs", "3", "--rounds-b", "3", "--port-b", "cg,hinv"]
        r = load("torch_hyrep").main(argv)
        hy = {"epoch": {k: {"port_ms": 1e3 * v["port"], "rhgd_ms": 1e3 * v["torch"], "ratio": v["port"] / v["torch"]}
                        for k, v in r.get("a", {}).items()}, "command": "bench/torch_hyrep.py " + " ".join(argv)}
        b = r.get("b", {})
        rh = [s["hit"] for s in b.get("rhgd-auto", [])]
        if rh and all(h is not None for h in rh):
            rs = sorted(rh)[len(rh) // 2]
            ports = {}
            for k, v in b.items():
                if k.startswith("port-"):
                    hits = [s["hit"] for s in v]
                    # not reached: its time so far, a lower bound on its time to the target
                    t = sorted(h if h is not None else s["total"] for h, s in zip(hits, v))[len(v) // 2]
                    ports[k[5:]] = {"s": t, "reached": all(h is not None for h in hits), "epochs": v[0]["epochs"]}
            best = min(ports, key=lambda k: ports[k]["s"]) if ports else None
            hy["tol"] = {"rhgd_s": rs, "rhgd_epochs": b["rhgd-auto"][0]["epochs"], "port": ports, "best_port": best,
                         "ratio": ports[best]["s"] / rs if best else None, "tol": 1e-2}
        out["hyperrep"] = hy
        out["seconds"]["hyperrep"] = time.time() - t0
    if "spdnet" in only:
        t0 = time.time()
        argv = ["--rounds", "1", "--epochs", "2"] if a.quick else ["--rounds", "5", "--epochs", "10"]
        out["spdnet"] = load("torch_spdnet").main(argv)
        out["spdnet"]["command"] = "bench/torch_spdnet.py " + " ".join(argv)
        out["seconds"]["spdnet"] = time.time() - t0
    pathlib.Path(a.json).write_text(json.dumps(out, indent=2))
    print(f"wrote {a.json}", file=sys.stderr)


if __name__ == "__main__":
    main()

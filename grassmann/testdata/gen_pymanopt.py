"""Writes pymanopt.json: pymanopt's Grassmann (pymanopt/manifolds/grassmann.py)
evaluated on fixed random inputs, the reference of TestPymanopt.

pymanopt is not a dependency of rhgd: run this with its source tree on the
path, e.g. for the commit the values were made with (a1f52e7, pymanopt 2.2.1
and later; a source tree needs pymanopt/_version.py with a __version__):

    PYTHONPATH=/path/to/pymanopt/src /usr/bin/python3 gen_pymanopt.py

Each case holds the inputs (x, y points; u a tangent at x; v, egrad, ehess
ambient) and pymanopt's outputs: projection(x, v), the Riemannian Hessian
euclidean_to_riemannian_hessian(x, egrad, ehess, u), exp(x, u) (whose QR
re-orthonormalization leaves column signs to LAPACK: compare subspaces),
log(x, y), dist(x, y), retraction(x, u) (the polar factor, as rhgd's Polar)
and transport(x, y, u).
"""
import json

import numpy as np
from pymanopt.manifolds import Grassmann

rng = np.random.default_rng(20261127)


def point(n, p):
    q, _ = np.linalg.qr(rng.standard_normal((n, p)))
    return q


cases = []
for n, p in [(5, 2), (4, 1), (6, 3), (5, 3), (8, 2)]:
    m = Grassmann(n, p)
    x, y = point(n, p), point(n, p)
    u = m.projection(x, rng.standard_normal((n, p)))
    u *= 0.9 / np.linalg.norm(u)  # principal angles of Exp(x, u) below π/2
    v, egrad, ehess = (rng.standard_normal((n, p)) for _ in range(3))
    out = {
        "projection": m.projection(x, v),
        "rhess": m.euclidean_to_riemannian_hessian(x, egrad, ehess, u),
        "exp": m.exp(x, u),
        "log": m.log(x, y),
        "retraction": m.retraction(x, u),
        "transport": m.transport(x, y, u),
    }
    case = {"n": n, "p": p, "dist": float(m.dist(x, y))}
    for k, a in {"x": x, "y": y, "u": u, "v": v, "egrad": egrad, "ehess": ehess, **out}.items():
        case[k] = [float(t) for t in np.asarray(a).ravel()]  # row-major
    cases.append(case)

with open("pymanopt.json", "w") as f:
    json.dump({"source": "pymanopt a1f52e7, pymanopt/manifolds/grassmann.py", "cases": cases}, f, indent=1)

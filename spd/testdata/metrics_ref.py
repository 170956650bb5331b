#!/usr/bin/env python3
"""Reference values for spd's log-Euclidean and Bures–Wasserstein metrics.

Run from this directory: python3 metrics_ref.py > metrics_ref.json, and
python3 metrics_ref.py --bw-sweep for bures_sweep.json (the
Bures–Wasserstein conditioning sweep, below).

Independent of rhgd: mpmath at 50 digits, from the metrics' definitions
as geoopt (geoopt/manifolds/symmetric_positive_definite.py, LEM distance
‖logm X − logm Y‖_F) and Manifolds.jl (SymmetricPositiveDefiniteLogEuclidean.jl;
SymmetricPositiveDefiniteBuresWasserstein.jl: ⟨X,Y⟩ = ½tr(L_p(X)Y),
change_representer 2(Xp + pX), exp p + X + LpL, log (pq)^½ + (qp)^½ − 2p,
distance (tr p + tr q − 2 tr (pq)^½)^½) state them:

  - Fréchet derivatives of logm and expm from the block-triangular
    identity f([[A, E], [0, A]]) = [[f(A), Df(A)[E]], [0, f(A)]], not from
    divided differences;
  - Lyapunov solutions from the Kronecker system (I⊗X + X⊗I) vec L = vec U;
  - the Riemannian Hessian from second derivatives of f along each
    metric's geodesics t ↦ Exp_X(tW) (mpmath.diff), polarized into the
    bilinear form on a basis of the symmetric matrices and turned into a
    tangent vector by the metric's Gram matrix: no connection formula.

The test function is f(X) = tr(C X) + ½ tr(X K X K): ∇f = C + K X K,
∇²f[U] = K U K; the file holds ∇f(X) and ∇²f(X)[U] as egrad and ehess.
"""
import json
import math
import os
import random
import sys

import mpmath as mp

mp.mp.dps = 50


def mat(rows):
    return mp.matrix(rows)


def rand_sym(rnd, n, scale=1.0):
    a = [[rnd.gauss(0, scale) for _ in range(n)] for _ in range(n)]
    return [[float((a[i][j] + a[j][i]) / 2) for j in range(n)] for i in range(n)]


def rand_spd(rnd, n):
    a = [[rnd.gauss(0, 1) for _ in range(n)] for _ in range(n)]
    x = [[sum(a[i][k] * a[j][k] for k in range(n)) / n + (0.5 if i == j else 0) for j in range(n)] for i in range(n)]
    return [[float(x[min(i, j)][max(i, j)]) for j in range(n)] for i in range(n)]


def block(a, e, n):
    b = mp.zeros(2 * n, 2 * n)
    for i in range(n):
        for j in range(n):
            b[i, j] = a[i, j]
            b[n + i, n + j] = a[i, j]
            b[i, n + j] = e[i, j]
    return b


def upper_right(b, n):
    return mp.matrix([[b[i, n + j] for j in range(n)] for i in range(n)])


def dlog(x, u):
    n = x.rows
    return upper_right(mp.logm(block(x, u, n)), n)


def dexp(s, w):
    n = s.rows
    return upper_right(mp.expm(block(s, w, n)), n)


def sym(a):
    return (a + a.T) / 2


def fro(a):
    return mp.sqrt(frob(a, a))


def tr(a):
    return sum(a[i, i] for i in range(a.rows))


def frob(a, b):
    return sum(a[i, j] * b[i, j] for i in range(a.rows) for j in range(a.cols))


def lyap(x, u):
    """L with X L + L X = U."""
    n = x.rows
    k = mp.zeros(n * n, n * n)
    for i in range(n):
        for j in range(n):
            for m in range(n):
                k[i * n + j, m * n + j] += x[i, m]
                k[i * n + j, i * n + m] += x[m, j]
    rhs = mp.matrix([u[i, j] for i in range(n) for j in range(n)])
    v = mp.lu_solve(k, rhs)
    return mp.matrix([[v[i * n + j] for j in range(n)] for i in range(n)])


# --- the metrics: inner product and exponential (geodesic) ---

def le_inner(x, u, v):
    return frob(dlog(x, u), dlog(x, v))


def le_exp(x, u, t=1):
    s = sym(mp.logm(x))
    return mp.expm(s + t * sym(dlog(x, u)))


def bw_inner(x, u, v):
    return frob(lyap(x, u), v) / 2


def bw_exp(x, u, t=1):
    l = lyap(x, t * u)
    return x + t * u + l * x * l


METRICS = {
    "log-euclidean": (le_inner, le_exp),
    "bures-wasserstein": (bw_inner, bw_exp),
}


def sym_basis(n):
    out = []
    for i in range(n):
        for j in range(i, n):
            e = mp.zeros(n, n)
            e[i, j] = e[j, i] = 1
            out.append(e)
    return out


def riem_hessian(metric, x, c, k, u):
    """Hess f(X)[U] from second derivatives of f along geodesics."""
    inner, exp = METRICS[metric]
    n = x.rows

    def f(y):
        return tr(c * y) + tr(y * k * y * k) / 2

    def q(w):  # d²/dt² f(Exp_X(tW)) at t = 0 = ⟨Hess f[W], W⟩
        return mp.diff(lambda t: f(exp(x, w, t)), 0, 2)

    basis = sym_basis(n)
    m = len(basis)
    qb = [q(e) for e in basis]
    hb = mp.zeros(m, m)
    gram = mp.zeros(m, m)
    for a in range(m):
        for b in range(m):
            gram[a, b] = inner(x, basis[a], basis[b])
            hb[a, b] = qb[a] if a == b else (q(basis[a] + basis[b]) - qb[a] - qb[b]) / 2
    # coordinates of U in the basis
    coords = mp.matrix([u[i, j] for i in range(n) for j in range(i, n)])
    rhs = hb * coords  # ⟨Hess U, E_b⟩
    cvec = mp.lu_solve(gram, rhs)
    out = mp.zeros(n, n)
    for a in range(m):
        out += cvec[a] * basis[a]
    return out


def tolist(a):
    return [[float(a[i, j]) for j in range(a.cols)] for i in range(a.rows)]


def case(rnd, n, hessian):
    X, Y = rand_spd(rnd, n), rand_spd(rnd, n)
    U, V = rand_sym(rnd, n, 0.3), rand_sym(rnd, n, 0.3)
    C, K = rand_sym(rnd, n), rand_sym(rnd, n, 0.5)
    x, y, u, v, c, k = map(mat, (X, Y, U, V, C, K))
    egrad = c + k * x * k
    ehess = k * u * k
    out = {"n": n, "x": X, "y": Y, "u": U, "v": V, "egrad": tolist(egrad), "ehess": tolist(ehess)}

    lx, ly = sym(mp.logm(x)), sym(mp.logm(y))
    le = {
        "inner": float(le_inner(x, u, v)),
        "rgrad": tolist(sym(dexp(lx, sym(dexp(lx, egrad))))),
        "exp": tolist(sym(le_exp(x, u))),
        "log": tolist(sym(dexp(lx, ly - lx))),
        "dist": float(mp.sqrt(frob(lx - ly, lx - ly))),
        "parallel": tolist(sym(dexp(ly, sym(dlog(x, u))))),
    }
    lxy = lyap(x, u)
    sxy = mp.sqrtm(x * y)
    bw = {
        "inner": float(bw_inner(x, u, v)),
        "rgrad": tolist(2 * (egrad * x + x * egrad)),
        "exp": tolist(sym(x + u + lxy * x * lxy)),
        "log": tolist(sym(sxy + mp.sqrtm(y * x) - 2 * x)),
        "dist": float(mp.sqrt(tr(x) + tr(y) - 2 * mp.re(tr(sxy)))),
    }
    if hessian:
        le["rhess"] = tolist(sym(riem_hessian("log-euclidean", x, c, k, u)))
        bw["rhess"] = tolist(sym(riem_hessian("bures-wasserstein", x, c, k, u)))
    out["log-euclidean"], out["bures-wasserstein"] = le, bw
    return out


# The Bures–Wasserstein conditioning sweep (--bw-sweep, bures_sweep.json):
# points X = Q diag(lambda) Q^T with Haar-random Q and lambda logspaced over
# [kappa^-1/2, kappa^1/2] ("log"), or with the smallest four eigenvalues
# (two at n = 3) in a cluster kappa^-1/2 (1 + 0.01 i) below the rest,
# logspaced from 8 kappa^-1/2 to kappa^1/2 ("cluster"), at orders 3, 8, 20, 50 and kappa = 1e2 .. 1e10. The
# tangent vectors are generic: U = 0.3 lambda_min G/|G|_2 with G symmetric
# Gaussian (so that |L_X[U]|_2 <= 0.15 and I + L stays positive definite:
# Exp_X(U) is on the geodesic), U_b ("exp_big", the retraction's value
# (I + L) X (I + L) beyond the geodesic, where L X L dominates) the same
# with (lambda_min lambda_max)^1/2 for lambda_min, V symmetric Gaussian; Y = (I + W) X (I + W)
# rounded, W symmetric Gaussian with |W|_2 = 0.3 (a nearby point, as in a
# line search). The references, at BW_DPS digits from the float64 inputs:
# the eigendecomposition X = Q diag(lambda) Q^T by mp.eigsy (its residual
# checked), L = Q ((Q^T U Q) / (lambda_i + lambda_j)) Q^T, inner = tr(L U)/2
# and tr(L V)/2, Exp = X + U + L X L, Log = S + S^T - 2X with
# S = X^1/2 (X^1/2 Y X^1/2)^1/2 X^-1/2 = (XY)^1/2, dist =
# (tr X + tr Y - 2 tr (X^1/2 Y X^1/2)^1/2)^1/2 (at 50 digits the trace
# formula's cancellation costs nothing). Matrix results are kept on a set
# of rows (all of them up to n = 8).
#
# The peers, on the same float64 inputs, are the textbook formulas:
# "scipy" with L = scipy.linalg.solve_continuous_lyapunov(X, U) (Schur-based
# Bartels-Stewart) and sqrtm = scipy.linalg.sqrtm of X Y and Y X; "numpy"
# with L = V ((V^T U V) / (w_i + w_j)) V^T and square roots by
# numpy.linalg.eigh (S = X^1/2 R X^-1/2, R = (X^1/2 Y X^1/2)^1/2). Errors:
# relative Frobenius on the rows kept; inner products relative to
# <U,U>_X (for <U,V>: to (<U,U><V,V>)^1/2); dist relative.
BW_DPS = 50
BW_KAPPAS = (1e2, 1e4, 1e6, 1e8, 1e10)
BW_GRID = ((3, 6, 3), (8, 4, 8), (20, 2, 10), (50, 1, 8))  # (n, samples per kappa and spectrum, rows)


def bw_rows(n, k):
    import numpy as np
    if k >= n:
        return list(range(n))
    return sorted({int(round(x)) for x in np.linspace(0, n - 1, k)})


def bw_spectrum(n, kappa, kind):
    import numpy as np
    lo, hi = -math.log10(kappa) / 2, math.log10(kappa) / 2
    if kind == "log":
        return np.logspace(lo, hi, n)
    c = min(4, n - 1)
    lmin = 10.0 ** lo
    rest = np.logspace(math.log10(8 * lmin), hi, n - c) if n - c > 1 else np.array([10.0 ** hi])
    return np.concatenate([lmin * (1 + 0.01 * np.arange(c)), rest])


def np_sym(a):
    import numpy as np
    a = np.array(a, dtype=float)
    return (a + a.T) / 2


def mp_eig(a, n):
    lam, q = mp.eigsy(a)
    res = a * q - q * mp.diag(lam)
    orth = q.T * q - mp.eye(n)
    lmax = max(abs(lam[i]) for i in range(n))
    bad = max(max(abs(x) for x in res) / lmax, max(abs(x) for x in orth))
    assert bad < mp.mpf(10) ** (-(BW_DPS - 8)), bad
    return lam, q


def bw_case(args):
    import numpy as np
    import scipy.linalg as sla
    cid, n, kappa, kind, nrows, seed = args
    r = np.random.default_rng(seed)
    q, rr = np.linalg.qr(r.standard_normal((n, n)))
    q = q * np.sign(np.diag(rr))
    lam0 = bw_spectrum(n, kappa, kind)
    x = np_sym((q * lam0) @ q.T)
    g = np_sym(r.standard_normal((n, n)))
    u = np_sym(0.3 * lam0.min() * g / np.linalg.norm(g, 2))
    v = np_sym(r.standard_normal((n, n)))
    gb = np_sym(r.standard_normal((n, n)))
    ub = np_sym(0.3 * math.sqrt(lam0.min() * lam0.max()) * gb / np.linalg.norm(gb, 2))
    w = np_sym(r.standard_normal((n, n)))
    w *= 0.3 / np.linalg.norm(w, 2)
    iw = np.eye(n) + w
    y = np_sym(iw @ x @ iw)
    rows = bw_rows(n, nrows)
    out = {"id": cid, "n": n, "kappa": kappa, "kind": kind, "rows": rows,
           "x": x.tolist(), "u": u.tolist(), "ub": ub.tolist(), "v": v.tolist(), "y": y.tolist()}
    with mp.workdps(BW_DPS):
        xm, um, vm, ym = (mp.matrix(a.tolist()) for a in (x, u, v, y))
        lam, qm = mp_eig(xm, n)
        assert min(lam[i] for i in range(n)) > 0, cid
        ut = qm.T * um * qm
        for i in range(n):
            for j in range(n):
                ut[i, j] /= lam[i] + lam[j]
        lm = qm * ut * qm.T
        uu = frob(lm, um) / 2
        uv = frob(lm, vm) / 2
        vt = qm.T * vm * qm
        for i in range(n):
            for j in range(n):
                vt[i, j] /= lam[i] + lam[j]
        vv = frob(qm * vt * qm.T, vm) / 2
        ex = xm + um + lm * xm * lm
        ubt = qm.T * mp.matrix(ub.tolist()) * qm
        for i in range(n):
            for j in range(n):
                ubt[i, j] /= lam[i] + lam[j]
        lb = qm * ubt * qm.T
        exb = mp.matrix(ub.tolist()) + xm + lb * xm * lb
        xh = qm * mp.diag([mp.sqrt(lam[i]) for i in range(n)]) * qm.T
        xhi = qm * mp.diag([1 / mp.sqrt(lam[i]) for i in range(n)]) * qm.T
        mm = xh * ym * xh
        mm = (mm + mm.T) / 2
        mu, mq = mp_eig(mm, n)
        rm = mq * mp.diag([mp.sqrt(mu[i]) for i in range(n)]) * mq.T
        sm = xh * rm * xhi
        lg = sm + sm.T - 2 * xm
        dist = mp.sqrt(tr(xm) + tr(ym) - 2 * tr(rm))
        # The definitions themselves: L against the Kronecker system, and
        # S squared against XY (S has X^1/2 R X^1/2's positive spectrum).
        if n <= 3:
            assert fro(lyap(xm, um) - lm) <= mp.mpf(10) ** (-40) * fro(lm), cid
        xy = xm * ym
        assert fro(sm * sm - xy) <= mp.mpf(10) ** (-(BW_DPS - 10)) * fro(xy), cid

        def rowvals(a):
            return [float(a[i, j]) for i in rows for j in range(n)]
        ref = {"inner_uu": float(uu), "inner_uv": float(uv), "exp": rowvals(ex), "log": rowvals(lg),
               "dist": float(dist), "l": rowvals(lm),
               "exp_big": rowvals(exb)}
        scale_uv = float(mp.sqrt(uu * vv))
    # The peers.
    ra = {k: np.array(ref[k]).reshape(len(rows), n) for k in ("exp", "log", "l", "exp_big")}

    def rel_rows(a, k):
        a = np.real(np.asarray(a, dtype=complex))[rows, :]
        with np.errstate(all="ignore"):
            e = float(np.linalg.norm(a - ra[k]) / np.linalg.norm(ra[k]))
        return e if math.isfinite(e) else None

    def peer(lyap_fn, sqrt_xy):
        with np.errstate(all="ignore"):
            lu, lv_ = lyap_fn(u), lyap_fn(v)
            res = {"l": rel_rows(lu, "l"),
                   "inner_uu": abs(0.5 * np.sum(lu * u) - ref["inner_uu"]) / abs(ref["inner_uu"]),
                   "inner_uv": abs(0.5 * np.sum(lu * v) - ref["inner_uv"]) / scale_uv,
                   "exp": rel_rows(x + u + lu @ x @ lu, "exp")}
            lb_ = lyap_fn(ub)
            res["exp_big"] = rel_rows(x + ub + lb_ @ x @ lb_, "exp_big")
            s, trr = sqrt_xy()
            res["log"] = rel_rows(s + s.T - 2 * x, "log")
            d = math.sqrt(max(np.trace(x) + np.trace(y) - 2 * trr, 0.0))
            res["dist"] = abs(d - ref["dist"]) / ref["dist"]
        return res

    wx, vx = np.linalg.eigh(x)

    def lyap_np(c):
        return vx @ ((vx.T @ c @ vx) / (wx[:, None] + wx[None, :])) @ vx.T

    def sqrt_np():
        xh_ = (vx * np.sqrt(wx)) @ vx.T
        xhi_ = (vx / np.sqrt(wx)) @ vx.T
        m = np_sym(xh_ @ y @ xh_)
        wm, vm_ = np.linalg.eigh(m)
        r_ = (vm_ * np.sqrt(np.maximum(wm, 0))) @ vm_.T
        return xh_ @ r_ @ xhi_, float(np.trace(r_))

    def sqrt_sp():
        s = np.real(sla.sqrtm(x @ y))
        s2 = np.real(sla.sqrtm(y @ x))
        return (s + s2.T) / 2, float(np.real(np.trace(s)))

    out["ref"] = ref
    out["scipy"] = peer(lambda c: sla.solve_continuous_lyapunov(x, c), sqrt_sp)
    out["numpy"] = peer(lyap_np, sqrt_np)
    print(f"  {cid}", file=sys.stderr, flush=True)
    return out


def bw_sweep():
    import numpy as np
    jobs = []
    seed = 20261128
    for n, samples, nrows in BW_GRID:
        for kappa in BW_KAPPAS:
            for kind in ("log", "cluster"):
                for s in range(samples):
                    seed += 1
                    jobs.append((f"n{n}-k1e{round(math.log10(kappa))}-{kind}-s{s}", n, kappa, kind, nrows, seed))
    order = sorted(range(len(jobs)), key=lambda i: -jobs[i][1])
    import multiprocessing
    with multiprocessing.Pool(int(os.environ.get("GEN_PROCS", "2"))) as pool:
        done = pool.map(bw_case, [jobs[i] for i in order], chunksize=1)
    out = [None] * len(jobs)
    for i, c in zip(order, done):
        out[i] = c
    import scipy
    data = {"generator": "metrics_ref.py --bw-sweep (mpmath %s, %d digits; numpy %s, scipy %s)" % (
        mp.__version__, BW_DPS, np.__version__, scipy.__version__), "dps": BW_DPS, "cases": out}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bures_sweep.json")
    with open(path, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(out)} cases to {path}", file=sys.stderr)


def main():
    if "--bw-sweep" in sys.argv[1:]:
        bw_sweep()
        return
    rnd = random.Random(20261127)
    cases = [case(rnd, 1, True), case(rnd, 2, True), case(rnd, 3, True), case(rnd, 4, False)]
    print(json.dumps({"generator": "metrics_ref.py (mpmath %s, 50 digits)" % mp.__version__, "cases": cases}, indent=1))


if __name__ == "__main__":
    main()

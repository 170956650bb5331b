#!/usr/bin/env python3
"""Reference values for spd's log-Euclidean and Bures–Wasserstein metrics.

Run from this directory: python3 metrics_ref.py > metrics_ref.json

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
import random

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


def main():
    rnd = random.Random(20261127)
    cases = [case(rnd, 1, True), case(rnd, 2, True), case(rnd, 3, True), case(rnd, 4, False)]
    print(json.dumps({"generator": "metrics_ref.py (mpmath %s, 50 digits)" % mp.__version__, "cases": cases}, indent=1))


if __name__ == "__main__":
    main()

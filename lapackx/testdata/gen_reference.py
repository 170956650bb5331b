#!/usr/bin/python3
"""Generate high-precision reference values for lapackx's matrix functions.

Run by hand (not by CI) with Debian's python3-mpmath and python3-scipy:

    /usr/bin/python3 lapackx/testdata/gen_reference.py
    /usr/bin/python3 lapackx/testdata/gen_reference.py --sizes   # reference_sizes.json

Every input matrix is a float64 matrix, written exactly (shortest round-trip
decimal). Its reference values are computed from those exact entries in
mpmath at DPS decimal digits and checked against a second computation at
DPS + 20 digits; the float64 nearest to the high-precision value is stored.
So the references are the exact functions of the stored inputs, correctly
rounded, whatever the inputs' conditioning.

Symmetric functions (exp, log, sqrt, invsqrt) use mpmath's symmetric
eigensolver: f(A) = Q diag(f(lambda)) Q^T. The Frechet derivatives use the
Daleckii-Krein formula in the same basis. The general exponential uses
mpmath's expm (Taylor with scaling and squaring) at working precision.

For each matrix the script records scipy's relative Frobenius error on the
same input (scipy.linalg.expm, logm, sqrtm, and inv(sqrtm)) and the relative
condition number of each function (Frobenius norm): for symmetric A it is
max_ij |f[l_i, l_j]| * ||A|| / ||f(A)||, exact from the eigenvalues; for the
general exponential scipy.linalg.expm_cond.
"""

import json
import math
import os
import sys

import mpmath as mp
import numpy as np
import scipy
import scipy.linalg as sla

DPS = 60
rng = np.random.default_rng(20241122)


def rand_orth(n):
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def sym_from_spectrum(lam, q=None):
    n = len(lam)
    if q is None:
        q = rand_orth(n)
    a = (q * np.asarray(lam, dtype=float)) @ q.T
    return (a + a.T) / 2  # exactly symmetric in float64


def hadamard_orth(n):
    """Orthogonal H/sqrt(n) with exact float entries (n a power of 4)."""
    h = sla.hadamard(n).astype(float)
    return h / math.sqrt(n)


def householder_orth(n):
    """I - 2vv^T/v^Tv with v = ones: exact in binary when n is a power of 2."""
    v = np.ones((n, 1))
    return np.eye(n) - (2.0 / n) * (v @ v.T)


def to_mp(a):
    return mp.matrix([[mp.mpf(float(x)) for x in row] for row in a])


def f_scalar(name, x):
    if name == "exp":
        return mp.exp(x)
    if name == "log":
        return mp.log(x)
    if name == "sqrt":
        return mp.sqrt(x)
    if name == "invsqrt":
        return 1 / mp.sqrt(x)
    raise ValueError(name)


def df_scalar(name, x):
    if name == "exp":
        return mp.exp(x)
    if name == "log":
        return 1 / x
    if name == "sqrt":
        return 1 / (2 * mp.sqrt(x))
    if name == "invsqrt":
        return -1 / (2 * x * mp.sqrt(x))
    raise ValueError(name)


def d2f_scalar(name, x):
    if name == "exp":
        return mp.exp(x)
    if name == "log":
        return -1 / (x * x)
    if name == "sqrt":
        return -1 / (4 * x * mp.sqrt(x))
    if name == "invsqrt":
        return 3 / (4 * x * x * mp.sqrt(x))
    raise ValueError(name)


def divdiff(name, x, y, scale):
    if abs(x - y) <= mp.mpf(10) ** (-(mp.mp.dps * 2 // 3)) * scale:
        return df_scalar(name, (x + y) / 2)
    return (f_scalar(name, x) - f_scalar(name, y)) / (x - y)


def sym_reference(a, funcs, e=None):
    """f(A) (and Df(A)[E]) at the current mp precision."""
    n = a.shape[0]
    lam, q = mp.eigsy(to_mp(a))
    scale = max(abs(lam[i]) for i in range(n)) or mp.mpf(1)
    out = {}
    for name in funcs:
        fl = [f_scalar(name, lam[i]) for i in range(n)]
        fa = q * mp.diag(fl) * q.T
        out[name] = fa
        if e is not None:
            qeq = q.T * to_mp(e) * q
            for i in range(n):
                for j in range(n):
                    qeq[i, j] *= divdiff(name, lam[i], lam[j], scale)
            out["frechet_" + name] = q * qeq * q.T
    return out, lam, scale


def fro(m):
    return mp.sqrt(mp.fsum(x * x for x in m))


def rel_diff_mp(x, y):
    return fro(x - y) / fro(y)


def mp_to_list(m, rows, cols):
    return [float(m[i, j]) for i in range(rows) for j in range(cols)]


def rel_err(x, ref):
    """Relative Frobenius error, or None when x is not finite (scipy failed)."""
    x = np.asarray(x, dtype=float).ravel()
    ref = np.asarray(ref, dtype=float).ravel()
    with np.errstate(all="ignore"):
        e = float(np.linalg.norm(x - ref) / np.linalg.norm(ref))
    return e if math.isfinite(e) else None


def scipy_result(name, a):
    with np.errstate(all="ignore"):
        if name == "exp":
            return sla.expm(a)
        if name == "log":
            return np.real(sla.logm(a, disp=False)[0])
        if name == "sqrt":
            return np.real(sla.sqrtm(a, disp=False)[0])
        if name == "invsqrt":
            return np.real(np.linalg.inv(sla.sqrtm(a, disp=False)[0]))
    raise ValueError(name)


def sym_case(cid, kind, a, funcs, e=None, note=""):
    n = a.shape[0]
    assert np.array_equal(a, a.T)
    with mp.workdps(DPS + 20):
        hi, _, _ = sym_reference(a, funcs, e)
    with mp.workdps(DPS):
        ref, lam, scale = sym_reference(a, funcs, e)
        for k in ref:
            d = rel_diff_mp(ref[k], hi[k])
            assert d < mp.mpf(10) ** (-30), (cid, k, d)
        lamf = [float(x) for x in lam]
        anorm = fro(to_mp(a))
        case = {"id": cid, "kind": kind, "n": n, "note": note, "a": a.ravel().tolist(),
                "eigenvalues": lamf, "results": {}}
        if e is not None:
            case["e"] = e.ravel().tolist()
        for k, v in ref.items():
            name = k.replace("frechet_", "")
            lmax = max(abs(divdiff(name, lam[i], lam[j], scale)) for i in range(n) for j in range(n))
            vals = mp_to_list(v, n, n)
            r = {"value": vals}
            if not k.startswith("frechet_"):
                # Relative condition number of f at A (Frobenius norm).
                r["cond"] = float(lmax * anorm / fro(v))
                # max|f(lambda)|*sqrt(n)/||f(A)||: how the rounding in
                # Q diag(f) Q^T is amplified relative to the result.
                r["recon"] = float(max(abs(f_scalar(name, x)) for x in lam) * mp.sqrt(n) / fro(v))
                r["scipy_err"] = rel_err(scipy_result(name, a), vals)
            else:
                # Sensitivity of L_f(A)[E] to A: its derivative is bounded by
                # 2 max|f[l_i, l_j, l_k]| ||E|| = max|f''(l_i)| ||E|| (|f''|
                # is monotone for these f, so the maximum is at an eigenvalue).
                enorm = fro(to_mp(e))
                d2 = max(abs(d2f_scalar(name, x)) for x in lam)
                r["cond"] = float(d2 * anorm * enorm / fro(v))
                r["recon"] = float(lmax * enorm * mp.sqrt(n) / fro(v))
            case["results"][k] = r
    return case


def expm_case(cid, a, note=""):
    n = a.shape[0]
    with mp.workdps(DPS + 20):
        hi = mp.expm(to_mp(a))
    with mp.workdps(DPS):
        ref = mp.expm(to_mp(a))
        d = rel_diff_mp(ref, hi)
        assert d < mp.mpf(10) ** (-30), (cid, d)
        vals = mp_to_list(ref, n, n)
    with np.errstate(all="ignore"):
        cond = float(sla.expm_cond(a))
    if not math.isfinite(cond) or cond <= 0:
        cond = None  # scipy's condition estimate overflowed
    return {"id": cid, "kind": "general", "n": n, "note": note, "a": a.ravel().tolist(),
            "results": {"expm": {"value": vals, "cond": cond, "scipy_err": rel_err(sla.expm(a), vals)}}}


def cases():
    out = []
    # Random symmetric, n = 2..40.
    for n in (2, 3, 5, 8, 13, 21, 34, 40):
        a = rng.standard_normal((n, n)) / math.sqrt(n)
        a = (a + a.T) / 2
        out.append(sym_case(f"sym-rand-{n}", "symmetric", a, ["exp"]))
    # SPD with condition numbers 1e2 .. 1e12.
    for k, n in zip((2, 4, 6, 8, 10, 12), (10, 14, 18, 22, 26, 30)):
        lam = np.logspace(-k / 2, k / 2, n)
        a = sym_from_spectrum(lam)
        e = rng.standard_normal((n, n))
        e = (e + e.T) / 2
        out.append(sym_case(f"spd-cond-1e{k}", "spd", a, ["log", "sqrt", "invsqrt"],
                            e if k in (2, 6) else None, f"eigenvalues logspaced 1e-{k/2:g}..1e{k/2:g}"))
    # Exponential of SPD scaled to unit norm (moderate exponent).
    a = sym_from_spectrum(np.logspace(-6, 0, 16))
    out.append(sym_case("spd-exp-16", "spd", a, ["exp", "log", "sqrt", "invsqrt"]))
    # Clustered eigenvalues.
    for width, n in ((1e-6, 12), (1e-12, 12)):
        lam = np.concatenate([1 + width * np.arange(4), 2 + width * np.arange(4), 5 + width * np.arange(4)])
        a = sym_from_spectrum(lam)
        e = rng.standard_normal((n, n))
        e = (e + e.T) / 2
        out.append(sym_case(f"clustered-{width:g}", "spd", a, ["exp", "log", "sqrt", "invsqrt"], e,
                            f"three clusters of four, width {width:g}"))
    # Exactly repeated eigenvalues: orthogonal bases with exact float entries.
    q16 = hadamard_orth(16)
    lam16 = np.array([1.0] * 6 + [2.0] * 6 + [4.0] * 4)
    a16 = q16 @ np.diag(lam16) @ q16.T
    assert np.array_equal(a16, a16.T)
    e16 = rng.standard_normal((16, 16))
    e16 = (e16 + e16.T) / 2
    out.append(sym_case("repeated-hadamard-16", "spd", a16, ["exp", "log", "sqrt", "invsqrt"], e16,
                        "H/4 diag(1 x6, 2 x6, 4 x4) H/4, exact"))
    q8 = householder_orth(8)
    a8 = q8 @ np.diag([3.0, 3.0, 3.0, 3.0, 3.0, 0.5, 0.5, 7.0]) @ q8.T
    assert np.array_equal(a8, a8.T)
    out.append(sym_case("repeated-householder-8", "spd", a8, ["exp", "log", "sqrt", "invsqrt"], None,
                        "Householder diag(3 x5, 0.5 x2, 7) Householder, exact"))
    out.append(sym_case("scalar-identity-5", "spd", 3.0 * np.eye(5), ["exp", "log", "sqrt", "invsqrt"], None, "3I"))
    # Large norms: exp up to the edge of overflow, and deep underflow.
    for top, n in ((300.0, 6), (600.0, 8), (700.0, 8), (709.0, 6)):
        lam = np.linspace(-top / 3, top, n)
        out.append(sym_case(f"sym-large-{int(top)}", "symmetric", sym_from_spectrum(lam), ["exp"], None,
                            f"eigenvalues up to {top:g}"))
    out.append(sym_case("sym-underflow", "symmetric", sym_from_spectrum(np.linspace(-740, 2, 7)), ["exp"],
                        None, "eigenvalues down to -740 (subnormal exponentials)"))
    out.append(sym_case("sym-tiny", "symmetric", sym_from_spectrum(1e-10 * rng.standard_normal(9)), ["exp"],
                        None, "eigenvalues of size 1e-10"))

    # General exponential: Higham's and Burkardt's classic hard cases.
    gen = {
        "diag-2": ([[1, 0], [0, 2]], "diagonal"),
        "burkardt-2": ([[1, 3], [3, 2]], "symmetric"),
        "burkardt-3": ([[0, 1], [-39, -40]], "stiff, eigenvalues -1, -39"),
        "moler-van-loan": ([[-49, 24], [-64, 31]], "Moler & Van Loan 1978: eigenvalues -1, -17"),
        "nilpotent-4": ([[0, 6, 0, 0], [0, 0, 6, 0], [0, 0, 0, 6], [0, 0, 0, 0]], "strictly upper triangular"),
        "jordan-2": ([[1, 1], [0, 1]], "defective"),
        "near-defective": ([[1 + 2.0**-52, 1], [0, 1 - 2.0**-52]], "nearly defective"),
        "burkardt-8": ((np.array([[21, 17, 6], [-5, -1, -6], [4, 4, 16]]) / 4).tolist(), ""),
        "burkardt-9": ([[1, 2, 2, 2], [3, 1, 1, 2], [3, 2, 1, 2], [3, 3, 3, 1]], ""),
        "ward-3": ([[4, 2, 0], [1, 4, 1], [1, 1, 4]], "Ward 1977"),
        "burkardt-12": ([[-131, 19, 18], [-390, 56, 54], [-387, 57, 52]], "eigenvalues -1, -2, -20"),
        "burkardt-14": ([[0, 1e-8, 0], [-(2e10 + 4e8 / 6), -3, 2e10], [200 / 3, 0, -200 / 3]],
                        "badly scaled"),
        "amh09-ex1-1e4": ([[1, 1e4], [0, -1]], "AMH09 example: over-scaling with ||A||"),
        "amh09-ex1-1e8": ([[1, 1e8], [0, -1]], "AMH09 example: over-scaling with ||A||"),
    }
    for cid, (a, note) in gen.items():
        out.append(expm_case(cid, np.array(a, dtype=float), note))
    # Upper triangular with large off-diagonal entries (Code Fragment 2.1).
    t = np.triu(rng.standard_normal((6, 6)) * 50) + np.diag(np.linspace(-3, 3, 6))
    out.append(expm_case("triangular-6", t, "upper triangular, off-diagonals ~50"))
    # Kahan/Higham non-normal: triw(10, -1).
    out.append(expm_case("triw-10", np.triu(-np.ones((10, 10)), 1) + np.eye(10), "unit upper triangular, -1 above"))
    # Random non-normal matrices of growing norm, up to near overflow.
    for norm, n in ((0.01, 12), (1.0, 15), (30.0, 15), (300.0, 10)):
        a = rng.standard_normal((n, n))
        a *= norm / np.linalg.norm(a, 1)
        out.append(expm_case(f"random-{n}-norm{norm:g}", a, f"Gaussian, 1-norm {norm:g}"))
    a = rng.standard_normal((8, 8))
    a = a / np.linalg.norm(a, 2) * 5
    a += np.diag(np.full(8, 690.0))
    out.append(expm_case("random-8-shift690", a, "Gaussian + 690 I: e^A near overflow"))
    return out


def size_cases():
    """Symmetric cases at the orders the 47-matrix set does not reach: the
    eigensolvers' size paths up to and across lapackx's QL cutoff (syevql
    below n = 140 with AVX2, dsyevd from there). A separate generator
    stream, so that reference.json stays as it is."""
    r = np.random.default_rng(20261125)
    out = []
    for n in (64, 139):
        a = r.standard_normal((n, n)) / math.sqrt(n)
        a = (a + a.T) / 2
        out.append(sym_case(f"sym-rand-{n}", "symmetric", a, ["exp"]))
    for k, n in ((6, 100), (4, 140)):
        q, rr = np.linalg.qr(r.standard_normal((n, n)))
        a = sym_from_spectrum(np.logspace(-k / 2, k / 2, n), q * np.sign(np.diag(rr)))
        e = r.standard_normal((n, n))
        e = (e + e.T) / 2
        out.append(sym_case(f"spd-cond-1e{k}-{n}", "spd", a, ["log", "sqrt", "invsqrt"], e if n == 100 else None,
                            f"eigenvalues logspaced 1e-{k/2:g}..1e{k/2:g}"))
    return out


# The conditioning sweep (--sweep, reference_sweep.json): SPD matrices
# A = Q diag(lambda) Q^T with lambda logspaced over [kappa^-1/2, kappa^1/2]
# and Haar-random Q, at orders from 2 to 140 across the QL cutoffs
# (syevql below 32, below 140 before issue 29; dsyevd from there) and
# kappa from 10 to 1e10, several matrices per cell where they are small.
# Each case records, for exp, log, sqrt, invsqrt, pow (p = SWEEP_POW) and
# the Lyapunov solve A X + X A = C, the 40-digit reference on a set of rows,
# the relative Frobenius error on those rows of numpy's eigh-based
# evaluation (V diag(f(w)) V^T, and V ((V^T C V) / (w_i + w_j)) V^T, as
# Pymanopt and Manopt's lyapunov_symmetric write them) and of scipy's
# (expm, logm, sqrtm, inv(sqrtm), fractional_matrix_power,
# solve_continuous_lyapunov), so that a test can hold rhgd's error to a
# multiple of theirs on the same matrices.
#
# Only A is stored (its upper triangle). The other inputs are exact
# functions of it that the Go test rebuilds bit for bit: exp's argument is
# exp_scale * A with exp_scale = +-2^k (exact), so that its eigenvectors
# are A's and its eigenvalues exp_scale * lambda, with 2^k lambda_max in
# [8, 16); C is sweep_c(n), dyadic entries in [-1, 1) from an integer hash.
SWEEP_DPS = 40
SWEEP_POW = 0.3
SWEEP_KAPPAS = (1e1, 1e2, 1e4, 1e6, 1e8, 1e10)


def sweep_grid():
    """(n, kappa, samples, rows) for every cell."""
    grid = []
    for n in (2, 3, 4, 5, 6):
        grid += [(n, k, 16, n) for k in SWEEP_KAPPAS]
    for n in (8, 10, 12):
        grid += [(n, k, 10, 6) for k in SWEEP_KAPPAS]
    for n in (16, 24, 31, 32):
        grid += [(n, k, 2, 8) for k in SWEEP_KAPPAS]
    for n in (48, 63, 64):
        grid += [(n, k, 1, 4) for k in SWEEP_KAPPAS]
    grid += [(140, k, 1, 4) for k in (1e2, 1e6, 1e10)]
    return grid


def sweep_c(n):
    """The Lyapunov right-hand side: c_ij = h(min(i,j), max(i,j)) / 2^15 - 1
    with h a 16-bit integer hash, exactly symmetric and exactly
    representable (sweepC in the Go test)."""
    c = np.empty((n, n))
    for i in range(n):
        for j in range(i, n):
            x = ((i * 1000003 + j * 999983 + 12345) * 2654435761) % (1 << 32)
            c[i, j] = c[j, i] = (x >> 16) / 32768.0 - 1.0
    return c


def sweep_rows(n, k):
    if k >= n:
        return list(range(n))
    return sorted({int(round(x)) for x in np.linspace(0, n - 1, k)})


def rel_err_rows(x, ref, rows):
    x = np.asarray(x, dtype=float)[rows, :]
    with np.errstate(all="ignore"):
        e = float(np.linalg.norm(x - ref) / np.linalg.norm(ref))
    return e if math.isfinite(e) else None


def sweep_f(name, x):
    if name == "pow":
        return mp.power(x, mp.mpf(SWEEP_POW))
    return f_scalar(name, x)


def sweep_divdiff(name, x, y):
    if x == y:
        if name == "pow":
            return SWEEP_POW * mp.power(x, mp.mpf(SWEEP_POW) - 1)
        return df_scalar(name, x)
    return (sweep_f(name, x) - sweep_f(name, y)) / (x - y)


def sweep_case(args):
    cid, n, kappa, sample, nrows, seed = args
    r = np.random.default_rng(seed)
    q, rr = np.linalg.qr(r.standard_normal((n, n)))
    q = q * np.sign(np.diag(rr))
    lam0 = np.logspace(-math.log10(kappa) / 2, math.log10(kappa) / 2, n)
    a = sym_from_spectrum(lam0, q)
    rows = sweep_rows(n, nrows)
    c = sweep_c(n)
    with mp.workdps(SWEEP_DPS):
        am = to_mp(a)
        lam, qm = mp.eigsy(am)
        # The decomposition is exact to working precision: its residual and
        # orthogonality bound the references' error far below float64's.
        res = am * qm - qm * mp.diag(lam)
        orth = qm.T * qm - mp.eye(n)
        bad = max(max(abs(x) for x in res) / max(abs(x) for x in lam), max(abs(x) for x in orth))
        assert bad < mp.mpf(10) ** (-(SWEEP_DPS - 6)), (cid, bad)
        lmax = max(lam[i] for i in range(n))
        assert min(lam[i] for i in range(n)) > 0, cid
        k = 3 - int(mp.floor(mp.log(lmax, 2)))  # 2^k lmax in [8, 16)
        scale = math.ldexp(1.0 if sample % 2 == 0 else -1.0, k)
        anorm = mp.sqrt(mp.fsum(x * x for x in lam))
        qr_ = mp.matrix([[qm[i, j] for j in range(n)] for i in rows])
        case = {"id": cid, "n": n, "kappa": kappa, "sample": sample,
                "a_upper": [float(a[i, j]) for i in range(n) for j in range(i, n)],
                "exp_scale": scale, "rows": rows, "results": {}}
        w, v = np.linalg.eigh(a)
        for name in ("exp", "log", "sqrt", "invsqrt", "pow"):
            ev = [lam[i] * scale for i in range(n)] if name == "exp" else [lam[i] for i in range(n)]
            fname = "exp" if name == "exp" else name
            fl = [sweep_f(fname, x) for x in ev]
            ref = qr_ * mp.diag(fl) * qm.T
            vals = mp_to_list(ref, len(rows), n)
            refa = np.array(vals).reshape(len(rows), n)
            fnorm = mp.sqrt(mp.fsum(x * x for x in fl))
            lmx = max(abs(sweep_divdiff(fname, ev[i], ev[j])) for i in range(n) for j in range(n))
            enorm = anorm * abs(scale) if name == "exp" else anorm
            with np.errstate(all="ignore"):
                if name == "exp":
                    ah = scale * a  # exact: a power of two
                    wh, vh = np.linalg.eigh(ah)
                    mine = (vh * np.exp(wh)) @ vh.T
                    theirs = sla.expm(ah)
                elif name == "pow":
                    mine = (v * np.power(w, SWEEP_POW)) @ v.T
                    theirs = np.real(sla.fractional_matrix_power(a, SWEEP_POW))
                else:
                    g = {"log": np.log, "sqrt": np.sqrt, "invsqrt": lambda x: 1 / np.sqrt(x)}[name]
                    mine = (v * g(w)) @ v.T
                    theirs = scipy_result(name, a)
            case["results"][name] = {
                "value": vals,
                "cond": float(lmx * enorm / fnorm),
                "recon": float(max(abs(x) for x in fl) * mp.sqrt(n) / fnorm),
                "numpy_err": rel_err_rows(mine, refa, rows),
                "scipy_err": rel_err_rows(theirs, refa, rows),
            }
        # Lyapunov: X = Q ((Q^T C Q) / (lambda_i + lambda_j)) Q^T.
        ct = qm.T * to_mp(c) * qm
        cmax = mp.mpf(0)
        for i in range(n):
            for j in range(n):
                ct[i, j] /= lam[i] + lam[j]
                cmax = max(cmax, abs(ct[i, j]))
        xall = qm * ct * qm.T
        xnorm = fro(xall)
        vals = [float(xall[i, j]) for i in rows for j in range(n)]
        refa = np.array(vals).reshape(len(rows), n)
        with np.errstate(all="ignore"):
            mine = v @ ((v.T @ c @ v) / (w[:, None] + w[None, :])) @ v.T
            theirs = sla.solve_continuous_lyapunov(a, c)
        lmin = min(lam[i] for i in range(n))
        case["results"]["lyap"] = {
            "value": vals,
            # |dX|/|X| <= |L_A^-1| (2 |dA| |X|)/|X| = lambda_max/lambda_min |dA|/|A|
            "cond": float(lmax / lmin),
            "recon": float(cmax * mp.sqrt(n) / xnorm),
            "numpy_err": rel_err_rows(mine, refa, rows),
            "scipy_err": rel_err_rows(theirs, refa, rows),
        }
    print(f"  {cid}", file=sys.stderr, flush=True)
    return case


def sweep_cases():
    jobs = []
    seed = 20261127
    for n, kappa, samples, nrows in sweep_grid():
        for sample in range(samples):
            seed += 1
            jobs.append((f"n{n}-k1e{round(math.log10(kappa))}-s{sample}", n, kappa, sample, nrows, seed))
    order = sorted(range(len(jobs)), key=lambda i: -jobs[i][1])
    import multiprocessing
    with multiprocessing.Pool(int(os.environ.get("GEN_PROCS", "2"))) as pool:
        done = pool.map(sweep_case, [jobs[i] for i in order], chunksize=1)
    out = [None] * len(jobs)
    for i, c in zip(order, done):
        out[i] = c
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    if "--sweep" in args:
        data = {
            "generator": "gen_reference.py --sweep",
            "mpmath": mp.__version__, "scipy": scipy.__version__, "numpy": np.__version__,
            "dps": SWEEP_DPS, "pow": SWEEP_POW,
            "cases": sweep_cases(),
        }
        path = os.path.join(here, "reference_sweep.json")
        with open(path, "w") as f:
            json.dump(data, f, separators=(",", ":"))
            f.write("\n")
        print(f"wrote {len(data['cases'])} cases to {path}", file=sys.stderr)
        return
    sizes = "--sizes" in args
    data = {
        "generator": "gen_reference.py" + (" --sizes" if sizes else ""),
        "mpmath": mp.__version__, "scipy": scipy.__version__, "numpy": np.__version__,
        "dps": DPS,
        "cases": size_cases() if sizes else cases(),
    }
    path = os.path.join(here, "reference_sizes.json" if sizes else "reference.json")
    with open(path, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(data['cases'])} cases to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()

"""rhgd.torch's symmetric matrix functions (sqrtm, invsqrtm, logm, expm,
powm, symfn, reeig) against independent truths: scipy.linalg and mpmath
at 50 digits for the values, mpmath for the divided differences and for
the first and second Fréchet derivatives (f of a block triangular matrix),
central differences with their Taylor slope for gradients and
Hessian-vector products, torch's gradcheck and gradgradcheck; at M = I,
clustered spectra, repeated eigenvalues inside larger spectra and random
SPD matrices, where torch.linalg.eigh's derivatives are NaN."""

import itertools
import math

import numpy as np
import pytest

from _torch import EXAMPLES, F64  # PyTorch, or this module skipped; python/examples on sys.path
import torch
mp = pytest.importorskip("mpmath", reason="the references at 50 digits need mpmath (Debian: python3-mpmath)")
scipy_linalg = pytest.importorskip("scipy.linalg", reason="the value references need scipy (python3-scipy)")

import rhgd  # noqa: E402
import rhgd.torch as rt  # noqa: E402
from rhgd import _torch_symfn as S  # noqa: E402

U = 2.0 ** -53
EPS_RE = 0.7  # reeig's eps, inside a gap of the spectra used with it
GEN = lambda x: torch.log1p(x * x)  # noqa: E731  symfn's own test function, log(1 + x²)
GEN1 = lambda x: 2 * x / (1 + x * x)  # noqa: E731
GEN2 = lambda x: 2 * (1 - x * x) / (1 + x * x) ** 2  # noqa: E731


def _falling(p, k):
    return math.prod(p - i for i in range(k))


# name: (op, f^(k)(x) in numpy for k = 0..3 (for the error bounds), f in mpmath, scipy's f(A) or None)
OPS = {
    "sqrtm": (rt.sqrtm, lambda x, k: _falling(0.5, k) * x ** (0.5 - k), mp.sqrt, scipy_linalg.sqrtm),
    "invsqrtm": (rt.invsqrtm, lambda x, k: _falling(-0.5, k) * x ** (-0.5 - k), lambda x: 1 / mp.sqrt(x),
                 lambda a: np.linalg.inv(scipy_linalg.sqrtm(a))),
    "logm": (rt.logm, lambda x, k: np.log(x) if k == 0 else (-1) ** (k - 1) * math.factorial(k - 1) / x ** k,
             mp.log, scipy_linalg.logm),
    "expm": (rt.expm, lambda x, k: np.exp(x), mp.exp, scipy_linalg.expm),
    "powm0.3": (lambda a: rt.powm(a, 0.3), lambda x, k: _falling(0.3, k) * x ** (0.3 - k),
                lambda x: x ** mp.mpf(0.3), lambda a: scipy_linalg.fractional_matrix_power(a, 0.3)),
    "powm-1.7": (lambda a: rt.powm(a, -1.7), lambda x, k: _falling(-1.7, k) * x ** (-1.7 - k),
                 lambda x: x ** mp.mpf(-1.7), lambda a: scipy_linalg.fractional_matrix_power(a, -1.7)),
    "reeig": (lambda a: rt.reeig(a, EPS_RE), lambda x, k: (np.maximum(x, EPS_RE) if k == 0 else
                                                              (x > EPS_RE) * 1.0 if k == 1 else 0 * x),
              lambda x: max(x, mp.mpf(EPS_RE)), None),
    "symfn": (lambda a: rt.symfn(a, GEN, GEN1, GEN2), None, lambda x: mp.log(1 + x * x), None),
}


# ---------------------------------------------------------------------------
# Test matrices: a spectrum, rotated by a random orthogonal matrix per batch
# element (the identity exactly).

SPECTRA = {
    "identity": lambda n: np.ones(n),
    "clustered": lambda n: np.concatenate([[1.0, 1 + 1e-9, 1 + 1e-7], np.linspace(2.0, 3.0, n - 3)]),
    "repeated": lambda n: np.concatenate([[0.3, 0.3], [1.5] * 3, np.linspace(2.0, 4.0, n - 5)]),  # multiplicities 2, 3
    "random": None,
}


def batch(kind, n, shape, seed):
    """float64 tensor (*shape, n, n) of symmetric matrices of the kind."""
    rng = np.random.default_rng(seed)
    if kind == "identity":
        return torch.eye(n, dtype=F64).expand(*shape, n, n).clone()
    if kind == "random":
        g = rng.standard_normal((*shape, n, n))
        a = g @ np.swapaxes(g, -1, -2) / n + 0.5 * np.eye(n)
    else:
        q, _ = np.linalg.qr(rng.standard_normal((*shape, n, n)))
        a = (q * SPECTRA[kind](n)) @ np.swapaxes(q, -1, -2)
    return torch.from_numpy((a + np.swapaxes(a, -1, -2)) / 2)


# (kind, n, batch shape): every kind at several orders and batch shapes.
CASES = [("identity", 2, ()), ("identity", 7, (5,)), ("clustered", 6, ()), ("clustered", 11, (2, 3)),
         ("repeated", 9, (5,)), ("repeated", 12, ()), ("random", 2, (2, 3)), ("random", 13, ()), ("random", 20, (5,))]
CASE_IDS = [f"{k}-n{n}-b{'x'.join(map(str, s)) or '0'}" for k, n, s in CASES]


def sym(x):
    return (x + x.transpose(-1, -2)) / 2


def sup_deriv(name, a, k):
    """sup over the spectrum's hull of |f^(k)| (monotone in |·| for these
    functions: the larger value at the ends)."""
    lam = torch.linalg.eigvalsh(a)
    fk = OPS[name][1]
    lo, hi = lam[..., 0].numpy(), lam[..., -1].numpy()
    return np.maximum(np.abs(fk(lo, k)), np.abs(fk(hi, k)))


# ---------------------------------------------------------------------------
# Values.

def mp_value(a, f):
    """f(A) at 50 digits from mpmath's symmetric eigensolver, as float64."""
    with mp.workdps(50):
        e, q = mp.eigsy(mp.matrix(a.tolist()))
        n = a.shape[0]
        d = mp.diag([f(e[i]) for i in range(n)])
        return np.array((q * d * q.T).tolist(), dtype=float)


def value_bound(name, a, fa):
    """|f̂(A) − f(A)|_max for a backward stable eigendecomposition (error
    ΔA with ‖ΔA‖ ≤ c·n·u·‖A‖, moved by ‖Df(A)‖ = max|f'| on the spectrum's
    hull) and the recomposition (c·n·u·‖f(A)‖), c = 10."""
    n = a.shape[-1]
    na = torch.linalg.matrix_norm(a, 2).numpy()
    nf = np.linalg.norm(fa, 2, axis=(-2, -1))
    return 10 * n * U * (na * sup_deriv(name, a, 1) + nf)


@pytest.mark.parametrize("name", ["sqrtm", "invsqrtm", "logm", "expm", "powm0.3", "powm-1.7"])
@pytest.mark.parametrize("kind,n,shape", CASES, ids=CASE_IDS)
def test_values_vs_scipy(name, kind, n, shape):
    a = batch(kind, n, shape, seed=n)
    got = OPS[name][0](a)
    assert got.shape == a.shape and got.dtype == F64
    flat, gotf = a.reshape(-1, n, n).numpy(), got.reshape(-1, n, n).numpy()
    ref = np.array([np.real(OPS[name][3](m)) for m in flat])
    err = np.abs(gotf - ref).max(axis=(-2, -1))
    # scipy's algorithms (Schur, inverse scaling and squaring, Padé) are
    # stable in the same sense: twice the bound of one.
    bound = 2 * value_bound(name, torch.from_numpy(flat), ref)
    assert np.all(err <= bound), (err, bound)


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("kind,n", [("identity", 4), ("clustered", 5), ("repeated", 7), ("random", 6)])
def test_values_vs_mpmath(name, kind, n):
    a = batch(kind, n, (), seed=3 * n)
    if name == "reeig":
        a = a - 0.3 * torch.eye(n, dtype=F64)  # eigenvalues on both sides of eps
    got = OPS[name][0](a).numpy()
    ref = mp_value(a.numpy(), OPS[name][2])
    if name == "symfn":  # f = log(1 + x²): |f'| ≤ 1
        bound = 10 * n * U * (np.linalg.norm(a.numpy(), 2) + np.linalg.norm(ref, 2))
    else:
        bound = value_bound(name, a, ref)
    assert np.abs(got - ref).max() <= bound


def test_reeig_values():
    a = batch("random", 8, (4,), seed=1)
    w, v = np.linalg.eigh(a.numpy())
    ref = (v * np.maximum(w, 1.0)[..., None, :]) @ np.swapaxes(v, -1, -2)
    bound = 10 * 8 * U * (np.linalg.norm(a.numpy(), 2, axis=(-2, -1)).max() + np.abs(ref).max() * 8)  # |f'| ≤ 1
    assert np.abs(rt.reeig(a, 1.0).numpy() - ref).max() <= bound


# ---------------------------------------------------------------------------
# Divided differences against mpmath at 50 digits.

POINTS = [1e-3, 0.5, 0.9, 0.95, 1.0, 1 + 1e-12, 1 + 1e-9, 1 + 1e-7, 1 + 1e-5, 1 + 1e-3, 1.02, 1.05, 1.08, 1.1,
          1.12, 1.2, 1.5, 2.0, 3.0, 10.0, 100.0]
EXP_POINTS = [-3.0, -1.0, -1e-3, 0.0, 1e-12, 1e-9, 1e-7, 1e-5, 0.3, 0.49, 0.5, 0.51, 0.7, 1.0, 2.0, 5.0]


def mp_dd(f, d1, d2, xs):
    """The divided difference of f at xs (2 or 3 floats) at 50 digits:
    derivatives where points coincide, the recursion elsewhere (it loses
    at most 2·16 of the 50 digits at the closest points here)."""
    xs = sorted(mp.mpf(x) for x in xs)
    if len(xs) == 2:
        a, b = xs
        return d1(a) if a == b else (f(b) - f(a)) / (b - a)
    a, b, c = xs
    if a == c:
        return d2(a) / 2
    return (mp_dd(f, d1, d2, [b, c]) - mp_dd(f, d1, d2, [a, b])) / (c - a)


def _mp_pow(p):
    p = mp.mpf(p)
    return lambda x: x ** p, lambda x: p * x ** (p - 1), lambda x: p * (p - 1) * x ** (p - 2)


NAMED_DD = {  # spec, (f, f', f'') in mpmath, points, dd1 bound in units of u (given a, b)
    "sqrt": (S._Sqrt(), _mp_pow(0.5), POINTS, lambda a, b: 8),
    "invsqrt": (S._InvSqrt(), _mp_pow(-0.5), POINTS, lambda a, b: 8),
    "log": (S._Log(), (mp.log, lambda x: 1 / x, lambda x: -1 / x ** 2), POINTS, lambda a, b: 8),
    "exp": (S._Exp(), (mp.exp, mp.exp, mp.exp), EXP_POINTS, lambda a, b: 8),
    # x^p: lo^p and p·log1p(r) carry relative errors u, which expm1 turns
    # into p·log(hi/lo)·u: the function's own condition number.
    "pow0.3": (S._Pow(0.3), _mp_pow(0.3), POINTS, lambda a, b: 8 * (1 + 0.3 * abs(math.log(a / b)))),
    "pow-1.7": (S._Pow(-1.7), _mp_pow(-1.7), POINTS, lambda a, b: 8 * (1 + 1.7 * abs(math.log(a / b)))),
    "pow3": (S._Pow(3.0), _mp_pow(3.0), POINTS, lambda a, b: 8 * (1 + 3 * abs(math.log(a / b)))),
}


def _t(x):
    return torch.tensor([x], dtype=F64)


def both(fn, *x):
    """fn's values on torch tensors (other devices' path) and on numpy
    arrays (the CPU's): each is checked against the bound."""
    return (float(fn(*(torch.tensor([v], dtype=F64) for v in x))[0]), float(fn(*(np.array([v]) for v in x))[0]))


@pytest.mark.parametrize("name", list(NAMED_DD))
def test_named_divided_differences_vs_mpmath(name):
    """First: the closed forms are accurate to a few units of roundoff (the
    bound above). Second: sqrt's and invsqrt's closed forms too, and the
    others' series within their spread; beyond it the recursion (f[y, z] − f[x, y])/(z − x) loses at most the factor
    (|f[y, z]| + |f[x, y]|)/|f[y, z] − f[x, y]| ≤ about 4/tau + 1 to
    cancellation (tau the spread at which it starts)."""
    spec, (f, d1, d2), pts, b1 = NAMED_DD[name]
    with mp.workdps(50):
        for a, b in itertools.product(pts, pts):
            ref = mp_dd(f, d1, d2, [a, b])
            for got in both(spec.dd1, a, b):
                assert abs(got - ref) <= b1(a, b) * U * abs(ref), (a, b, got, ref)
        for x in itertools.combinations_with_replacement(pts, 3):
            ref = mp_dd(f, d1, d2, x)
            loss = 4 / spec.tau + 1 if hasattr(spec, "tau") else 1  # sqrt's: closed forms
            bound = loss * 2 * b1(x[0], x[2]) * U * abs(ref)
            for got in both(lambda *y: spec.dd2(*S._sorted3(*y)), *x):
                assert abs(got - ref) <= bound, (x, got, ref)


@pytest.mark.parametrize("fname", ["exp", "log", "sqrt"])
def test_generic_divided_differences_vs_mpmath(fname):
    """symfn's divided differences, chosen per entry between the quotient
    and Simpson's rule (first) and between the recursion and a degree-5
    cubature (second) by error estimates, on seeded clusters of every
    width from 1e-12 to 1 around several centers: within the accuracy
    symfn's doc promises, 1e-12 and 1e-10 relative."""
    fns = {"exp": ((torch.exp,) * 3, (mp.exp,) * 3),
           "log": ((torch.log, lambda x: 1 / x, lambda x: -1 / x ** 2),
                   (mp.log, lambda x: 1 / x, lambda x: -1 / x ** 2)),
           "sqrt": ((torch.sqrt, lambda x: 0.5 / torch.sqrt(x), lambda x: -0.25 * x ** -1.5), _mp_pow(0.5))}
    (tf, tdf, td2f), (f, d1, d2) = fns[fname]
    spec = S._Generic(tf, tdf, td2f)
    rng = np.random.default_rng(7)
    with mp.workdps(50):
        for _ in range(800):
            c = rng.choice([0.5, 1.0, 2.0, 11.0] + ([-1.0, 0.0] if fname == "exp" else []))
            x = c + 10 ** rng.uniform(-12, 0) * max(abs(c), 1) * rng.uniform(-0.45, 0.45, 3)
            if rng.random() < 0.3:
                x[1] = x[0]
            ref = mp_dd(f, d1, d2, x[:2])
            assert abs(float(spec.dd1(_t(x[0]), _t(x[1]))[0]) - ref) <= 1e-12 * abs(ref), x
            assert abs(float(spec.dd1(x[:1], x[1:2])[0]) - ref) <= 1e-12 * abs(ref), x
            ref = mp_dd(f, d1, d2, x)
            assert abs(float(spec.dd2(*S._sorted3(*map(_t, x)))[0]) - ref) <= 1e-10 * abs(ref), x
            assert abs(float(spec.dd2(*S._sorted3(x[:1], x[1:2], x[2:]))[0]) - ref) <= 1e-10 * abs(ref), x


# ---------------------------------------------------------------------------
# Gradients and Hessian-vector products: central differences, Taylor slope.

def _case(kind, n, shape, name, seed):
    a = batch(kind, n, shape, seed)
    if name == "reeig" and kind == "clustered":
        # eps = 0.7 in the gap between 0.4 (+1e-9, +1e-7) and 1.4: as
        # between 0.3 and 1.5 in "repeated", with the random spectra's
        # (seeded) gaps: f is smooth near A.
        a = a - 0.6 * torch.eye(n, dtype=F64)
    rng = np.random.default_rng(seed + 1)
    w = torch.from_numpy(rng.standard_normal(a.shape))
    c = torch.from_numpy(rng.standard_normal(a.shape)) / n
    e = sym(torch.from_numpy(rng.standard_normal(a.shape)))
    e = e / torch.linalg.matrix_norm(e)[..., None, None]
    return a, w, c, e


def _loss(op, w, c):
    """A scalar nonlinear in f(A), so that double backward goes through both
    of the backward map's inputs (A and the upstream gradient)."""
    def L(a):
        fa = op(a)
        return torch.sum(w * fa) + 0.5 * torch.sum((fa @ c) ** 2)
    return L


def _taylor_ok(errs, floor):
    """The central differences' error falls by 100 a decade (O(h²), at least
    30 asserted) until it meets rounding (floor)."""
    return bool(np.all(errs[1] <= errs[0] / 30 + floor))


def taylor_checks(op, kind, n, shape, name):
    """(gradient ok, HVP ok) by central differences of the loss and of its
    gradient along a symmetric unit E, at h = 1e-2 and 1e-3; also asserts
    that both are finite and the gradient symmetric."""
    a, w, c, e = _case(kind, n, shape, name, seed=n + 17)
    L = _loss(op, w, c)
    x = a.clone().requires_grad_()
    (grad,) = torch.autograd.grad(L(x), x, create_graph=True)
    (hvp,) = torch.autograd.grad(grad, x, grad_outputs=e)
    assert torch.isfinite(grad).all() and torch.isfinite(hvp).all()
    assert (grad - grad.transpose(-1, -2)).abs().max() <= 4 * U * grad.abs().max()
    lin = float(torch.sum(grad * e))
    gerr, herr = [], []
    with torch.no_grad():
        fa = op(a)
        scale = float(torch.sum(w.abs() * fa.abs()) + torch.sum((fa @ c) ** 2))
        for h in (1e-2, 1e-3):
            gerr.append(abs((float(L(a + h * e)) - float(L(a - h * e))) / (2 * h) - lin))
    # Gradients at a ± h e by first-order autograd, for the HVP's differences.
    for h in (1e-2, 1e-3):
        xp, xm = (a + h * e).requires_grad_(), (a - h * e).requires_grad_()
        (gp,) = torch.autograd.grad(L(xp), xp)
        (gm,) = torch.autograd.grad(L(xm), xm)
        herr.append(float(torch.linalg.vector_norm((gp - gm) / (2 * h) - hvp)))
    # Rounding: each evaluation is good to about 10·n·u of its terms' sum.
    gscale = float(torch.linalg.vector_norm(grad))
    return _taylor_ok(gerr, 10 * n * U * scale / 1e-3), _taylor_ok(herr, 10 * n * U * gscale / 1e-3)


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("kind,n,shape", CASES, ids=CASE_IDS)
def test_gradient_and_hvp_taylor(name, kind, n, shape):
    assert taylor_checks(OPS[name][0], kind, n, shape, name) == (True, True)


@pytest.mark.parametrize("kind,n,shape", [c for c in CASES if c[0] != "identity"],
                         ids=[i for c, i in zip(CASES, CASE_IDS) if c[0] != "identity"])
def test_taylor_checks_catch_planted_errors(monkeypatch, kind, n, shape):
    """The checks above fail on a gradient or an HVP that is off by 1% in
    the divided differences of distinct eigenvalues (at the identity only
    f'(1) enters: see test_identity_exact_where_eigh_is_nan)."""
    dd1, dd2 = S._Log.dd1, S._Log.dd2
    monkeypatch.setattr(S._Log, "dd2", lambda self, *x: dd2(self, *x) * (1 + 0.01 * (x[0] != x[2])))
    assert taylor_checks(rt.logm, kind, n, shape, "logm") == (True, False)
    monkeypatch.setattr(S._Log, "dd1", lambda self, a, b: dd1(self, a, b) * (1 + 0.01 * (a != b)))
    assert taylor_checks(rt.logm, kind, n, shape, "logm")[0] is False


# ---------------------------------------------------------------------------
# First and second Fréchet derivatives against mpmath: f of a block upper
# triangular matrix (Higham, Functions of Matrices, Thm. 3.6 and 3.16 ff.),
#   f([[A, E], [0, A]])₁₂ = Df(A)[E],
#   f([[A, E1, 0], [0, A, E2], [0, 0, A]])₁₃ + (E1 ↔ E2) = D²f(A)[E1, E2].

MP_FUN = {"sqrtm": mp.sqrtm, "logm": mp.logm, "expm": mp.expm}


def _mp_block(fun, blocks):
    with mp.workdps(50):
        return np.array(fun(mp.matrix(np.block(blocks).tolist())).tolist(), dtype=float)


@pytest.mark.parametrize("name", list(MP_FUN))
@pytest.mark.parametrize("kind", ["identity", "clustered", "repeated", "random"])
def test_frechet_derivatives_vs_mpmath_block_matrices(name, kind):
    n = 5 if kind != "repeated" else 6
    a, _, _, e1 = _case(kind, n, (), name, seed=5)
    e2 = sym(torch.from_numpy(np.random.default_rng(9).standard_normal((n, n))))
    e2 = e2 / torch.linalg.matrix_norm(e2)
    an, e1n, e2n, z = a.numpy(), e1.numpy(), e2.numpy(), np.zeros((n, n))
    d1 = _mp_block(MP_FUN[name], [[an, e1n], [z, an]])[:n, n:]
    d2 = _mp_block(MP_FUN[name], [[an, e1n, z], [z, an, e2n], [z, z, an]])[:n, 2 * n:] + \
        _mp_block(MP_FUN[name], [[an, e2n, z], [z, an, e1n], [z, z, an]])[:n, 2 * n:]
    # Df(A)[E1] = the gradient of <E1, f(A)>; D²f(A)[E1, E2] = the HVP of it along E2.
    op = OPS[name][0]
    x = a.clone().requires_grad_()
    (g,) = torch.autograd.grad(torch.sum(e1 * op(x)), x, create_graph=True)
    (hv,) = torch.autograd.grad(g, x, grad_outputs=e2)
    # Bounds as for the values: the eigendecomposition's backward error
    # (c·n·u·‖A‖) moved by the next derivative, plus rounding of this one;
    # max|f[x, y]| ≤ sup|f'|, max|f[x, y, z]| ≤ sup|f''|/2, ... (c = 10).
    na = float(torch.linalg.matrix_norm(a, 2))
    s1, s2, s3 = (float(sup_deriv(name, a, k)) for k in (1, 2, 3))
    assert np.abs(g.detach().numpy() - d1).max() <= 10 * n * U * (s1 + na * s2)
    assert np.abs(hv.numpy() - d2).max() <= 10 * n * U * (s2 + na * s3) * 2


# ---------------------------------------------------------------------------
# gradcheck and gradgradcheck (float64), at the same kinds of points.

GC_CASES = [("identity", 3, ()), ("clustered", 5, ()), ("repeated", 6, (2,)), ("random", 4, (2, 3)),
            ("random", 2, (5,))]


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("kind,n,shape", GC_CASES, ids=[f"{k}-n{n}-b{len(s)}" for k, n, s in GC_CASES])
def test_gradcheck_gradgradcheck(name, kind, n, shape):
    op = OPS[name][0]
    a, w, c, _ = _case(kind, n, shape, name, seed=n)
    L = _loss(op, w, c)
    x = a.clone().requires_grad_()
    assert torch.autograd.gradcheck(op, (x,))
    assert torch.autograd.gradgradcheck(op, (x,))
    assert torch.autograd.gradgradcheck(L, (x,))


# ---------------------------------------------------------------------------
# Exactly repeated eigenvalues: finite and exact, where eigh gives NaN.

def _eigh_version(name):
    f = {"sqrtm": torch.sqrt, "logm": torch.log, "expm": torch.exp}[name]

    def op(a):
        lam, v = torch.linalg.eigh(a)
        return v @ torch.diag_embed(f(lam)) @ v.transpose(-1, -2)
    return op


@pytest.mark.parametrize("name,d1,d2", [("sqrtm", 0.5, -0.25), ("logm", 1.0, -1.0), ("expm", math.e, math.e)])
def test_identity_exact_where_eigh_is_nan(name, d1, d2):
    """At A = I every divided difference is a derivative at 1: the gradient
    of <W, f(A)> is f'(1)·sym(W), and its derivative along E (the HVP) is
    f''(1)/2·(E·sym(W) + sym(W)·E), as D²f(I)[E, X] = f''(1)/2·(EX + XE)
    says. torch.linalg.eigh's version gives NaN there (the contrast)."""
    n = 6
    rng = np.random.default_rng(1)
    w = torch.from_numpy(rng.standard_normal((n, n)))
    e = sym(torch.from_numpy(rng.standard_normal((n, n))))
    ws = sym(w)
    for op, finite in ((OPS[name][0], True), (_eigh_version(name), False)):
        x = torch.eye(n, dtype=F64, requires_grad=True)
        (g,) = torch.autograd.grad(torch.sum(w * op(x)), x, create_graph=True)
        assert bool(torch.isfinite(g).all()) == finite
        if finite:
            assert (g - d1 * ws).abs().max() <= 4 * U * abs(d1) * w.abs().max()
            (h,) = torch.autograd.grad(g, x, grad_outputs=e)
            ref = d2 / 2 * (e @ ws + ws @ e)
            assert (h - ref).abs().max() <= 4 * n * U * abs(d2) * float(e.abs().max() * w.abs().max())
    # Exactly repeated eigenvalues inside a larger spectrum (a diagonal
    # matrix): the gradient is diagonal-by-blocks as Daleckii-Krein says.
    lam = torch.tensor([1.0, 1.0, 2.0, 2.0, 2.0, 3.0], dtype=F64)
    x = torch.diag(lam).requires_grad_()
    (g,) = torch.autograd.grad(torch.sum(w * OPS[name][0](x)), x, create_graph=True)
    (h,) = torch.autograd.grad(torch.sum(g * w), x)
    assert torch.isfinite(h).all()
    with mp.workdps(50):
        f = {"sqrtm": mp.sqrt, "logm": mp.log, "expm": mp.exp}[name]
        dd = np.array([[float(mp.diff(f, mp.mpf(float(li)))) if li == lj else
                        float((f(mp.mpf(float(li))) - f(mp.mpf(float(lj)))) / (mp.mpf(float(li)) - mp.mpf(float(lj))))
                        for lj in lam] for li in lam])
    assert np.abs(g.detach().numpy() - dd * sym(w).numpy()).max() <= 8 * U * np.abs(dd).max() * w.abs().max().item()
    xe = torch.diag(lam).requires_grad_()
    (ge,) = torch.autograd.grad(torch.sum(w * _eigh_version(name)(xe)), xe)
    assert not torch.isfinite(ge).all()


# ---------------------------------------------------------------------------
# dtypes, devices, errors, the cache, the exports, and rhgd.torch at M0 = I.

@pytest.mark.parametrize("name", list(OPS))
def test_float32_in_float32_out(name):
    op = OPS[name][0]
    a64 = batch("random", 5, (3,), seed=2)
    a32 = a64.float().requires_grad_()
    out = op(a32)
    assert out.dtype == torch.float32
    (g,) = torch.autograd.grad(out.sum(), a32)
    assert g.dtype == torch.float32
    # Computed in float64 from the float32 input, rounded once.
    ref = op(a32.detach().double())
    assert (out.double() - ref).abs().max() <= 2 ** -24 * ref.abs().max()


def test_torch_eigh_path_agrees(monkeypatch):
    """A tensor on another device (CUDA) is decomposed by torch.linalg.eigh
    there; the rest is the same: the CPU path forced through it agrees."""
    a = batch("clustered", 6, (2,), seed=4)
    w = torch.from_numpy(np.random.default_rng(3).standard_normal(a.shape))
    res = []
    for use in (True, False):
        monkeypatch.setattr(S, "_use_rhgd", lambda t, use=use: use)
        x = a.clone().requires_grad_()
        out = rt.logm(x)
        (g,) = torch.autograd.grad(torch.sum(w * out), x, create_graph=True)
        (h,) = torch.autograd.grad(torch.sum(g * w), x)
        res.append((out.detach(), g.detach(), h))
    # Both decompositions are backward stable: each result is within the
    # bound of the values' test (c = 10, twice) of the exact one; log's
    # derivatives on [1, 3] are at most 1 (first) to 2 (third) in size.
    bound = 2 * 10 * 6 * U * (3 * 2 + 1)
    for r, t in zip(*res):
        assert (r - t).abs().max() <= bound * t.abs().max()


def test_sorted_triples_and_their_ranks():
    """The second divided differences are kept for the sorted index
    triples a ≤ b ≤ c only, in lexicographic order: _triples lists them
    and _rank finds each one's position, as an enumeration does."""
    for n in range(1, 8):
        triples = [t for t in itertools.product(range(n), repeat=3) if t[0] <= t[1] <= t[2]]
        assert len(triples) == S._tet(n)
        got = np.stack(S._triples(n, 0, n, np.zeros(1)), 1).tolist()
        assert got == [list(t) for t in triples]
        a, b, c = (torch.tensor(x) for x in zip(*triples))
        assert S._rank(a, b, c, n).tolist() == list(range(len(triples)))
        for a0, a1 in ((0, 1), (1, n), (n // 2, n)):  # chunks of first indices
            part = np.stack(S._triples(n, a0, a1, np.zeros(1)), 1).tolist()
            assert part == [list(t) for t in triples if a0 <= t[0] < a1]


def test_blocked_second_derivatives_agree(monkeypatch):
    """The second divided differences computed in chunks, not cached (large
    n), and read in blocks of rows give the cached whole-tensor result."""
    a, w, c, e = _case("repeated", 9, (2,), "logm", seed=3)
    L = _loss(rt.logm, w, c)

    def hvps():
        x = a.clone().requires_grad_()
        (g,) = torch.autograd.grad(L(x), x, create_graph=True)
        return [torch.autograd.grad(g, x, grad_outputs=v, retain_graph=True)[0] for v in (e, 2 * e)]

    whole = hvps()
    monkeypatch.setattr(S, "_F2_BLOCK", 2 * 9 * 9 * 2)  # 2 rows a block
    monkeypatch.setattr(S, "_F2_CACHE", 0)
    blocked = hvps()
    for x, y in zip(whole, blocked):
        assert (x - y).abs().max() <= 4 * U * y.abs().max()
    assert (whole[1] - 2 * whole[0]).abs().max() <= 4 * U * whole[1].abs().max()  # the cache, reused


def test_errors():
    spd = batch("random", 4, (5,), seed=1)
    bad = spd.clone()
    bad[3] = -bad[3]
    for op in (rt.logm, rt.invsqrtm, lambda a: rt.powm(a, -1.0), rt.sqrtm, lambda a: rt.powm(a, 2.5)):
        with pytest.raises(rhgd.InvalidArgument, match="matrix 3 of the batch"):
            op(bad)
    # A zero eigenvalue: sqrtm's domain (semidefinite), not logm's.
    psd = torch.diag(torch.tensor([0.0, 1.0, 4.0], dtype=F64))
    assert torch.equal(rt.sqrtm(psd), torch.diag(torch.tensor([0.0, 1.0, 2.0], dtype=F64)))
    with pytest.raises(rhgd.InvalidArgument, match="positive definite"):
        rt.logm(psd)
    with pytest.raises(TypeError, match="real"):
        rt.logm(spd.to(torch.complex128))
    with pytest.raises(ValueError, match="shape"):
        rt.expm(torch.zeros(3, 2, dtype=F64))
    with pytest.raises(rhgd.InvalidArgument, match="non-finite"):
        rt.expm(torch.full((2, 2), float("nan"), dtype=F64))
    x = spd.clone().requires_grad_()
    (g,) = torch.autograd.grad(rt.symfn(x, torch.exp, torch.exp).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="d2f"):
        torch.autograd.grad(g.sum(), x)
    with pytest.raises(ValueError, match="elementwise"):
        rt.symfn(spd, lambda v: torch.cat([v, v], -1), torch.exp)


def test_named_values_special_cases():
    a = batch("random", 5, (2,), seed=6)
    assert (rt.powm(a, 1) - a).abs().max() <= 10 * 5 * U * a.abs().max()
    assert (rt.powm(a, 0) - torch.eye(5, dtype=F64)).abs().max() <= 10 * 5 * U
    assert (rt.powm(a, 2) - a @ a).abs().max() <= 20 * 5 * U * (a @ a).abs().max()
    assert (rt.invsqrtm(a) @ rt.sqrtm(a) @ rt.sqrtm(a) @ rt.invsqrtm(a) - torch.eye(5, dtype=F64)).abs().max() \
        <= 1e-12
    assert (rt.expm(rt.logm(a)) - a).abs().max() <= 1e-13 * a.abs().max()
    x = torch.randn(5, 5, dtype=F64, generator=torch.Generator().manual_seed(0))
    assert torch.allclose(rt.expm(x), rt.expm(sym(x)), rtol=0, atol=0)  # reads sym(A)
    # symfn with exp's functions is expm.
    assert (rt.symfn(a, torch.exp, torch.exp, torch.exp) - rt.expm(a)).abs().max() <= 1e-14 * rt.expm(a).abs().max()


def test_exports():
    import rhgd.torch
    for name in ("sqrtm", "invsqrtm", "logm", "expm", "powm", "symfn", "reeig"):
        assert name in rhgd.torch.__all__ and getattr(rhgd.torch, name).__doc__


def test_rhgd_torch_problem_at_identity():
    """The metric-learning problem (examples/torch_metric.py) with the
    features X·M^{1/2} by rt.sqrtm, at M0 = I (all eigenvalues equal, where
    eigh's version fails; tests/test_torch_traps.py): rhgd's problem check
    (gradients by their Taylor slopes, the cross derivatives through
    sqrtm's second derivative against finite differences) passes, and
    minimize runs."""
    import torch_metric
    Xtr, ltr, Xva, lva = torch_metric.make_data(n=60)
    Ytr = torch.nn.functional.one_hot(ltr, 3).to(F64)

    def g(M, W):
        return 0.5 * torch.sum((Xtr @ rt.sqrtm(M) @ W - Ytr) ** 2) / 60 + 0.05 * torch.sum(W ** 2)

    def f(M, W):
        return torch.nn.functional.cross_entropy(Xva @ rt.sqrtm(M) @ W, lva)

    mx, my = rhgd.SPD(10), rhgd.Euclidean(10, 3)
    p = rt.Problem(f, g, mx, my)
    W0 = np.random.default_rng(0).standard_normal((10, 3))
    rep = p.check(np.eye(10), W0, seed=3)
    assert rep["ok"], [(r["name"], r["msg"]) for r in rep["reports"] if not r["ok"]]
    r = rt.minimize(f, g, mx, my, torch.eye(10, dtype=F64), torch.zeros(10, 3, dtype=F64), estimator="cg",
                    eta_x=0.5, eta_y=0.1, inner=20, epochs=3)
    assert np.isfinite(r.fun) and r.status_name == "IterationLimit"


def test_rhgd_torch_lower_spd_at_identity():
    """An SPD lower variable through logm, started at M0 = I: the lower
    Hessian-vector products (double backward through logm, with the
    residual logm(M) − sym(x) ≠ 0 so that logm's second derivative
    counts) pass rhgd's problem check against finite differences, and
    minimize runs; torch.linalg.eigh's logm gives NaN there."""
    n = 4
    rng = np.random.default_rng(5)
    T = batch("random", n, (), seed=6)
    x0 = 0.3 * rng.standard_normal((n, n))

    def make(logm):
        def g(x, M):  # M*(x) = expm(sym(x))
            return 0.5 * torch.sum((logm(M) - sym(x)) ** 2)

        def f(x, M):
            return 0.5 * torch.sum((M - T) ** 2) + 0.005 * torch.sum(x ** 2)
        return f, g

    mx, my = rhgd.Euclidean(n, n), rhgd.SPD(n)
    f, g = make(rt.logm)
    rep = rt.Problem(f, g, mx, my).check(x0, np.eye(n), seed=2)
    assert rep["ok"], [(r["name"], r["msg"]) for r in rep["reports"] if not r["ok"]]
    assert "HessGy: Hessian" in {r["name"] for r in rep["reports"]}
    r = rt.minimize(f, g, mx, my, x0, np.eye(n), estimator="cg", eta_x=0.1, eta_y=0.5, inner=10, epochs=3)
    assert np.isfinite(r.fun) and r.status_name == "IterationLimit"
    fe, ge = make(_eigh_version("logm"))
    with pytest.raises(rhgd.RHGDError, match="repeated eigenvalues"):  # CallbackError or NumericalError
        rt.minimize(fe, ge, mx, my, x0, np.eye(n), estimator="cg", eta_x=0.1, eta_y=0.5, inner=10, epochs=3)


def test_readme_hyperrep_features():
    """python/README.md's feature map with rt.logm (the one
    examples/torch_hyperrep.py uses) gives eigh's features and gradients,
    at the example's data."""
    import torch_hyperrep
    text = (EXAMPLES.parent / "README.md").read_text()
    a = text.index("```python\n", text.index("### Symmetric matrix functions")) + len("```python\n")
    code = text[a:text.index("```\n", a)]
    data = torch_hyperrep.make_data()
    A, k = torch.from_numpy(data["A"]), data["W0"].shape[1]
    ns = {"A": A, "iu": torch.triu_indices(k, k), "rhgd": rhgd}
    exec(compile(code, "README.md", "exec"), ns)
    iu = torch.triu_indices(k, k)

    def f_ex(W, beta, batch):  # the example's f(W, beta, batch) through torch.linalg.eigh, the reference
        lam_, V_ = torch.linalg.eigh(W.T @ A[nt + batch] @ W)
        L = V_ @ torch.diag_embed(torch.log(lam_)) @ V_.transpose(-1, -2)
        return 0.5 * torch.mean((L[:, iu[0], iu[1]] @ beta - lab[nt + batch]) ** 2)

    nt = int(data["n_train"][0])
    lab = torch.from_numpy(data["y"])
    idx = torch.arange(A.shape[0])
    W = torch.from_numpy(data["W0"]).requires_grad_()
    beta = torch.from_numpy(np.random.default_rng(0).standard_normal(k * (k + 1) // 2))
    lam, V = torch.linalg.eigh(W.detach().T @ A @ W.detach())
    ref = (V @ torch.diag_embed(torch.log(lam)) @ V.transpose(-1, -2))[:, ns["iu"][0], ns["iu"][1]]
    got = ns["features"](W, idx)
    bound = 10 * k * U * float(lam.abs().max() / lam.min())  # log's condition on these spectra
    assert (got.detach() - ref).abs().max() <= bound * ref.abs().max()
    # The example's validation loss, differentiated through either.
    (g_ex,) = torch.autograd.grad(f_ex(W, beta, idx[:A.shape[0] - nt]), W)
    vidx = nt + idx[:A.shape[0] - nt]
    (g,) = torch.autograd.grad(0.5 * torch.mean((ns["features"](W, vidx) @ beta - lab[vidx]) ** 2), W)
    # eigh's divided differences (f(λi) − f(λj))/(λi − λj) lose u·|f|/gap each.
    gap = float((lam[:, 1:] - lam[:, :-1]).min())
    assert (g - g_ex).abs().max() <= 10 * k * U * float(lam.log().abs().max() + 1) / gap * g_ex.abs().max()

"""Functions of symmetric matrices for torch models, with derivatives that
stay finite and exact at repeated eigenvalues (exported by rhgd.torch).

An SPD model written with ``torch.linalg.eigh`` (M^{1/2}, logm, SPDNet's
ReEig and LogEig) has NaN gradients where two eigenvalues coincide, M0 = I
first of all: eigh's backward divides by λi − λj. The ops here compute
f(A) = V diag(f(λ)) Vᵀ from rhgd's batched eigendecompositions
(rhgd.spectral.eigh_batch, faster than torch's on batches of small
matrices) and differentiate it by the Daleckii–Krein formula,

    grad_A = V (F̃ ∘ (Vᵀ sym(G) V)) Vᵀ,   F̃_ij = f[λi, λj],

with the first divided differences f[x, y] = (f(x) − f(y))/(x − y)
computed without cancellation (f'(x) when x = y): it needs no
eigenvector's derivative, which is what does not exist at a repeated
eigenvalue. The backward map is itself an autograd.Function whose
backward uses the second divided differences f[x, y, z] (f''(x)/2 when
all three are equal), so double backward, and with it the Hessian-vector
products rhgd.torch computes, is exact too.

Conventions:

- Input: a tensor of shape (..., n, n); every leading axis is a batch
  axis. The op reads sym(A) = (A + Aᵀ)/2, so it is the function
  A ↦ f(sym(A)) of any square matrix, and its gradient is the gradient of
  that function: for the upstream gradient G, grad_A = Df(sym A)[sym(G)],
  symmetric. For symmetric A this is the gradient of a function of a
  symmetric matrix that torch's eigh-based versions give (at distinct
  eigenvalues), and torch.autograd.gradcheck, which perturbs one entry at
  a time, checks it as it is.
- dtype: float64 and float32 (and other floating types) are computed in
  float64 and returned in the input's dtype; the gradients too.
- Device: CPU tensors use rhgd's kernels. A tensor on another device
  (CUDA) is decomposed by torch.linalg.eigh on that device, and the rest
  (the function, the stable derivatives) runs there in torch: the same
  finite derivatives, without rhgd's speed.
- Domains: sqrtm and powm with p > 0 take positive semidefinite matrices
  (an eigenvalue within rounding of zero, |λ| ≤ 4·n·u·max|λ|, counts as
  zero; the derivative is infinite at a zero eigenvalue unless p ≥ 1);
  logm, invsqrtm and powm with p ≤ 0 take positive definite ones. A
  matrix outside raises rhgd.InvalidArgument naming it (its index in the
  flattened batch) and its smallest eigenvalue. expm and reeig take any
  symmetric matrix; symfn's domain is f's.
- Cost: the forward pass is one batched eigendecomposition; backward is
  four batched matrix products; double backward computes the second
  divided differences of the n(n+1)(n+2)/6 sorted index triples of each
  matrix (kept on the graph, so that CG's many Hessian products at one
  point pay for them once) and contracts them, O(n³) per product.
  Third derivatives are not provided (an error says so).

Accuracy of the divided differences (they are tested against mpmath at 50
digits): sqrtm's and invsqrtm's are closed forms without subtraction (f[x,
y] = 1/(√x + √y), f[x, y, z] = −1/((√x + √y)(√y + √z)(√x + √z)), and
likewise for x^{-1/2}), a few units of roundoff; logm's, expm's and powm's
first ones use log1p and expm1 (a few units of roundoff), their second
ones the recursion (f[y, z] − f[x, y])/(z − x) where the three values
spread beyond a threshold and, within it, the Taylor series of f about
their mean, summed to the roundoff, so that the recursion loses at most a
factor of about 40 to cancellation (about 1e-14 relative). symfn's, for a
user's f, f' and f'', choose per entry between the difference quotient and
Simpson's rule on f' (first), and between the recursion and a degree-5
cubature of f'' on the simplex (second, the Hermite–Genocchi formula), by
estimates of their rounding and truncation errors: measured against mpmath
on clusters of every width (tests/test_torch_symfn.py), within 1e-12
relative for the first and 1e-10 for the second.
"""

import functools
import math

import numpy as np
import torch
from torch.autograd.function import once_differentiable
from torch.overrides import handle_torch_function, has_torch_function

from . import spectral as _spectral
from ._lib import InvalidArgument

__all__ = ["sqrtm", "invsqrtm", "logm", "expm", "powm", "symfn", "reeig"]

_F64 = torch.float64
_U = 2.0 ** -53  # unit roundoff of float64
_TINY = 1e-300
# Double backward contracts the (n, n, n) tensor of second divided
# differences f[λa, λb, λc] of each matrix. Being symmetric, it is computed
# for the sorted index triples a ≤ b ≤ c only (n(n+1)(n+2)/6 of them), in
# chunks of at most _F2_BLOCK entries, and kept on the graph when it has
# at most _F2_CACHE entries (64 MB), so that repeated Hessian products at
# one point (CG's) compute it once; the contraction reads it in blocks of
# rows of at most _F2_BLOCK entries.
_F2_BLOCK = 1 << 20
_F2_CACHE = 1 << 23


# ---------------------------------------------------------------------------
# The functions: values, first and second divided differences.
#
# They compute on arrays: numpy arrays on the CPU (views of the tensors'
# memory: numpy's elementwise operations on the few hundred entries of a
# batch of small matrices cost a fraction of torch's per call), torch
# tensors on other devices. The expressions below are written once for
# both, through _xp(x), the array's module (numpy and torch share the
# names used: where, maximum, minimum, sqrt, log, log1p, exp, expm1,
# ones_like, full_like, zeros_like).


def _xp(x):
    return np if isinstance(x, np.ndarray) else torch


def _copy(x):
    return x.copy() if isinstance(x, np.ndarray) else x.clone()


def _sorted3(a, b, c):
    """(min, median, max) of three broadcast arrays, exactly (no
    arithmetic), so that a symmetric formula gets the same inputs in any
    order."""
    xp = _xp(a)
    lo, hi = xp.minimum(a, b), xp.maximum(a, b)
    return xp.minimum(lo, c), xp.maximum(lo, xp.minimum(hi, c)), xp.maximum(hi, c)


def _where_pos(h):
    """h where it is positive, else 1: a divisor safe to use in a branch
    that where() discards."""
    xp = _xp(h)
    return xp.where(h > 0, h, xp.ones_like(h))


def _tet(m):
    """m(m+1)(m+2)/6: the number of sorted triples of indices below m."""
    return m * (m + 1) * (m + 2) // 6


@functools.lru_cache(maxsize=64)
def _triples_np(n, a0, a1):
    parts = [np.zeros((3, 0), dtype=np.int64)]
    for a in range(a0, a1):
        b, c = np.triu_indices(n - a)
        parts.append(np.stack([np.full_like(b, a), b + a, c + a]))
    return np.concatenate(parts, 1)


def _triples(n, a0, a1, like):
    """The sorted index triples (a, b, c), a0 ≤ a < a1, a ≤ b ≤ c < n, in
    lexicographic order, as three integer arrays of like's kind (cached)."""
    t = _triples_np(n, a0, a1)
    if not isinstance(like, np.ndarray):
        t = torch.as_tensor(t, device=like.device)
    return t[0], t[1], t[2]


def _rank(a, b, c, n):
    """The position of the sorted index triple a ≤ b ≤ c (integer arrays)
    in the lexicographic order of all of them: the triples with a smaller
    first index, then with first a and a smaller second, then c − b."""
    return _tet(n) - _tet(n - a) + (b - a) * n - (b - a) * (a + b - 1) // 2 + (c - b)


@functools.lru_cache(maxsize=64)
def _rank_rows_np(n, r0, r1):
    """The positions of the sorted (a, b, c), for the rows r0 ≤ a < r1 and
    all b, c, as an (r1 − r0, n, n) integer array (cached)."""
    i = np.arange(n)
    a, b, c = i[r0:r1, None, None], i[None, :, None], i[None, None, :]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return _rank(np.minimum(lo, c), np.maximum(lo, np.minimum(hi, c)), np.maximum(hi, c), n)


class _Spec:
    """A function f of the eigenvalues with its divided differences. dd1
    and dd2 take broadcast float64 arrays; dd2's arguments are sorted,
    x0 ≤ x1 ≤ x2. Both are symmetric in their arguments bitwise (they
    order them first), so that F̃ and the second-order tensor are exactly
    symmetric."""

    name = "symfn"
    # kind and p name the function to torch.ops.rhgd.symfn (None: a user's f)
    kind, p = None, 0.0

    def f(self, lam):
        raise NotImplementedError

    def dd1(self, a, b):
        raise NotImplementedError

    def dd2(self, x0, x1, x2):
        raise NotImplementedError

    def check(self, lam):
        """lam itself when it is in f's domain (or a copy with rounding
        errors of zero set to zero), else raises InvalidArgument."""
        return lam

    def first(self, lam):
        """F̃ (..., n, n): F̃_ij = f[λi, λj]."""
        return self.dd1(lam[..., :, None], lam[..., None, :])

    def second(self, lam):
        """f[λa, λb, λc] for the sorted index triples a ≤ b ≤ c in
        lexicographic order, (..., n(n+1)(n+2)/6), for λ ascending (so that
        the values are sorted too), in chunks of at most _F2_BLOCK entries."""
        n = lam.shape[-1]
        batch = max(1, lam[..., 0].size if isinstance(lam, np.ndarray) else lam[..., 0].numel())
        parts = []
        a0 = 0
        while a0 < n:  # chunks of whole a's: their triples are contiguous
            a1, size = a0, 0
            while a1 < n and (a1 == a0 or (size + (n - a1) * (n - a1 + 1) // 2) * batch <= _F2_BLOCK):
                size += (n - a1) * (n - a1 + 1) // 2
                a1 += 1
            ia, ib, ic = _triples(n, a0, a1, lam)
            parts.append(self.dd2(lam[..., ia], lam[..., ib], lam[..., ic]))
            a0 = a1
        if len(parts) == 1:
            return parts[0]
        return (np.concatenate if isinstance(lam, np.ndarray) else torch.cat)(parts, -1)


def _dd2_recursion(spec, x0, x1, x2):
    """(f[x1, x2] − f[x0, x1])/(x2 − x0) and x2 − x0."""
    s = x2 - x0
    return (spec.dd1(x1, x2) - spec.dd1(x0, x1)) / _where_pos(s), s


def _series_terms(coef, rho):
    """The number K of terms of Σ_j coef(j) h_j(d) (h_j the complete
    homogeneous symmetric polynomial of degree j in three variables, each
    |d_i| ≤ (2/3)·rho: the deviations from the mean of three values that
    spread over rho) after which the tail is below u/8 of the first term."""
    a0 = abs(coef(0))
    bound = [abs(coef(j)) * (j + 2) * (j + 1) / 2 * (2 * rho / 3) ** j for j in range(400)]
    for k in range(1, 400):
        if sum(bound[k:]) <= _U / 8 * a0:
            return k
    raise ValueError("rhgd: the Taylor series of the second divided differences does not converge")


class _Analytic(_Spec):
    """The hybrid second divided difference of an analytic f whose
    derivatives at any m are known: the recursion where the three values
    spread more than tau·σ(m), else the Taylor series about their mean m,

        f[x0, x1, x2] = P(m) Σ_j a_j h_j((x − m)/σ(m)),

    with P(m) a_j = σ^{j+2} f^{(j+2)}(m)/(j+2)! (the divided differences of
    (x − m)^{j+2} are h_j(x − m), for any center m). With spread at least
    tau·σ the recursion's subtraction loses at most a factor of about
    4/tau; within it, K terms sum to the roundoff."""

    tau = 0.1

    def sigma(self, m):
        return m

    def prefactor(self, m):
        raise NotImplementedError

    def coef(self, j):
        raise NotImplementedError

    def _terms(self):
        if getattr(self, "_k", None) is None:
            self._k = _series_terms(self.coef, self.tau)
            self._a = [self.coef(j) for j in range(self._k)]
        return self._k, self._a

    def dd2(self, x0, x1, x2):
        rec, s = _dd2_recursion(self, x0, x1, x2)
        m = (x0 + x1 + x2) / 3
        sig = self.sigma(m)
        small = s <= self.tau * sig
        if not bool(small.any()):
            return rec
        x0, x1, x2, m, sig = x0[small], x1[small], x2[small], m[small], sig[small]
        # d_i = x_i − m is exact (Sterbenz: the values are within a factor
        # of 2 of m), so the series is the Taylor series about m itself.
        d0, d1, d2 = (x0 - m) / sig, (x1 - m) / sig, (x2 - m) / sig
        k, a = self._terms()
        xp = _xp(d0)
        p0 = xp.ones_like(d0)  # h_j(d0)
        h2 = xp.ones_like(d0)  # h_j(d0, d1)
        h3 = xp.ones_like(d0)  # h_j(d0, d1, d2)
        acc = xp.full_like(d0, a[0])
        for j in range(1, k):
            p0 = p0 * d0
            h2 = h2 * d1 + p0
            h3 = h3 * d2 + h2
            if a[j] != 0:
                acc = acc + a[j] * h3
        out = _copy(rec)
        out[small] = self.prefactor(m) * acc
        return out


def _check_positive(lam, name, semidefinite):
    """lam if every eigenvalue is positive (semidefinite: non-negative,
    with those within 4·n·u·max|λ| of zero set to zero), else raises
    InvalidArgument naming the first bad matrix of the flattened batch."""
    n = lam.shape[-1]
    xp = _xp(lam)
    low = lam[..., 0]  # ascending
    if (low.min() > 0) if xp is np else bool((low > 0).all()):  # numpy: a non-empty batch
        return lam
    if semidefinite:
        tol = 4 * n * _U * abs(lam).max(-1) if xp is np else 4 * n * _U * lam.abs().amax(-1)
        bad = low < -tol
    else:
        bad = ~(low > 0)
    if bool(bad.any()):
        i = int(np.flatnonzero(bad)[0]) if xp is np else int(bad.reshape(-1).nonzero()[0])
        what = "positive semidefinite" if semidefinite else "positive definite"
        raise InvalidArgument(f"rhgd: {name}: matrix {i} of the batch is not {what}: its smallest eigenvalue "
                              f"is {float(low.reshape(-1)[i]):.6g}")
    if semidefinite and bool((low < 0).any()):
        lam = xp.maximum(lam, xp.zeros_like(lam))
    return lam


class _Sqrt(_Spec):
    """√x: f[x, y] = 1/(√x + √y), f[x, y, z] = −1/((√x+√y)(√y+√z)(√x+√z))."""

    kind = "sqrt"

    name = "sqrtm"

    def f(self, lam):
        return _xp(lam).sqrt(lam)

    def check(self, lam):
        return _check_positive(lam, self.name, True)

    def dd1(self, a, b):
        xp = _xp(a)
        return 1 / (xp.sqrt(a) + xp.sqrt(b))

    def dd2(self, x0, x1, x2):
        xp = _xp(x0)
        r0, r1, r2 = xp.sqrt(x0), xp.sqrt(x1), xp.sqrt(x2)
        return -1 / ((r0 + r1) * (r1 + r2) * (r0 + r2))


class _InvSqrt(_Spec):
    """1/√x: f[x, y] = −1/(√x√y(√x + √y)),
    f[x, y, z] = (√x+√y+√z)/(√x√y√z (√x+√y)(√y+√z)(√x+√z))."""

    kind = "invsqrt"

    name = "invsqrtm"

    def f(self, lam):
        return 1 / _xp(lam).sqrt(lam)

    def check(self, lam):
        return _check_positive(lam, self.name, False)

    def dd1(self, a, b):
        xp = _xp(a)
        ra, rb = xp.sqrt(a), xp.sqrt(b)
        return -1 / (ra * rb * (ra + rb))

    def dd2(self, x0, x1, x2):
        xp = _xp(x0)
        r0, r1, r2 = xp.sqrt(x0), xp.sqrt(x1), xp.sqrt(x2)
        return (r0 + r1 + r2) / (r0 * r1 * r2 * (r0 + r1) * (r1 + r2) * (r0 + r2))


class _Log(_Analytic):
    """log x: f[x, y] = log1p((hi − lo)/lo)/(hi − lo) (1/x when equal);
    second: the hybrid, f^{(j+2)}(m)/(j+2)! = (−1)^{j+1}/((j+2) m^{j+2})."""

    kind = "log"

    name = "logm"

    def f(self, lam):
        return _xp(lam).log(lam)

    def check(self, lam):
        return _check_positive(lam, self.name, False)

    def dd1(self, a, b):
        xp = _xp(a)
        hi, lo = xp.maximum(a, b), xp.minimum(a, b)
        h = hi - lo
        return xp.where(h > 0, xp.log1p(h / lo) / _where_pos(h), 1 / lo)

    def prefactor(self, m):
        return 1 / (m * m)

    def coef(self, j):
        return (-1) ** (j + 1) / (j + 2)


class _Exp(_Analytic):
    """exp x: f[x, y] = e^hi·(−expm1(−(hi − lo)))/(hi − lo) (e^x when
    equal); second: the hybrid about the mean with absolute spread 1/2,
    f^{(j+2)}(m)/(j+2)! = e^m/(j+2)!."""

    kind = "exp"

    name = "expm"
    tau = 0.5

    def f(self, lam):
        return _xp(lam).exp(lam)

    def dd1(self, a, b):
        xp = _xp(a)
        hi, lo = xp.maximum(a, b), xp.minimum(a, b)
        h = hi - lo
        return xp.exp(hi) * xp.where(h > 0, -xp.expm1(-h) / _where_pos(h), xp.ones_like(h))

    def sigma(self, m):
        return _xp(m).ones_like(m)

    def prefactor(self, m):
        return _xp(m).exp(m)

    def coef(self, j):
        return 1 / math.factorial(j + 2)


class _Pow(_Analytic):
    """x^p: f[x, y] = lo^p·expm1(p·log1p((hi − lo)/lo))/(hi − lo)
    (p·x^{p−1} when equal); second: the hybrid with spread threshold
    0.1/max(1, |p − 1|) relative, f^{(j+2)}(m)/(j+2)! = C(p, j+2) m^{p−j−2}."""

    kind = "pow"

    name = "powm"

    def __init__(self, p):
        self.p = p
        self.tau = 0.1 / max(1.0, abs(p - 1))

    def f(self, lam):
        return lam ** self.p

    def check(self, lam):
        return _check_positive(lam, self.name, self.p > 0)

    def dd1(self, a, b):
        p, xp = self.p, _xp(a)
        hi, lo = xp.maximum(a, b), xp.minimum(a, b)
        h = hi - lo
        pos = (h > 0) & (lo > 0)
        lo_ = xp.where(lo > 0, lo, xp.ones_like(lo))
        quot = lo_ ** p * xp.expm1(p * xp.log1p(h / lo_)) / _where_pos(h)
        # x^{p−1} as x^p/x: p − 1 rounded would cost |p − 1|·|log x| units of
        # roundoff. lo = 0 < hi (semidefinite, p > 0): hi^p/hi; equal: p·x^{p−1}
        # (at x = 0: 0, 1 or inf as p > 1, = 1, < 1).
        hi_ = _where_pos(hi)
        with np.errstate(divide="ignore"):  # 0^{p−1}, p < 1: inf, as torch gives it
            at = xp.where(hi > 0, hi_ ** p / hi_, hi ** (p - 1))
        return xp.where(pos, quot, xp.where(h > 0, at, p * at))

    def prefactor(self, m):
        return m ** self.p / (m * m)  # m^{p−2}, without rounding p − 2

    def coef(self, j):
        c = 1.0  # C(p, j + 2) by the recurrence C(p, k+1) = C(p, k)(p − k)/(k + 1)
        for k in range(j + 2):
            c = c * (self.p - k) / (k + 1)
        return c


class _Affine(_Spec):
    """x^0 = 1 or x^1 = x (powm's p = 0 and 1): divided differences 0 or 1,
    and 0."""

    kind = "pow"

    name = "powm"

    def __init__(self, p):
        self.p = p

    def f(self, lam):
        return _xp(lam).ones_like(lam) if self.p == 0 else _copy(lam)

    def check(self, lam):
        return _check_positive(lam, self.name, self.p > 0)

    def dd1(self, a, b):
        return 0 * (a + b) + self.p  # the broadcast shape (eigenvalues are finite)

    def dd2(self, x0, x1, x2):
        return 0 * (x0 + x1 + x2)


class _ReEig(_Spec):
    """SPDNet's ReEig, max(eps, x), piecewise linear: f[x, y] is 1 when
    both exceed eps, 0 when neither does, (hi − eps)/(hi − lo) across, all
    without cancellation; f' at x = eps is 0 (SPDNet's choice, as
    rhgd.spectral.reeig_batch_backward); f[x, y, z] by the recursion, 0
    when all three are equal."""

    kind = "reeig"

    name = "reeig"

    def __init__(self, eps):
        self.eps = self.p = eps

    def f(self, lam):
        xp = _xp(lam)
        return xp.maximum(lam, xp.full_like(lam, self.eps))

    def dd1(self, a, b):
        xp = _xp(a)
        hi, lo = xp.maximum(a, b), xp.minimum(a, b)
        across = (hi - self.eps) / _where_pos(hi - lo)
        below = xp.where(hi <= self.eps, xp.zeros_like(hi), across)
        return xp.where(lo > self.eps, xp.ones_like(hi), below)

    def dd2(self, x0, x1, x2):
        rec, s = _dd2_recursion(self, x0, x1, x2)
        return _xp(rec).where(s > 0, rec, 0 * rec)


# Radon's degree-5 rule on the triangle (barycentric points, weights
# summing to 1) and the degree-3 rule (Strang and Fix) to estimate its
# error: f[x0, x1, x2] = ∫_{simplex} f''(t·x) dt = (1/2) Σ w_i f''(p_i·x).
_R5A1, _R5A2 = (6 - math.sqrt(15)) / 21, (6 + math.sqrt(15)) / 21
_RULE5 = [((1 / 3, 1 / 3, 1 / 3), 9 / 40)] + \
    [(p, (155 - math.sqrt(15)) / 1200) for p in ((_R5A1, _R5A1, 1 - 2 * _R5A1), (_R5A1, 1 - 2 * _R5A1, _R5A1),
                                                  (1 - 2 * _R5A1, _R5A1, _R5A1))] + \
    [(p, (155 + math.sqrt(15)) / 1200) for p in ((_R5A2, _R5A2, 1 - 2 * _R5A2), (_R5A2, 1 - 2 * _R5A2, _R5A2),
                                                  (1 - 2 * _R5A2, _R5A2, _R5A2))]
_RULE3 = [((1 / 3, 1 / 3, 1 / 3), -27 / 48)] + \
    [(p, 25 / 48) for p in ((0.6, 0.2, 0.2), (0.2, 0.6, 0.2), (0.2, 0.2, 0.6))]


class _Generic(_Spec):
    """A user's f with f' (and f'' for double backward), elementwise on
    torch tensors (they get torch views of the arrays).

    First divided differences: the quotient q = (f(hi) − f(lo))/(hi − lo),
    whose rounding error is about e_q = 2u(|f(hi)| + |f(lo)|)/(hi − lo),
    or Simpson's rule on f' over two panels, S2, exact at equal values,
    whose error is estimated by Richardson's |S2 − S1|/15 (S1 the one-panel
    rule). q is taken where its estimate is at most 128u·|q| (little
    cancellation: Simpson then runs only where hi − lo is small beside the
    scale on which f varies, so that an estimate that vanishes by accident
    far from there cannot pick it) or at most Simpson's.

    Second: the recursion (f[x1, x2] − f[x0, x1])/(x2 − x0), with the
    estimates of its two first divided differences and their rounding over
    the spread as its error, or Radon's degree-5 cubature of f'' on the
    simplex (the Hermite-Genocchi formula f[x0, x1, x2] = ∫ f''), exact at
    equal values, whose error is estimated from its difference δ from the
    degree-3 rule as δ·(δ/|R5|)^{1/2} (errors O(s⁴) and O(s⁶) in the spread
    s, for an analytic f); the recursion is taken where its estimate is at
    most 10⁴u relative or at most the cubature's."""

    def __init__(self, f, df, d2f):
        self._fn, self._dfn, self._d2fn = f, df, d2f

    def _call(self, fn, x, what):
        cpu = isinstance(x, np.ndarray)
        xt = torch.from_numpy(x) if cpu else x
        y = fn(xt)
        if not isinstance(y, torch.Tensor):
            y = torch.as_tensor(y, dtype=_F64, device=xt.device)
        if y.shape != xt.shape:
            try:
                y = y.expand(xt.shape)
            except RuntimeError:
                raise ValueError(f"rhgd: symfn: {what} must act elementwise: given a tensor of shape "
                                 f"{tuple(xt.shape)} it returned one of shape {tuple(y.shape)}") from None
        y = y.detach().to(_F64)
        return y.resolve_neg().numpy() if cpu else y

    def f(self, lam):
        return self._call(self._fn, lam, "f")

    def _dd1e(self, a, b):
        """(f[a, b], an estimate of its absolute error)."""
        xp = _xp(a)
        hi, lo = xp.maximum(a, b), xp.minimum(a, b)
        h = hi - lo
        fh, fl = self.f(hi), self.f(lo)
        d = [self._call(self._dfn, x, "df") for x in (lo, lo + h / 4, lo + h / 2, hi - h / 4, hi)]
        s1 = (d[0] + 4 * d[2] + d[4]) / 6
        s2 = (d[0] + 4 * d[1] + 2 * d[2] + 4 * d[3] + d[4]) / 12
        e_s = abs(s2 - s1) / 15 + 4 * _U * (abs(d[0]) + 4 * abs(d[2]) + abs(d[4])) / 6
        hp = _where_pos(h)
        quot = (fh - fl) / hp
        e_q = 2 * _U * (abs(fh) + abs(fl)) / hp
        use_q = (h > 0) & ((e_q <= 128 * _U * abs(quot)) | (e_q <= e_s))
        return xp.where(use_q, quot, s2), xp.where(use_q, e_q, e_s)

    def dd1(self, a, b):
        return self._dd1e(a, b)[0]

    def dd2(self, x0, x1, x2):
        if self._d2fn is None:
            raise RuntimeError("rhgd: symfn: double backward (Hessian-vector products, gradgradcheck) needs the "
                               "second derivative: give symfn(A, f, df, d2f)")
        xp = _xp(x0)
        s = x2 - x0
        b12, e12 = self._dd1e(x1, x2)
        b01, e01 = self._dd1e(x0, x1)
        sp = _where_pos(s)
        rec = (b12 - b01) / sp
        e_rec = (e12 + e01 + 2 * _U * (abs(b12) + abs(b01))) / sp

        def rule(points):
            acc = 0
            for (t0, t1, t2), w in points:
                acc = acc + w * self._call(self._d2fn, t0 * x0 + t1 * x1 + t2 * x2, "d2f")
            return acc / 2

        r5, r3 = rule(_RULE5), rule(_RULE3)
        diff = abs(r5 - r3)
        e_cub = diff * xp.sqrt(diff / (abs(r5) + diff + _TINY))
        use_rec = (s > 0) & ((e_rec <= 1e4 * _U * abs(rec)) | (e_rec <= e_cub))
        return xp.where(use_rec, rec, r5)


# ---------------------------------------------------------------------------
# Eigendecompositions and the autograd Functions.
#
# The matrix algebra, like the functions above, runs on numpy views of the
# tensors' memory on the CPU (numpy's batched matmul costs a fraction of
# torch's on arrays of small matrices: V·diag·Vᵀ of (200, 10, 10) in 50 µs
# against 200 µs, one thread) and in torch on other devices; the same
# expressions (@, +, *, [..., idx]) serve both.


def _use_rhgd(a):
    """Whether rhgd's kernels decompose a (a CPU tensor with a non-empty
    batch), rather than torch.linalg.eigh."""
    return a.is_cpu and a.numel() > 0


def _arr(t, cpu):
    """The float64 values of the tensor t: a numpy array (a view when t is
    float64) on the CPU, a tensor elsewhere."""
    t = t.detach()
    if t.dtype != _F64:
        t = t.to(_F64)
    return t.resolve_neg().numpy() if cpu else t


def _ten(x):
    """x as a tensor (a view of a numpy array's memory)."""
    return torch.from_numpy(x) if isinstance(x, np.ndarray) else x


def _tr(x):
    return x.swapaxes(-1, -2)  # numpy's method and torch's alias of transpose


def _sym(x):
    return (x + _tr(x)) * 0.5


def _congruence(v, x):
    """V X Vᵀ, symmetrized."""
    return _sym(v @ x @ _tr(v))


def _sym64(a, cpu):
    """(A + Aᵀ)/2 in float64, C-contiguous: a numpy array on the CPU."""
    if not isinstance(a, torch.Tensor):
        raise TypeError(f"rhgd: want a torch.Tensor, got {type(a).__name__}")
    if a.is_complex() or not a.is_floating_point():
        raise TypeError(f"rhgd: want a real floating-point tensor, got {a.dtype}")
    if a.dim() < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"rhgd: want a tensor of shape (..., n, n), got {tuple(a.shape)}")
    x = _arr(a, cpu)
    if cpu:
        out = np.add(x, x.swapaxes(-1, -2), out=np.empty(x.shape))  # C-contiguous, for the library
        out *= 0.5
        return out
    return _sym(x).contiguous()


def _eigh(a, cpu):
    """(λ ascending (..., n), V (..., n, n), eigenvectors in columns) of the
    symmetric float64 array a: rhgd's batched kernel on the CPU (no copy
    in, none out), torch.linalg.eigh elsewhere."""
    if cpu:
        return _spectral.eigh_batch(a)
    return torch.linalg.eigh(a)


def _second_contract(spec, lam, gh, hh, cache):
    """K with K_ab = Σ_c f[λa, λb, λc] (Ĝ_ac Ĥ_cb + Ĥ_ac Ĝ_cb), in the
    eigenbasis: the gradient with respect to A of ⟨H, Df(A)[G]⟩, which is
    ⟨H, D²f(A)[G, E]⟩ as a function of E. cache is a dict that keeps the
    second divided differences across calls when they are few enough."""
    n = lam.shape[-1]
    cpu = isinstance(gh, np.ndarray)
    f2u = cache.get("f2")
    if f2u is None:
        f2u = spec.second(lam)
        if (f2u.size if cpu else f2u.numel()) <= _F2_CACHE:
            cache["f2"] = f2u
    batch = max(1, gh[..., 0, 0].size if cpu else gh[..., 0, 0].numel())
    rows = max(1, min(n, _F2_BLOCK // max(1, batch * n * n)))
    parts = []
    for r0 in range(0, n, rows):
        r1 = min(n, r0 + rows)
        pos = _rank_rows_np(n, r0, r1)
        f2 = f2u[..., pos if cpu else torch.as_tensor(pos, device=f2u.device)]  # (..., r1 − r0, n, n)
        # Σ_c f2[a, b, c] Ĝ_ac Ĥ_bc (Ĥ symmetric); numpy's einsum runs it as one
        # loop, 6x faster than the broadcast products and their sum
        parts.append((np if cpu else torch).einsum("...abc,...ac,...bc->...ab", f2, gh[..., r0:r1, :], hh))
    k = parts[0] if len(parts) == 1 else (np.concatenate if cpu else torch.cat)(parts, -2)
    return k + _tr(k)


class _DK(torch.autograd.Function):
    """(A, G) ↦ Df(sym A)[sym G] = V (F̃ ∘ (Vᵀ sym(G) V)) Vᵀ, the backward
    map of _SymFn, given A's eigendecomposition (λ, V) and F̃, arrays;
    differentiable once more, in A (second divided differences)
    and in G (the map is self-adjoint)."""

    @staticmethod
    def forward(ctx, a, g, spec, lam, v, f1, cpu):
        gh = _sym(_tr(v) @ _arr(g, cpu) @ v)
        ctx.spec, ctx.lam, ctx.v, ctx.f1, ctx.gh, ctx.cpu, ctx.cache = spec, lam, v, f1, gh, cpu, {}
        ctx.dtypes = (a.dtype, g.dtype)
        return _ten(_congruence(v, f1 * gh)).to(a.dtype)

    @staticmethod
    @once_differentiable
    def backward(ctx, h):
        v = ctx.v
        hh = _sym(_tr(v) @ _arr(h, ctx.cpu) @ v)
        ga = gg = None
        if ctx.needs_input_grad[0]:
            ga = _ten(_congruence(v, _second_contract(ctx.spec, ctx.lam, ctx.gh, hh, ctx.cache))).to(ctx.dtypes[0])
        if ctx.needs_input_grad[1]:
            gg = _ten(_congruence(v, ctx.f1 * hh)).to(ctx.dtypes[1])
        return ga, gg, None, None, None, None, None


def _forward(a, spec, cpu):
    """(f(sym A), λ, V) of the tensor a, the first a tensor of a's dtype,
    λ and V arrays."""
    lam, v = _eigh(_sym64(a, cpu), cpu)
    lam = spec.check(lam)
    out = _sym((v * spec.f(lam)[..., None, :]) @ _tr(v))  # V diag(f(λ)) Vᵀ
    return _ten(out).to(a.dtype), lam, v


# The named functions' forward pass on the CPU is also an aten-level
# operator, rhgd::symfn(a, kind, p) -> (f(A), λ, V): torch.fx's tracer
# (rhgd._replay: the fused lower loop's recording of g) then records it as
# one operation, where the numpy and ctypes inside would be invisible to
# it, frozen as constants, and the recording dropped.
_KINDS = {}  # kind -> p -> spec


def _spec_of(kind, p):
    return {"sqrt": _SQRT, "invsqrt": _INVSQRT, "log": _LOG, "exp": _EXP}.get(kind) or \
        (_pow_spec(p) if kind == "pow" else _reeig_spec(p))


def _symfn_impl(a, kind, p):
    out, lam, v = _forward(a, _spec_of(kind, p), True)
    return out, torch.from_numpy(lam), torch.from_numpy(v)


def _register():
    """torch.ops.rhgd.symfn, registered once per process, or None where
    this torch cannot (the forward pass then runs as a Python call)."""
    try:
        op = torch.ops.rhgd.symfn
        return op  # registered by an earlier import of this module
    except (AttributeError, RuntimeError):
        pass
    try:
        lib = torch.library.Library("rhgd", "DEF")
        lib.define("symfn(Tensor a, str kind, float p) -> (Tensor, Tensor, Tensor)")
        lib.impl("symfn", _symfn_impl, "CPU")
    except Exception:
        return None
    _register.lib = lib  # the registration lives as long as the library object
    return torch.ops.rhgd.symfn


_SYMFN_OP = _register()
# The operator costs its dispatch (about 20 µs a call from Python), which a
# batch of small matrices feels: it is called only under a dispatch mode
# (torch.fx's tracer), the Python function otherwise.
_dispatch_modes = getattr(torch._C, "_len_torch_dispatch_stack", None)


class _SymFn(torch.autograd.Function):
    """A ↦ f(sym A) = V diag(f(λ)) Vᵀ, differentiated by _DK."""

    @staticmethod
    def forward(ctx, a, spec):
        cpu = _use_rhgd(a)
        if cpu and spec.kind is not None and _SYMFN_OP is not None and _dispatch_modes is not None and \
                _dispatch_modes() > 0:
            out, lam, v = _SYMFN_OP(a.detach(), spec.kind, spec.p)
            ctx.lam, ctx.v = lam, v  # tensors: arrays when backward needs them
        else:
            out, ctx.lam, ctx.v = _forward(a, spec, cpu)
        ctx.spec, ctx.cpu = spec, cpu
        ctx.save_for_backward(a)
        return out

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        if ctx.cpu and isinstance(ctx.lam, torch.Tensor):
            ctx.lam, ctx.v = ctx.lam.numpy(), ctx.v.numpy()
        if getattr(ctx, "f1", None) is None:
            ctx.f1 = ctx.spec.first(ctx.lam)
        return _DK.apply(a, g, ctx.spec, ctx.lam, ctx.v, ctx.f1, ctx.cpu), None


# ---------------------------------------------------------------------------
# The ops.


def _apply(a, spec):
    return _SymFn.apply(a, spec)


# The specs keep nothing per call (the series' terms are computed once per
# function): one instance per function, and per p or eps.
_SQRT, _INVSQRT, _LOG, _EXP = _Sqrt(), _InvSqrt(), _Log(), _Exp()
_pow_spec = functools.lru_cache(maxsize=32)(lambda p: _Affine(p) if p in (0.0, 1.0) else _Pow(p))
_reeig_spec = functools.lru_cache(maxsize=32)(_ReEig)


def _op(fn):
    """fn, visible to torch function modes as one operation (rhgd.torch's
    fused lower loop reuses an op on x alone as a whole, not its insides)."""
    @functools.wraps(fn)
    def op(a, *args, **kwargs):
        if has_torch_function((a,)):
            return handle_torch_function(op, (a,), a, *args, **kwargs)
        return fn(a, *args, **kwargs)
    return op


@_op
def sqrtm(a):
    """The principal square root of each symmetric positive semidefinite
    matrix of a (shape (..., n, n)), V diag(√λ) Vᵀ, differentiable twice
    with finite derivatives at repeated eigenvalues (f[x, y] =
    1/(√x + √y)). See the module's doc for the conventions (sym(A),
    dtype, device, errors)."""
    return _apply(a, _SQRT)


@_op
def invsqrtm(a):
    """A^{-1/2} of each symmetric positive definite matrix of a (shape
    (..., n, n)), differentiable twice with finite derivatives at repeated
    eigenvalues."""
    return _apply(a, _INVSQRT)


@_op
def logm(a):
    """The principal logarithm of each symmetric positive definite matrix
    of a (shape (..., n, n)): SPDNet's LogEig, the log-Euclidean features
    of a hyper-representation; differentiable twice with finite
    derivatives at repeated eigenvalues (f[x, y] = log1p((x − y)/y)/(x − y),
    1/x at x = y)."""
    return _apply(a, _LOG)


@_op
def expm(a):
    """exp(A) of each symmetric matrix of a (shape (..., n, n)),
    differentiable twice with finite derivatives at repeated eigenvalues
    (f[x, y] = e^x·(−expm1(y − x))/(x − y) for x > y)."""
    return _apply(a, _EXP)


@_op
def powm(a, p):
    """A^p = V diag(λ^p) Vᵀ of each symmetric matrix of a (shape
    (..., n, n)), for a real p (a Python number; no derivative in p):
    positive semidefinite matrices for p > 0, positive definite ones for
    p ≤ 0. p = 1/2 and −1/2 are sqrtm and invsqrtm. Differentiable twice
    with finite derivatives at repeated eigenvalues."""
    p = float(p)
    if not math.isfinite(p):
        raise ValueError(f"rhgd: powm: p must be finite, got {p}")
    if p == 0.5:
        return sqrtm(a)
    if p == -0.5:
        return invsqrtm(a)
    return _apply(a, _pow_spec(p))


@_op
def reeig(a, eps):
    """SPDNet's ReEig layer, V diag(max(eps, λ)) Vᵀ, of each symmetric
    matrix of a (shape (..., n, n)); eps a Python number. Its derivative
    at an eigenvalue equal to eps is taken as 0 (SPDNet's choice, as
    rhgd.spectral.reeig_batch_backward); the second derivative is that of
    the piecewise linear function, zero except across eps."""
    eps = float(eps)
    if not math.isfinite(eps):
        raise ValueError(f"rhgd: reeig: eps must be finite, got {eps}")
    return _apply(a, _reeig_spec(eps))


@_op
def symfn(a, f, df, d2f=None):
    """V diag(f(λ)) Vᵀ of each symmetric matrix of a (shape (..., n, n)),
    for a function f given with its derivative df and, for double
    backward (Hessian-vector products), its second derivative d2f: each
    takes a float64 tensor of eigenvalues and returns a tensor of the
    same shape, elementwise (torch.exp, lambda x: x * torch.log(x), ...).
    Without d2f, double backward raises. The divided differences are
    chosen per entry by error estimates (see the module's doc): about
    1e-12 relative at worst for the first, 1e-10 for the second, on smooth
    f; prefer the named ops where one fits."""
    if not (callable(f) and callable(df) and (d2f is None or callable(d2f))):
        raise TypeError("rhgd: symfn: f, df (and d2f, if given) must be callables")
    return _apply(a, _Generic(f, df, d2f))

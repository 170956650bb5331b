"""Matrix kernels of librhgd on numpy arrays.

Inputs that are C-contiguous float64 arrays are passed to the library
without a copy; anything else is copied once (np.ascontiguousarray). The
result is a new array, or ``out`` when given (C-contiguous float64 of the
right shape; it may be an input, for in-place work). The library checks
the values (finite, symmetric, positive definite, on the manifold); the
shapes are checked here, since C cannot see an array's size.
"""

import ctypes

import numpy as np

from . import _lib
from ._arrays import f64

__all__ = ["expsym", "logsym", "sqrtsym", "expm", "lyapunov_sym", "lyapunov_sym_many", "spd_exp", "spd_log", "spd_dist",
           "stiefel_retr_qr", "coupling_retr", "sylvester", "lyapunov", "expsym_frechet", "logsym_frechet",
           "sqrtsym_frechet"]

_F64 = np.float64


def _arr(a, name):
    a = f64(a, name)
    if a.ndim != 2:
        raise ValueError(f"rhgd: {name} must be a 2-D array, got shape {a.shape}")
    return a


def _square(a, name):
    a = _arr(a, name)
    if a.shape[0] != a.shape[1] or a.shape[0] == 0:
        raise ValueError(f"rhgd: {name} must be a non-empty square matrix, got shape {a.shape}")
    return a


def _same(a, shape, name):
    a = _arr(a, name)
    if a.shape != shape:
        raise ValueError(f"rhgd: {name} has shape {a.shape}, want {shape}")
    return a


def _out(out, shape):
    if out is None:
        return np.empty(shape, dtype=_F64)
    if not isinstance(out, np.ndarray) or out.dtype != _F64 or not out.flags.c_contiguous \
            or not out.flags.writeable or out.shape != shape:
        raise ValueError(f"rhgd: out must be a writeable C-contiguous float64 array of shape {shape}")
    return out


def _unary(fn_name, a, out):
    a = _square(a, "a")
    out = _out(out, a.shape)
    lib = _lib.lib()
    _lib.check(getattr(lib, fn_name)(a.shape[0], a.ctypes.data, out.ctypes.data))
    return out


def _binary(fn_name, a, b, out, name_a, name_b):
    """fn_name(n, A, B, out) for a square A and a B of A's shape, named
    name_a and name_b in errors."""
    a = _square(a, name_a)
    b = _same(b, a.shape, name_b)
    out = _out(out, a.shape)
    _lib.check(getattr(_lib.lib(), fn_name)(a.shape[0], a.ctypes.data, b.ctypes.data, out.ctypes.data))
    return out


def expsym(a, out=None):
    """exp(A) of a symmetric matrix, from one eigendecomposition."""
    return _unary("rhgd_expsym", a, out)


def logsym(a, out=None):
    """The principal logarithm of an SPD matrix."""
    return _unary("rhgd_logsym", a, out)


def sqrtsym(a, out=None):
    """The SPD square root of an SPD matrix."""
    return _unary("rhgd_sqrtsym", a, out)


def expm(a, out=None):
    """e^A of a general square matrix (scaling and squaring)."""
    return _unary("rhgd_expm", a, out)


def lyapunov_sym(a, c, out=None):
    """The solution X of A X + X A = C for symmetric A (SPD in the intended
    use) and symmetric C."""
    return _binary("rhgd_lyapunov_sym", a, c, out, "a", "c")


def lyapunov_sym_many(a, c, out=None):
    """The solutions X_i of A X_i + X_i A = C_i for symmetric A and each
    symmetric C_i of c, shape (..., n, n) (every leading axis a batch
    axis), with one eigendecomposition of A: half to two thirds of a
    single solve's time. Errors name c and the first bad matrix, counted
    from 0 over the flattened batch."""
    a = _square(a, "a")
    n = a.shape[0]
    c = f64(c, "c")
    if c.ndim < 2 or c.shape[-2:] != (n, n) or c.size == 0:
        raise ValueError(f"rhgd: c must have shape (..., {n}, {n}) with a non-empty batch, got {c.shape}")
    out = _out(out, c.shape)
    _lib.check(_lib.lib().rhgd_lyapunov_sym_many(n, c.size // (n * n), a.ctypes.data, c.ctypes.data,
                                                  out.ctypes.data))
    return out


def spd_exp(x, u, out=None):
    """Exp_X(U), the exponential map of the affine-invariant metric."""
    return _binary("rhgd_spd_exp", x, u, out, "x", "u")


def spd_log(x, y, out=None):
    """Log_X(Y), the inverse of spd_exp."""
    return _binary("rhgd_spd_log", x, y, out, "x", "y")


def spd_dist(x, y):
    """The affine-invariant distance ||log(X^-1/2 Y X^-1/2)||_F."""
    x = _square(x, "x")
    y = _same(y, x.shape, "y")
    d = ctypes.c_double()
    _lib.check(_lib.lib().rhgd_spd_dist(x.shape[0], x.ctypes.data, y.ctypes.data, ctypes.byref(d)))
    return d.value


def stiefel_retr_qr(x, u, out=None):
    """The QR retraction qf(X + U) on St(n, p) (R with a positive diagonal)."""
    x = _arr(x, "x")
    u = _same(u, x.shape, "u")
    out = _out(out, x.shape)
    n, p = x.shape
    _lib.check(_lib.lib().rhgd_stiefel_retr_qr(n, p, x.ctypes.data, u.ctypes.data, out.ctypes.data))
    return out


def coupling_retr(a, b, gamma, u, out=None, maxiter=None, tol=None):
    """The Sinkhorn retraction onto the couplings of the marginals a (m) and
    b (n): Sinkhorn(Gamma * exp(U / Gamma)), balanced until the relative L1
    marginal error (|G 1 - a|_1 + |G' 1 - b|_1) / sum(a) is at most tol
    (default 1e-13) or maxiter iterations (default 10000) have run: then
    NotConverged, with the best plan found as its ``plan`` (out, when
    given). Gamma must be a plan of a and b to max(1e-10, 2 tol). The
    same as Coupling(a, b, maxiter, tol).retract(gamma, u, out=out)."""
    from .manifolds import Coupling  # manifolds imports nothing from here
    m = Coupling(a, b, maxiter=maxiter, tol=tol)
    try:
        shape = m.shape
        return m.retract(_same(gamma, shape, "gamma"), _same(u, shape, "u"), 1.0, _out(out, shape))
    finally:
        m.free()


def sylvester(a, b, c, out=None):
    """The solution X (m x n) of A X + X B = C for general A (m x m), B
    (n x n) and C (m x n), by Bartels-Stewart (scipy.linalg.solve_sylvester's
    equation). NumericalError when A and -B share an eigenvalue."""
    a, b = _square(a, "a"), _square(b, "b")
    m, n = a.shape[0], b.shape[0]
    c = _same(c, (m, n), "c")
    out = _out(out, (m, n))
    _lib.check(_lib.lib().rhgd_sylvester(m, n, a.ctypes.data, b.ctypes.data, c.ctypes.data, out.ctypes.data))
    return out


def lyapunov(a, c, out=None):
    """The solution X of the continuous Lyapunov equation A X + X A^T = C
    for a general square A (scipy.linalg.solve_continuous_lyapunov's). For
    symmetric A and C, lyapunov_sym is faster."""
    return _binary("rhgd_lyapunov", a, c, out, "a", "c")


def expsym_frechet(a, e, out=None):
    """d/dt exp(A + t E) at t = 0 for symmetric A and E: the Frechet
    derivative of the matrix exponential, by the Daleckii-Krein formula
    from one eigendecomposition of A."""
    return _binary("rhgd_expsym_frechet", a, e, out, "a", "e")


def logsym_frechet(a, e, out=None):
    """d/dt log(A + t E) at t = 0 for SPD A and symmetric E (Daleckii-Krein)."""
    return _binary("rhgd_logsym_frechet", a, e, out, "a", "e")


def sqrtsym_frechet(a, e, out=None):
    """d/dt (A + t E)^(1/2) at t = 0 for SPD A and symmetric E
    (Daleckii-Krein)."""
    return _binary("rhgd_sqrtsym_frechet", a, e, out, "a", "e")

"""Batched spectral kernels of librhgd on numpy arrays: many small
symmetric matrices at once (SPD networks, covariance descriptors), as
``numpy.linalg.eigh`` or ``torch.linalg.eigh`` on a batch.

A batch is an array of shape (..., n, n): every leading axis is a batch
axis. C-contiguous float64 input is passed without a copy; anything else
is copied once. The library checks the values (finite, each matrix
symmetric to 1e-10 relative, SPD for the logarithm) and names the first
bad matrix, counted from 0 over the flattened batch; the shapes are
checked here. Results are new arrays, or ``out`` when given (C-contiguous
float64 of the input's shape; it may be the input, for in-place work).

The backward maps take the upstream gradient ``g`` (the gradient of a loss
with respect to f(A), same shape as ``a``) and return the gradient with
respect to A by the Daleckii-Krein formula, Df(A)[(G + Gᵀ)/2]; for a
symmetric G it is the Fréchet derivative of f at A in the direction G.
"""

import numpy as np

from . import _lib
from ._arrays import f64

__all__ = ["eigh_batch", "exp_batch", "log_batch", "reeig_batch", "exp_batch_backward", "log_batch_backward",
           "reeig_batch_backward"]


def _batch(a, name):
    a = f64(a, name)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or a.shape[-1] == 0 or a.size == 0:
        raise ValueError(f"rhgd: {name} must have shape (..., n, n) with n >= 1 and a non-empty batch, got {a.shape}")
    return a, a.shape[-1], a.size // (a.shape[-1] * a.shape[-1])


def _out(out, shape, name="out"):
    if out is None:
        return np.empty(shape, dtype=np.float64)
    if not isinstance(out, np.ndarray) or out.dtype != np.float64 or not out.flags.c_contiguous \
            or not out.flags.writeable or out.shape != shape:
        raise ValueError(f"rhgd: {name} must be a writeable C-contiguous float64 array of shape {shape}")
    return out


def eigh_batch(a):
    """The eigendecompositions of a batch of symmetric matrices, as
    ``numpy.linalg.eigh``: eigenvalues ascending, shape (..., n), and
    eigenvectors in the COLUMNS of each (n, n) block, A = V diag(w) Vᵀ
    (a transposed view of the library's row layout)."""
    a, n, count = _batch(a, "a")
    w = np.empty(a.shape[:-1], dtype=np.float64)
    v = np.empty(a.shape, dtype=np.float64)
    _lib.check(_lib.lib().rhgd_spectral_eig_batch(n, count, a.ctypes.data, w.ctypes.data, v.ctypes.data))
    return w, np.swapaxes(v, -1, -2)


def _forward(fn, a, out, *extra):
    a, n, count = _batch(a, "a")
    out = _out(out, a.shape)
    _lib.check(getattr(_lib.lib(), fn)(n, count, *extra, a.ctypes.data, out.ctypes.data))
    return out


def _backward(fn, a, g, out, *extra):
    a, n, count = _batch(a, "a")
    g = f64(g, "g")
    if g.shape != a.shape:
        raise ValueError(f"rhgd: g has shape {g.shape}, want a's {a.shape}")
    out = _out(out, a.shape)
    _lib.check(getattr(_lib.lib(), fn)(n, count, *extra, a.ctypes.data, g.ctypes.data, out.ctypes.data))
    return out


def exp_batch(a, out=None):
    """exp(A) of each symmetric matrix of the batch."""
    return _forward("rhgd_spectral_exp_batch", a, out)


def log_batch(a, out=None):
    """The principal logarithm of each SPD matrix of the batch (SPDNet's
    LogEig layer)."""
    return _forward("rhgd_spectral_log_batch", a, out)


def reeig_batch(a, eps, out=None):
    """SPDNet's ReEig layer, V diag(max(eps, λ)) Vᵀ, of each symmetric
    matrix of the batch."""
    return _forward("rhgd_spectral_reeig_batch", a, out, float(eps))


def exp_batch_backward(a, g, out=None):
    """The gradient with respect to A of a loss whose gradient with respect
    to exp(A) is g, for each matrix of the batch."""
    return _backward("rhgd_spectral_exp_batch_backward", a, g, out)


def log_batch_backward(a, g, out=None):
    """The gradient with respect to A of a loss whose gradient with respect
    to log(A) is g, for each SPD matrix of the batch."""
    return _backward("rhgd_spectral_log_batch_backward", a, g, out)


def reeig_batch_backward(a, g, eps, out=None):
    """The gradient with respect to A of a loss whose gradient with respect
    to ReEig(A) is g (the derivative at an eigenvalue equal to eps is 0,
    SPDNet's choice)."""
    return _backward("rhgd_spectral_reeig_batch_backward", a, g, out, float(eps))

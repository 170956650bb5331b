"""The batched spectral kernels against numpy.linalg.eigh on a batch."""

import numpy as np
import pytest

import rhgd
from rhgd import spectral

RNG = np.random.default_rng(20261125)


def spd_batch(shape, n):
    q, _ = np.linalg.qr(RNG.standard_normal((*shape, n, n)))
    lam = np.geomspace(0.1, 10.0, n)
    a = (q * lam) @ np.swapaxes(q, -1, -2)
    return (a + np.swapaxes(a, -1, -2)) / 2


def numpy_f(a, f):
    w, v = np.linalg.eigh(a)
    return (v * f(w)[..., None, :]) @ np.swapaxes(v, -1, -2)


def rel(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


@pytest.mark.parametrize("n", [1, 3, 10, 33])
def test_eigh_batch_vs_numpy(n):
    a = spd_batch((4, 5), n)
    w, v = spectral.eigh_batch(a)
    wn, _ = np.linalg.eigh(a)
    assert w.shape == (4, 5, n) and v.shape == a.shape
    assert np.max(np.abs(w - wn)) <= 1e-13 * np.max(np.abs(wn))
    assert np.all(np.diff(w, axis=-1) >= 0)
    rec = (v * w[..., None, :]) @ np.swapaxes(v, -1, -2)
    assert rel(rec, a) < 1e-13
    assert np.max(np.abs(np.swapaxes(v, -1, -2) @ v - np.eye(n))) < 1e-13


@pytest.mark.parametrize("n", [3, 12])
def test_functions_vs_numpy(n):
    a = spd_batch((7,), n)
    assert rel(spectral.exp_batch(a), numpy_f(a, np.exp)) < 1e-12
    assert rel(spectral.log_batch(a), numpy_f(a, np.log)) < 1e-12
    assert rel(spectral.reeig_batch(a, 0.5), numpy_f(a, lambda w: np.maximum(w, 0.5))) < 1e-12
    out = a.copy()
    spectral.log_batch(out, out=out)
    assert rel(out, numpy_f(a, np.log)) < 1e-12


@pytest.mark.parametrize("name,f", [("exp", np.exp), ("log", np.log)])
def test_backward_taylor(name, f):
    # Central differences of t -> <G, f(A + tE)> against <grad, E> for
    # symmetric E: the error falls as t^2 (a factor 100 per decade, at
    # least 30 asserted) down to rounding.
    n = 6
    a = spd_batch((3,), n)
    g = RNG.standard_normal(a.shape)
    e = RNG.standard_normal(a.shape)
    e = (e + np.swapaxes(e, -1, -2)) / 2
    e /= np.linalg.norm(e, axis=(-1, -2), keepdims=True)
    grad = getattr(spectral, name + "_batch_backward")(a, g)
    lin = np.sum(grad * e, axis=(-1, -2))
    errs = []
    for t in (1e-2, 1e-3):
        d = np.sum(g * (numpy_f(a + t * e, f) - numpy_f(a - t * e, f)), axis=(-1, -2)) / (2 * t)
        errs.append(np.abs(d - lin))
    assert np.all(errs[1] <= errs[0] / 30 + 1e-10 * np.abs(lin).max())


def test_reeig_backward():
    a = spd_batch((2,), 4)
    g = RNG.standard_normal(a.shape)
    gs = (g + np.swapaxes(g, -1, -2)) / 2
    # eps below the spectrum: ReEig is the identity, its backward sym(G).
    assert rel(spectral.reeig_batch_backward(a, g, 0.01), gs) < 1e-12


def test_errors():
    a = spd_batch((5,), 3)
    bad = a.copy()
    bad[3, 0, 1] += 1.0
    with pytest.raises(rhgd.InvalidArgument, match="matrix 3"):
        spectral.eigh_batch(bad)
    neg = a.copy()
    neg[2] = -neg[2]
    with pytest.raises(rhgd.InvalidArgument, match="matrix 2"):
        spectral.log_batch(neg)
    with pytest.raises(ValueError, match="shape"):
        spectral.exp_batch(np.zeros((3, 2, 4)))
    with pytest.raises(ValueError, match="g has shape"):
        spectral.exp_batch_backward(a, a[:2])
    with pytest.raises(rhgd.InvalidArgument, match="eps"):
        spectral.reeig_batch(a, float("nan"))

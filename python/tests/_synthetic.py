"""Small data of the built-in synthetic problem, for the tests that write
their own .npz file."""

import numpy as np

N, D, R = 40, 10, 4


def draw(rng):
    """X (N x D) and Y (N x R), each of unit Frobenius norm, and an
    orthonormal W0 (D x R), from rng."""
    x = rng.standard_normal((N, D))
    y = rng.standard_normal((N, R))
    x /= np.linalg.norm(x)
    y /= np.linalg.norm(y)
    w0, _ = np.linalg.qr(rng.standard_normal((D, R)))
    return x, y, w0

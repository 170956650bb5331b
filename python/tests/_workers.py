"""Functions that worker processes run (importable by spawned children)."""

import numpy as np


def expsym_trace(seed):
    import rhgd
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((4, 4))
    return float(np.trace(rhgd.expsym((a + a.T) / 2)))


def synthetic_f(seed):
    import rhgd
    r = rhgd.minimize(rhgd.builtin("synthetic", n=30, d=8, r=3, seed=seed), estimator="hinv", epochs=10)
    return r.fun

#!/usr/bin/python3
"""The paper's synthetic problem (Sec. 4.1) written in PyTorch and solved by
rhgd: f and g only, every derivative from torch.autograd.

    max_{W ∈ St(d, r)} tr(M* XᵀY Wᵀ),
    M* = argmin_{M ≻ 0} ⟨M, XᵀX⟩ + ⟨M⁻¹, W YᵀY Wᵀ + νI⟩.

The data and start are the built-in problem's (rhgd.builtin("synthetic",
save=...) writes them), so the two runs can be compared: they agree to
rounding. Run: PYTHONPATH=python /usr/bin/python3 python/examples/torch_synthetic.py
"""
import os
import sys
import tempfile

import numpy as np
import torch

import rhgd
import rhgd.torch


def problem(z):
    """f and g on the arrays z of the problem's .npz file (X, Y, nu)."""
    X, Y, nu = torch.from_numpy(z["X"]), torch.from_numpy(z["Y"]), float(z["nu"])
    A, C, YtY, I = X.T @ X, X.T @ Y, Y.T @ Y, torch.eye(X.shape[1], dtype=torch.float64)

    def f(W, M):
        return -torch.sum((M @ C) * W)

    def g(W, M):
        return torch.sum(M * A) + torch.sum(torch.linalg.inv(M) * (W @ YtY @ W.T + nu * I))

    return f, g


def main(n=100, d=50, r=20, epochs=100, estimator="cg:maxiter=50,tol=1e-10"):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "synthetic.npz")
        builtin = rhgd.builtin("synthetic", n=n, d=d, r=r, save=path)
        z = dict(np.load(path))
    f, g = problem(z)
    settings = dict(eta_x=0.5, eta_y=0.5, inner=20, epochs=epochs)
    r_torch = rhgd.torch.minimize(f, g, rhgd.Stiefel(d, r), rhgd.SPD(d), z["W0"], z["M0"], estimator=estimator, **settings)
    r_go = rhgd.minimize(builtin, estimator=estimator, **settings)
    print(f"torch: f = {r_torch.fun:.12f}, |hypergrad| = {r_torch.hypergrad_norm:.3e}, {r_torch.runtime:.2f} s")
    print(f"Go:    f = {r_go.fun:.12f}, |hypergrad| = {r_go.hypergrad_norm:.3e}, {r_go.runtime:.2f} s")
    print(f"max |f_torch - f_Go| over the epochs: {np.max(np.abs(r_torch.history['f'] - r_go.history['f'])):.2e}")
    return r_torch, r_go


if __name__ == "__main__":
    small = "--small" in sys.argv
    main(*((40, 10, 4, 30) if small else ()))

#!/usr/bin/python3
"""The paper's shallow hyper-representation (Sec. 4.2) in PyTorch, solved by
rhgd: learn W ∈ St(d, k) such that ridge regression on the features
φ_i(W) = triu(log(Wᵀ A_i W)) of SPD matrices A_i fits the validation labels.

    min_W f(W, β*) = 1/(2 n_val) Σ_val (φ_iᵀβ* − y_i)²,
    β* = argmin_β 1/(2 n_tr) Σ_tr (φ_iᵀβ − y_i)² + λ/2 ‖β‖².

f and g are finite sums (n_f = n_val, n_g = n_tr components), so the same
functions run RHGD and, with the batch_* settings, RSHGD. The matrix
logarithm is rhgd.torch.logm: rhgd's batched eigensolver, with derivatives
(twice, for the Hessian products) that stay exact at repeated eigenvalues,
where torch.linalg.eigh's are NaN.
Run: PYTHONPATH=python /usr/bin/python3 python/examples/torch_hyperrep.py
"""
import sys

import numpy as np
import torch

import rhgd
import rhgd.torch


def make_data(N=60, d=10, k=3, n_train=30, seed=0):
    """SPD matrices A_i, labels from a hidden W, a start (W0, beta0)."""
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((N, d, d))
    A = G @ G.transpose(0, 2, 1) / d + 0.5 * np.eye(d)
    W0 = np.linalg.qr(rng.standard_normal((d, k)))[0]
    m = k * (k + 1) // 2
    y = rng.standard_normal(N)
    return dict(A=A, y=y, W0=W0, beta0=np.zeros(m), n_train=np.array([float(n_train)]))


def problem(data, lam=0.1):
    """f, g, the manifolds and the component counts of the problem on data."""
    A, lab = torch.from_numpy(data["A"]), torch.from_numpy(data["y"])
    nt, (N, d, _), k = int(data["n_train"][0]), A.shape, data["W0"].shape[1]
    iu = torch.triu_indices(k, k)

    def features(W, idx):  # φ_i(W) = triu(log(Wᵀ A_i W)), row-major
        L = rhgd.torch.logm(W.T @ A[idx] @ W)
        return L[:, iu[0], iu[1]]

    def f(W, beta, batch):  # validation loss, batch indexes the validation set
        idx = nt + batch
        return 0.5 * torch.mean((features(W, idx) @ beta - lab[idx]) ** 2)

    def g(W, beta, batch):  # ridge regression on the training set
        return 0.5 * torch.mean((features(W, batch) @ beta - lab[batch]) ** 2) + 0.5 * lam * beta @ beta

    return f, g, rhgd.Stiefel(d, k), rhgd.Euclidean(k * (k + 1) // 2), N - nt, nt


def main(estimator="cg:maxiter=50,tol=1e-10", epochs=30, **settings):
    data = make_data()
    f, g, mx, my, n_f, n_g = problem(data)
    r = rhgd.torch.minimize(f, g, mx, my, data["W0"], data["beta0"], estimator=estimator, n_f=n_f, n_g=n_g,
                            eta_x=0.05, eta_y=0.05, inner=50, epochs=epochs, **settings)
    print(f"{estimator}: f {r.history['f'][0]:.6f} -> {r.fun:.6f}, |hypergrad| {r.hypergrad_norm:.3e}, "
          f"{r.runtime:.2f} s")
    return r, data


if __name__ == "__main__":
    main(epochs=10 if "--small" in sys.argv else 30)
    main("ns:gamma=0.05,terms=50", epochs=10 if "--small" in sys.argv else 30,
         batch_lower=16, batch_upper=16, batch_cross=16, batch_hess=16)  # RSHGD

#!/usr/bin/python3
"""An SPD network (Huang and Van Gool, AAAI 2017) as a bilevel problem, in
PyTorch, solved by rhgd: BiMap → ReEig → BiMap → LogEig layers whose
Stiefel weights (W1, W2) are the upper variable, and a linear softmax
classifier γ on the log-features, trained by the lower problem with a
cross-entropy loss (the paper's deep hyper-representation, Sec. 4.2, on
generated data):

    min_{W1, W2} f = mean_{val} CE_i(W, γ*),
    γ* = argmin_γ mean_{train} CE_i(W, γ) + λ/2 ‖γ‖².

The eigen-layers are rhgd.torch.reeig and rhgd.torch.logm (rhgd's batched
eigensolver; derivatives exact at repeated eigenvalues); x lives on the Product
St(D, D1) × St(D1, D2) (a flat vector, split by rhgd.torch.split).
Run: PYTHONPATH=python /usr/bin/python3 python/examples/torch_spdnet.py
"""
import sys

import numpy as np
import torch

import rhgd
import rhgd.torch


def make_data(D=12, classes=3, per_class=20, seed=0):
    """SPD covariances whose spectrum depends on the class, labels, and a
    half/half split into training and validation sets."""
    rng = np.random.default_rng(seed)
    bases = [np.linalg.qr(rng.standard_normal((D, D)))[0] for _ in range(classes)]
    A, lab = [], []
    for c in range(classes):
        for _ in range(per_class):
            G = rng.standard_normal((D, 3 * D)) * np.linspace(1, 2 + c, D)[:, None]
            S = bases[c] @ (G @ G.T / (3 * D)) @ bases[c].T
            A.append(S + 1e-3 * np.eye(D))
            lab.append(c)
    perm = rng.permutation(len(lab))
    return np.array(A)[perm], np.array(lab)[perm]


def spd_layers(A, W1, W2, eps=1e-4):
    """φ(A) = triu(log(W2ᵀ ReEig(W1ᵀ A W1) W2)), batched over A."""
    A1 = rhgd.torch.reeig(W1.T @ A @ W1, eps)  # ReEig
    L = rhgd.torch.logm(W2.T @ A1 @ W2)  # LogEig
    iu = torch.triu_indices(L.shape[-1], L.shape[-1])
    return L[:, iu[0], iu[1]]


def main(D=12, D1=6, D2=3, classes=3, epochs=20, lam=0.1):
    A, lab = make_data(D, classes)
    A, lab = torch.from_numpy(A), torch.from_numpy(lab)
    nt = len(lab) // 2
    mx = rhgd.Product(rhgd.Stiefel(D, D1), rhgd.Stiefel(D1, D2))
    m = D2 * (D2 + 1) // 2
    my = rhgd.Euclidean(m, classes)

    def ce(x, gamma, idx):
        W1, W2 = rhgd.torch.split(mx, x)
        logits = spd_layers(A[idx], W1, W2) @ gamma
        return torch.nn.functional.cross_entropy(logits, lab[idx])

    f = lambda x, gamma, batch: ce(x, gamma, nt + batch)
    g = lambda x, gamma, batch: ce(x, gamma, batch) + 0.5 * lam * torch.sum(gamma ** 2)
    x0 = np.concatenate([np.eye(D, D1).ravel(), np.eye(D1, D2).ravel()])  # the authors' start
    y0 = np.random.default_rng(1).standard_normal((m, classes))
    r = rhgd.torch.minimize(f, g, mx, my, x0, y0, estimator="cg", n_f=len(lab) - nt, n_g=nt, eta_x=0.1, eta_y=0.1,
                            inner=20, epochs=epochs)
    with torch.no_grad():
        W1, W2 = rhgd.torch.split(mx, torch.from_numpy(r.x))
        pred = (spd_layers(A[nt:], W1, W2) @ torch.from_numpy(r.y)).argmax(1)
        acc = 100 * float((pred == lab[nt:]).double().mean())
    print(f"f {r.history['f'][0]:.4f} -> {r.fun:.4f}, validation accuracy {acc:.1f}%, {r.runtime:.2f} s")
    return r, acc


if __name__ == "__main__":
    main(epochs=5 if "--small" in sys.argv else 20)

#!/usr/bin/python3
"""Metric learning for a ridge classifier, written in PyTorch and solved by
rhgd: a user's own bilevel problem, with torch tensors in and out, a
progress display and a plot.

Data: 3 classes that differ only in a 3-dimensional subspace of R^10,
hidden by a rotation, plus 7 noisy dimensions. The upper variable is a
metric, M ∈ SPD(10) (or, in the second variant, a subspace basis
U ∈ St(10, 3)); the lower variable is a ridge classifier's weights
W ∈ R^{10×3} on the features x ↦ Lᵀx, M = L Lᵀ (U Uᵀ x for the subspace):

    min_M  f(M, W*(M)) = cross-entropy of softmax(X_val L W*) on the validation labels,
    W*(M) = argmin_W  1/(2n) ‖X_tr L W − Y_tr‖² + λ/2 ‖W‖²     (Y_tr one-hot).

The feature map uses the Cholesky factor L of M, not M^{1/2} from
torch.linalg.eigh: eigh's backward is NaN at repeated eigenvalues, and
M = I, the natural start, has all of them equal (rhgd says so when it
meets one). The lower problem has a closed form, given as lower_solve for
the adaptive preset.

Run: PYTHONPATH=python /usr/bin/python3 python/examples/torch_metric.py [--small] [--out DIR] [--float32]
It writes DIR/torch_metric.png (default out/torch_metric).
"""
import argparse
import os

import torch

import rhgd
import rhgd.torch


def make_data(n=300, d=10, k=3, noise=2.0, seed=0, dtype=torch.float64):
    """(X_train, labels_train, X_val, labels_val): k classes whose means
    differ in k dimensions, the other d − k dimensions noise of standard
    deviation noise, all rotated by a random orthogonal matrix."""
    gen = torch.Generator().manual_seed(seed)
    Q, _ = torch.linalg.qr(torch.randn(d, d, generator=gen, dtype=torch.float64))
    means = 1.5 * torch.eye(k, dtype=torch.float64)

    def draw(m):
        labels = torch.randint(0, k, (m,), generator=gen)
        signal = means[labels] + 0.5 * torch.randn(m, k, generator=gen, dtype=torch.float64)
        X = torch.cat([signal, noise * torch.randn(m, d - k, generator=gen, dtype=torch.float64)], 1) @ Q.T
        return X.to(dtype), labels

    Xtr, ltr = draw(n)
    Xva, lva = draw(n)
    return Xtr, ltr, Xva, lva


def problem(data, lam=0.1, variant="spd"):
    """f, g, the manifolds and the exact lower solution for the variant
    'spd' (M ∈ SPD(d), features Lᵀx) or 'stiefel' (U ∈ St(d, k), features
    U Uᵀ x), on data from make_data (in its dtype)."""
    Xtr, ltr, Xva, lva = data
    n, d = Xtr.shape
    k = int(ltr.max()) + 1
    Ytr = torch.nn.functional.one_hot(ltr, k).to(Xtr.dtype)

    if variant == "spd":
        def features(X, M):
            return X @ torch.linalg.cholesky(M)
        mx = rhgd.SPD(d)
    elif variant == "stiefel":
        def features(X, U):
            return X @ U @ U.T
        mx = rhgd.Stiefel(d, k)
    else:
        raise ValueError(f"variant {variant!r}: want 'spd' or 'stiefel'")

    def g(M, W):
        Z = features(Xtr, M)
        return 0.5 * torch.sum((Z @ W - Ytr) ** 2) / n + 0.5 * lam * torch.sum(W ** 2)

    def f(M, W):
        return torch.nn.functional.cross_entropy(features(Xva, M) @ W, lva)

    def lower_solve(M, W):
        Z = features(Xtr, M)
        A = Z.T @ Z / n + lam * torch.eye(d, dtype=Z.dtype, device=Z.device)
        return torch.linalg.solve(A, Z.T @ Ytr / n)

    return f, g, mx, rhgd.Euclidean(d, k), lower_solve


def accuracy(data, M, W, variant="spd"):
    """Validation accuracy (%) of the classifier (M, W)."""
    _, _, Xva, lva = data
    M, W = M.to(Xva.dtype), W.to(Xva.dtype)
    Z = Xva @ (torch.linalg.cholesky(M) if variant == "spd" else M @ M.T)
    return 100.0 * float((torch.argmax(Z @ W, 1) == lva).double().mean())


def main(small=False, out="out/torch_metric", float32=False, progress=True):
    dtype = torch.float32 if float32 else torch.float64
    data = make_data(n=120 if small else 300, dtype=dtype)
    epochs = 30 if small else 200
    # float32 derivatives: CG reaches a relative residual of about 1e-6,
    # not the default 1e-10 (python/README.md, "float32").
    cg = "cg:tol=1e-6" if float32 else "cg"
    runs = {}
    for variant in ("spd", "stiefel"):
        f, g, mx, my, lower = problem(data, variant=variant)
        # The start as torch tensors: results come back as tensors too.
        M0 = torch.eye(10, dtype=dtype) if variant == "spd" else mx.rand_point(seed=1, dtype=dtype)
        W0 = torch.zeros(10, 3, dtype=dtype)
        p = rhgd.torch.Problem(f, g, mx, my, lower_solve=lower, dtype=dtype)
        # The paper's method (fixed steps), then the adaptive preset with the
        # exact lower solution.
        for name, kw in ((f"{variant}, paper steps", dict(eta_x=0.5, eta_y=0.1, inner=20)),
                         (f"{variant}, adaptive", dict(preset="adaptive", lower_solve=True))):
            r = rhgd.minimize(p, M0, W0, estimator=cg, epochs=epochs, progress=progress, **kw)
            acc0, acc = accuracy(data, M0, lower(M0, W0), variant), accuracy(data, r.x, r.y, variant)
            print(f"{name:24s} {r.status_name:18s} epochs {r.nit:4d}  f = {r.fun:.6f}  "
                  f"|ĝ| = {r.hypergrad_norm:.2e}  accuracy {acc0:.1f}% -> {acc:.1f}%  ({type(r.x).__name__} "
                  f"{r.x.dtype})")
            runs[name] = r
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "torch_metric.png")
    rhgd.plot(runs, path, title="metric learning for a ridge classifier (d = 10, 3 classes)")
    print(f"wrote {path}")
    return runs


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--small", action="store_true", help="fewer samples and epochs (the tests' size)")
    ap.add_argument("--out", default="out/torch_metric", help="directory of the plot")
    ap.add_argument("--float32", action="store_true", help="data, f and g in float32 (Problem(dtype=))")
    a = ap.parse_args()
    main(a.small, a.out, a.float32)

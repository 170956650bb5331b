#!/usr/bin/python3
"""The paper's synthetic problem (Sec. 4.1) run by RHGD written directly in
PyTorch eager mode: the side-by-side peer of rhgd's time-to-solution
benchmark (BenchmarkTimeToTol).

Same formulas as problems/synthetic (and the authors' code): with
A = XᵀX, C = XᵀY, B(W) = W YᵀY Wᵀ + νI,

    f(W, M) = −tr(M C Wᵀ),            g(W, M) = ⟨M, A⟩ + ⟨M⁻¹, B(W)⟩,
    grad_W f = −P_W(M C),             grad_M f = −M sym(W Cᵀ) M,
    grad_M g = M A M − B,             G_WM g[U] = −2 P_W(M⁻¹ U M⁻¹ W YᵀY),
    H⁻¹[V] = M Z M,  M Z K + K Z M = 2V,  K = M A M + B  (a Lyapunov
    solve through one Cholesky factor and one eigendecomposition),

lower steps by the SPD second-order retraction M + tU + t²/2 U M⁻¹ U,
upper steps by the Stiefel QR retraction (positive diagonal R). HINV is
that formula; AD differentiates the unrolled lower loop with autograd.

Data come from a .npz file written by rhgd (synthetic.Save: X, Y, W0, M0,
nu), so both run the same problem:

    go run ./cmd/rhgd run synthetic -d 200 -n 400 -r 80 -estimator hinv ...
    /usr/bin/python3 bench/torch_synthetic.py --data d200.npz --dtype float32

It prints one CSV line per epoch (epoch, seconds, f, ‖ĝ‖) with --out, and
a summary line: epochs, seconds, median seconds per epoch, and whether
‖ĝ‖ ≤ tol·‖ĝ₀‖ was reached.
"""
import argparse
import os
import sys
import time

import numpy as np
import torch


def sym(a):
    return 0.5 * (a + a.T)


class Synthetic:
    def __init__(self, data, dtype):
        # data: a .npz path, or a mapping of its arrays (bench/peers.py)
        z = np.load(data) if isinstance(data, str) else data
        t = lambda k: torch.tensor(z[k], dtype=dtype)
        self.X, self.Y = t("X"), t("Y")
        self.W0, self.M0 = t("W0"), t("M0")
        self.nu = float(np.asarray(z["nu"]).reshape(-1)[0])
        self.A = self.X.T @ self.X
        self.C = self.X.T @ self.Y
        self.YtY = self.Y.T @ self.Y
        self.d = self.A.shape[0]
        self.I = torch.eye(self.d, dtype=dtype)

    def B(self, W):
        return W @ self.YtY @ W.T + self.nu * self.I

    def f(self, W, M):
        return -torch.sum((M @ self.C) * W)

    def proj(self, W, Z):
        return Z - W @ sym(W.T @ Z)

    def grad_fx(self, W, M):
        return -self.proj(W, M @ self.C)

    def grad_fy(self, W, M):
        return -M @ sym(W @ self.C.T) @ M

    def grad_gy(self, W, M):
        return M @ self.A @ M - self.B(W)

    def hess_inv(self, W, M, V):
        L = torch.linalg.cholesky(M)
        Li = torch.linalg.solve_triangular(L, self.I, upper=False)
        K = M @ self.A @ M + self.B(W)
        lam, Q = torch.linalg.eigh(Li @ K @ Li.T)
        R = Q.T @ (Li @ sym(V) @ Li.T) @ Q
        R = 2 * R / (lam[:, None] + lam[None, :])
        LQ = L @ Q
        return LQ @ R @ LQ.T

    def cross_xy(self, W, M, U):
        Mi = torch.cholesky_inverse(torch.linalg.cholesky(M))
        return -2 * self.proj(W, Mi @ U @ Mi @ W @ self.YtY)

    def lower_step(self, W, M, eta):
        G = self.grad_gy(W, M)
        Mi = torch.cholesky_inverse(torch.linalg.cholesky(M))
        return sym(M - eta * G + 0.5 * eta * eta * G @ Mi @ G)


def qf(Y):
    Q, R = torch.linalg.qr(Y)
    s = torch.sign(torch.diagonal(R))
    s[s == 0] = 1
    return Q * s


def hinv(p, W, M):
    v = p.grad_fy(W, M)
    return p.grad_fx(W, M) - p.cross_xy(W, M, p.hess_inv(W, M, v))


def ad(p, W, M0, S, eta):
    """Autograd through the S lower steps from M0 (which does not depend on W)."""
    Wv = W.detach().requires_grad_(True)
    M = M0.detach()
    for _ in range(S):
        M = p.lower_step(Wv, M, eta)
    (eg,) = torch.autograd.grad(p.f(Wv, M), Wv)
    return p.proj(W, eg), M.detach()


def run(args):
    torch.set_grad_enabled(False)
    # Debian's torch starts with one OpenMP thread here (omp_get_max_threads
    # is 1 on these VMs); use the cores, as rhgd's OpenBLAS does.
    torch.set_num_threads(args.threads)
    dtype = {"float32": torch.float32, "float64": torch.float64}[args.dtype]
    p = Synthetic(args.data, dtype)
    W, M = p.W0.clone(), p.M0.clone()
    rows, times = [], []
    hg0 = None
    start = time.perf_counter()
    reached = False
    for k in range(args.epochs):
        t0 = time.perf_counter()
        if args.estimator == "hinv":
            for _ in range(args.inner):
                M = p.lower_step(W, M, args.eta_y)
            hg = hinv(p, W, M)
        else:
            with torch.enable_grad():
                hg, M = ad(p, W, M, args.inner, args.eta_y)
        f = float(p.f(W, M))
        n = float(torch.linalg.norm(hg))
        W = qf(W - args.eta_x * hg)
        times.append(time.perf_counter() - t0)
        rows.append((k, time.perf_counter() - start, f, n))
        if hg0 is None:
            hg0 = n
        if n != n or f != f:
            print("non-finite value at epoch", k, file=sys.stderr)
            break
        if args.tol > 0 and n <= args.tol * hg0:
            reached = True
            break
    total = time.perf_counter() - start
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("epoch,seconds,upper_objective,hypergradient_norm\n")
            for r in rows:
                fh.write("%d,%.9g,%.17g,%.17g\n" % r)
    print("torch %s %s d=%d threads=%d: epochs %d seconds %.4f median_epoch_s %.6g final_f %.10f final_hg %.4g reached %s"
          % (args.dtype, args.estimator, p.d, torch.get_num_threads(), len(rows), total,
             float(np.median(times)), rows[-1][2], rows[-1][3], reached))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help=".npz from rhgd's synthetic.Save (X, Y, W0, M0, nu)")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--estimator", default="hinv", choices=["hinv", "ad"])
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--inner", type=int, default=20, help="lower steps S per epoch")
    ap.add_argument("--eta-x", type=float, default=0.5)
    ap.add_argument("--eta-y", type=float, default=0.5)
    ap.add_argument("--tol", type=float, default=0, help="stop once ‖ĝ‖ ≤ tol·‖ĝ₀‖ (0: run all epochs)")
    ap.add_argument("--out", help="write the per-epoch history as CSV")
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="torch threads (default: all CPUs)")
    run(ap.parse_args())


if __name__ == "__main__":
    main()

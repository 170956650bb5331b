#!/usr/bin/python3
"""The paper's shallow hyper-representation (Sec. 4.2) side by side: the
authors' code (github.com/andyjm3/rhgd, test_hyrep_spd.py with utils.py,
optimizer.py and manifolds.py) ported to plain torch, against the same
problem written in torch and solved by rhgd (rhgd.torch), and, as a third
column, rhgd's built-in Go problem (problems/hyperrep) — in one process,
on the same data, rounds interleaved.

    min_{W ∈ St(d,r)} f(W, γ*) = 1/(2 n_val) ‖φ_val(W) γ* − y_val‖²,
    γ* = argmin_γ 1/(2 n_tr) ‖φ_tr(W) γ − y_tr‖² + λ/2 ‖γ‖²,
    φ_i(W) = triu(logm(Wᵀ A_i W)).

The port. geoopt and higher are not installable here, so their pieces are
the same mathematics in plain torch (references are to the authors'
repository at the commit fetched, and to geoopt/manifolds/stiefel.py):
  - geoopt.linalg.sym_logm: eigh, log of the eigenvalues (sym_funcm);
  - Stiefel(canonical=False) = geoopt's EuclideanStiefel: proju =
    egrad2rgrad = U − X sym(XᵀU), inner = Σ U∘V, retr = qf(X + U) with
    the QR's R-diagonal signs unflipped (EuclideanStiefel._retr);
  - manifolds.py EuclideanMod (l. 20-25): the identity egrad2rgrad and
    proju, retr x + u, ehess2rhess = ehess;
  - geoopt.ManifoldParameter: a leaf tensor with requires_grad and a
    .manifold attribute;
  - higher: imported by optimizer.py (l. 8) but not used by RHGDstep;
    AD there differentiates the unrolled lower loop with create_graph
    (optimizer.py l. 69-73), which is plain torch and ported as is.
utils.py's dot, autograd, ts_conjugate_gradient (l. 6-17, 84-146),
compute_jvp2 (l. 284-299) and compute_hypergrad2 (l. 302-404), and
optimizer.py's RHGDstep (l. 20-121) are copied with only those
substitutions, plus: CG's per-call print (verbose=1 by default, l. 85) is
off, and the hypergradient error against HINV (compute_hg_error, True by
default, optimizer.py l. 95-101) is not computed inside the timed epoch
(rhgd computes nothing of the kind). The settings are test_hyrep_spd.py's
(l. 150-179): N = 200, d = 50, r = 10, λ = 0.1, η_x = η_y = 0.05, 50 lower
steps, CG 50 iterations (tol 1e-10 on the squared residual of the normal
equations H²v = Hb, utils.py l. 85, 128-133), NS γ = 0.05 with 50 products
(γ Σ_{i=0}^{50} (I − γH)^i b: rhgd's terms = 51), 100 epochs, and the
initial run of 50 lower steps before the first epoch (l. 278-289). The data
follow l. 185-209 (A_i = expm(sym(0.5 G_i)), a hidden W* and γ*, unit label
noise, W0 = the first r columns of I, γ0 ~ N(0, I)), drawn once in float64
from --seed with torch's generator; all three sides get the same tensors.

Figures:
  (a) time per epoch, same estimator and settings: each round runs the
      port, rhgd.torch and the Go problem for --epochs epochs from the same
      start (W0, γ after the initial run); medians over rounds of the
      per-round median epoch. After the first round it prints the largest
      difference of the iterates W and γ between the port and rhgd. NS,
      HINV and AD agree to rounding; CG differs by about 4e-6 after three
      epochs because the authors' CG runs on the normal equations H²v = Hb
      (cond(H) ≈ 320 at the start, so cond(H²) ≈ 1e5) and stops at its
      51 iterations with a relative error of about 8e-5 in H⁻¹b, while
      rhgd's CG on Hv = b meets 1e-10 (it agrees with HINV to 1e-11).
  (b) time to ‖ĝ‖ ≤ --tol·‖ĝ₀‖, ĝ the exact hypergradient at the iterate W
      (y*(W) the ridge solution, H⁻¹ by a linear solve, the cross
      derivative by autograd; one function for both sides, its time not
      counted): rhgd.torch with preset=adaptive (estimator --estimator-b)
      against the port with the paper's settings (--port-b, by default the
      script's default estimator 'hinv'), from (W0, γ0), the port's initial
      run counted; each capped by --cap-epochs and --cap-seconds. rhgd runs
      in two variants: 'auto', every oracle from autograd (the adaptive
      preset then takes Barzilai-Borwein lower steps to a relative
      tolerance), and 'exact', which also gives the closed-form ridge
      solution as lower_solve (a few lines of torch; the authors' HINV uses
      the same closed form), which the preset then uses.

The paper's fixed steps need about 180 epochs to reach 1e-3 on the default
data (the Go problem, whose iterates agree with the port's, shows it in
a minute), so the port's run in (b) is long: it runs once
(--rounds-port-b), rhgd's --rounds-b times.

Run (from the repository, after make lib):
    RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 bench/torch_hyrep.py
"""
import argparse
import math
import os
import sys
import time
import types

import numpy as np
import torch

F64 = torch.float64


# ------------------------------------------------- geoopt pieces, plain torch

def sym(x):
    return 0.5 * (x + x.transpose(-1, -2))


def sym_funcm(x, fn):
    """geoopt.linalg.sym_funcm: V diag(fn(λ)) Vᵀ through eigh."""
    e, v = torch.linalg.eigh(x)
    return v @ torch.diag_embed(fn(e)) @ v.transpose(-1, -2)


def sym_logm(x):
    return sym_funcm(x, torch.log)


class EuclideanStiefel:
    """geoopt Stiefel(canonical=False) (geoopt/manifolds/stiefel.py,
    EuclideanStiefel: _proju, _inner, _retr)."""

    def proju(self, x, u):
        return u - x @ sym(x.transpose(-1, -2) @ u)

    egrad2rgrad = proju

    def inner(self, x, u, v=None):
        return (u * (u if v is None else v)).sum()

    def retr(self, x, u):
        q, r = torch.linalg.qr(x + u)
        unflip = torch.diagonal(r, dim1=-2, dim2=-1).sign().add(0.5).sign()
        return q * unflip[..., None, :]


class EuclideanMod:
    """The authors' manifolds.py EuclideanMod(ndim=1) over geoopt's Euclidean."""

    def proju(self, x, u):
        return u

    egrad2rgrad = proju

    def inner(self, x, u, v=None):
        return (u * (u if v is None else v)).sum()

    def retr(self, x, u):
        return x + u

    def ehess2rhess(self, x, egrad, ehess, u):
        return ehess


def ManifoldParameter(data, manifold):
    """geoopt.ManifoldParameter: a leaf that requires grad, with .manifold."""
    p = data.detach().clone().requires_grad_(True)
    p.manifold = manifold
    return p


# ------------------------------------------------- the authors' utils.py

def dot(tensors_one, tensors_two):
    ret = tensors_one[0].new_zeros((1,), requires_grad=True)
    for t1, t2 in zip(tensors_one, tensors_two):
        ret = ret + torch.sum(t1 * t2)
    return ret


def autograd(outputs, inputs, create_graph=False):
    inputs = tuple(inputs)
    grads = torch.autograd.grad(outputs, inputs, create_graph=create_graph, allow_unused=True)
    return [xx if xx is not None else yy.new_zeros(yy.size()) for xx, yy in zip(grads, inputs)]


@torch.no_grad()
def ts_conjugate_gradient(_hvp, b, base, v0=None, maxiter=200, tol=1e-10, lam=0.0, verbose=0):
    """utils.py l. 84-146: CG on (H + lam)² v = (H + lam) b (verbose off)."""
    def hvp(inputs):
        with torch.enable_grad():
            outputs = _hvp(inputs)
        return [xx + lam * yy for xx, yy in zip(outputs, inputs)]

    with torch.enable_grad():
        Hb = hvp(b)
    v = v0
    if v0 is None:
        v = [hb.new_zeros(hb.size()) for hb in Hb]
    r = [hb.clone().detach() for hb in Hb]
    p = [hb.clone().detach() for hb in Hb]
    rnormprev = [xx.manifold.inner(xx, rr, rr) for xx, rr in zip(base, r)]
    it = 0
    while True:
        with torch.enable_grad():
            HHp = hvp(hvp(p))
        alpha = [rn / xx.manifold.inner(xx, pp, hhpp) for rn, xx, pp, hhpp in zip(rnormprev, base, p, HHp)]
        v = [vv + aa * pp for vv, aa, pp in zip(v, alpha, p)]
        r = [rr - aa * hhpp for rr, aa, hhpp in zip(r, alpha, HHp)]
        rnorm = [xx.manifold.inner(xx, rr, rr) for xx, rr in zip(base, r)]
        if sum(rnorm) < tol:
            if verbose:
                print(f"CG tol reached, break at iter {it}.")
            break
        elif it >= maxiter:
            if verbose:
                print(f"CG tol not reached! Break at max iteration with residual {sum(rnorm):.4f}.")
            break
        beta = [rn / rnprev for rn, rnprev in zip(rnorm, rnormprev)]
        p = [rr + bb * pp for rr, bb, pp in zip(r, beta, p)]
        rnormprev = rnorm
        it += 1
    return v


def batch_egrad2rgrad(params, egrad):
    return [param.manifold.egrad2rgrad(param, eg) for param, eg in zip(params, egrad)]


def compute_jvp2(loss, hparams, params, data, tangents):
    """utils.py l. 284-299: G_xy[tangents] by torch.autograd.functional.jvp."""
    assert len(params) == len(tangents)

    def function(*params):
        grad = autograd(loss(hparams, list(params), data), hparams, create_graph=True)
        return tuple([hparam.manifold.egrad2rgrad(hparam, gg) for hparam, gg in zip(hparams, grad)])

    _, gradxy = torch.autograd.functional.jvp(function, tuple(params), tuple(tangents))
    return gradxy


def compute_hypergrad2(loss_lower, loss_upper, hparams, params, data_lower=None, data_upper=None, option='cg',
                       true_hessinv=None, cg_iter=200, cg_gamma=0., ns_iter=200, ns_gamma=0.01):
    """utils.py l. 302-404."""
    if option == 'ad':
        egradfy = autograd(loss_upper(hparams, params, data_upper), hparams)
        return [hp.manifold.proju(hp, gxy) for hp, gxy in zip(hparams, egradfy)]
    egradfy = autograd(loss_upper(hparams, params, data_upper), params)
    egradfx = autograd(loss_upper(hparams, params, data_upper), hparams)
    rgradfy = batch_egrad2rgrad(params, egradfy)
    rgradfx = batch_egrad2rgrad(hparams, egradfx)
    if option == 'cg':
        def rhess_prod(u):
            egrad = autograd(loss_lower(hparams, params, data_lower), params, create_graph=True)
            ehess = autograd(dot(egrad, u), params)
            out = []
            with torch.no_grad():
                for idx, param in enumerate(params):
                    out.append(param.manifold.ehess2rhess(param, egrad[idx], ehess[idx], u[idx]))
            return out
        Hinv_gy = ts_conjugate_gradient(rhess_prod, rgradfy, params, lam=cg_gamma, maxiter=cg_iter)
    elif option == 'hinv':
        with torch.no_grad():
            Hinv_gy = true_hessinv(loss_lower, hparams, params, data_lower, rgradfy)
    elif option == 'ns':
        def reg_rhess_prod(u):
            egrad = autograd(loss_lower(hparams, params, data_lower), params, create_graph=True)
            ehess = autograd(dot(egrad, u), params)
            out = []
            with torch.no_grad():
                for idx, param in enumerate(params):
                    out.append(u[idx] - ns_gamma * param.manifold.ehess2rhess(param, egrad[idx], ehess[idx], u[idx]))
            return out

        with torch.no_grad():
            Hinv_gy_prev = [g.clone().detach() for g in rgradfy]
            Hinv_gy = [g.clone().detach() for g in rgradfy]
            for ins in range(ns_iter):
                with torch.enable_grad():
                    Hinv_gy_new = reg_rhess_prod(Hinv_gy_prev)
                Hinv_gy = [hg + hg_new for hg, hg_new in zip(Hinv_gy, Hinv_gy_new)]
                Hinv_gy_prev = Hinv_gy_new
            if ns_gamma > 0:
                Hinv_gy = [ns_gamma * hg for hg in Hinv_gy]
    else:
        raise ValueError(option)
    gradgxy = compute_jvp2(loss_lower, hparams, params, data_lower, Hinv_gy)
    gradgxy_proj = [hp.manifold.proju(hp, gxy) for hp, gxy in zip(hparams, gradgxy)]
    return [g1 - g2 for g1, g2 in zip(rgradfx, gradgxy_proj)]


# ------------------------------------------------- the authors' optimizer.py

def RHGDstep(loss_lower, loss_upper, hparams, params, args, data=None, true_hessinv=None):
    """optimizer.py l. 20-121 (full data; compute_hg_error off)."""
    data_lower, data_upper = data
    mfd_params = [param.manifold for param in params]
    mfd_hparams = [hparam.manifold for hparam in hparams]
    step_start_time = time.perf_counter()
    for ii in range(args.lower_iter):
        if args.hygrad_opt == 'ad':
            grad = autograd(loss_lower(hparams, params, data_lower), params, create_graph=True)
            rgrad = [mfd.egrad2rgrad(param, egrad) for mfd, egrad, param in zip(mfd_params, grad, params)]
            params = [mfd.retr(param, - args.eta_y * rg) for mfd, param, rg in zip(mfd_params, params, rgrad)]
        else:
            grad = autograd(loss_lower(hparams, params, data_lower), params)
            with torch.no_grad():
                for param, egrad in zip(params, grad):
                    rgrad = param.manifold.egrad2rgrad(param, egrad)
                    new_param = param.manifold.retr(param, -args.eta_y * rgrad)
                    param.copy_(new_param)
    hypergrad = compute_hypergrad2(loss_lower, loss_upper, hparams, params, data_lower=data_lower,
                                   data_upper=data_upper, option=args.hygrad_opt, true_hessinv=true_hessinv,
                                   cg_iter=args.cg_iter, cg_gamma=args.cg_gamma, ns_gamma=args.ns_gamma,
                                   ns_iter=args.ns_iter)
    params = [ManifoldParameter(p.detach().clone(), manifold=mfd) for mfd, p in zip(mfd_params, params)]
    with torch.no_grad():
        for hparam, hg in zip(hparams, hypergrad):
            new_hparam = hparam.manifold.retr(hparam, - args.eta_x * hg)
            hparam.copy_(new_hparam)
        loss_u = loss_upper(hparams, params, data_upper).item()
        hgradnorm = sum(m.inner(hp, hg).item() for m, hp, hg in zip(mfd_hparams, hparams, hypergrad)) / len(hparams)
    step_time = time.perf_counter() - step_start_time
    hparams = [ManifoldParameter(hparam.detach().clone(), manifold=mfd) for mfd, hparam in zip(mfd_hparams, hparams)]
    params = [ManifoldParameter(param.detach().clone(), manifold=mfd) for mfd, param in zip(mfd_params, params)]
    return hparams, params, loss_u, hgradnorm, step_time


# ------------------------------------------------- test_hyrep_spd.py

def vec(X):
    d = X.shape[-1]
    iu = torch.triu_indices(d, d)
    return X[..., iu[0], iu[1]]


def shallowSPDnet(hparams, params, A):
    W = hparams[0]
    Z = W.transpose(-1, -2) @ A @ W
    return vec(sym_logm(Z))


class Authors:
    """test_hyrep_spd.py's losses (l. 119-144) on the data, and the run."""

    def __init__(self, data, lam, dtype=F64):
        t = lambda k: torch.as_tensor(data[k]).to(dtype)
        A, y, nt = t("A"), t("y"), int(data["n_train"][0])
        self.data_lower, self.data_upper = [A[:nt], y[:nt]], [A[nt:], y[nt:]]
        self.W0, self.gamma0, self.lam, self.dtype = t("W0"), t("beta0"), lam, dtype

    def loss_lower(self, hparams, params, data):
        data_X, data_y = data
        gamma = params[0]
        pred = shallowSPDnet(hparams, params, data_X)
        return 0.5 * torch.norm(pred @ gamma - data_y) ** 2 / data_X.shape[0] + 0.5 * self.lam * torch.norm(gamma) ** 2

    def loss_upper(self, hparams, params, data):
        data_X, data_y = data
        gamma = params[0]
        pred = shallowSPDnet(hparams, params, data_X)
        return 0.5 * torch.norm(pred @ gamma - data_y) ** 2 / data_X.shape[0]

    def true_hessinv(self, loss_lower, hparams, params, data_lower, tangents):
        data_X, data_y = data_lower
        predg = shallowSPDnet(hparams, params, data_X)
        ehessg = (predg.transpose(-1, -2) @ predg) / data_X.shape[0] + self.lam * torch.eye(predg.shape[1], dtype=predg.dtype)
        return [torch.linalg.solve(ehessg, tangents[0])]

    def start(self, W=None, gamma=None):
        W = self.W0 if W is None else torch.as_tensor(W).to(self.dtype)
        gamma = self.gamma0 if gamma is None else torch.as_tensor(gamma).to(self.dtype)
        return [ManifoldParameter(W, EuclideanStiefel())], [ManifoldParameter(gamma, EuclideanMod())]

    def initial_run(self, hparams, params, args):
        """test_hyrep_spd.py l. 278-291: lower_iter lower steps before epoch 0."""
        for ii in range(args.lower_iter):
            grad = autograd(self.loss_lower(hparams, params, self.data_lower), params)
            with torch.no_grad():
                for param, egrad in zip(params, grad):
                    param.copy_(param.manifold.retr(param, -args.eta_y * param.manifold.egrad2rgrad(param, egrad)))
        return [ManifoldParameter(p.detach().clone(), manifold=p.manifold) for p in params]

    def step(self, hparams, params, args):
        return RHGDstep(self.loss_lower, self.loss_upper, hparams, params, args,
                        data=[self.data_lower, self.data_upper], true_hessinv=self.true_hessinv)

    def true_hypergrad(self, W):
        """The exact Riemannian hypergradient of F(W) = f(W, γ*(W)): γ*(W)
        the ridge solution, v = H⁻¹∇_γ f, grad F = P_W(∇_W f − ∇²_Wγ g·v)."""
        W = torch.as_tensor(W).to(F64)
        with torch.no_grad():
            X, y = self.data_lower
            phi = shallowSPDnet([W], None, X.to(F64))
            H = phi.T @ phi / X.shape[0] + self.lam * torch.eye(phi.shape[1], dtype=F64)
            gamma = torch.linalg.solve(H, phi.T @ y.to(F64) / X.shape[0])
        Wt, gt = W.clone().requires_grad_(True), gamma.clone().requires_grad_(True)
        dl = [d.to(F64) for d in self.data_lower]
        du = [d.to(F64) for d in self.data_upper]
        gfx, gfy = torch.autograd.grad(self.loss_upper([Wt], [gt], du), (Wt, gt))
        v = torch.linalg.solve(H, gfy)
        (ggy,) = torch.autograd.grad(self.loss_lower([Wt], [gt], dl), gt, create_graph=True)
        (cross,) = torch.autograd.grad(ggy @ v, Wt)
        return EuclideanStiefel().proju(W, gfx - cross).detach()


# ------------------------------------------------- data and the rhgd sides

def make_data(N=200, d=50, r=10, n_train=100, seed=9, noise=1.0):
    """test_hyrep_spd.py l. 185-209 in float64: geoopt's SPD random
    (expm(sym(0.5 G))), Stiefel random (Q of a normal d×r), γ* and γ0
    standard normal, W0 = I[:, :r]."""
    gen = torch.Generator().manual_seed(seed)
    A = sym_funcm(sym(0.5 * torch.randn(N, d, d, generator=gen, dtype=F64)), torch.exp)
    A = sym(A)
    Wstar = torch.linalg.qr(torch.randn(d, r, generator=gen, dtype=F64))[0]
    m = r * (r + 1) // 2
    gammastar = torch.randn(m, generator=gen, dtype=F64)
    y = vec(sym_logm(Wstar.T @ A @ Wstar)) @ gammastar + noise * torch.randn(N, generator=gen, dtype=F64)
    gamma0 = torch.randn(m, generator=gen, dtype=F64)
    return dict(A=A.numpy(), y=y.numpy(), W0=torch.eye(d, r, dtype=F64).numpy(), beta0=gamma0.numpy(),
                n_train=np.array([float(n_train)]))


def torch_problem(data, lam):
    """f and g as a user writes them for rhgd.torch (full sums)."""
    import rhgd
    import rhgd.torch
    A, lab = torch.from_numpy(data["A"]), torch.from_numpy(data["y"])
    nt, d, r = int(data["n_train"][0]), A.shape[1], data["W0"].shape[1]
    Atr, Aval, ytr, yval = A[:nt], A[nt:], lab[:nt], lab[nt:]
    iu = torch.triu_indices(r, r)

    def features(W, As):  # rhgd.torch.logm, as python/README.md advises (the port keeps eigh)
        return rhgd.torch.logm(W.T @ As @ W)[:, iu[0], iu[1]]

    def f(W, beta):
        return 0.5 * torch.mean((features(W, Aval) @ beta - yval) ** 2)

    def g(W, beta):
        return 0.5 * torch.mean((features(W, Atr) @ beta - ytr) ** 2) + 0.5 * lam * beta @ beta

    def hess_gy_inv(W, beta, v):
        phi = features(W, Atr)
        return torch.linalg.solve(phi.T @ phi / nt + lam * torch.eye(phi.shape[1], dtype=F64), v)

    def lower_solve(W, beta):  # the ridge solution γ*(W), for the adaptive preset's exact lower solve
        phi = features(W, Atr)
        return torch.linalg.solve(phi.T @ phi / nt + lam * torch.eye(phi.shape[1], dtype=F64), phi.T @ ytr / nt)

    return f, g, hess_gy_inv, rhgd.Stiefel(d, r), rhgd.Euclidean(r * (r + 1) // 2), lower_solve


def rhgd_spec(est, a):
    return {"cg": f"cg:maxiter={a.cg_iter},tol=1e-10", "ns": f"ns:gamma={a.ns_gamma},terms={a.ns_iter + 1},power=-1",
            "hinv": "hinv", "ad": "ad"}[est]


def per_epoch(hist):
    e = np.diff(np.concatenate([[0.0], hist["elapsed"]]))
    return float(np.median(e))


def run_rhgd_torch(tp, est, W, g0, a, epochs, callback=None):
    import rhgd.torch as rt
    f, g, hinv, mx, my, _ = tp
    r = rt.minimize(f, g, mx, my, W, g0, estimator=rhgd_spec(est, a), hess_gy_inv=hinv if a.user_hinv else None,
                    eta_x=a.eta_x, eta_y=a.eta_y, inner=a.lower_iter, epochs=epochs, callback=callback)
    return r


def run_rhgd_go(gp, est, W, g0, a, epochs):
    import rhgd
    return rhgd.Solver(gp, rhgd_spec(est, a), eta_x=a.eta_x, eta_y=a.eta_y, inner=a.lower_iter,
                       epochs=epochs).run(W, g0)


def run_port(port, est, W, g0, a, epochs):
    args = types.SimpleNamespace(lower_iter=a.lower_iter, eta_x=a.eta_x, eta_y=a.eta_y, hygrad_opt=est,
                                 cg_iter=a.cg_iter, cg_gamma=0.0, ns_iter=a.ns_iter, ns_gamma=a.ns_gamma)
    hp, pp = port.start(W, g0)
    times, losses = [], []
    for _ in range(epochs):
        hp, pp, loss_u, _, st = port.step(hp, pp, args)
        times.append(st)
        losses.append(loss_u)
    return float(np.median(times)), hp[0].detach().numpy(), pp[0].detach().numpy()


def figure_a(a, data, port, tp, gp, out):
    args = types.SimpleNamespace(lower_iter=a.lower_iter, eta_y=a.eta_y)
    hp, pp = port.start()
    y_init = port.initial_run(hp, pp, args)[0].detach().numpy()
    W0 = data["W0"]
    for est in a.estimators:
        med = {"port": [], "torch": [], "go": []}
        for rnd in range(a.rounds):
            tport, Wp, yp = run_port(port, est, W0, y_init, a, a.epochs)
            rt_ = run_rhgd_torch(tp, est, W0, y_init, a, a.epochs)
            med["port"].append(tport)
            med["torch"].append(per_epoch(rt_.history))
            if gp is not None:
                rg = run_rhgd_go(gp, est, W0, y_init, a, a.epochs)
                med["go"].append(per_epoch(rg.history))
            if rnd == 0:
                # The port's γ is the last epoch's lower iterate; rhgd's
                # result y goes with its final x (one more lower solve), so
                # compare with its last epoch's, seen by a callback (an
                # untimed run).
                last = {}
                run_rhgd_torch(tp, est, W0, y_init, a, a.epochs, callback=lambda info: last.update(y=info["y"]))
                dW = float(np.max(np.abs(Wp - rt_.x)))
                dy = float(np.max(np.abs(yp - np.asarray(last["y"]))))
                line = (f"{est}: after {a.epochs} epochs max|W_port − W_rhgd.torch| = {dW:.3e}, "
                        f"max|γ_port − γ_rhgd.torch| = {dy:.3e}")
                if gp is not None:
                    line += f", max|W_port − W_go| = {float(np.max(np.abs(Wp - rg.x))):.3e}"
                print(line, flush=True)
                out.setdefault("agree", {})[est] = dW
        m = {k: float(np.median(v)) for k, v in med.items() if v}
        out.setdefault("a", {})[est] = m
        print(f"{est}: per-epoch medians (s): " + ", ".join(f"{k} {v:.4g}" for k, v in m.items()), flush=True)


def figure_b(a, data, port, tp, out):
    import rhgd.torch as rt
    W0, g0 = data["W0"], data["beta0"]
    hg0 = float(torch.linalg.norm(port.true_hypergrad(W0)))
    target = a.tol * hg0
    print(f"‖ĝ₀‖ = {hg0:.6g} (exact, at W0); target {target:.3g}", flush=True)
    res = {}
    f, g, _, mx, my, lower = tp

    def rhgd_run(variant):
        state = {"excl": 0.0, "hit": None, "epochs": 0, "hg": None, "total": float("nan")}
        t0 = time.perf_counter()

        def cb(info):
            c0 = time.perf_counter()
            n = float(torch.linalg.norm(port.true_hypergrad(info["x"])))
            state["epochs"] += 1
            state["hg"] = n / hg0
            state["total"] = c0 - t0 - state["excl"]
            if n <= target:
                state["hit"] = state["total"]
            state["excl"] += time.perf_counter() - c0
            return n <= target or state["total"] > a.cap_seconds

        extra = {"lower_solve": lower} if variant == "exact" else {}
        rt.minimize(f, g, mx, my, W0, g0, estimator=rhgd_spec(a.estimator_b, a), callback=cb, preset="adaptive",
                    eta_x=a.eta_x, eta_y=a.eta_y, inner=a.lower_iter, epochs=a.cap_epochs_rhgd, **extra)
        return state

    def port_run(est):
        args = types.SimpleNamespace(lower_iter=a.lower_iter, eta_x=a.eta_x, eta_y=a.eta_y, hygrad_opt=est,
                                     cg_iter=a.cg_iter, cg_gamma=0.0, ns_iter=a.ns_iter, ns_gamma=a.ns_gamma)
        t0 = time.perf_counter()
        hp, pp = port.start(W0, g0)
        pp = port.initial_run(hp, pp, args)
        excl, hit, ep, n = 0.0, None, 0, float("nan")
        while ep < a.cap_epochs and time.perf_counter() - t0 - excl < a.cap_seconds:
            hp, pp, *_ = port.step(hp, pp, args)
            ep += 1
            c0 = time.perf_counter()
            n = float(torch.linalg.norm(port.true_hypergrad(hp[0].detach())))
            if n <= target:
                hit = c0 - t0 - excl
            excl += time.perf_counter() - c0
            if hit is not None:
                break
        return {"hit": hit, "epochs": ep, "hg": n / hg0, "total": time.perf_counter() - t0 - excl}

    # Rounds interleaved; the port's runs are long (the paper's fixed steps
    # need about 180 epochs here), so it runs in the first --rounds-port-b.
    for rnd in range(a.rounds_b):
        for variant in a.rhgd_b:
            st = rhgd_run(variant)
            res.setdefault("rhgd-" + variant, []).append(st)
            print(f"rhgd.torch adaptive ({a.estimator_b}, {variant}) round {rnd}: reached {st['hit'] is not None} "
                  f"in {st['epochs']} epochs, {st['total']:.4g} s, ‖ĝ‖/‖ĝ₀‖ = {st['hg']:.3g}", flush=True)
        if rnd < a.rounds_port_b:
            for est in a.port_b:
                st = port_run(est)
                res.setdefault("port-" + est, []).append(st)
                print(f"port {est} round {rnd}: reached {st['hit'] is not None} in {st['epochs']} epochs, "
                      f"{st['total']:.4g} s, ‖ĝ‖/‖ĝ₀‖ = {st['hg']:.3g}", flush=True)
    out["b"] = res


def fmt_b(states):
    """Median seconds to the target, or '> t (not reached in E epochs)'."""
    hits = [s["hit"] for s in states if s["hit"] is not None]
    if len(hits) == len(states):
        return float(np.median(hits)), f"{np.median(hits):.3g} s ({states[0]['epochs']} epochs)"
    tot = float(np.median([s.get("total", float("nan")) for s in states]))
    return None, f"> {tot:.3g} s (not reached in {states[0]['epochs']} epochs, ‖ĝ‖/‖ĝ₀‖ = {states[0]['hg']:.2g})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--N", type=int, default=200)
    ap.add_argument("--d", type=int, default=50)
    ap.add_argument("--r", type=int, default=10)
    ap.add_argument("--lam", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--eta-x", type=float, default=0.05)
    ap.add_argument("--eta-y", type=float, default=0.05)
    ap.add_argument("--lower-iter", type=int, default=50)
    ap.add_argument("--cg-iter", type=int, default=50)
    ap.add_argument("--ns-iter", type=int, default=50)
    ap.add_argument("--ns-gamma", type=float, default=0.05)
    ap.add_argument("--estimators", default="cg,ns,hinv,ad", help="figure (a)'s estimators")
    ap.add_argument("--epochs", type=int, default=3, help="epochs per round in figure (a)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--user-hinv", action="store_true",
                    help="rhgd.torch's hinv from the hand-written inverse Hessian (by default it derives its own: "
                         "the lower level is Euclidean, of r(r+1)/2 coordinates)")
    ap.add_argument("--no-go", action="store_true", help="skip the built-in Go problem column")
    ap.add_argument("--figures", default="a,b")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--estimator-b", default="cg", help="rhgd's estimator under the adaptive preset")
    ap.add_argument("--rhgd-b", default="auto,exact",
                    help="rhgd's variants in figure (b): auto (every oracle from autograd) and/or exact (also "
                         "the closed-form ridge lower_solve, which the adaptive preset then uses)")
    ap.add_argument("--port-b", default="hinv", help="the port's estimators in figure (b) (its default: hinv)")
    ap.add_argument("--rounds-b", type=int, default=3)
    ap.add_argument("--rounds-port-b", type=int, default=1)
    ap.add_argument("--cap-epochs", type=int, default=400, help="the port's epochs cap")
    ap.add_argument("--cap-epochs-rhgd", type=int, default=1000)
    ap.add_argument("--cap-seconds", type=float, default=600)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    a = ap.parse_args(argv)
    a.estimators = [e for e in a.estimators.split(",") if e]
    a.port_b = [e for e in a.port_b.split(",") if e]
    a.rhgd_b = [e for e in a.rhgd_b.split(",") if e]
    torch.set_num_threads(a.threads)
    import rhgd
    data = make_data(a.N, a.d, a.r, a.N // 2, a.seed)
    port = Authors(data, a.lam)
    tp = torch_problem(data, a.lam)
    gp = None if a.no_go else rhgd.builtin("hyperrep", data=data, **{"lambda": a.lam})
    print(f"hyperrep N={a.N} d={a.d} r={a.r} λ={a.lam} seed={a.seed}, torch {torch.__version__} "
          f"threads={torch.get_num_threads()}", flush=True)
    out = {}
    if "a" in a.figures:
        figure_a(a, data, port, tp, gp, out)
    if "b" in a.figures:
        figure_b(a, data, port, tp, out)
    cmd = "RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 bench/torch_hyrep.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    print()
    print("| figure | authors' code (port) | rhgd.torch | ratio port/rhgd.torch | rhgd built-in Go |")
    print("|---|---|---|---|---|")
    for est, m in out.get("a", {}).items():
        go = f"{m['go'] * 1e3:.3g} ms" if "go" in m else "—"
        print(f"| s/epoch, {est} | {m['port'] * 1e3:.4g} ms | {m['torch'] * 1e3:.4g} ms | "
              f"{m['port'] / m['torch']:.3g}× | {go} |")
    if "b" in out:
        for pk, pv in out["b"].items():
            if not pk.startswith("port-"):
                continue
            psec, ptxt = fmt_b(pv)
            for rk, rv in out["b"].items():
                if not rk.startswith("rhgd-"):
                    continue
                rsec, rtxt = fmt_b(rv)
                if psec is not None and rsec is not None:
                    ratio = f"{psec / rsec:.3g}×"
                elif rsec is not None:
                    ratio = f"> {np.median([s['total'] for s in pv]) / rsec:.3g}×"
                else:
                    ratio = "—"
                print(f"| time to ‖ĝ‖ ≤ {a.tol:g}‖ĝ₀‖: {pk[5:]}, paper settings vs adaptive "
                      f"({a.estimator_b}, {rk[5:]}) | {ptxt} | {rtxt} | {ratio} | — |")
    print(f"\ncommand: {cmd}")
    return out


if __name__ == "__main__":
    main()

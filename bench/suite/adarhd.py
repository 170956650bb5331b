"""AdaRHD (Shi, Xiao and Jiang, "An Adaptive Algorithm for Bilevel
Optimization on Riemannian Manifolds", NeurIPS 2025), ported from the
authors' code (github.com/JQ-ux/AdaRHD-S at 3b4558f:
src/AdaRHD_optimizer.py AdaRHDstep, src/AdaRHD_utils.py
ts_conjugate_gradient and compute_hypergrad_v, and the driver
run_simple_spd_gr_AdaRHD.py) to rhgd's Python API: the problem's
Riemannian oracles and rhgd's manifolds (retract, inner) in place of
torch autograd and geoopt.

The authors' driver first runs y_subiter = 50 lower steps of fixed size
1/β₀ from y₀ ("initial run"); that is ``warmup=True``, off by default:
with the driver's β₀ = 2 those fixed steps diverge on hyperrep (the
suite's full run had ‖grad F‖ grow to 1e92 there), where the algorithm's
own adaptive steps do not. Each outer iteration k (AdaRHDstep):

- lower loop: from the current y and β = β₀ (the authors' step restarts
  β at args.beta every outer iteration), at most ``y_cap`` steps
  y ← R_y(−(1/β) grad_y g), then β² ← β² + ‖grad_y g‖², until
  ‖grad_y g‖² ≤ tol_y = 1/K (checked after the step on the gradient it
  used); the cap starts at y_subiter = 50 and grows by 50 every 5
  iterations up to 500 (the driver);
- linear system: H v = grad_y f by Riemannian CG from v = 0, stopping at
  ‖r‖² < tol_v = 1e-10 or v_subiter = 50 iterations
  (ts_conjugate_gradient; v_reg = 0);
- ĝ = grad_x f − G_xy g[v]; x ← R_x(−(1/α) ĝ); then α² ← α² + ‖ĝ‖²
  unless ‖ĝ‖² > 5‖ĝ₁‖² (the driver's hygrad_flag), α₀ = 2;
- the driver stops once ‖ĝ‖² < 1e-4; here the suite's tolerance on the
  true hypergradient stops it instead (``stop_sq`` keeps the authors'
  rule available).

Oracles go through SuiteProblem.oracle, so they are counted by kind like
rhgd's: upper_grads (a grad_fx, grad_fy pair), lower_grads, hess_vecs,
cross_vecs.
"""

import numpy as np


def _cg(hvp, b, inner, maxiter, tol):
    """ts_conjugate_gradient with v0 = 0 and v_reg = 0: H v = b in the
    metric inner at y, stopping at ‖r‖² < tol or after maxiter + 1
    products."""
    v = np.zeros_like(b)
    r, p = b.copy(), b.copy()
    rn_prev = inner(r, r)
    it = 0
    while True:
        hp = hvp(p)
        a = rn_prev / inner(p, hp)
        v = v + a * p
        r = r - a * hp
        rn = inner(r, r)
        if rn < tol or it >= maxiter:
            return v
        p = r + (rn / rn_prev) * p
        rn_prev = rn
        it += 1


def adarhd(problem, budget, alpha0=2.0, beta0=2.0, y_subiter=50, v_subiter=50, tol_v=1e-10, epochs=1000,
           stop_sq=None, warmup=False):
    """AdaRHD on a SuiteProblem: yields {"x", "y", "calls"} at each outer
    iteration, x_k at which ĝ was computed (before its step) and the
    lower iterate y it used, as rhgd's epoch callback does. K = epochs sets tol_y =
    1/K as in the authors' driver (their CG runs use K = 1000)."""
    mx, my = problem.mx, problem.my
    x, y = problem.x0.copy(), problem.y0.copy()
    tol_y = 1.0 / epochs
    alpha, cap, g1 = alpha0, y_subiter, None
    for _ in range(y_subiter if warmup else 0):  # the driver's "initial run": fixed steps 1/β₀ on y
        y = my.retract(y, problem.oracle("grad_gy", x, y), -1.0 / beta0)
    for k in range(1, min(epochs, budget.epochs) + 1):
        beta = beta0
        for _ in range(cap):
            gy = problem.oracle("grad_gy", x, y)
            gn = my.inner(y, gy, gy)
            y = my.retract(y, gy, -1.0 / beta)
            beta = np.sqrt(beta ** 2 + gn)
            if gn <= tol_y:
                break
        fx, fy = problem.oracle("grad_fx", x, y), problem.problem.oracle("grad_fy", x, y)
        v = _cg(lambda u: problem.oracle("hess_gy", x, y, u), fy, lambda a, b: my.inner(y, a, b), v_subiter, tol_v)
        hg = mx.project(x, fx - problem.oracle("cross_gxy", x, y, v))
        hn = mx.inner(x, hg, hg)
        if not np.isfinite(hn):
            raise FloatingPointError(f"AdaRHD: ‖ĝ‖² = {hn} at iteration {k}")
        yield dict(x=x, y=y, calls=dict(problem.calls))
        x = mx.retract(x, hg, -1.0 / alpha)
        if g1 is None:
            g1 = hn
        if hn <= 5 * g1:
            alpha = np.sqrt(alpha ** 2 + hn)
        if stop_sq is not None and hn < stop_sq:
            return
        if k % 5 == 0:
            cap = min(cap + 50, 500)

"""The suite's problems: rhgd's built-in ones, benchopt's quadratic
(bench/bilevel_quadratic.py) and two small problems of the suite's own on
the Grassmann manifold and the probability simplex, each with a known
solution.

A problem is a ``SuiteProblem``: an rhgd Problem (so that rhgd's own
methods run on it) with what the suite measures — the true hypergradient
grad F(x) = grad_x f − G_xy g[H⁻¹ grad_y f] at the exact lower solution
y*(x), computed outside any method — and what an outside method needs:
the manifolds (rhgd's, with their retractions), the start, counted
oracles. Problems hold library handles and cannot be pickled, so a Dask
task names a problem (``make(name, size)``) and builds it in its worker.
"""

import collections

import numpy as np
import scipy.linalg

import rhgd

# The built-in problems, in the catalog's order, and their parameters at
# the suite's two sizes: "full" is the problem's defaults (the paper's
# sizes); "small" the tiny sizes of make test's configuration.
BUILTIN_SMALL = {
    "synthetic": dict(n=20, d=5, r=2),
    "hyperrep": dict(d=8, k=3, n=40, ntrain=20),
    "domainadapt": dict(),
    "minmax": dict(n=8, p=3),
    "karcher": dict(n=4, count=5),
    "spdnet": dict(d1=6, d2=3),
    "meta": dict(tasks=4, test_tasks=2),
    "plstiefel": dict(),
}

# The suite's own problems.
OWN = ("quadratic", "grassmann", "simplex")

NAMES = tuple(BUILTIN_SMALL) + OWN


class SuiteProblem:
    """One problem of the suite.

    Attributes an outside method reads: ``name``; ``problem`` (the rhgd
    Problem); ``mx``, ``my`` (rhgd manifolds: ``retract``, ``inner``,
    ``norm``, ``project``); ``x0``, ``y0`` (the start every method runs
    from); ``euclidean`` (both levels Euclidean); ``benchopt``, (G, F) in
    benchopt's Quadratic interface where the problem is benchopt's
    quadratic, else None; ``calls``, a Counter of the oracle calls made
    through ``oracle``, by kind (upper_grads: one per grad_fx/grad_fy
    pair, counted at grad_fx; lower_grads; hess_vecs; cross_vecs;
    lower_solves).

    What the suite measures: ``true_hypergrad(x, y)`` (None where the
    problem has no exact lower solution), ``solution_error(x)`` (the
    distance to the known solution relative to the start's, None where
    unknown), ``accuracy(x, y)`` (a classifier's percent, None
    elsewhere) and ``sample_calls()`` (benchopt's sample-oracle count,
    which replaces the counts by kind on its problem; None elsewhere).
    """

    _KIND = {"grad_fx": "upper_grads", "grad_gy": "lower_grads", "hess_gy": "hess_vecs",
             "cross_gxy": "cross_vecs", "lower_solve": "lower_solves"}

    def __init__(self, name, problem, x0, y0, *, settings=None, estimators=("hinv", "cg", "ns", "ad"),
                 describe=None):
        self.name, self.problem = name, problem
        self.mx, self.my = problem.mx, problem.my
        self.x0, self.y0 = np.array(x0, dtype=float), np.array(y0, dtype=float)
        self.settings = dict(settings or {})
        self.estimators = tuple(estimators)
        self.describe = describe or problem.describe
        self.euclidean = self.mx.spec.startswith("euclid") and self.my.spec.startswith("euclid")
        self.benchopt = None
        self.calls = collections.Counter()

    def oracle(self, name, x, y, v=None):
        """The problem's Riemannian oracle (rhgd.Problem.oracle), counted."""
        kind = self._KIND.get(name)
        if kind is not None:
            self.calls[kind] += 1
        return self.problem.oracle(name, x, y, v)

    def sample_calls(self):
        return None

    def true_hypergrad(self, x, y):
        """grad F(x) by HINV at the exact lower solution (y the warm start),
        for problems with both; outside every method's counts, on the
        problem's twin (a second instance of the same problem: rhgd's own
        runs hold the problem's handle while their callback measures)."""
        t = self.twin()
        ystar = t.oracle("lower_solve", x, y)
        return rhgd.hypergradient(t, x, ystar, "hinv")

    def twin(self):
        return self.problem

    def solution_error(self, x):
        return None

    def accuracy(self, x, y):
        return None


class Builtin(SuiteProblem):
    """A built-in problem with its paper settings; the classifiers'
    accuracy as their final accuracy."""

    def __init__(self, name, size):
        params = BUILTIN_SMALL[name] if size == "small" else {}
        p = rhgd.builtin(name, **params)
        x0, y0 = p.start()
        settings = {}
        if size == "small":
            settings["epochs"] = 2 if name in ("domainadapt", "spdnet") else 30
        super().__init__(name, p, x0, y0, settings=settings,
                         estimators=("gda", "hinv", "cg", "ns") if name == "minmax" else
                         ("cg", "ns", "ad") if name == "plstiefel" else ("hinv", "cg", "ns", "ad"))
        self._params, self._twin = params, None
        self._classifier = name in ("domainadapt", "spdnet", "meta")
        if name == "plstiefel":
            self.true_hypergrad = self._pinv_hypergrad

    def twin(self):
        """The same built-in problem built a second time (same data and
        seed), for the measurements."""
        if self._twin is None:
            self._twin = rhgd.builtin(self.name, **self._params)
        return self._twin

    def accuracy(self, x, y):
        if not self._classifier:
            return None
        try:
            return self.problem.accuracy(x, y)
        except rhgd.InvalidArgument:
            return None

    def _pinv_hypergrad(self, x, y):
        """grad F(x) = grad_x f − G_xy g[H⁺ grad_y f] at y*(x), H the lower
        Hessian assembled from hess_gy on R^m and pseudo-inverted: the
        implicit hypergradient of a PL lower level (plstiefel's closed
        form P_x(D + BᵀQQᵀ(Bx − c)), which the test checks)."""
        p = self.twin()
        ystar = p.oracle("lower_solve", x, y)
        m = ystar.size
        H = np.column_stack([p.oracle("hess_gy", x, ystar, e.reshape(ystar.shape)).ravel()
                             for e in np.eye(m)])
        v = np.linalg.pinv(0.5 * (H + H.T), rcond=1e-10) @ p.oracle("grad_fy", x, ystar).ravel()
        return p.oracle("grad_fx", x, ystar) - p.oracle("cross_gxy", x, ystar, v.reshape(ystar.shape))


class Quadratic(SuiteProblem):
    """benchopt's quadratic bilevel problem (bench/bilevel_quadratic.py's
    make_problem: its sizes at "full", --quick's n = 128, d = 10 at
    "small"), given to rhgd as full-sum numpy callbacks with hinv and
    lower_solve from a Cholesky factor of H_G. Counts are benchopt's
    sample-oracle calls for every method (a full-sum oracle counts n),
    the true hypergradient and the solution x* = argmin h are closed
    forms."""

    def __init__(self, size):
        import bilevel_quadratic as bq
        kw = dict(n_inner=128, n_outer=128, dim_inner=10, dim_outer=10) if size == "small" else {}
        G, F, info = bq.make_problem(**kw)
        self.metric = bq.Metric(G, F)
        p = bq.rhgd_problem(rhgd, G, F, finite_sum=False, exact=True)
        x0, z0 = -2.0 * np.ones(F.C.shape[0]), np.zeros(G.C.shape[1])
        n, d = G.n, G.C.shape[1]
        super().__init__("quadratic", p, x0, z0,
                         settings=dict(eta_x=0.1, eta_y=0.5, inner=10, **_epochs(size)),
                         describe=f"benchopt quadratic: R^{F.C.shape[0]} × R^{d}, n_in = n_out = {n}, seed 2442")
        self.benchopt = (G, F)
        H = self.metric.hessian()
        xs = x0 - np.linalg.solve(H, self.metric.grad_h(x0))
        self.xstar, self.dist0 = xs, float(np.linalg.norm(x0 - xs))

    def sample_calls(self):
        G, F = self.benchopt
        return G.calls + F.calls

    def true_hypergrad(self, x, y):
        return self.metric.grad_h(x)

    def solution_error(self, x):
        return float(np.linalg.norm(x - self.xstar)) / self.dist0


def _epochs(size):
    """The suite's own problems' epoch limit: 60 at "small"; at "full" the
    suite's budget (its time cap and tolerance) ends the runs."""
    return dict(epochs=60) if size == "small" else {}


def _target(k, seed):
    rng = np.random.default_rng(seed)
    return rng, 0.5 * rng.standard_normal(k)


class GrassmannProblem(SuiteProblem):
    """x ∈ R^k, y ∈ Gr(n, p):

        g(x, y) = −½ tr(yᵀ A(x) y),  A(x) = A₀ + Σ_i x_i A_i,
        f(x, y) = ½‖yyᵀ − P_t‖²_F + (μ/2)‖x − x_t‖²,

    y*(x) the top-p eigenspace of A(x) (A₀ has a gap of 1 after its p-th
    eigenvalue, the A_i are small, so the gap stays open near x_t), P_t
    the projector onto y*(x_t). F(x) ≥ (μ/2)‖x − x_t‖² and F(x_t) = 0:
    x* = x_t is the known solution. The Riemannian inverse Hessian of g
    (hess_gy_inv) solves the Sylvester equation −A⊥ Z + Z (yᵀAy) = Y⊥ᵀw
    for v = Y⊥Z; the true hypergradient is the closed form ∂F/∂x_i =
    ⟨P − P_t, dP[A_i]⟩ + μ(x − x_t)_i, dP from the eigenpairs."""

    def __init__(self, size, n=8, p=2, k=3, mu=0.1, seed=7):
        if size == "full":
            n, p, k = 30, 5, 10
        rng, xt = _target(k, seed)
        Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
        lam = np.r_[np.linspace(3, 2, p), np.linspace(1, 0, n - p)]
        A0 = (Q * lam) @ Q.T
        As = []
        for _ in range(k):
            S = rng.standard_normal((n, n))
            As.append(0.15 * (S + S.T) / np.sqrt(2 * n))
        self.A0, self.As, self.xt, self.mu, self.p = A0, np.array(As), xt, mu, p
        Yt = self._top(xt)
        self.Pt = Yt @ Yt.T
        x0 = np.zeros(k)
        mx, my = rhgd.Euclidean(k), rhgd.Grassmann(n, p)
        y0 = self._top(x0 + 0.3 * rng.standard_normal(k))
        pr = rhgd.Problem(
            mx, my, f=self.f, grad_fx=lambda x, y: mu * (x - xt), grad_fy=lambda x, y: 2 * (y - self.Pt @ y),
            g=lambda x, y: -0.5 * np.trace(y.T @ self.A(x) @ y), grad_gy=lambda x, y: -self.A(x) @ y,
            grad_gx=lambda x, y: -0.5 * np.einsum("ij,kil,lj->k", y, self.As, y),
            hess_gy=lambda x, y, v: -self.A(x) @ v,
            cross_gxy=lambda x, y, v: -np.einsum("ij,kil,lj->k", y, self.As, v),
            hess_gy_inv=self.hess_inv, lower_solve=lambda x, y: self._top(x), x0=x0, y0=y0)
        super().__init__("grassmann", pr, x0, y0, settings=dict(eta_x=0.5, eta_y=0.2, inner=20, **_epochs(size)),
                         describe=f"grassmann: R^{k} × Gr({n},{p}), top-{p} eigenspace lower level, known x*")
        self.dist0 = float(np.linalg.norm(x0 - xt))

    def A(self, x):
        return self.A0 + np.tensordot(x, self.As, 1)

    def _top(self, x):
        w, V = np.linalg.eigh(self.A(x))
        return V[:, ::-1][:, :self.p].copy()

    def f(self, x, y):
        D = y @ y.T - self.Pt
        return 0.5 * float(np.sum(D * D)) + 0.5 * self.mu * float((x - self.xt) @ (x - self.xt))

    def hess_inv(self, x, y, w):
        A = self.A(x)
        Yp = scipy.linalg.null_space(y.T)
        Z = scipy.linalg.solve_sylvester(-(Yp.T @ A @ Yp), y.T @ A @ y, Yp.T @ w)
        return Yp @ Z

    def true_hypergrad(self, x, y):
        w, V = np.linalg.eigh(self.A(x))
        w, V = w[::-1], V[:, ::-1]
        p = self.p
        U, W = V[:, :p], V[:, p:]
        D = U @ U.T - self.Pt
        g = self.mu * (x - self.xt)
        gap = w[:p, None] - w[None, p:]
        for i, Ai in enumerate(self.As):
            # dU = W Cᵀ, C_ab = u_aᵀA_i w_b/(λ_a − λ_b); ⟨D, dU Uᵀ + U dUᵀ⟩ = 2⟨D, U C Wᵀ⟩
            C = (U.T @ Ai @ W) / gap
            g[i] += 2 * float(np.sum(D * (U @ C @ W.T)))
        return g

    def solution_error(self, x):
        return float(np.linalg.norm(x - self.xt)) / self.dist0


class SimplexProblem(SuiteProblem):
    """x ∈ R^k, y ∈ Δ(n) (Fisher metric):

        g(x, y) = Σ_j y_j log y_j − ⟨Bx + c, y⟩,   y*(x) = softmax(Bx + c),
        f(x, y) = −Σ_j t_j log y_j + (μ/2)‖x − x_t‖²,   t = softmax(Bx_t + c):

    y*(x_t) = t minimizes the cross-entropy, so x* = x_t is the known
    solution, and grad F(x) = Bᵀ(y*(x) − t) + μ(x − x_t) in closed form
    (the true hypergradient). No inverse Hessian is given: hinv is n/a."""

    def __init__(self, size, n=5, k=3, mu=0.1, seed=11):
        if size == "full":
            n, k = 40, 10
        rng, xt = _target(k, seed)
        B, c = rng.standard_normal((n, k)) / np.sqrt(k), 0.3 * rng.standard_normal(n)
        self.B, self.c, self.xt, self.mu = B, c, xt, mu
        self.t = self.soft(xt)
        x0 = np.zeros(k)
        y0 = np.full(n, 1.0 / n)
        t = self.t
        mx, my = rhgd.Euclidean(k), rhgd.Simplex(n)
        pr = rhgd.Problem(
            mx, my, f=lambda x, y: -float(t @ np.log(y)) + 0.5 * mu * float((x - xt) @ (x - xt)),
            grad_fx=lambda x, y: mu * (x - xt), grad_fy=lambda x, y: -t / y,
            g=lambda x, y: float(y @ np.log(y) - (B @ x + c) @ y), grad_gy=lambda x, y: np.log(y) + 1 - (B @ x + c),
            grad_gx=lambda x, y: -B.T @ y, hess_gy=lambda x, y, v: v / y, cross_gxy=lambda x, y, v: -B.T @ v,
            lower_solve=lambda x, y: self.soft(x), x0=x0, y0=y0)
        super().__init__("simplex", pr, x0, y0, settings=dict(eta_x=1.0, eta_y=0.2, inner=20, **_epochs(size)),
                         estimators=("cg", "ns", "ad"),
                         describe=f"simplex: R^{k} × Δ({n}), entropic lower level, known x*")
        self.dist0 = float(np.linalg.norm(x0 - xt))

    def soft(self, x):
        z = self.B @ x + self.c
        e = np.exp(z - z.max())
        return e / e.sum()

    def true_hypergrad(self, x, y):
        return self.B.T @ (self.soft(x) - self.t) + self.mu * (x - self.xt)

    def solution_error(self, x):
        return float(np.linalg.norm(x - self.xt)) / self.dist0


def make(name, size="full"):
    """The suite's problem called name at size "small" or "full"."""
    if name in BUILTIN_SMALL:
        return Builtin(name, size)
    return {"quadratic": Quadratic, "grassmann": GrassmannProblem, "simplex": SimplexProblem}[name](size)

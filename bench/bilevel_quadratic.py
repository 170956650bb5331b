#!/usr/bin/python3
"""The Euclidean bilevel specialists on their own benchmark: benchopt's
benchmark_bilevel quadratic problem (github.com/benchopt/benchmark_bilevel
at commit f3549c1, the parent of a005767 which made it JAX-only), with numpy
ports of its SOBA, SABA and F2SA, against rhgd's stochastic (RSHGD) and
deterministic runs on the same problem given to rhgd as Python callbacks —
in one process, on one thread, rounds interleaved.

The problem (benchmark_utils/oracles/quadratic.py and datasets/quadratic.py
at f3549c1; line numbers below are theirs):

    min_x h(x) = F(z*(x), x),   z*(x) = argmin_z G(z, x),
    G, F = (1/n) Σ_i q_i,  q_i(z, x) = ½ zᵀH_i z + ½ xᵀK_i x + xᵀC_i z + b_iᵀz + c_iᵀx,

G the inner (train) and F the outer (validation) quadratic, each from its
own gen_matrices (oracles/quadratic.py l. 17-62): H_i = a_i a_iᵀ with a_i ~
N(0, A²), A = U diag(logspace(√μ, √L)) Uᵀ; K_i likewise with a zero
eigenvalue first; C_i = (U D x_i)(V x_i)ᵀ with D's diagonal logspace(μ,
L_cross); b_i, c_i ~ N(0, I). gen_matrices below makes the same draws of
np.random.RandomState(seed) in the same order and keeps the rank-one
factors (a_i, e_i, u_i, w_i) instead of the n matrices (the test checks
them against a verbatim copy of benchopt's function). The seeds are
datasets/quadratic.py's (l. 42-65): RandomState(2442).randint(2³¹ − 1,
size=2), redrawn while its check of h's Hessian fails (its check,
get_hessian_min_eigval l. 9-18, halves the cross term of ∇²h; it passes at
the first draw here, and the true spectrum of ∇²h is printed). The
parameters are the dataset's (l. 25-39): n_in = n_out = 1024, d_in = d_out
= 100, μ = 0.1, L = 1, L_cross = 0.1; the start is objective.py's (l.
46-47): z0 = 0, x0 = −2·1. The metric is the objective's "value", ‖∇h(x)‖²
from the closed forms (datasets/quadratic.py l. 87-102): z*(x) and v =
−H_G⁻¹∇_z F(z*, x) by a Cholesky factor of H_G, ∇h = ∇_x F(z*, x) + C_G v.
Its time is taken out of every clock.

The oracles (Quadratic) are QuadraticOracle's batch averages (l. 169-232),
vectorized over the minibatch through the factors (a batch of m samples
costs O(m·d)); the full sums use the averaged matrices, as QuadraticOracle
does (l. 117-121; O(d²), so on this problem a full-sum oracle costs about
what a 64-sample one does in time). Both sides call the same objects, which
count sample-oracle calls: each quantity (a value, a gradient, a
Hessian-vector or cross product) on m samples counts m, so a full-sum
oracle counts n = 1024. rhgd's exact solves (hess_gy_inv, lower_solve, one
Cholesky factor of H_G) count n each, as a pass over the inner samples.

The specialists, numpy ports of the benchmark's numpy ("framework=none")
solvers:
  - SOBA: solvers/soba.py l. 136-231: one step on z, on v (→ −H⁻¹∇_z F)
    and on x per iteration, steps step/√k and step/outer_ratio/√k;
  - SABA: solvers/saba.py l. 163-277, 419-470: SOBA's five directions
    through SAGA memories (one row per batch, mode_init_memory='zero'),
    constant steps;
  - F2SA: solvers/f2sa.py l. 155-393: 10 inner steps on z (λg + f) and on
    z_λ* (g) per outer step, x along ∇_x f + λ(∇_x g(z) − ∇_x g(z_λ*)),
    λ += δλ/k^{1/7}, steps step/k^{5/7}, step/k^{4/7}, step/ratio/k^{4/7}.
  Minibatches are minibatch_sampler.py's (l. 19-66): contiguous slices of
  64 samples, in order for the first pass and reshuffled after each pass,
  here from the solver's RandomState(random_state) (benchopt reseeds
  np.random's global state). As in benchopt's runs, the metric is taken
  every eval_freq iterations (SOBA 16, SABA 64, F2SA 16). Steps: SABA's
  and F2SA's from config/quadratics_021424_best_params.yml (l. 9, 13),
  tuned by benchopt on a larger quadratic (n_in 32768, d_out 10); SOBA has
  no row there. Since those steps came from another size, --grid re-selects
  each specialist on this problem from its grid in
  config/quadratics_021424.yml (l. 8-14; SOBA's row, the same values, at
  a005767): SABA's best is its best_params, SOBA's is step 0.1, ratio 0.1,
  and F2SA's best_params diverge here, so its grid's best runs as a second
  row ("F2SA (grid here)").

rhgd: the problem as rhgd.Problem on Euclidean(100) × Euclidean(100), x the
outer variable and y = z the inner one, f = F and g = G, every oracle
(f, g, gradients, hess_gy, cross_gxy, cross_gyx) a numpy callback on the
objects above:
  - RSHGD (n_f = n_out, n_g = n_in components; the batch argument is
    averaged over): estimators ns (rhgd's defaults: 50 terms, γ by power
    iteration), cg and fo, S = 10 lower steps per epoch, minibatches drawn
    with replacement (batch_lower = batch_upper = batch_cross =
    batch_report = b, batch_hess); b, batch_hess, eta_x and eta_y selected
    by --grid from the RSHGD_GRID below, by the same rule as the
    specialists' (the earliest to reach --stop, else the lowest end level
    after --grid-cap seconds);
  - deterministic runs on the full sums with preset="adaptive": CG with
    the oracles only (the adaptive BB lower loop, BB upper steps), and
    hinv with lower_solve=True from a Cholesky factor of H_G (computed
    inside the run's clock).
  The trace takes the epoch callback's x_k (the point of epoch k's
  estimate: the step it computes is credited one epoch later).

Every run stops at ‖∇h‖² ≤ --stop·‖∇h(x0)‖² (1e-7), after --cap seconds
(30), or on divergence (> 1e6·‖∇h(x0)‖²). Round r runs every method in turn
with random state r + 1 (the specialists' RandomState, rhgd's seed). The
tables give, for each decade 1e-1 … 1e-6 of ‖∇h(x0)‖², the median over
rounds of the first time (and sample-oracle count) at which a run's record
is at or below it, a round that never got there counting as infinite
("k/R" when only k rounds did), and the end level: the median of
‖∇h‖²/‖∇h(x0)‖² over a run's last 10% of records (median over rounds). A
run whose end level is far above a decade it "reached" touched it in a
dip of its noise. The plot draws ‖∇h‖²/‖∇h(x0)‖² against time and against
calls, every round (round 0 bold).

Run (from the repository, after make lib):
    RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 bench/bilevel_quadratic.py \
        --cap 30 --rounds 3 --out bench/results/2026-11-27-bilevel-quadratic
    ... --full-sums samples     # full sums over the samples (O(n·d)), not the averaged matrices
    ... --grid                  # re-select the stochastic methods' settings (5 s each, about 13 min)
    ... --quick --out /tmp/q    # n 128, d 10, 1 s caps, 1 round (the test's mode)
"""
import os

# One thread for every BLAS in the process, before numpy loads OpenBLAS.
for _k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "RHGD_THREADS"):
    os.environ.setdefault(_k, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import scipy.linalg  # noqa: E402


# ------------------------------------------------------------ the generator

def gen_matrices(n_samples, d_inner, d_outer, L_inner, L_outer, L_cross, mu, seed):
    """benchmark_utils/oracles/quadratic.py l. 17-62 (gen_matrices), the same
    draws of np.random.RandomState(seed) in the same order, kept as the
    rank-one factors of the per-sample matrices instead of the matrices:

        hess_inner[i] = a_i a_iᵀ       (l. 30-31: X = randn(n, 1, d_in) @ A, Xᵀ X / 1)
        hess_outer[i] = e_i e_iᵀ       (l. 41-42)
        cross_mat[i]  = u_i w_iᵀ       (l. 51-55: X1 = U D x_iᵀ, X2 = x_i Vᵀ; d_out × d_in)
        linear_inner[i] = b_i, linear_outer[i] = c_i   (l. 60-61)

    Returns a dict of (n, ·) arrays a, e, u, w, b, c."""
    rng = np.random.RandomState(seed)
    # l. 22-31
    U, *_ = np.linalg.svd(rng.randn(d_inner, 1))
    D = np.diag(np.logspace(np.log10(mu) / 2, np.log10(L_inner) / 2, d_inner))
    A = U @ D @ U.T
    a = (rng.randn(n_samples, 1, d_inner) @ A)[:, 0, :]
    # l. 33-42
    U, *_ = np.linalg.svd(rng.randn(d_outer, 1))
    D = np.diag(np.r_[0, np.logspace(np.log10(mu) / 2, np.log10(L_outer) / 2, d_outer - 1)])
    A = U @ D @ U.T
    e = (rng.randn(n_samples, 1, d_outer) @ A)[:, 0, :]
    # l. 44-55
    U, _, V = np.linalg.svd(rng.randn(d_outer, d_inner))
    D = np.zeros((d_outer, d_inner))
    k = min(d_outer, d_inner)
    D[:k, :k] = np.diag(np.logspace(np.log10(mu), np.log10(L_cross), k))
    X = rng.randn(n_samples, 1, d_inner)
    u = (U @ D @ X.transpose(0, 2, 1))[:, :, 0]
    w = (X @ V.T)[:, 0, :]
    # l. 57-62
    b = rng.randn(n_samples, d_inner)
    c = rng.randn(n_samples, d_outer)
    return dict(a=a, e=e, u=u, w=w, b=b, c=c)


class Quadratic:
    """QuadraticOracle (benchmark_utils/oracles/quadratic.py l. 65-244):
    the average over samples i of

        q_i(z, x) = ½ zᵀ H_i z + ½ xᵀ K_i x + xᵀ C_i z + b_iᵀ z + c_iᵀ x,

    z the inner variable (d_in), x the outer one (d_out), H_i = a_i a_iᵀ,
    K_i = e_i e_iᵀ, C_i = u_i w_iᵀ. Its oracles on a minibatch (a slice,
    an index array, or None for the full sum) are the batch averages
    (l. 169-232), vectorized over the batch through the factors; the full
    sums use the averaged matrices (l. 117-121), as QuadraticOracle does.
    ``calls`` counts sample-oracle evaluations: each quantity (a value, a
    gradient, a Hessian-vector or cross product) on a batch of m samples
    adds m, so a full-sum oracle adds n."""

    def __init__(self, fac):
        self.f = fac
        self.n = fac["a"].shape[0]
        n = self.n
        self.H = fac["a"].T @ fac["a"] / n        # hess_inner_full
        self.K = fac["e"].T @ fac["e"] / n        # hess_outer_full
        self.C = fac["u"].T @ fac["w"] / n        # cross_mat_full (d_out × d_in)
        self.bm = fac["b"].mean(axis=0)           # linear_inner_full
        self.cm = fac["c"].mean(axis=0)           # linear_outer_full
        self.calls = 0
        self._buf = {}
        # True: a full-sum oracle runs over the n samples' factors (O(n·d))
        # instead of the averaged matrices (O(d²)); --full-sums samples.
        self.full_from_samples = False

    def _sel(self, idx, names="aeuwbc"):
        """The batch's rows of the factors named: a view for a slice (the
        specialists' contiguous batches), a gather into a buffer kept per
        factor for an index array (rhgd's batches), only those the oracle
        needs. Gathering into fresh arrays instead would cost a fresh
        allocation per call, which above malloc's mmap threshold (128 KiB:
        a batch of 160 rows here) is a page fault per 4 KiB, 1.6 ms for
        four 1024-row gathers against 0.12 ms."""
        f = self.f
        if isinstance(idx, slice):
            return [f[k][idx] for k in names]
        m = len(idx)
        out = []
        for k in names:
            buf = self._buf.get(k)
            if buf is None or buf.shape[0] < m:
                buf = self._buf[k] = np.empty((m, f[k].shape[1]))
            np.take(f[k], idx, axis=0, out=buf[:m], mode="clip")  # clip: no internal copy
            out.append(buf[:m])
        return out

    def _m(self, idx):
        if idx is None:
            return self.n
        if isinstance(idx, slice):
            return len(range(*idx.indices(self.n)))
        return len(idx)

    def _count(self, idx):
        """The batch's size m, added to calls, and idx, the full sum (None)
        as the slice of all samples when full_from_samples."""
        m = self._m(idx)
        self.calls += m
        if idx is None and self.full_from_samples:
            idx = slice(0, self.n)
        return m, idx

    # full-sum forms
    def value_full(self, z, x):
        return float(0.5 * z @ (self.H @ z) + 0.5 * x @ (self.K @ x) + x @ (self.C @ z) + self.bm @ z + self.cm @ x)

    def grad_z_full(self, z, x):
        return self.H @ z + self.C.T @ x + self.bm

    def grad_x_full(self, z, x):
        return self.K @ x + self.C @ z + self.cm

    # batch oracles (idx None: the full sum)
    def value(self, z, x, idx):
        m, idx = self._count(idx)
        if idx is None:
            return self.value_full(z, x)
        a, e, u, w, b, c = self._sel(idx)
        az, ex = a @ z, e @ x
        return float((0.5 * az @ az + 0.5 * ex @ ex + (u @ x) @ (w @ z)) / m + b.sum(0) @ z / m + c.sum(0) @ x / m)

    def grad_z(self, z, x, idx):
        m, idx = self._count(idx)
        if idx is None:
            return self.grad_z_full(z, x)
        a, u, w, b = self._sel(idx, "auwb")
        return (a.T @ (a @ z) + w.T @ (u @ x) + b.sum(0)) / m

    def grad_x(self, z, x, idx):
        m, idx = self._count(idx)
        if idx is None:
            return self.grad_x_full(z, x)
        e, u, w, c = self._sel(idx, "euwc")
        return (e.T @ (e @ x) + u.T @ (w @ z) + c.sum(0)) / m

    def hvp(self, v, idx):
        """∇²_zz q · v (l. 225-232)."""
        m, idx = self._count(idx)
        if idx is None:
            return self.H @ v
        a = self.f["a"][idx]
        return a.T @ (a @ v) / m

    def cross(self, v, idx):
        """∇²_xz q · v = C v, v in the inner space, a d_out vector (l. 216-223)."""
        m, idx = self._count(idx)
        if idx is None:
            return self.C @ v
        u, w = self._sel(idx, "uw")
        return u.T @ (w @ v) / m

    def cross_t(self, t, idx):
        """∇²_zx q · t = Cᵀ t, t in the outer space."""
        m, idx = self._count(idx)
        if idx is None:
            return self.C.T @ t
        u, w = self._sel(idx, "uw")
        return w.T @ (u @ t) / m

    # what BaseOracle.oracles and .grad give (base.py l. 73-90), on one batch
    def inner_oracles(self, z, x, v, idx):
        """(∇_z q, ∇²_zz q v, ∇²_xz q v) on one batch: SOBA's and SABA's
        inner oracle (oracles(..., inverse='id') without the value, which
        they discard)."""
        m = self._m(idx)
        self.calls += 3 * m
        a, u, w, b = self._sel(idx, "auwb")
        wv = w @ v
        return (a.T @ (a @ z) + w.T @ (u @ x) + b.sum(0)) / m, a.T @ (a @ v) / m, u.T @ wv / m

    def grad(self, z, x, idx):
        """(∇_z q, ∇_x q) on one batch."""
        m = self._m(idx)
        self.calls += 2 * m
        a, e, u, w, b, c = self._sel(idx)
        wz, ux = w @ z, u @ x
        return (a.T @ (a @ z) + w.T @ ux + b.sum(0)) / m, (e.T @ (e @ x) + u.T @ wz + c.sum(0)) / m


def benchopt_min_eig(inner, outer):
    """datasets/quadratic.py l. 9-18 (get_hessian_min_eigval), as written:
    note its cross term is ½(C J + Jᵀ Cᵀ), half the Hessian's."""
    jac = -np.linalg.solve(inner.H, inner.C.T)
    hess = jac.T.dot(outer.H) @ jac + outer.K
    tmp = outer.C @ jac
    hess += .5 * (tmp + tmp.T)
    return float(np.min(np.linalg.eigvalsh(hess)))


def make_problem(n_inner=1024, n_outer=1024, dim_inner=100, dim_outer=100, mu=.1, L_inner_inner=1.,
                 L_inner_outer=1., L_outer_inner=1., L_outer_outer=1., L_cross_inner=.1, L_cross_outer=.1,
                 random_state=2442):
    """datasets/quadratic.py l. 21-72 (Dataset.get_data): up to 20 trials of
    (inner_seed, outer_seed) from RandomState(random_state) until
    get_hessian_min_eigval ≥ 1e-12. The defaults are its parameters
    (l. 25-39). Returns (inner, outer, info)."""
    rng = np.random.RandomState(random_state)
    for k in range(20):
        inner_seed, outer_seed = rng.randint(2**31 - 1, size=2)
        inner = Quadratic(gen_matrices(n_inner, dim_inner, dim_outer, L_inner_inner, L_inner_outer,
                                       L_cross_inner, mu, inner_seed))
        outer = Quadratic(gen_matrices(n_outer, dim_inner, dim_outer, L_outer_inner, L_outer_outer,
                                       L_cross_outer, mu, outer_seed))
        eig = benchopt_min_eig(inner, outer)
        if eig >= 1e-12:
            break
    else:
        raise ValueError("Could not generate a dataset with a positive Hessian.")
    info = dict(trials=k + 1, inner_seed=int(inner_seed), outer_seed=int(outer_seed), benchopt_min_eig=eig)
    return inner, outer, info


class Metric:
    """The exact ‖∇h(x)‖², h(x) = F(z*(x), x), from the closed forms
    (datasets/quadratic.py l. 87-102, metrics()):

        z*(x) = −H_G⁻¹ (b_G + C_Gᵀ x),   v = −H_G⁻¹ ∇_z F(z*, x),
        ∇h(x) = ∇_x F(z*, x) + C_G v,

    G the inner (train) quadratic's full sum and F the outer (validation)
    one's; H_G is factored once (Cholesky)."""

    def __init__(self, inner, outer):
        self.G, self.F = inner, outer
        self.cho = scipy.linalg.cho_factor(inner.H)

    def z_star(self, x):
        return scipy.linalg.cho_solve(self.cho, -self.G.bm - self.G.C.T @ x)

    def grad_h(self, x):
        z = self.z_star(x)
        v = -scipy.linalg.cho_solve(self.cho, self.F.grad_z_full(z, x))
        return self.F.grad_x_full(z, x) + self.G.C @ v

    def h(self, x):
        return self.F.value_full(self.z_star(x), x)

    def __call__(self, x):
        g = self.grad_h(x)
        return float(g @ g)

    def hessian(self):
        """∇²h (h is quadratic): F_xx + C_F J + Jᵀ C_Fᵀ + Jᵀ F_zz J, J = dz*/dx = −H_G⁻¹ C_Gᵀ."""
        J = -scipy.linalg.cho_solve(self.cho, self.G.C.T)
        t = self.F.C @ J
        return self.F.K + t + t.T + J.T @ self.F.H @ J


# ------------------------------------------------------------ the record

class Trace:
    """One run's record: (seconds, sample-oracle calls, ‖∇h(x)‖²) rows. The
    clock runs from the trace's creation; the exact metric's own time is
    taken out of it. record(x) returns False once the run should stop:
    ‖∇h‖² ≤ stop·‖∇h(x0)‖², the time cap passed, max_records records
    taken (the tests' clock-free stop), or a non-finite or diverged
    (> 1e6·‖∇h(x0)‖²) value."""

    def __init__(self, name, metric, oracles, g0, cap, stop, max_records=None):
        self.name, self.metric, self.oracles = name, metric, oracles
        self.g0, self.cap, self.stop, self.max_records = g0, cap, stop, max_records
        self.base = sum(o.calls for o in oracles)
        self.rows = []
        self.excl = 0.0
        self.status = "running"
        self.t0 = time.perf_counter()

    def calls(self):
        return sum(o.calls for o in self.oracles) - self.base

    def elapsed(self):
        return time.perf_counter() - self.t0 - self.excl

    def record(self, x):
        c0 = time.perf_counter()
        t = c0 - self.t0 - self.excl
        calls = self.calls()
        g = self.metric(x)
        self.rows.append((t, calls, g))
        go = True
        if not math.isfinite(g) or g > 1e6 * self.g0:
            self.status, go = "diverged", False
        elif g <= self.stop * self.g0:
            self.status, go = "reached", False
        elif t > self.cap:
            self.status, go = "cap", False
        elif self.max_records is not None and len(self.rows) >= self.max_records:
            self.status, go = "records", False
        self.excl += time.perf_counter() - c0
        return go

    def array(self):
        return np.array(self.rows, dtype=float).reshape(-1, 3)


# ------------------------------------------------------------ the specialists

class MinibatchSampler:
    """benchmark_utils/minibatch_sampler.py l. 19-66: contiguous slices of
    batch_size samples, the batches in order first, then in a fresh random
    order after each pass (here from the solver's own RandomState, where
    benchopt's numpy solvers reseed np.random's global state). get_batch
    returns (slice, (batch id, weight))."""

    def __init__(self, n_samples, batch_size, rng):
        self.n_samples, self.batch_size, self.rng = n_samples, batch_size, rng
        self.i_batch = 0
        self.n_batches = (n_samples + batch_size - 1) // batch_size
        self.batch_order = np.arange(self.n_batches)

    def get_batch(self):
        idx = self.batch_order[self.i_batch]
        selector = slice(idx * self.batch_size, (idx + 1) * self.batch_size)
        self.i_batch += 1
        if self.i_batch == self.n_batches:
            self.rng.shuffle(self.batch_order)
            self.i_batch = 0
        weight = self.batch_size / self.n_samples
        if idx == self.n_batches - 1 and self.n_samples % self.batch_size != 0:
            weight = (self.n_samples % self.batch_size) / self.n_samples
        return selector, (idx, weight)


def lr_schedule(constants, exponents):
    """learning_rate_scheduler.py l. 11-47 (the numpy LearningRateScheduler):
    step k = 1, 2, ... gives constants / k**exponents."""
    constants, exponents = np.asarray(constants, float), np.asarray(exponents, float)
    k = 1
    while True:
        yield constants / float(k) ** exponents
        k += 1


def soba(G, F, x0, z0, trace, step_size=.1, outer_ratio=1., batch_size=64, eval_freq=16, random_state=1):
    """SOBA, solvers/soba.py l. 136-231 (run and the numpy soba): one SGD
    step on z, on v (the linear system's iterate, v → −H⁻¹∇_z F) and on x
    per iteration, steps step_size/√k and step_size/outer_ratio/√k
    (l. 146-152: exponents ½)."""
    rng = np.random.RandomState(random_state)
    z, x, v = z0.copy(), x0.copy(), np.zeros_like(z0)
    lr = lr_schedule([step_size, step_size / outer_ratio], [.5, .5])
    si = MinibatchSampler(G.n, batch_size, rng)
    so = MinibatchSampler(F.n, batch_size, rng)
    while trace.record(x):
        for _ in range(eval_freq):
            lr_in, lr_out = next(lr)
            bi, _ = si.get_batch()
            grad_z, hvp, cross_v = G.inner_oracles(z, x, v, bi)
            bo, _ = so.get_batch()
            grad_in_outer, grad_out_outer = F.grad(z, x, bo)
            z -= lr_in * grad_z
            v -= lr_in * (hvp + grad_in_outer)
            x -= lr_out * (cross_v + grad_out_outer)
    return x


def variance_reduction(grad, memory, vr_info):
    """solvers/saba.py l. 419-425: SAGA's direction from the memory of the
    batch's last value; memory[-1] is the running average."""
    idx, weight = vr_info
    diff = grad - memory[idx]
    direction = diff + memory[-1]
    memory[-1] += diff * weight
    memory[idx, :] = grad
    return direction


def saba(G, F, x0, z0, trace, step_size=.1, outer_ratio=1., batch_size=64, eval_freq=64, random_state=1):
    """SABA, solvers/saba.py l. 163-216, 245-277 and 428-470 (run, the numpy
    _init_memory with mode_init_memory='zero' and _saba): SOBA's
    directions through SAGA memories (one row per batch of the fixed
    partition), constant steps (l. 204-210: exponents 0)."""
    rng = np.random.RandomState(random_state)
    z, x, v = z0.copy(), x0.copy(), np.zeros_like(z0)
    si = MinibatchSampler(G.n, batch_size, rng)
    so = MinibatchSampler(F.n, batch_size, rng)
    dz, dx = z.size, x.size
    mem = {"inner_grad": np.zeros((si.n_batches + 1, dz)), "hvp": np.zeros((si.n_batches + 1, dz)),
           "cross_v": np.zeros((si.n_batches + 1, dx)), "grad_in_outer": np.zeros((so.n_batches + 1, dz)),
           "grad_out_outer": np.zeros((so.n_batches + 1, dx))}
    lr_in, lr_out = step_size, step_size / outer_ratio
    while trace.record(x):
        for _ in range(eval_freq):
            bi, vr_inner = si.get_batch()
            grad_z, hvp, cross_v = G.inner_oracles(z, x, v, bi)
            bo, vr_outer = so.get_batch()
            grad_in_outer, grad_out_outer = F.grad(z, x, bo)
            grad_z = variance_reduction(grad_z, mem["inner_grad"], vr_inner)
            hvp = variance_reduction(hvp, mem["hvp"], vr_inner)
            cross_v = variance_reduction(cross_v, mem["cross_v"], vr_inner)
            grad_in_outer = variance_reduction(grad_in_outer, mem["grad_in_outer"], vr_outer)
            grad_out_outer = variance_reduction(grad_out_outer, mem["grad_out_outer"], vr_outer)
            z -= lr_in * grad_z
            v -= lr_in * (hvp + grad_in_outer)
            x -= lr_out * (cross_v + grad_out_outer)
    return x


def f2sa(G, F, x0, z0, trace, step_size=.1, outer_ratio=1., batch_size=64, eval_freq=16, lmbda0=1.,
         delta_lmbda=.01, n_inner_steps=10, random_state=1):
    """F2SA, solvers/f2sa.py l. 155-223, 230-291 and 294-393 (run,
    inner_f2sa, _f2sa): n_inner_steps SGD steps on z (on λ g + f) and on
    z_λ* (on g) per outer step, then x ← x − η (∇_x f(z) + λ(∇_x g(z) −
    ∇_x g(z*))), λ ← λ + δλ_k; steps step_size/k^{5/7}, step_size/k^{4/7},
    step_size/outer_ratio/k^{4/7}, δλ_k = delta_lmbda/k^{1/7} (l. 184-195)."""
    rng = np.random.RandomState(random_state)
    z, zs, x = z0.copy(), z0.copy(), x0.copy()
    lmbda = lmbda0
    lr = lr_schedule([step_size, step_size, step_size / outer_ratio, delta_lmbda], [5 / 7, 4 / 7, 4 / 7, 1 / 7])
    si = MinibatchSampler(G.n, batch_size, rng)
    so = MinibatchSampler(F.n, batch_size, rng)
    while trace.record(x):
        for _ in range(eval_freq):
            lr_inner, lr_star, lr_outer, d_lmbda = next(lr)
            for _ in range(n_inner_steps):
                b_in, _ = si.get_batch()
                b_lag, _ = si.get_batch()
                b_out, _ = so.get_batch()
                d_z = lmbda * G.grad_z(z, x, b_in)
                d_z += F.grad_z(z, x, b_out)
                d_zs = G.grad_z(zs, x, b_lag)
                z -= lr_inner * d_z
                zs -= lr_star * d_zs
            b_out, _ = so.get_batch()
            b1, _ = si.get_batch()
            b2, _ = si.get_batch()
            d_x = F.grad_x(z, x, b_out)
            d_x += lmbda * (G.grad_x(z, x, b1) - G.grad_x(zs, x, b2))
            x -= lr_outer * d_x
            lmbda += d_lmbda
    return x


# ------------------------------------------------------------ rhgd's side

def contiguous(idx):
    """A batch of rhgd's as a slice when it lists consecutive samples in
    order (saba's memory blocks are contiguous, as the specialists'
    batches are), so that the oracles take views of the factors for it
    as they do for the specialists; otherwise the index array itself (or
    None: the full sum). The check is exact, and costs two integer reads
    for a batch that is not such a run."""
    if idx is None or len(idx) == 0:
        return idx
    lo, n = int(idx[0]), len(idx)
    if int(idx[-1]) != lo + n - 1 or not np.array_equal(idx, np.arange(lo, lo + n)):
        return idx
    return slice(lo, lo + n)


def rhgd_problem(rhgd, G, F, finite_sum, exact=False):
    """The quadratic bilevel problem for rhgd, x the outer (upper) variable
    and y the inner (lower) one, f = F and g = G, every oracle a numpy
    callback on the Quadratic objects above (so their calls are counted
    as the specialists' are). finite_sum: n_f = n_out, n_g = n_in
    components, each oracle averaged over the minibatch rhgd passes (None:
    the full sum); otherwise the full sums. exact (full sums only): also
    hess_gy_inv and lower_solve from a Cholesky factor of H_G, computed at
    their first call (inside the run's clock) and counted as one pass over
    the inner samples (n_in calls) each."""
    mx, my = rhgd.Euclidean(F.C.shape[0]), rhgd.Euclidean(G.C.shape[1])
    if finite_sum:
        p = rhgd.Problem(
            mx, my, n_f=F.n, n_g=G.n,
            f=lambda x, y, b: F.value(y, x, contiguous(b)),
            grad_fx=lambda x, y, b: F.grad_x(y, x, contiguous(b)),
            grad_fy=lambda x, y, b: F.grad_z(y, x, contiguous(b)),
            g=lambda x, y, b: G.value(y, x, contiguous(b)),
            grad_gx=lambda x, y, b: G.grad_x(y, x, contiguous(b)),
            grad_gy=lambda x, y, b: G.grad_z(y, x, contiguous(b)),
            hess_gy=lambda x, y, v, b: G.hvp(v, contiguous(b)), cross_gxy=lambda x, y, v, b: G.cross(v, contiguous(b)),
            cross_gyx=lambda x, y, u, b: G.cross_t(u, contiguous(b)))
        return p
    extra = {}
    if exact:
        cho = []

        def factor():
            if not cho:
                a = G.f["a"]
                cho.append(scipy.linalg.cho_factor(a.T @ a / G.n if G.full_from_samples else G.H))
            return cho[0]

        def hess_gy_inv(x, y, v):
            G.calls += G.n
            return scipy.linalg.cho_solve(factor(), v)

        def lower_solve(x, y):
            G.calls += G.n
            return scipy.linalg.cho_solve(factor(), -G.bm - G.C.T @ x)

        extra = dict(hess_gy_inv=hess_gy_inv, lower_solve=lower_solve)
    return rhgd.Problem(
        mx, my,
        f=lambda x, y: F.value(y, x, None),
        grad_fx=lambda x, y: F.grad_x(y, x, None), grad_fy=lambda x, y: F.grad_z(y, x, None),
        g=lambda x, y: G.value(y, x, None),
        grad_gx=lambda x, y: G.grad_x(y, x, None), grad_gy=lambda x, y: G.grad_z(y, x, None),
        hess_gy=lambda x, y, v: G.hvp(v, None), cross_gxy=lambda x, y, v: G.cross(v, None),
        cross_gyx=lambda x, y, u: G.cross_t(u, None), **extra)


def run_rhgd(rhgd, G, F, x0, z0, trace, estimator, finite_sum, exact=False, **settings):
    """rhgd.minimize on the problem above from (x0, z0), the trace fed from
    the epoch callback with x_k, the point of epoch k's estimate (the step
    it computes is credited at the next epoch), which also enforces the
    time cap; runtime is set a little above the cap as a backstop."""
    p = rhgd_problem(rhgd, G, F, finite_sum, exact)
    if math.isfinite(trace.cap):
        settings = dict(settings, runtime=trace.cap * 1.2 + 1)
    res = rhgd.minimize(p, x0, z0, estimator=estimator, callback=lambda info: not trace.record(info["x"]),
                        epochs=10**7, **settings)
    return res


# ------------------------------------------------------------ the methods

# The specialists' steps. SABA and F2SA: config/quadratics_021424_best_params.yml
# at f3549c1 (l. 9 and 13), selected by benchopt on a larger quadratic
# (n_inner 32768, n_outer 1024, dim_outer 10). SOBA has no row there; its
# defaults (solvers/soba.py l. 40-47) are SABA's tuned values.
BEST_PARAMS = {
    "SOBA": dict(step_size=.1, outer_ratio=1., batch_size=64, eval_freq=16),
    "SABA": dict(step_size=.1, outer_ratio=1., batch_size=64, eval_freq=64),
    "F2SA": dict(step_size=.1, outer_ratio=1., batch_size=64, eval_freq=16, lmbda0=1., delta_lmbda=.01,
                 n_inner_steps=10),
}

# The grids of config/quadratics_021424.yml (f3549c1 l. 8-14 for SABA and
# F2SA; SOBA's row, with the same values, from a005767): each specialist
# is re-selected on this problem from its own grid (--grid), where the
# tuned steps above came from another size.
GRIDS = {
    "SOBA": [dict(step_size=s, outer_ratio=r) for s in (.01, .1) for r in (.1, 1., 10., 100.)],
    "SABA": [dict(step_size=s, outer_ratio=r) for s in (.01, .1) for r in (.1, 1., 10., 100.)],
    "F2SA": [dict(step_size=s, outer_ratio=r, delta_lmbda=dl) for s in (.01, .1) for r in (.1, 1., 10., 100.)
             for dl in (.01, .1, 1.)],
}

# rhgd's RSHGD settings: the same kind of grid (--grid), over the minibatch
# size b of the lower steps, f's gradients and the cross product (the
# specialists' 64, or 256), the Hessian batch (CG needs more than d_in
# samples for a nonsingular minibatch Hessian; NS's series diverges along
# the null space of a singular one), eta_x and eta_y; S = 10 lower steps.
RSHGD_GRID = [dict(b=b, bh=bh, eta_x=ex, eta_y=ey) for b in (64, 256) for bh in (256, 1024)
              for ex in (.03, .1, .3) for ey in (.03, .1)]

# The selections of --grid on the problem (n = 1024, d = 100, seed
# 2442; 5 s per configuration, random state 1), recorded in
# bench/results/2026-11-27-bilevel-quadratic/README.md (rhgd-saba and
# SABA-wide: bench/results/2026-11-27-bilevel-quadratic-saba/README.md).
SELECTED = {
    "SOBA": dict(step_size=.1, outer_ratio=.1),
    "F2SA": dict(step_size=.01, outer_ratio=.1, delta_lmbda=.01),
    "rhgd-ns": dict(b=256, bh=1024, eta_x=.03, eta_y=.03),
    "rhgd-cg": dict(b=256, bh=1024, eta_x=.03, eta_y=.03),
    "rhgd-fo": dict(b=256, eta_x=.03, eta_y=.1),
    "rhgd-saba": dict(b=256, eta=.3),
    "SABA-wide": dict(b=128, eta=.5),
}


def rhgd_stochastic_settings(est, b, eta_x, eta_y, bh=None, inner=10):
    kw = dict(batch_lower=b, batch_upper=b, batch_cross=b, batch_report=b, eta_x=eta_x, eta_y=eta_y, inner=inner)
    if est != "fo":
        kw["batch_hess"] = bh
    return kw


class Method:
    """One contestant: a name, a one-line description of its settings and
    run(G, F, x0, z0, trace, seed)."""

    def __init__(self, name, desc, run, group):
        self.name, self.desc, self.run, self.group = name, desc, run, group


def _fmt_kw(kw):
    return ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}" for k, v in kw.items())


def specialist(name, fn, kw, note):
    return Method(name, f"{_fmt_kw(kw)} ({note})",
                  lambda G, F, x0, z0, tr, seed: fn(G, F, x0, z0, tr, random_state=seed, **kw), "specialist")


def rhgd_rshgd(est, sel):
    import rhgd
    sel = dict(sel)
    kw = rhgd_stochastic_settings(est, sel.pop("b"), sel.pop("eta_x"), sel.pop("eta_y"), sel.pop("bh", None))
    desc = {"ns": "NS (terms 50, γ by 10 power steps: rhgd's defaults)", "cg": "CG (tol 1e-10, maxiter 50)",
            "fo": "first-order (λ_k = 10 + 10 k^{1/7}: rhgd's minibatch default)"}[est]
    desc += "; " + _fmt_kw(kw)
    return Method(f"rhgd RSHGD {est}", desc,
                  lambda G, F, x0, z0, tr, seed: run_rhgd(rhgd, G, F, x0, z0, tr, est, True, seed=seed, **kw),
                  "rhgd stochastic")


# rhgd's variance-reduced estimator (saba) runs SABA's algorithm, so it
# runs once at SABA's best_params (steps 0.1 for y, v and x; memory blocks
# of 64 samples of f and of g; benchopt's sampler order, shuffle=true) and
# once at the best of a wider grid (--grid: block size b, one step eta for
# y, v and x; the rule of the others), over which SABA itself is also
# re-selected ("SABA (wider grid)"), so that each appears at its best
# and at the other's settings. One joint step per epoch (inner 1);
# batch_report is the sample of f behind the solver's reported value (f
# is not otherwise evaluated): 64.
SABA_WIDE_GRID = [dict(b=b, eta=eta) for b in (64, 128, 256) for eta in (.1, .2, .3, .5, .7)]


def rhgd_saba(sel, name):
    import rhgd
    b, eta = sel["b"], sel["eta"]
    est = "saba:shuffle=true"
    kw = dict(batch_lower=b, batch_upper=b, batch_report=64, inner=1, eta_x=eta, eta_y=eta)
    desc = f"estimator {est} (SAGA memories of {b}-sample blocks, joint steps; v's step eta_y); " + _fmt_kw(kw)
    return Method(name, desc,
                  lambda G, F, x0, z0, tr, seed: run_rhgd(rhgd, G, F, x0, z0, tr, est, True, seed=seed, **kw),
                  "rhgd stochastic")


def saba_wide(sel, name, note):
    return specialist(name, saba, {**BEST_PARAMS["SABA"], "step_size": sel["eta"], "outer_ratio": 1.,
                                   "batch_size": sel["b"]}, note)


def rhgd_deterministic(est, exact):
    import rhgd
    kw = dict(preset="adaptive")
    if exact:
        kw["lower_solve"] = True
        desc = "adaptive preset, hinv and lower_solve from a Cholesky factor of H_G; full sums"
        name = "rhgd hinv adaptive (exact solves)"
    else:
        desc = "adaptive preset (BB lower loop, BB upper steps), CG; full-sum oracles only"
        name = "rhgd cg adaptive (oracles only)"
    return Method(name, desc,
                  lambda G, F, x0, z0, tr, seed: run_rhgd(rhgd, G, F, x0, z0, tr, est, False, exact, **kw),
                  "rhgd deterministic")


def methods(a):
    ms = [
        specialist("SOBA", soba, {**BEST_PARAMS["SOBA"], **SELECTED["SOBA"]},
                   "no best_params row: its grid's best here"),
        specialist("SABA", saba, BEST_PARAMS["SABA"], "best_params"),
        specialist("F2SA", f2sa, BEST_PARAMS["F2SA"], "best_params"),
    ]
    if SELECTED["F2SA"] != {k: BEST_PARAMS["F2SA"][k] for k in SELECTED["F2SA"]}:
        ms.append(specialist("F2SA (grid here)", f2sa, {**BEST_PARAMS["F2SA"], **SELECTED["F2SA"]},
                             "its grid's best here"))
    ms += [rhgd_rshgd("ns", SELECTED["rhgd-ns"]), rhgd_rshgd("cg", SELECTED["rhgd-cg"]),
           rhgd_rshgd("fo", SELECTED["rhgd-fo"]),
           rhgd_saba(dict(b=BEST_PARAMS["SABA"]["batch_size"], eta=BEST_PARAMS["SABA"]["step_size"]),
                     "rhgd saba (SABA's best_params)"),
           rhgd_saba(SELECTED["rhgd-saba"], "rhgd saba (wider grid)"),
           rhgd_saba(SELECTED["SABA-wide"], "rhgd saba (SABA's wider-grid selection)"),
           saba_wide(SELECTED["rhgd-saba"], "SABA (rhgd saba's selection)", "rhgd saba's selection from the wider grid"),
           saba_wide(SELECTED["SABA-wide"], "SABA (wider grid)", "its best of the wider grid here"),
           rhgd_deterministic("cg", False), rhgd_deterministic("hinv", True)]
    if a.methods:
        want = [w.strip().lower() for w in a.methods.split(",")]
        ms = [m for m in ms if any(w in m.name.lower() for w in want)]
    return ms


# ------------------------------------------------------------ summaries

DECADES = (1, 2, 3, 4, 5, 6)


def first_hits(rows, g0):
    """For each decade k, (seconds, calls) of the first record with
    ‖∇h‖² ≤ 10^-k ‖∇h(x0)‖², or None."""
    out = {}
    for k in DECADES:
        hit = np.nonzero(rows[:, 2] <= 10.0 ** -k * g0)[0]
        out[k] = (float(rows[hit[0], 0]), float(rows[hit[0], 1])) if len(hit) else None
    return out


def end_level(rows, g0):
    """Where the run sits at its end: the median of ‖∇h‖²/‖∇h(x0)‖² over
    its last 10% of records (a noisy run's first hit of a decade can be a
    dip far below this)."""
    k = max(1, len(rows) // 10)
    return float(np.median(rows[-k:, 2])) / g0


def run_one(m, G, F, metric, x0, z0, g0, cap, stop, seed):
    tr = Trace(m.name, metric, [G, F], g0, cap, stop)
    err = None
    try:
        m.run(G, F, x0, z0, tr, seed)
    except Exception as e:  # a diverged rhgd run raises; the trace still holds its record
        err = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        if tr.status == "running":
            tr.status = "error"
    if tr.status == "running":
        tr.status = "ended"
    rows = tr.array()
    return dict(rows=rows, status=tr.status, error=err, total=float(rows[-1, 0]) if len(rows) else 0.0)


def med(vals):
    v = np.array(vals, dtype=float)
    return float(np.median(v))


def cell(hits, cap, statuses, what):
    """A table cell: the median over rounds of the first hit (a round that
    did not reach it counts as infinite), with k/R when only some rounds
    reached it."""
    R = len(hits)
    vals = [h[what] if h is not None else math.inf for h in hits]
    m = med(vals)
    if not math.isfinite(m):
        if all(s == "diverged" for s in statuses):
            return math.inf, "not reached (diverged)"
        return math.inf, f"not reached in {cap:g} s"
    k = sum(h is not None for h in hits)
    txt = f"{m:.3g} s" if what == 0 else f"{m:.3g}"
    return m, txt + (f" ({k}/{R})" if k < R else "")


def tables(names, res, cap):
    """The two markdown tables (seconds, then sample-oracle calls), the
    fastest entry of each column in bold."""
    out = []
    for what, title in ((0, "seconds"), (1, "sample-oracle calls")):
        cells = {}
        for nm in names:
            rr = res[nm]
            cells[nm] = [cell([r["hits"][k] for r in rr], cap, [r["status"] for r in rr], what) for k in DECADES]
        best = [min(cells[nm][i][0] for nm in names) for i in range(len(DECADES))]
        out.append(f"Time to ‖∇h‖² ≤ 10⁻ᵏ‖∇h(x0)‖², {title} (median over rounds):\n")
        out.append("| method | " + " | ".join(f"1e-{k}" for k in DECADES) + " | end level |")
        out.append("|---|" + "---|" * (len(DECADES) + 1))
        for nm in names:
            row = []
            for i, (v, t) in enumerate(cells[nm]):
                row.append(f"**{t}**" if math.isfinite(v) and v == best[i] else t)
            endl = med([r["end"] for r in res[nm]])
            out.append(f"| {nm} | " + " | ".join(row) + f" | {endl:.2g} |")
        out.append("")
    return "\n".join(out)


COLORS = {"SOBA": "tab:blue", "SABA": "tab:orange", "F2SA": "tab:green", "F2SA (grid here)": "tab:olive",
          "rhgd RSHGD ns": "tab:purple", "rhgd RSHGD cg": "tab:brown", "rhgd RSHGD fo": "tab:pink",
          "rhgd saba (SABA's best_params)": "tab:cyan", "rhgd saba (wider grid)": "darkcyan",
          "rhgd saba (SABA's wider-grid selection)": "tab:gray",
          "SABA (rhgd saba's selection)": "gold", "SABA (wider grid)": "darkorange",
          "rhgd cg adaptive (oracles only)": "black", "rhgd hinv adaptive (exact solves)": "tab:red"}


def plot(names, res, g0, path, title):
    """‖∇h‖²/‖∇h(x0)‖² against time and against calls, every round (round
    0 bold); the y axis is cut at 1e2 (a diverging run leaves the frame)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(14, 6))
    cmap = plt.get_cmap("tab10")
    for i, nm in enumerate(names):
        color = COLORS.get(nm, cmap(i % 10))
        ls = "-" if "rhgd" not in nm else ("--" if "RSHGD" in nm else "-.")
        for j, r in enumerate(res[nm]):
            rows = r["rows"]
            if not len(rows):
                continue
            y = rows[:, 2] / g0
            for ax, col in ((axes[0], 0), (axes[1], 1)):
                xs = rows[:, col].copy()
                xs[xs <= 0] = np.nan
                ax.plot(xs, y, color=color, lw=1.6 if j == 0 else 0.7, alpha=1.0 if j == 0 else 0.5, ls=ls,
                        label=nm if j == 0 else None)
    for ax, xl in ((axes[0], "wall time (s), the exact metric's time excluded"),
                   (axes[1], "sample-oracle calls (a full-sum oracle counts n)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(1e-8, 1e2)
        ax.set_xlabel(xl)
        ax.set_ylabel("‖∇h(x)‖² / ‖∇h(x0)‖²")
        ax.grid(True, which="major", alpha=0.3)
        for k in DECADES:
            ax.axhline(10.0 ** -k, color="grey", lw=0.4, ls=":")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=9, frameon=False)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def setup(a):
    G, F, info = make_problem(n_inner=a.n, n_outer=a.n_outer or a.n, dim_inner=a.d, dim_outer=a.d_outer or a.d,
                              mu=a.mu, random_state=a.seed)
    metric = Metric(G, F)
    ev = np.linalg.eigvalsh(metric.hessian())
    info.update(hess_h_min=float(ev[0]), hess_h_max=float(ev[-1]),
                H_G_eig=[float(v) for v in np.linalg.eigvalsh(G.H)[[0, -1]]])
    x0 = -2 * np.ones(F.C.shape[0])      # objective.py l. 46-47
    z0 = np.zeros(G.C.shape[1])
    return G, F, metric, x0, z0, info


def grid(a):
    """Each stochastic method over its grid, one run of a.grid_cap seconds
    each (random state 1); the best: the earliest to reach a.stop, else the
    lowest end level, a diverged run last."""
    import rhgd
    G, F, metric, x0, z0, info = setup(a)
    g0 = metric(x0)
    groups = [("SOBA", [(kw, specialist("SOBA", soba, {**BEST_PARAMS["SOBA"], **kw}, "grid"))
                        for kw in GRIDS["SOBA"]]),
              ("SABA", [(kw, specialist("SABA", saba, {**BEST_PARAMS["SABA"], **kw}, "grid"))
                        for kw in GRIDS["SABA"]]),
              ("F2SA", [(kw, specialist("F2SA", f2sa, {**BEST_PARAMS["F2SA"], **kw}, "grid"))
                        for kw in GRIDS["F2SA"]])]
    groups += [("SABA-wide", [(kw, saba_wide(kw, "SABA", "grid")) for kw in SABA_WIDE_GRID]),
               ("rhgd-saba", [(kw, rhgd_saba(kw, "rhgd saba")) for kw in SABA_WIDE_GRID])]
    for est in ("ns", "cg", "fo"):
        seen, cands = set(), []
        for kw in RSHGD_GRID:
            kw = {k: v for k, v in kw.items() if not (est == "fo" and k == "bh")}
            key = tuple(sorted(kw.items()))
            if key not in seen:
                seen.add(key)
                cands.append((kw, rhgd_rshgd(est, kw)))
        groups.append((f"rhgd-{est}", cands))
    want = [w.strip().lower() for w in a.methods.split(",")] if a.methods else None
    chosen = {}
    for gname, cands in groups:
        if want and not any(w in gname.lower() for w in want):
            continue
        scored = []
        for kw, m in cands:
            r = run_one(m, G, F, metric, x0, z0, g0, a.grid_cap, a.stop, 1)
            rows = r["rows"]
            endl = end_level(rows, g0)
            if r["status"] == "reached":
                score = (0, r["total"])
            elif r["status"] in ("diverged", "error"):
                score = (2, 0.0)
            else:
                score = (1, endl)
            hits = first_hits(rows, g0)
            reached = max([k for k in DECADES if hits[k] is not None], default=0)
            print(f"grid {gname} {_fmt_kw(kw)}: {r['status']}, end level {endl:.3g}, min "
                  f"{rows[:, 2].min() / g0:.3g}, "
                  + (f"deepest decade 1e-{reached} at {hits[reached][0]:.3g} s" if reached else "no decade"),
                  flush=True)
            scored.append((score, kw))
        scored.sort(key=lambda s: s[0])
        chosen[gname] = scored[0][1]
        print(f"grid {gname}: best {scored[0][1]} (score {scored[0][0]})", flush=True)
    print("\nSELECTED =", json.dumps(chosen, indent=1))
    return chosen


def cpu_name():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1024, help="inner samples (and outer, unless --n-outer)")
    ap.add_argument("--n-outer", type=int, default=None)
    ap.add_argument("--d", type=int, default=100, help="inner dimension (and outer, unless --d-outer)")
    ap.add_argument("--d-outer", type=int, default=None)
    ap.add_argument("--mu", type=float, default=.1)
    ap.add_argument("--seed", type=int, default=2442, help="the dataset's random_state")
    ap.add_argument("--cap", type=float, default=30., help="seconds per method and round")
    ap.add_argument("--stop", type=float, default=1e-7, help="stop a run at ‖∇h‖² ≤ stop·‖∇h(x0)‖²")
    ap.add_argument("--rounds", type=int, default=3, help="rounds (random states 1, 2, ...), interleaved")
    ap.add_argument("--methods", default="", help="comma-separated substrings of the methods' names")
    ap.add_argument("--out", default=None, help="directory for the plot and results.json")
    ap.add_argument("--quick", action="store_true", help="a small instance (n 128, d 10), 1 s caps, 1 round")
    ap.add_argument("--full-sums", choices=("matrices", "samples"), default="matrices",
                    help="full-sum oracles from the averaged matrices (QuadraticOracle's, O(d²)) or over the "
                         "samples (O(n·d), as on a problem without that shortcut)")
    ap.add_argument("--grid", action="store_true", help="re-select the stochastic methods' settings instead")
    ap.add_argument("--grid-cap", type=float, default=5.)
    a = ap.parse_args(argv)
    if a.quick:
        a.n, a.d, a.cap, a.rounds, a.grid_cap = 128, 10, min(a.cap, 1.), 1, min(a.grid_cap, .3)
    import rhgd
    rhgd.set_threads(1)
    print(f"CPU {cpu_name()}, {os.cpu_count()} cores; OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, "
          f"rhgd.set_threads(1); numpy {np.__version__}, rhgd {rhgd.__version__}, python {platform.python_version()}",
          flush=True)
    if a.grid:
        return grid(a)
    G, F, metric, x0, z0, info = setup(a)
    G.full_from_samples = F.full_from_samples = a.full_sums == "samples"
    g0 = metric(x0)
    print(f"full-sum oracles from the {a.full_sums}", flush=True)
    print(f"quadratic: n_in {G.n}, n_out {F.n}, d_in {G.C.shape[1]}, d_out {F.C.shape[0]}, mu {a.mu}, seed {a.seed}: "
          f"{info['trials']} trial(s), seeds {info['inner_seed']}/{info['outer_seed']}, benchopt's min eig "
          f"{info['benchopt_min_eig']:.4g}; ∇²h spectrum [{info['hess_h_min']:.4g}, {info['hess_h_max']:.4g}], "
          f"H_G [{info['H_G_eig'][0]:.4g}, {info['H_G_eig'][1]:.4g}]; ‖∇h(x0)‖² = {g0:.6g}", flush=True)
    ms = methods(a)
    res = {m.name: [] for m in ms}
    for rnd in range(a.rounds):
        for m in ms:
            r = run_one(m, G, F, metric, x0, z0, g0, a.cap, a.stop, rnd + 1)
            r["hits"] = first_hits(r["rows"], g0)
            r["end"] = end_level(r["rows"], g0)
            res[m.name].append(r)
            deep = max([k for k in DECADES if r["hits"][k] is not None], default=0)
            print(f"round {rnd} {m.name}: {r['status']} after {r['total']:.3g} s, {int(r['rows'][-1, 1])} calls, "
                  f"end level {r['end']:.3g}, "
                  + (f"deepest decade 1e-{deep} at {r['hits'][deep][0]:.3g} s" if deep else "no decade")
                  + (f" [{r['error']}]" if r["error"] else ""), flush=True)
    names = [m.name for m in ms]
    cmd = "RHGD_LIBRARY=build/librhgd.so PYTHONPATH=python /usr/bin/python3 bench/bilevel_quadratic.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    print()
    print(tables(names, res, a.cap))
    print("Settings:")
    for m in ms:
        print(f"- {m.name}: {m.desc}")
    print(f"\ncommand: {cmd}")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        title = (f"benchopt quadratic (f3549c1), n = {G.n}, d = {G.C.shape[1]}, seed {a.seed}; one thread, "
                 f"{a.rounds} round(s) (round 0 bold), cap {a.cap:g} s"
                 + ("; full sums over the samples" if a.full_sums == "samples" else ""))
        try:
            plot(names, res, g0, os.path.join(a.out, "bilevel_quadratic.png"), title)
        except ImportError as e:
            print(f"no plot: {e}")
        summary = dict(command=cmd, info=info, g0=g0, cap=a.cap, stop=a.stop, rounds=a.rounds, cpu=cpu_name(),
                       full_sums=a.full_sums,
                       methods={m.name: dict(settings=m.desc, runs=[
                           dict(status=r["status"], error=r["error"], total=r["total"], end=r["end"],
                                final_calls=float(r["rows"][-1, 1]),
                                hits={f"1e-{k}": r["hits"][k] for k in DECADES}) for r in res[m.name]])
                                for m in ms})
        with open(os.path.join(a.out, "results.json"), "w") as fh:
            json.dump(summary, fh, indent=1)
    return dict(res=res, g0=g0, info=info, names=names)


if __name__ == "__main__":
    main()

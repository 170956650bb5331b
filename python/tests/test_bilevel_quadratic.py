"""bench/bilevel_quadratic.py, the benchmark of benchopt's quadratic
bilevel problem against numpy SOBA, SABA and F2SA, kept honest: its
generator against a literal transcription of benchopt's gen_matrices (the
same draws, the same matrices), its oracles against the dense batch
averages benchopt's QuadraticOracle takes, the closed forms (z*(x) zeroes
the inner gradient; the exact ‖∇h‖² is the gradient of h(x) = F(z*(x), x)
by central differences, exact for a quadratic up to rounding), each
specialist and rhgd's runs decreasing ‖∇h‖² on a small instance (stopped
by a record count, not a clock), and the script's quick mode end to end."""

import json

import numpy as np
import pytest

import rhgd

import _bench

EPS = np.finfo(float).eps


@pytest.fixture(scope="module")
def bq():
    return _bench.load("bilevel_quadratic")


@pytest.fixture(scope="module")
def small(bq):
    """n 64 samples per level, d_in 6, d_out 5 (rectangular, so that a
    transposed cross matrix would not fit), the issue's seed."""
    G, F, info = bq.make_problem(n_inner=64, n_outer=48, dim_inner=6, dim_outer=5, random_state=2442)
    return G, F, info, bq.Metric(G, F)


def benchopt_gen_matrices(n_samples, d_inner, d_outer, L_inner, L_outer, L_cross, mu, seed):
    """benchmark_utils/oracles/quadratic.py l. 17-62 at f3549c1, verbatim
    but for the joblib cache: the dense per-sample matrices."""
    rng = np.random.RandomState(seed)
    U, *_ = np.linalg.svd(rng.randn(d_inner, 1))
    D = np.logspace(np.log10(mu) / 2, np.log10(L_inner) / 2, d_inner)
    D = np.diag(D)
    A = U @ D @ U.T
    X = rng.randn(n_samples, 1, d_inner) @ A
    hess_inner = X.transpose(0, 2, 1) @ X / X.shape[1]
    U, *_ = np.linalg.svd(rng.randn(d_outer, 1))
    D = np.logspace(np.log10(mu) / 2, np.log10(L_outer) / 2, d_outer - 1)
    D = np.diag(np.r_[0, D])
    A = U @ D @ U.T
    X = rng.randn(n_samples, 1, d_outer) @ A
    hess_outer = X.transpose(0, 2, 1) @ X / X.shape[1]
    U, _, V = np.linalg.svd(rng.randn(d_outer, d_inner))
    D = np.zeros((d_outer, d_inner))
    D[:min(d_outer, d_inner), :min(d_outer, d_inner)] = np.diag(
        np.logspace(np.log10(mu), np.log10(L_cross), min(d_outer, d_inner)))
    X = rng.randn(n_samples, 1, d_inner)
    X1 = U @ D @ X.transpose(0, 2, 1)
    X2 = X @ V.T
    cross_mat = X1 @ X2
    return (hess_inner, hess_outer, cross_mat, rng.randn(n_samples, d_inner), rng.randn(n_samples, d_outer))


def test_generator_is_benchopts(bq):
    """The factors give benchopt's matrices: a_i a_iᵀ = hess_inner[i],
    e_i e_iᵀ = hess_outer[i], u_i w_iᵀ = cross_mat[i] (d_out × d_in), to
    rounding of one product, and the linear terms are the same draws,
    bitwise; the full sums are the means (QuadraticOracle l. 117-121)."""
    n, di, do = 9, 6, 4
    ref = benchopt_gen_matrices(n, di, do, 1., 1., .1, .1, 1234)
    fac = bq.gen_matrices(n, di, do, 1., 1., .1, .1, 1234)
    scale = max(np.abs(r).max() for r in ref[:3])
    np.testing.assert_allclose(np.einsum("ni,nj->nij", fac["a"], fac["a"]), ref[0], rtol=0, atol=8 * EPS * scale)
    np.testing.assert_allclose(np.einsum("ni,nj->nij", fac["e"], fac["e"]), ref[1], rtol=0, atol=8 * EPS * scale)
    np.testing.assert_allclose(np.einsum("ni,nj->nij", fac["u"], fac["w"]), ref[2], rtol=0, atol=8 * EPS * scale)
    assert np.array_equal(fac["b"], ref[3]) and np.array_equal(fac["c"], ref[4])
    q = bq.Quadratic(fac)
    for mine, theirs in ((q.H, ref[0]), (q.K, ref[1]), (q.C, ref[2])):
        np.testing.assert_allclose(mine, theirs.mean(axis=0), rtol=0, atol=16 * EPS * scale)


def test_dataset_seeds(bq, small):
    """datasets/quadratic.py l. 42-65: the seeds are the first pair of
    RandomState(2442).randint(2**31 - 1, size=2), kept when benchopt's
    eigenvalue check passes."""
    G, F, info, _ = small
    s = np.random.RandomState(2442).randint(2**31 - 1, size=2)
    assert info["trials"] == 1 and (info["inner_seed"], info["outer_seed"]) == (int(s[0]), int(s[1]))
    assert info["benchopt_min_eig"] == bq.benchopt_min_eig(G, F) >= 1e-12


@pytest.mark.parametrize("batch", [None, slice(16, 32), np.array([3, 3, 7, 40, 0])])
def test_oracles_are_batch_averages(small, batch):
    """Every oracle on a batch (a slice, an index array with repeats, or
    the full sum) is the batch average of the dense per-sample formulas
    (QuadraticOracle l. 169-232), through the factors."""
    G, F, _, _ = small
    rng = np.random.default_rng(0)
    for q in (G, F):
        idx = np.arange(q.n) if batch is None else np.arange(q.n)[batch]
        fac = q.f
        H = np.einsum("ni,nj->nij", fac["a"][idx], fac["a"][idx]).mean(0)
        K = np.einsum("ni,nj->nij", fac["e"][idx], fac["e"][idx]).mean(0)
        C = np.einsum("ni,nj->nij", fac["u"][idx], fac["w"][idx]).mean(0)
        b, c = fac["b"][idx].mean(0), fac["c"][idx].mean(0)
        z, x, v, t = (rng.standard_normal(s) for s in (6, 5, 6, 5))
        val = .5 * z @ H @ z + .5 * x @ K @ x + x @ C @ z + b @ z + c @ x
        tol = dict(rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(q.value(z, x, batch), val, **tol)
        np.testing.assert_allclose(q.grad_z(z, x, batch), H @ z + C.T @ x + b, **tol)
        np.testing.assert_allclose(q.grad_x(z, x, batch), K @ x + C @ z + c, **tol)
        np.testing.assert_allclose(q.hvp(v, batch), H @ v, **tol)
        np.testing.assert_allclose(q.cross(v, batch), C @ v, **tol)
        np.testing.assert_allclose(q.cross_t(t, batch), C.T @ t, **tol)
        if batch is not None:
            gz, hv, cv = q.inner_oracles(z, x, v, batch)
            np.testing.assert_allclose(gz, H @ z + C.T @ x + b, **tol)
            np.testing.assert_allclose(hv, H @ v, **tol)
            np.testing.assert_allclose(cv, C @ v, **tol)
            gz, gx = q.grad(z, x, batch)
            np.testing.assert_allclose(gx, K @ x + C @ z + c, **tol)
        m = q.n if batch is None else len(idx)
        before = q.calls
        q.grad_z(z, x, batch)
        assert q.calls - before == m  # a sample-oracle call per sample


def test_closed_forms(small):
    """z*(x) zeroes the inner gradient (to its conditioning times the
    unit roundoff), and the exact ∇h(x) is h's gradient: central
    differences of h(x) = F(z*(x), x), exact for a quadratic but for
    rounding, along each coordinate and a random direction; ‖∇h‖² is
    the metric."""
    G, F, _, M = small
    rng = np.random.default_rng(1)
    x = -2 + rng.standard_normal(5)
    z = M.z_star(x)
    cond = np.linalg.cond(G.H)
    r = G.grad_z_full(z, x)
    assert np.linalg.norm(r) <= 10 * cond * EPS * (np.linalg.norm(G.H) * np.linalg.norm(z) + np.linalg.norm(G.bm)
                                                    + np.linalg.norm(G.C.T @ x))
    g = M.grad_h(x)
    t = 1e-3
    fd = np.array([(M.h(x + t * e) - M.h(x - t * e)) / (2 * t) for e in np.eye(5)])
    # rounding of h (|h| EPS cond) over 2t, with room
    tol = 100 * cond * EPS * (abs(M.h(x)) + 1) / t
    np.testing.assert_allclose(g, fd, rtol=0, atol=tol)
    u = rng.standard_normal(5)
    np.testing.assert_allclose(g @ u, (M.h(x + t * u) - M.h(x - t * u)) / (2 * t), rtol=0,
                               atol=tol * np.linalg.norm(u))
    assert M(x) == pytest.approx(g @ g, rel=1e-14)
    # ∇²h is the Hessian of h: ∇h is affine with that slope
    Q = M.hessian()
    np.testing.assert_allclose(M.grad_h(x + u) - g, Q @ u, rtol=0, atol=100 * cond * EPS * np.abs(g).max())


@pytest.mark.parametrize("name,records", [("soba", 200), ("saba", 40), ("f2sa", 60)])
def test_specialists_decrease(bq, small, name, records):
    """Each specialist with its benchmark steps takes ‖∇h‖² below a tenth
    of its start on the small instance, within a fixed number of records
    (eval_freq iterations each; no clock)."""
    G, F, _, M = small
    x0, z0 = -2 * np.ones(5), np.zeros(6)
    g0 = M(x0)
    tr = bq.Trace(name, M, [G, F], g0, cap=np.inf, stop=1e-12, max_records=records)
    fn = getattr(bq, name)
    kw = {k: v for k, v in bq.BEST_PARAMS[name.upper()].items()}
    fn(G, F, x0, z0, tr, random_state=1, **kw)
    rows = tr.array()
    assert tr.status == "records" and len(rows) == records
    assert rows[0, 1] == 0 and np.all(np.diff(rows[:, 1]) > 0)  # calls counted
    assert rows[-1, 2] < 0.1 * g0, rows[-1, 2] / g0


@pytest.mark.parametrize("est,finite_sum,exact,settings,want", [
    ("hinv", False, True, dict(preset="adaptive", lower_solve=True), 1e-6),
    ("cg", False, False, dict(preset="adaptive"), 1e-3),
    ("ns", True, False, dict(batch_lower=16, batch_upper=16, batch_cross=16, batch_report=16, batch_hess=64,
                             eta_x=.1, eta_y=.1, inner=10, seed=1), 1e-1),
])
def test_rhgd_decreases(bq, small, est, finite_sum, exact, settings, want):
    """rhgd's runs on the callback problem take ‖∇h‖² down within 300
    epochs: the adaptive preset with the exact solves to 1e-6 of its
    start, with oracles only (CG, BB lower loop) below 1e-3, RSHGD (NS,
    minibatches) below a tenth; and the problem's callbacks pass rhgd's
    own derivative check."""
    G, F, _, M = small
    x0, z0 = -2 * np.ones(5), np.zeros(6)
    g0 = M(x0)
    p = bq.rhgd_problem(rhgd, G, F, finite_sum, exact)
    assert p.check(x0, z0)["ok"]
    tr = bq.Trace(est, M, [G, F], g0, cap=np.inf, stop=want, max_records=300)
    bq.run_rhgd(rhgd, G, F, x0, z0, tr, est, finite_sum, exact, **settings)
    rows = tr.array()
    assert rows[0, 1] > 0 and np.all(np.diff(rows[:, 1]) > 0)  # calls counted
    assert tr.status == "reached", (tr.status, rows[-1, 2] / g0)


def test_rhgd_saba_is_saba(bq):
    """rhgd's saba estimator with benchopt's sampler order (shuffle=true:
    the first pass over the blocks in order, as MinibatchSampler's) takes
    the specialist SABA's steps: over the first pass (8 blocks of 8
    samples on each level) the iterates' ‖∇h‖² agree to rounding, and
    both decrease."""
    G, F, _ = bq.make_problem(n_inner=64, n_outer=64, dim_inner=6, dim_outer=5, random_state=2442)
    M = bq.Metric(G, F)
    x0, z0 = -2 * np.ones(5), np.zeros(6)
    g0 = M(x0)
    spec = bq.Trace("SABA", M, [G, F], g0, cap=np.inf, stop=0, max_records=9)
    bq.saba(G, F, x0, z0, spec, step_size=.1, outer_ratio=1., batch_size=8, eval_freq=1, random_state=1)
    ours = bq.Trace("saba", M, [G, F], g0, cap=np.inf, stop=0, max_records=9)
    bq.run_rhgd(rhgd, G, F, x0, z0, ours, "saba:shuffle=true", True, batch_lower=8, batch_upper=8,
                batch_report=8, inner=1, eta_x=.1, eta_y=.1, seed=1)
    a, b = spec.array()[:, 2], ours.array()[:, 2]
    assert len(a) == len(b) == 9
    np.testing.assert_allclose(b, a, rtol=1e-10)
    assert a[-1] < a[0]


def test_quick_mode(bq, tmp_path, capsys):
    """The quick mode runs every method end to end and writes the tables,
    results.json and the plot."""
    pytest.importorskip("matplotlib")
    out = bq.main(["--quick", "--cap", "0.3", "--out", str(tmp_path)])
    text = capsys.readouterr().out
    assert "| method | 1e-1 |" in text and "sample-oracle calls" in text
    for nm in out["names"]:
        assert f"| {nm} |" in text
        (r,) = out["res"][nm]
        assert len(r["rows"]) >= 1 and r["status"] in ("reached", "cap", "diverged", "ended")
    assert {"SOBA", "SABA", "F2SA", "rhgd RSHGD ns", "rhgd RSHGD cg", "rhgd RSHGD fo", "rhgd saba (wider grid)",
            "rhgd saba (SABA's best_params)"} <= set(out["names"])
    summary = json.loads((tmp_path / "results.json").read_text())
    assert set(summary["methods"]) == set(out["names"])
    assert (tmp_path / "bilevel_quadratic.png").stat().st_size > 10_000


def test_full_sums_from_samples(small):
    """--full-sums samples: a full-sum oracle over the samples' factors
    equals the averaged matrices' (to rounding) and counts the same n."""
    G, F, _, _ = small
    rng = np.random.default_rng(2)
    z, x, v, t = (rng.standard_normal(s) for s in (6, 5, 6, 5))
    for q in (G, F):
        want = [q.value(z, x, None), q.grad_z(z, x, None), q.grad_x(z, x, None), q.hvp(v, None), q.cross(v, None),
                q.cross_t(t, None)]
        q.full_from_samples = True
        try:
            before = q.calls
            got = [q.value(z, x, None), q.grad_z(z, x, None), q.grad_x(z, x, None), q.hvp(v, None),
                   q.cross(v, None), q.cross_t(t, None)]
            assert q.calls - before == 6 * q.n
        finally:
            q.full_from_samples = False
        for w, g in zip(want, got):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)

"""rhgd.torch faster than one's own loop (issue 28): the fused lower loop
(lower_steps, one crossing per epoch on a Euclidean lower level) gives the
same run as the step-by-step loop, and hess_gy_inv is derived (the 'hinv'
estimator on any torch problem with a Euclidean lower level of moderate
dimension), with minibatches."""

import sys
import warnings

import numpy as np
import pytest

import _torch  # noqa: F401  PyTorch, or this module skipped; python/examples on sys.path
import torch

import rhgd
import rhgd.torch as rt

import torch_hyperrep  # noqa: E402


@pytest.mark.parametrize("est", ["cg", "ns:gamma=0.1,terms=30", "hinv", "fo"])
def test_fused_lower_loop_is_the_same_run(metric, est):
    """With lower_steps (the default on a Euclidean lower level) the run is
    the step-by-step loop's to rounding, and an epoch crosses into Python
    once for its S lower steps instead of S times."""
    kw = dict(estimator=est, epochs=6, eta_x=0.5, eta_y=0.1, inner=10)
    runs = {}
    for fused in (True, False):
        p = rt.Problem(metric["f"], metric["g"], metric["mx"], metric["my"], fuse_lower=fused)
        runs[fused] = (rhgd.minimize(p, metric["M0"], metric["W0"], **kw), p)
    (a, pa), (b, pb) = runs[True], runs[False]
    np.testing.assert_allclose(a.history["f"], b.history["f"], rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(a.x, b.x, rtol=1e-11, atol=1e-13)
    assert a.lower_grads == b.lower_grads  # the same work, counted alike
    assert pa.crossings["lower_steps"] == a.nit + 1  # one per epoch and the final lower solve
    assert pa.crossings.get("grad_gy", 0) < pb.crossings["grad_gy"] - 10 * a.nit + 1


def test_fused_lower_loop_divergence_is_reported(metric):
    """A too long η_y diverges in the fused loop as in Go's: Diverged, with
    the step named."""
    p = rt.Problem(metric["f"], metric["g"], metric["mx"], metric["my"])
    with pytest.raises(rhgd.NumericalError, match="lower"):
        rhgd.minimize(p, metric["M0"], metric["W0"], estimator="cg", epochs=3, eta_y=50.0, inner=20)


def test_hinv_derived_matches_cg(metric):
    """'hinv' on a torch problem without a hand-written inverse: the
    hypergradient equals CG's at a tight tolerance (the Hessian is formed
    by one batched product and factored by Cholesky)."""
    p = rt.Problem(metric["f"], metric["g"], metric["mx"], metric["my"], lower_solve=metric["lower"])
    x = metric["M0"]
    y = metric["lower"](x, metric["W0"])
    h_inv = rhgd.hypergradient(p, x, y, estimator="hinv")
    h_cg = rhgd.hypergradient(p, x, y, estimator="cg:tol=1e-13,maxiter=200")
    torch.testing.assert_close(h_inv, h_cg, rtol=1e-9, atol=1e-12)
    r = rhgd.minimize(p, x, metric["W0"], estimator="hinv", epochs=5, eta_x=0.5, eta_y=0.1)
    assert r.success and r.hess_vecs == 0


def test_hinv_with_minibatches():
    """The derived inverse is the minibatch's (hyper-representation in
    torch with RSHGD's batches): a run with hinv and batches agrees with CG
    at a tight tolerance on the same batches."""
    data = torch_hyperrep.make_data(N=24, d=6, k=2, n_train=12)
    f, g, mx, my, nf, ng = torch_hyperrep.problem(data)
    p = rt.Problem(f, g, mx, my, n_f=nf, n_g=ng)
    kw = dict(epochs=4, eta_x=0.2, eta_y=0.2, inner=5, batch_lower=6, batch_upper=6, batch_cross=6,
              batch_hess=6, seed=3)
    a = rhgd.minimize(p, data["W0"], data["beta0"], estimator="hinv", **kw)
    b = rhgd.minimize(p, data["W0"], data["beta0"], estimator="cg:tol=1e-13,maxiter=100", **kw)
    np.testing.assert_allclose(a.history["hypergrad_norm"], b.history["hypergrad_norm"], rtol=1e-8)


def test_hinv_not_positive_definite_says_so(metric):
    """A lower level that is not strongly convex where hinv is asked: the
    error says so and points to damped CG."""
    def g(M, W):  # concave in W's last column
        return metric["g"](M, W) - 10.0 * torch.sum(W[:, 2] ** 2)

    p = rt.Problem(metric["f"], g, metric["mx"], metric["my"])
    with pytest.raises(rhgd.CallbackError, match="not positive definite.*damping=auto"):
        rhgd.hypergradient(p, metric["M0"], metric["W0"], estimator="hinv")


def test_hinv_above_the_cap_falls_back_to_cg(metric):
    """Above hinv_max_dim the inverse is not derived: 'hinv' runs as CG,
    with a warning that says so."""
    p = rt.Problem(metric["f"], metric["g"], metric["mx"], metric["my"], hinv_max_dim=10)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = rhgd.minimize(p, metric["M0"], metric["W0"], estimator="hinv", epochs=2, eta_x=0.5, eta_y=0.1)
    assert r.settings.startswith("cg")
    assert any("hinv_max_dim" in str(m.message) for m in w)


def test_fused_lower_loop_on_a_whole_finite_sum():
    """A finite-sum g (n_g > 0) without lower minibatches is summed whole
    at every step: the fused loop runs it, with the step-by-step run's
    result to rounding, and one crossing per epoch."""
    data = torch_hyperrep.make_data(N=24, d=6, k=2, n_train=12)
    f, g, mx, my, nf, ng = torch_hyperrep.problem(data)
    runs = {}
    for fused in (True, False):
        p = rt.Problem(f, g, mx, my, n_f=nf, n_g=ng, fuse_lower=fused)
        runs[fused] = (rhgd.minimize(p, data["W0"], data["beta0"], estimator="cg", epochs=4, eta_x=0.2, eta_y=0.2,
                                     inner=10, batch_upper=6), p)
    (a, pa), (b, pb) = runs[True], runs[False]
    np.testing.assert_allclose(a.history["f"], b.history["f"], rtol=1e-12, atol=1e-14)
    assert pa.crossings["lower_steps"] == a.nit + 1 and pa.crossings.get("grad_gy", 0) == 0


@pytest.mark.parametrize("which", ["metric", "hyperrep"])
def test_ad_by_one_vjp_is_the_same_run(metric, which):
    """AD on a Euclidean lower level differentiates the fused loop in one
    crossing (lower_steps_vjp: the unrolled loop's backward pass, x-only
    work such as the logm features reused with their graph): the run is
    AD's reverse sweep over the kept points to rounding, with the same
    counts."""
    if which == "metric":
        f, g, mx, my, x0, y0, kw = metric["f"], metric["g"], metric["mx"], metric["my"], metric["M0"], metric["W0"], {}
        st = dict(epochs=5, eta_x=0.5, eta_y=0.1, inner=10)
    else:
        data = torch_hyperrep.make_data(N=24, d=6, k=2, n_train=12)
        f, g, mx, my, nf, ng = torch_hyperrep.problem(data)
        x0, y0, kw = data["W0"], data["beta0"], dict(n_f=nf, n_g=ng)
        st = dict(epochs=4, eta_x=0.2, eta_y=0.2, inner=8)
    runs = {}
    for fused in (True, False):
        p = rt.Problem(f, g, mx, my, fuse_lower=fused, **kw)
        runs[fused] = (rhgd.Solver(p, "ad", **st).run(x0, y0), p)
    (a, pa), (b, pb) = runs[True], runs[False]
    np.testing.assert_allclose(a.history["f"], b.history["f"], rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(np.asarray(a.x), np.asarray(b.x), rtol=1e-10, atol=1e-12)
    assert (a.hess_vecs, a.cross_vecs, a.lower_grads) == (b.hess_vecs, b.cross_vecs, b.lower_grads)
    assert pa.crossings["lower_steps_vjp"] == a.nit and pa.crossings.get("hess_gy", 0) == 0
    assert pb.crossings["hess_gy"] > 0

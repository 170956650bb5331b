"""Data from float32 pipelines: inputs within float32 rounding of their
constraints are projected with a ProjectedInput warning, not rejected;
inputs clearly off still raise InvalidArgument."""

import warnings

import numpy as np
import pytest

import rhgd

from _synthetic import D, R, draw


def float32_data(seed=3):
    rng = np.random.default_rng(seed)
    x, y, w0 = draw(rng)
    s = rng.uniform(-0.05, 0.05, (D, D))
    m0 = np.eye(D) + (s + s.T) / 2
    # As float32 code leaves them: W0 orthonormal and M0 symmetric to
    # float32 rounding only (M0's upper triangle one float32 ulp off).
    m32 = m0.astype(np.float32)
    iu = np.triu_indices(D, 1)
    m32[iu] = np.nextafter(m32[iu], np.float32(np.inf))
    return dict(X=x.astype(np.float32), Y=y.astype(np.float32), W0=w0.astype(np.float32), M0=m32,
                nu=np.float32(0.01)), w0, m0


def test_builtin_float32_data_is_projected_with_warnings():
    data, w0, m0 = float32_data()
    with pytest.warns(rhgd.ProjectedInput) as rec:
        p = rhgd.builtin("synthetic", data=data)
    msgs = [str(w.message) for w in rec]
    assert len(msgs) == 2 and msgs[0].startswith("rhgd: W0: ") and msgs[1].startswith("rhgd: M0: "), msgs
    assert p.notes == [m[len("rhgd: "):] for m in msgs]
    x0, y0 = p.start()
    w = x0.reshape(D, R)
    assert np.linalg.norm(w.T @ w - np.eye(R)) < 1e-13
    assert np.array_equal(y0.reshape(D, D), y0.reshape(D, D).T)
    assert np.linalg.norm(w - w0) < 1e-6

    # The float64 data's run and the float32 data's agree to float32
    # accuracy.
    data64 = {k: np.asarray(v, dtype=np.float64) for k, v in data.items()}
    data64.update(W0=w0, M0=m0, X=data["X"].astype(np.float64))
    p64 = rhgd.builtin("synthetic", data=data64)
    assert p64.notes == []
    r32 = rhgd.Solver(p, "hinv", epochs=10).run()
    r64 = rhgd.Solver(p64, "hinv", epochs=10).run()
    assert abs(r32.fun - r64.fun) <= 1e-5 * abs(r64.fun)


def test_float32_start_is_projected_once():
    data, w0, m0 = float32_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rhgd.ProjectedInput)
        p = rhgd.builtin("synthetic", data=data)
    x0, y0 = data["W0"], data["M0"]
    with pytest.warns(rhgd.ProjectedInput, match="x0: "):
        res = rhgd.Solver(p, "hinv", epochs=3).run(x0, y0)
    assert res.success
    with warnings.catch_warnings():
        warnings.simplefilter("error", rhgd.ProjectedInput)
        rhgd.Solver(p, "hinv", epochs=3).run(x0, y0)  # noted once: no warning
    assert sum(n.startswith("x0: ") for n in p.notes) == 1
    off = np.array(x0, dtype=np.float64)
    off[0, 0] += 0.01
    with pytest.raises(rhgd.InvalidArgument, match="beyond float32 rounding"):
        p.set_start(off, y0)


def test_float32_marginals():
    a = np.full(157, 1 / 157, dtype=np.float32)
    b = np.full(49, 1 / 49, dtype=np.float32)
    c = rhgd.Coupling(a, b)
    e = rhgd.Euclidean(2)
    with pytest.warns(rhgd.ProjectedInput, match="mx: marginals: .*rescaled"):
        rhgd.Problem(c, e, f=lambda x, y: 0.0, grad_fx=lambda x, y: np.zeros_like(x),
                     grad_fy=lambda x, y: np.zeros_like(y), grad_gy=lambda x, y: y)
    with pytest.raises(rhgd.InvalidArgument, match="beyond float32 rounding"):
        rhgd.Coupling(a, b * 1.01)

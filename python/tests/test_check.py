"""Problem.check: Go's solver.CheckProblem on a problem's oracles, through
rhgd_problem_check."""

import numpy as np
import pytest

import rhgd
from test_solver import D, R, SyntheticNumpy, python_problem, synthetic_data


def point(data, seed=1):
    """W0 and an SPD point away from the identity (at M = I grad_W g
    vanishes on the Stiefel manifold, a degenerate place to check it)."""
    return data["W0"], rhgd.SPD(D).rand_point(seed)


def failed(rep):
    return {r["name"] for r in rep["reports"] if not r["ok"]}


@pytest.mark.parametrize("riemannian", [True, False])
def test_check_passes_on_correct_oracles(riemannian):
    data = synthetic_data()
    p = python_problem(data, riemannian=riemannian)
    rep = p.check(*point(data), seed=3)
    assert rep["ok"] and not failed(rep), [(r["name"], r["msg"]) for r in rep["reports"] if not r["ok"]]
    names = {r["name"] for r in rep["reports"]}
    assert {"GradFx: gradient", "GradFy: gradient", "GradGy: gradient", "GradGx: gradient", "caches"} <= names
    if riemannian:
        assert {"HessGy: Hessian", "CrossGxy: cross derivative", "CrossGyx: cross derivative", "HessGyInv"} <= names
    gx = next(r for r in rep["reports"] if r["name"] == "GradFx: gradient")
    assert gx["exact"] or abs(gx["slope"] - 2) < 0.1  # a gradient's Taylor remainder falls as t²
    assert len(gx["steps"]) == len(gx["errors"]) > 0


def test_check_flags_a_wrong_gradient():
    """grad_fx off by 10 % and a Hessian with the wrong sign are flagged,
    each by its own report; the other oracles still pass."""
    data = synthetic_data()
    s = SyntheticNumpy(data)
    mx, my = rhgd.Stiefel(D, R), rhgd.SPD(D)
    p = rhgd.Problem(mx, my, f=s.f, grad_fx=lambda w, m: 1.1 * s.grad_fx(w, m), grad_fy=s.grad_fy,
                     grad_gy=s.grad_gy, g=s.g, grad_gx=s.grad_gx, hess_gy=lambda w, m, u: -s.hess_gy(w, m, u),
                     gradients="riemannian", x0=data["W0"], y0=data["M0"])
    rep = p.check(*point(data), seed=3)
    assert not rep["ok"]
    bad = failed(rep)
    assert "GradFx: gradient" in bad and "HessGy: Hessian" in bad, bad
    assert "GradFy: gradient" not in bad and "GradGy: gradient" not in bad
    gx = next(r for r in rep["reports"] if r["name"] == "GradFx: gradient")
    assert gx["slope"] is not None and gx["slope"] < 1.5  # a wrong gradient leaves a first-order remainder


def test_check_options_and_errors():
    data = synthetic_data()
    p = python_problem(data)
    rep = p.check()  # the starting point
    assert {"ok", "reports"} <= set(rep) and rep["reports"]
    with pytest.raises(ValueError, match="both x and y"):
        p.check(data["W0"])
    with pytest.raises(rhgd.InvalidArgument, match="tol"):
        p.check(tol=-1)
    with pytest.raises(rhgd.InvalidArgument, match="x"):
        p.check(np.zeros((D, R)), data["M0"])

    def boom(w, m):
        raise RuntimeError("no")

    s = SyntheticNumpy(data)
    pb = rhgd.Problem(rhgd.Stiefel(D, R), rhgd.SPD(D), f=s.f, grad_fx=boom, grad_fy=s.grad_fy, grad_gy=s.grad_gy,
                      gradients="riemannian")
    rep = pb.check(*point(data))
    assert "GradFx: gradient" in failed(rep)
    assert pb.error is None

"""The suite's small configuration (make test's suite-quick stage): every
problem × every method of the small config and one outside method plugged
in from a file by --method, with the report, and the true hypergradients
the suite measures by checked against rhgd's estimators and finite
differences."""

import json
import pathlib
import sys
import textwrap

import numpy as np
import pytest

here = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(here.parent), str(here.parents[1] / "python")]

import rhgd  # noqa: E402
from suite import __main__ as cli  # noqa: E402
from suite import problems as P  # noqa: E402

# An outside method as a user writes it: Riemannian gradient descent on x
# with the exact lower solution, through the suite's counted oracles.
PLUG = textwrap.dedent('''
    def exact_gd(problem, budget):
        x, y = problem.x0.copy(), problem.y0.copy()
        for k in range(budget.epochs):
            y = problem.oracle("lower_solve", x, y)
            fy = problem.problem.oracle("grad_fy", x, y)
            g = problem.oracle("grad_fx", x, y)
            G, F = problem.benchopt
            import scipy.linalg
            v = scipy.linalg.solve(G.H, fy)
            g = g - problem.oracle("cross_gxy", x, y, v)
            yield {"x": x, "y": y, "calls": dict(problem.calls)}
            x = problem.mx.retract(x, g, -0.5)


    exact_gd.applies = lambda problem: None if problem.benchopt else "needs H_G"
''')


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    out = tmp_path_factory.mktemp("suite")
    plug = out / "plug.py"
    plug.write_text(PLUG)
    cli.main(["--config", "small", "--out", str(out), "--method", f"{plug}:exact_gd"])
    res = json.loads((out / "results.json").read_text())["results"]
    return out, {(r["problem"], r["method"]): r for r in res}


def test_report(suite):
    out, res = suite
    text = (out / "report.md").read_text()
    for name in P.NAMES:
        assert f"## {name}\n" in text
        assert (out / f"{name}.png").stat().st_size > 10000, name
    assert "n/a: not Euclidean" in text
    assert len(res) == len(P.NAMES) * 10
    assert not [k for k, r in res.items() if r["status"] == "failed"]


def test_every_problem_runs(suite):
    """rhgd's CG and AdaRHD's port run on every problem, each measured
    against the true hypergradient from the start (the first record is
    ‖grad F(x₀)‖/‖grad F(x₀)‖ up to the step)."""
    _, res = suite
    for name in P.NAMES:
        for m in ("rhgd cg", "AdaRHD (Python)"):
            r = res[(name, m)]
            assert r["status"] in ("reached", "ended", "time cap", "records", "error"), (name, m, r)
            assert len(r["rows"]) >= 1 and np.isfinite(r["rows"][0][2]), (name, m)
            assert r["g0"] > 0


def test_specialists_where_they_apply(suite):
    """SOBA, SABA and F2SA run on benchopt's quadratic only; n/a elsewhere."""
    _, res = suite
    for m in ("SOBA", "SABA", "F2SA"):
        assert res[("quadratic", m)]["status"] != "n/a"
        assert res[("quadratic", m)]["rows"][-1][2] < 1
        for name in P.NAMES:
            if name != "quadratic":
                assert res[(name, m)]["status"] == "n/a"


def test_known_solutions(suite):
    """The adaptive preset reaches 1e-4 of ‖grad F(x₀)‖ on the problems with
    a known solution, and then x is close to it."""
    _, res = suite
    for name in ("quadratic", "grassmann", "simplex"):
        r = res[(name, "rhgd cg adaptive")]
        assert r["status"] == "reached", (name, r["status"])
        assert r["solution_error"] < 1e-2, (name, r["solution_error"])


def test_plugged_method(suite):
    """The method given by --method runs, is counted and converges on the
    quadratic, and is n/a where its applies says so."""
    _, res = suite
    r = res[("quadratic", "exact_gd")]
    assert r["group"] == "outside" and r["rows"][-1][1] > 0
    assert r["rows"][-1][2] < r["rows"][0][2]
    assert (res[("grassmann", "exact_gd")]["status"], res[("grassmann", "exact_gd")]["why"]) == ("n/a", "needs H_G")


@pytest.mark.parametrize("name", ["grassmann", "simplex", "quadratic", "plstiefel", "synthetic"])
def test_true_hypergradient(name):
    """The suite's truth equals rhgd's CG hypergradient at y*(x) (damped on
    plstiefel: within its bias), and on the problems with a closed form, a
    central difference of F(x) = f(x, y*(x))."""
    sp = P.make(name, "small")
    x = sp.x0
    g = sp.true_hypergrad(x, sp.y0)
    ys = sp.problem.oracle("lower_solve", x, sp.y0)
    spec = "cg:damping=auto,tol=1e-14,maxiter=500" if name == "plstiefel" else "cg:tol=1e-14,maxiter=500"
    h = rhgd.hypergradient(sp.problem, x, ys, spec)
    assert np.linalg.norm(g - h) <= (1e-2 if name == "plstiefel" else 1e-10) * np.linalg.norm(g)
    if name in ("grassmann", "simplex", "quadratic"):
        def F(z):
            return sp.problem.oracle("f", z, sp.problem.oracle("lower_solve", z, sp.y0))
        e = 1e-6
        fd = np.array([(F(x + e * u) - F(x - e * u)) / (2 * e) for u in np.eye(x.size)])
        assert np.linalg.norm(fd - g) <= 1e-7 * np.linalg.norm(g)
    if name == "grassmann":
        assert np.linalg.norm(rhgd.hypergradient(sp.problem, x, ys, "hinv") - g) <= 1e-10 * np.linalg.norm(g)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))

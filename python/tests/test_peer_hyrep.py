"""bench/torch_hyrep.py, the side-by-side benchmark against the authors'
hyper-representation code (ported to plain torch), kept alive: on tiny
data it runs both figures' code, the port and rhgd (torch-defined and
built-in) run the same algorithm from the same start and so reach the same
iterates, and the common measure of figure (b), the exact hypergradient,
is the built-in problem's HINV hypergradient at the exact lower solution."""


import numpy as np
import pytest

try:
    import torch
except ImportError as e:  # Debian: python3-torch (make python-deps installs it)
    pytest.skip(f"the peer benchmark needs PyTorch, which does not import here ({e}); install python3-torch",
                allow_module_level=True)

import rhgd

import _bench

TINY = ["--N", "16", "--d", "5", "--r", "2", "--lower-iter", "10", "--cg-iter", "10", "--ns-iter", "10",
        "--threads", "1"]


@pytest.fixture(scope="module")
def th():
    return _bench.load("torch_hyrep")


def test_same_iterates(th, capsys):
    """CG, NS, HINV and AD: after two epochs from the same start the port's
    W and rhgd.torch's agree to rounding (CG solves H v = b on rhgd's side
    and H² v = H b on the authors', both to 1e-10; the rest are the same
    sums), and the table is printed."""
    out = th.main(TINY + ["--figures", "a", "--estimators", "cg,ns,hinv,ad", "--epochs", "2", "--rounds", "1"])
    for est in ("cg", "ns", "hinv", "ad"):
        assert out["agree"][est] < 1e-8, est
        assert set(out["a"][est]) == {"port", "torch", "go"}
    assert "| s/epoch, cg |" in capsys.readouterr().out


def test_exact_hypergradient(th):
    """The exact hypergradient of figure (b) is the built-in problem's HINV
    estimate at the exact lower solution (its first epoch with
    lower_solve), on the same data."""
    data = th.make_data(N=16, d=5, r=2, n_train=8, seed=3)
    port = th.Authors(data, 0.1)
    gp = rhgd.builtin("hyperrep", data=data, **{"lambda": 0.1})
    seen = []
    rhgd.Solver(gp, "hinv", lower_solve=True, epochs=1).run(
        data["W0"], data["beta0"], lambda info: seen.append(info["hypergrad"].copy()))
    want = port.true_hypergrad(data["W0"]).numpy()
    np.testing.assert_allclose(seen[0], want, rtol=1e-9, atol=1e-12)


def test_time_to_tol_runs(th, capsys):
    """Figure (b) ends within its caps and prints its rows."""
    out = th.main(TINY + ["--figures", "b", "--rounds-b", "1", "--cap-epochs", "3", "--cap-epochs-rhgd", "3",
                          "--tol", "1e-12"])
    assert {"rhgd-auto", "rhgd-exact", "port-hinv"} <= set(out["b"])
    assert out["b"]["port-hinv"][0]["epochs"] == 3
    assert "time to ‖ĝ‖" in capsys.readouterr().out

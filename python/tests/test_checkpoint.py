"""checkpoint=: a run killed with SIGKILL at a random epoch and run again
with the same checkpoint ends as the uninterrupted run, bit for bit; a
checkpoint of another run is an error naming what differs."""

import os
import random
import subprocess
import sys
import time

import numpy as np
import pytest

import rhgd


def _callback_problem():
    """A Euclidean bilevel problem given by Python callbacks (gradients
    only): min_x 1/2|y*(x) - c|^2 + lambda/2 |x|^2, y*(x) = A⁻¹Bx."""
    rng = np.random.default_rng(3)
    k, m, lam = 3, 5, 0.1
    a = np.diag(np.linspace(1, 3, m))
    b, c = rng.standard_normal((m, k)), rng.standard_normal(m)
    return rhgd.Problem(rhgd.Euclidean(k), rhgd.Euclidean(m),
                        f=lambda x, y: 0.5 * np.sum((y - c) ** 2) + 0.5 * lam * np.sum(x ** 2),
                        grad_fx=lambda x, y: lam * x, grad_fy=lambda x, y: y - c,
                        grad_gy=lambda x, y: a @ y - b @ x, grad_gx=lambda x, y: -b.T @ y,
                        x0=np.ones(k), y0=np.zeros(m))


# The runs: a problem and minimize's keywords. CG with its warm start on
# the synthetic problem; RSHGD (the paper's batches) with the adaptive
# preset on hyperrep; the first-order estimator (its z and λ schedule) on
# a problem of Python callbacks.
CASES = {
    "cg-warm": (lambda: rhgd.builtin("synthetic", n=30, d=8, r=3),
                dict(estimator="cg:warm=true,tol=1e-6", epochs=30, seed=3)),
    "rshgd-adaptive": (lambda: rhgd.builtin("hyperrep", n=40, d=6, k=2, ntrain=20),
                       dict(estimator="cg", epochs=30, batches="paper", preset="adaptive")),
    "fo-callbacks": (_callback_problem, dict(estimator="fo", epochs=30, eta_y=0.3, inner=10)),
}


def _child(case, path):
    """The process the test kills: the run with a checkpoint after every
    epoch, printing each epoch and pausing 10 ms in the callback."""
    make, kw = CASES[case]

    def cb(info):
        print(info["epoch"], flush=True)
        time.sleep(0.01)

    rhgd.minimize(make(), checkpoint=path, checkpoint_every=1, callback=cb, **kw)


def _bits(v):
    a = np.asarray(v)
    return a.view(np.uint64) if a.dtype == np.float64 else a


def _same(want, got):
    """Two OptimizeResults are the same run, bit for bit but the times."""
    for k in ("x", "y", "best_x", "best_y"):
        np.testing.assert_array_equal(_bits(want[k]), _bits(got[k]), err_msg=k)
    for k in ("fun", "best_f", "hypergrad_norm", "residual"):
        assert _bits(np.float64(want[k])) == _bits(np.float64(got[k])), k
    for k in ("nit", "status", "upper_grads", "lower_grads", "hess_vecs", "cross_vecs", "iterations", "lower_values",
              "lower_solves", "retract_failures", "lower_x_grads", "upper_y_grads", "settings"):
        assert want[k] == got[k], k
    assert want.history.keys() == got.history.keys()
    for k in want.history:
        if k != "elapsed":
            np.testing.assert_array_equal(_bits(want.history[k]), _bits(got.history[k]), err_msg=k)


@pytest.mark.parametrize("case", sorted(CASES))
def test_killed_run_resumes(case, tmp_path):
    """The child, killed with SIGKILL at a random epoch (during the epoch
    after the one printed, or its checkpoint's write), leaves a checkpoint
    from which the same minimize call here ends as the uninterrupted run:
    iterates, best iterates, f, counts and every history column but the
    elapsed time, and the history holds all epochs; the callback sees
    only the epochs after the checkpoint's."""
    make, kw = CASES[case]
    want = rhgd.minimize(make(), **kw)
    path = str(tmp_path / "run.ckpt")
    rnd = random.Random(f"{case}-29")
    at = rnd.randint(1, kw["epochs"] // 2)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen([sys.executable, __file__, case, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, text=True)
    try:
        for line in proc.stdout:
            if int(line) == at:
                break
        time.sleep(rnd.uniform(0, 0.015))
        proc.kill()
    finally:
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == -9, f"the child ended before the kill: {err}"
    assert os.path.exists(path)
    seen = []
    got = rhgd.minimize(make(), checkpoint=path, callback=lambda info: seen.append(info["epoch"]), **kw)
    assert seen[0] >= at and seen == list(range(seen[0], kw["epochs"])), "not resumed"
    _same(want, got)
    # The checkpoint of the finished run gives its result at once.
    seen.clear()
    _same(want, rhgd.minimize(make(), checkpoint=path, callback=lambda info: seen.append(info["epoch"]), **kw))
    assert seen == []


def test_checkpoint_errors(tmp_path):
    """A checkpoint of other settings, of another problem's parameters, a
    truncated one, checkpoint_every=0 and checkpoint_every without
    checkpoint are errors naming what is wrong; a failed resume runs
    nothing and leaves the file."""
    make, kw = CASES["cg-warm"]
    kw = dict(kw, epochs=6)
    path = tmp_path / "run.ckpt"
    rhgd.minimize(make(), checkpoint=path, **kw)
    with pytest.raises(rhgd.InvalidArgument, match=r'eta_x = "0.5" in the checkpoint, "0.25" in this solver'):
        rhgd.minimize(make(), checkpoint=path, eta_x=0.25, **kw)
    with pytest.raises(rhgd.InvalidArgument, match=r'of other problem: n = "30" in the checkpoint, "31"'):
        rhgd.minimize(rhgd.builtin("synthetic", n=31, d=8, r=3), checkpoint=path, **kw)
    with pytest.raises(rhgd.InvalidArgument, match=r"estimator"):
        rhgd.minimize(make(), checkpoint=path, **dict(kw, estimator="ns"))
    b = path.read_bytes()
    short = tmp_path / "short.ckpt"
    short.write_bytes(b[: len(b) // 2])
    with pytest.raises(rhgd.InvalidArgument, match="truncated"):
        rhgd.minimize(make(), checkpoint=short, **kw)
    assert short.read_bytes() == b[: len(b) // 2]
    with pytest.raises(rhgd.InvalidArgument, match="checkpoint_every = 0: want the epochs between checkpoints"):
        rhgd.minimize(make(), checkpoint=tmp_path / "new.ckpt", checkpoint_every=0, **kw)
    with pytest.raises(ValueError, match="checkpoint_every is given without checkpoint"):
        rhgd.minimize(make(), checkpoint_every=5, **kw)


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2])

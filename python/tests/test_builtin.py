"""Built-in problems: the seed make demo uses, shapes, parameter names, and
the README's snippet."""

import pathlib
import pickle
import re

import numpy as np
import pytest

import rhgd

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def readme_python():
    """The first python block of README.md's "## C and Python"."""
    text = README.read_text()
    section = text[text.index("\n## C and Python\n"):]
    return re.search(r"\n```python\n(.*?)\n```\n", section, re.S).group(1)


def demo_hinv_f():
    """make demo's final f for hinv, as README.md's table gives it."""
    return float(re.search(r"^hinv\s+IterationLimit\s+\d+\s+(\S+)", README.read_text(), re.M).group(1))


def test_readme_snippet_reproduces_make_demo(capsys):
    """README's Python lines, run as written, give make demo's hinv row:
    builtin() defaults to the rhgd command's seed, 42."""
    ns = {}
    exec(readme_python(), ns)
    r = ns["r"]
    assert abs(r.fun - demo_hinv_f()) <= 1e-6, (r.fun, demo_hinv_f())
    assert capsys.readouterr().out.split()[1:] == ["(50,", "20)", "(50,", "50)"]


def test_default_seed():
    f = {}
    for seed in (None, 42, 0):
        p = rhgd.builtin("synthetic", n=30, d=8, r=3, **({} if seed is None else {"seed": seed}))
        f[seed] = p.oracle("f", *p.start())
    assert f[None] == f[42] != f[0]


def test_shapes():
    p = rhgd.builtin("synthetic", n=30, d=8, r=3)
    assert (p.mx.shape, p.my.shape) == ((8, 3), (8, 8))
    assert repr(p.mx) == "<rhgd manifold stiefel:n=8,p=3,retr=qr>"
    x0, y0 = p.start()
    assert x0.shape == (8, 3) and y0.shape == (8, 8)
    seen = []
    r = rhgd.minimize(p, estimator="hinv", epochs=3, callback=lambda info: seen.append(info) and False)
    assert r.x.shape == (8, 3) and r.y.shape == (8, 8)
    assert seen[0]["x"].shape == seen[0]["hypergrad"].shape == (8, 3) and seen[0]["y"].shape == (8, 8)
    p.mx.check_point(r.x)
    p.my.check_point(r.y)

    # A product: spdnet's x is W1 in St(D, d1) times W2 in St(d1, d2).
    q = rhgd.builtin("spdnet", d1=6, d2=4)
    assert isinstance(q.mx, rhgd.Product) and q.mx.shape == (q.len_x,)
    w1, w2 = q.mx.split(q.start()[0])
    assert w1.shape[1] == 6 and w2.shape == (6, 4) and w1.size + w2.size == q.len_x
    for w in (w1, w2):
        assert np.allclose(w.T @ w, np.eye(w.shape[1]), atol=1e-12)
    # A column: hyperrep's ridge weights.
    h = rhgd.builtin("hyperrep", n=20, ntrain=10, d=6, k=2)
    assert h.my.shape == (3, 1) and h.start()[1].shape == (3, 1)


def test_parameter_names_are_keywords():
    params = rhgd.problem_params("synthetic")
    assert "start_seed" in params and not any("-" in k for k in params)
    kw = dict(n=30, d=8, r=3)
    x3 = rhgd.builtin("synthetic", start_seed=3, **kw).start()[0]
    assert np.array_equal(x3, rhgd.builtin("synthetic", **{"start-seed": 3}, **kw).start()[0])
    assert not np.array_equal(x3, rhgd.builtin("synthetic", **kw).start()[0])


def test_optimize_result_reads_like_scipy():
    """minimize's result has scipy.optimize.OptimizeResult's names and
    behaviour: keys are attributes, status is an int whose name the
    library's rhgd_status_string gives, and the repr shows one key a line."""
    p = rhgd.builtin("synthetic", n=30, d=8, r=3)
    r = rhgd.minimize(p, estimator="hinv", epochs=3)
    assert isinstance(r, rhgd.OptimizeResult) and isinstance(r, dict)
    for k in ("x", "fun", "nit", "status", "success", "message", "y", "best_x", "best_y", "best_f",
              "hypergrad_norm", "history", "upper_grads", "hess_vecs", "status_name"):
        assert k in r and getattr(r, k) is r[k], k
    assert type(r.status) is int and r.status == 2 and r.status_name == "IterationLimit" and r.success
    assert r.nit == 3 and r.fun == p.oracle("f", r.x, r.y) and r.x.shape == (8, 3)  # scipy's fun: f at x
    assert r.message == rhgd.STATUS[r.status][1]
    assert r.f == r["f"] == r.fun and r.epochs == r["epochs"] == r.nit  # the older names
    assert "f" not in r and "epochs" not in r
    with pytest.raises(AttributeError):
        r.no_such_key
    r.extra = 1
    assert r["extra"] == 1
    assert set(dir(r)) == set(r.keys())
    lines = repr(r).splitlines()
    assert lines[0].strip().startswith("message: ") and any(ln.strip().startswith("nit: 3") for ln in lines)
    # Results travel between processes (Dask, multiprocessing) as pickles.
    r2 = pickle.loads(pickle.dumps(r))
    assert type(r2) is rhgd.OptimizeResult and r2.nit == r.nit and r2.f == r.fun and np.array_equal(r2.x, r.x)
    # The status table and the library agree (Go's solver.Status).
    lib = rhgd._lib.lib()
    for code, (name, _) in rhgd.STATUS.items():
        assert lib.rhgd_status_string(code).decode() == name
    try:
        import scipy.optimize
    except ImportError:
        return
    s = scipy.optimize.OptimizeResult(x=r.x, fun=r.fun, nit=r.nit, status=r.status, success=r.success,
                                      message=r.message)
    assert {k: s[k] for k in s} == {k: r[k] for k in s}


def test_spectrum_and_error_bound_history():
    """The history carries the Lanczos estimate of the lower Hessian's
    smallest eigenvalue and the hypergradient's error bound: CG estimates
    its own; HINV only with the lanczos setting, NaN without."""
    p = rhgd.builtin("synthetic", n=30, d=8, r=3, seed=4)
    for est, settings in (("cg", {}), ("hinv", {"lanczos": 5})):
        h = rhgd.minimize(p, estimator=est, epochs=4, **settings).history
        assert np.all(h["lower_min_eig"] > 0), est
        assert np.all(np.isfinite(h["hypergrad_err_bound"]) & (h["hypergrad_err_bound"] >= 0)), est
    h = rhgd.minimize(p, estimator="hinv", epochs=2).history
    assert np.all(np.isnan(h["lower_min_eig"])) and np.all(np.isnan(h["hypergrad_err_bound"]))


def test_mixed_precision_lower_steps():
    """lower_float32_steps (the synthetic problem's opt-in mixed precision)
    is a keyword like any parameter: 19 float32 lower steps per epoch end
    within 1e-6 (relative) of the float64 run's f, and a negative count is
    an InvalidArgument naming the parameter."""
    kw = dict(n=60, d=30, r=12)
    f64 = rhgd.minimize(rhgd.builtin("synthetic", **kw), estimator="hinv", epochs=20).fun
    f32 = rhgd.minimize(rhgd.builtin("synthetic", lower_float32_steps=19, **kw), estimator="hinv", epochs=20).fun
    assert abs(f32 - f64) <= 1e-6 * abs(f64)
    with pytest.raises(rhgd.InvalidArgument, match="lower-float32-steps"):
        rhgd.builtin("synthetic", lower_float32_steps=-1, **kw)


def test_estimator_spec_rule():
    """estimator= follows the one rule of every front end (the CLI's
    -estimator, C's rhgd_solver_new): on a built-in problem a name alone,
    or an alias, is the paper's spec for it; a spec with options stands for
    itself, its options left out taking the estimator's defaults, not the
    paper's (karcher's paper NS has gamma=1)."""
    p = rhgd.builtin("karcher")
    for spec, want in [("ns", "ns:gamma=1,terms=50,power=10"),
                       ("neumann", "ns:gamma=1,terms=50,power=10"),
                       ("ns:terms=20", "ns:terms=20,power=10"),
                       ("ns:gamma=1,terms=5", "ns:gamma=1,terms=5,power=10"),
                       ("cg:warm=true", "cg:maxiter=50,tol=1e-10,warm=true")]:
        assert rhgd.Solver(p, spec).settings.split(";")[0] == want, spec

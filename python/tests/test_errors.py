"""Exceptions: public names, messages in Python's terms, complex input."""

import pickle
import re
import traceback

import numpy as np
import pytest

import rhgd

# What a message must not say: C names, Go names, command-line flags, C
# return codes.
FOREIGN = re.compile(r"RHGD_|rhgd_\w|\bNULL\b|Settings\.|\bflag\b|returned -?\d|\b(GradGy|HessGyInv|HessGy)\b| -[a-z]")


def quad_oracles(k=2, m=3):
    a = np.diag(np.arange(1.0, m + 1))
    bm = np.ones((m, k))
    return dict(f=lambda x, y: 0.5 * np.sum(y ** 2), grad_fx=lambda x, y: 0 * x, grad_fy=lambda x, y: y,
                grad_gy=lambda x, y: a @ y - bm @ x, grad_gx=lambda x, y: -bm.T @ y)


def test_exception_names():
    with pytest.raises(rhgd.InvalidArgument) as e:
        rhgd.logsym(np.diag([1.0, -1.0]))
    line = traceback.format_exception_only(type(e.value), e.value)[-1]
    assert line.startswith("rhgd.InvalidArgument: rhgd: "), line
    assert repr(e.value).startswith("InvalidArgument('rhgd: ")
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is rhgd.InvalidArgument and str(back) == str(e.value)
    for name in ("RHGDError", "InvalidArgument", "NotConverged", "NumericalError", "BadHandle", "InternalError",
                 "CallbackError", "BusyError", "ForkError", "ProjectedInput"):
        cls = getattr(rhgd, name)
        assert cls.__module__ == "rhgd" and issubclass(cls, Exception), name


def message(fn):
    with pytest.raises(Exception) as e:
        fn()
    return e.value, str(e.value)


def test_messages_in_python_terms():
    o = quad_oracles()
    mx, my = rhgd.Euclidean(2), rhgd.Euclidean(3)
    nostart = rhgd.Problem(mx, my, **o)

    def bad_gy(x, y):
        raise KeyError("oops")

    failing = rhgd.Problem(mx, my, **{**o, "grad_gy": bad_gy}, x0=np.zeros(2), y0=np.zeros(3))
    cases = [
        (lambda: rhgd.builtin("synthetic", bogus=1), rhgd.InvalidArgument, 'unknown parameter "bogus"'),
        (lambda: rhgd.builtin("synthetic", n="abc"), rhgd.InvalidArgument, 'invalid value "abc" for parameter n'),
        (lambda: rhgd.Solver(nostart, "cg", preset="adaptive"), rhgd.InvalidArgument,
         "lower_bb needs the lower objective g"),
        (lambda: rhgd.Solver(nostart, "hinv:maxdim=2"), rhgd.InvalidArgument,
         "[hess_gy_inv] (the inverse Hessian is derived from hess_gy only on a lower manifold of dimension at most "
         "hinv:maxdim = 2, and this one has dimension 3"),
        (lambda: rhgd.Solver(nostart, "cg", eta_x=-1), rhgd.InvalidArgument, "eta_x"),
        (lambda: rhgd.Solver(nostart, "cg").run(), rhgd.InvalidArgument, "x0 and y0 are None"),
        (lambda: nostart.start(), rhgd.InvalidArgument, "Problem.set_start"),
        (lambda: rhgd.minimize(failing, estimator="cg", epochs=3), rhgd.CallbackError,
         "the grad_gy callback raised KeyError: 'oops'"),
    ]
    for fn, cls, want in cases:
        err, msg = message(fn)
        assert isinstance(err, cls) and want in msg, (want, msg)
        assert not FOREIGN.search(msg), msg


def test_complex_input_raises():
    """Complex arrays are refused at every entry point (they were cast to
    their real part, silently, and gave a wrong answer)."""
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    z = a + 1j * np.eye(2)
    s = rhgd.SPD(2)
    m = rhgd.Coupling([0.5, 0.5], [0.5, 0.5])
    o = quad_oracles()
    p = rhgd.Problem(rhgd.Euclidean(2), rhgd.Euclidean(3), **o, x0=np.zeros(2), y0=np.zeros(3))
    for fn in (lambda: rhgd.expsym(z), lambda: rhgd.lyapunov_sym(a, z), lambda: rhgd.spd_exp(a, z),
               lambda: rhgd.spd_dist(z, a), lambda: rhgd.stiefel_retr_qr(z[:, :1], a[:, :1]),
               lambda: rhgd.coupling_retr([0.5, 0.5], [0.5, 0.5], np.full((2, 2), 0.25), z),
               lambda: rhgd.Coupling([0.5 + 1j, 0.5], [0.5, 0.5]), lambda: s.check_point(z),
               lambda: s.retract(a, z), lambda: m.project(np.full((2, 2), 0.25), z),
               lambda: p.set_start(np.zeros(2, complex), np.zeros(3)),
               lambda: rhgd.Solver(p, "cg").run(np.zeros(2), np.zeros(3, complex)),
               lambda: rhgd.builtin("synthetic", data={"X": np.ones((5, 3), complex), "Y": np.ones((5, 2))})):
        with pytest.raises(TypeError, match="complex"):
            fn()
    # An oracle that returns complex values fails the run, with the TypeError as the cause.
    for name in ("grad_gy", "f"):
        bad = {**o, name: (lambda fn: lambda x, y: fn(x, y) + 0j)(o[name])}
        pb = rhgd.Problem(rhgd.Euclidean(2), rhgd.Euclidean(3), **bad, x0=np.zeros(2), y0=np.zeros(3))
        with pytest.raises(rhgd.CallbackError) as e:
            rhgd.minimize(pb, estimator="cg", epochs=2)
        assert isinstance(e.value.__cause__, TypeError) and "complex" in str(e.value), name


def test_hints_name_python_settings():
    """The hints of a diverging run and of gda on a problem that is not
    min-max speak Python (preset='adaptive', the built-in minmax), not Go's
    AdaptiveSettings or Problem.ZeroSum (issue 27)."""
    p = rhgd.builtin("synthetic", n=20, d=5, r=2)
    with pytest.raises(rhgd.NumericalError) as e:
        rhgd.minimize(p, estimator="cg", eta_y=100.0, epochs=3)
    msg = str(e.value)
    assert "preset=adaptive" in msg and "eta_y" in msg, msg
    assert "AdaptiveSettings" not in msg and not FOREIGN.search(msg), msg
    with pytest.raises(rhgd.InvalidArgument) as e:
        rhgd.Solver(p, "gda")
    msg = str(e.value)
    assert "built-in minmax" in msg and "ZeroSum" not in msg and "MinMax" not in msg, msg


def test_explicit_zero_is_never_the_default():
    """Issue 27: a 0 whose meaning would be "the default" (epochs=0 ran 200
    epochs) is InvalidArgument naming the keyword and saying to leave it
    out, from every keyword front end; left out, or None, is the default;
    a 0 with a meaning of its own (grad_tol=0: off) still means it."""
    p = rhgd.builtin("synthetic", n=20, d=5, r=2)
    cases = [
        (lambda: rhgd.minimize(p, epochs=0), "epochs=0 would mean the default, not 0; leave epochs out for the default (200)"),
        (lambda: rhgd.Solver(p, "hinv", eta_x=0.0), "leave eta_x out for the default (0.5)"),
        (lambda: rhgd.Solver(p, "hinv", preset="adaptive", lower_maxiter=0), "leave lower_maxiter out"),
        (lambda: rhgd.Solver(p, "cg:maxiter=0"), "maxiter=0 would mean the default, not 0; leave maxiter out for the default (50)"),
        (lambda: rhgd.Solver(p, "ns:gamma=0,terms=5"), "leave gamma out"),
        (lambda: rhgd.Coupling([0.5, 0.5], [0.5, 0.5], maxiter=0), "leave maxiter out for the default (10000)"),
        (lambda: rhgd.Coupling([0.5, 0.5], [0.5, 0.5], tol=0.0), "leave tol out for the default (1e-13)"),
        (lambda: rhgd.builtin("domainadapt", baseline_lambda=0), "parameter baseline_lambda"),
        (lambda: p.check(tol=0), "leave tol out for the default (1e-6)"),
        (lambda: rhgd.init(threads=0), "leave threads out"),
    ]
    for fn, want in cases:
        err, msg = message(fn)
        assert isinstance(err, rhgd.InvalidArgument) and want in msg, (want, msg)
        assert not FOREIGN.search(msg), msg
    err, msg = message(lambda: rhgd.builtin("domainadapt", baseline_lambda=0))
    assert "leave it out for the default (the paper's" in msg, msg
    s = rhgd.Solver(p, "hinv", epochs=None, eta_x=None, grad_tol=0)
    assert ",epochs=200," in s.settings and ",eta_x=0.5," in s.settings and ",grad_tol=0," in s.settings, s.settings
    assert p.check(tol=None)["reports"]

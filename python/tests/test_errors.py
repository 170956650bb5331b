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
        (lambda: rhgd.Problem(mx, my, **o, hess_gy_inv=lambda x, y, v: v), rhgd.InvalidArgument,
         "gradients='euclidean'"),
        (lambda: rhgd.Solver(nostart, "cg", preset="adaptive"), rhgd.InvalidArgument,
         "preset=adaptive needs the lower objective g"),
        (lambda: rhgd.Solver(nostart, "hinv"), rhgd.InvalidArgument, "[hess_gy_inv]"),
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

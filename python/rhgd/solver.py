"""Problems and RHGD runs over librhgd's handles (manifolds are in
manifolds.py)."""

import ctypes
import json
import os
import signal
import tempfile
import threading
import warnings

import numpy as np

from . import _lib
from ._arrays import f64
from ._handle import _Handle, _new_handle
from .manifolds import SPD, Coupling, Euclidean, Manifold, Product, Stiefel, _adopt_manifold

__all__ = ["SPD", "Stiefel", "Euclidean", "Coupling", "Product", "Problem", "Solver", "OptimizeResult",
           "builtin", "minimize", "problem_names", "problem_params", "init", "info", "set_threads",
           "version", "live_handles", "STATUS"]

_F64 = np.float64


# ---------------------------------------------------------------- problems


def _view(ptr, n):
    """The n doubles at address ptr, as a numpy array (no copy)."""
    return np.ctypeslib.as_array((ctypes.c_double * n).from_address(ptr))


_ORACLES = ("f", "grad_fx", "grad_fy", "g", "grad_gx", "grad_gy", "hess_gy", "cross_gxy", "cross_gyx",
            "hess_gy_inv", "lower_solve")


class Problem(_Handle):
    """A bilevel problem min_x f(x, y*(x)), y*(x) = argmin_y g(x, y).

    ``Problem(mx, my, *, f=..., grad_fx=..., grad_fy=..., grad_gy=...,
    ...)``: the manifolds are positional, every oracle and option a
    keyword (as pymanopt's Problem(manifold, cost, *, euclidean_gradient=,
    ...)), since eleven callables of the same arguments are easy to give
    in the wrong order. Give it by Python callables on numpy arrays (shaped
    like the manifolds' points): ``f(x, y) -> float``, ``grad_fx(x, y)``, ``grad_fy(x, y)``,
    ``grad_gy(x, y) -> array``, and optionally ``g``, ``grad_gx`` (lets the
    library fill cross_gxy by finite differences), ``hess_gy(x, y, v)``,
    ``cross_gxy(x, y, v)`` (D_y grad_x g [v], v tangent at y),
    ``cross_gyx(x, y, u)``, ``hess_gy_inv(x, y, v)`` (Riemannian only, for
    the 'hinv' estimator) and ``lower_solve(x, y) -> y*(x)`` (the exact
    lower solution, y the current iterate as a warm start; the setting
    lower_solve=true runs it instead of lower steps).
    gradients='euclidean' (default) converts Euclidean derivatives with the
    manifolds; 'riemannian' takes them as they are. x and y are copies, safe
    to keep. For finite sums f = (1/n_f) sum_i f_i, g = (1/n_g) sum_i g_i,
    give n_f and n_g: every oracle then takes the minibatch as its last
    argument (``f(x, y, batch)``, ``hess_gy(x, y, v, batch)``), an int64
    array of component indices, or None for the full sum, and RSHGD (the
    batch_* settings) can run. Or use ``builtin`` for rhgd's ready-made
    problems.
    """

    _kind = "problem"

    def __init__(self, mx, my, *, f, grad_fx, grad_fy, grad_gy, g=None, grad_gx=None, hess_gy=None,
                 cross_gxy=None, cross_gyx=None, hess_gy_inv=None, lower_solve=None, gradients="euclidean",
                 x0=None, y0=None, n_f=0, n_g=0):
        if gradients not in ("euclidean", "riemannian"):
            raise ValueError("rhgd: gradients must be 'euclidean' or 'riemannian'")
        self.mx, self.my = mx, my
        self.builtin_name = None
        self.error = None  # the first exception a callback raised in the current run
        fns = dict(f=f, grad_fx=grad_fx, grad_fy=grad_fy, g=g, grad_gx=grad_gx, grad_gy=grad_gy,
                   hess_gy=hess_gy, cross_gxy=cross_gxy, cross_gyx=cross_gyx, hess_gy_inv=hess_gy_inv,
                   lower_solve=lower_solve)
        n_f, n_g = int(n_f), int(n_g)
        if n_f < 0 or n_g < 0:
            raise ValueError(f"rhgd: n_f = {n_f}, n_g = {n_g}: want >= 0")
        self._batched = n_f > 0 or n_g > 0
        lx, ly, sx, sy = mx.size, my.size, mx.shape, my.shape
        out_len = dict(f=1, g=1, grad_fx=lx, grad_gx=lx, grad_fy=ly, grad_gy=ly, hess_gy=ly, hess_gy_inv=ly,
                       cross_gxy=lx, cross_gyx=ly, lower_solve=ly)
        v_len = dict(hess_gy=(ly, sy), hess_gy_inv=(ly, sy), cross_gxy=(ly, sy), cross_gyx=(lx, sx))
        self._c = {}  # the ctypes callbacks: alive as long as the problem
        o = _lib.Oracles(n_f=n_f, n_g=n_g)
        for name in _ORACLES:
            fn = fns[name]
            if fn is None:
                continue
            if name in v_len:
                cb = _lib.HVP_FN(self._hvp(fn, name, sx, sy, v_len[name], out_len[name]))
            elif name in ("f", "g"):
                cb = _lib.VALUE_FN(self._value(fn, name, sx, sy))
            else:
                cb = _lib.VALUE_FN(self._grad(fn, name, sx, sy, out_len[name]))
            self._c[name] = cb
            setattr(o, name, cb)
        flags = 1 if gradients == "euclidean" else 0
        try:
            self._own(_new_handle(_lib.lib().rhgd_problem_callbacks, mx.handle, my.handle, ctypes.byref(o), flags,
                                  None))
        except BaseException:
            # A problem the library refused keeps nothing alive: its
            # callbacks refer back to it through ctypes objects, a cycle
            # that would hold the manifolds' handles until a later
            # collection.
            self._c, self.mx, self.my = {}, None, None
            raise
        self._dims()
        if x0 is not None or y0 is not None:
            self.set_start(x0, y0)
        self._warn_notes()

    # The wrappers catch every exception (nothing may unwind into C), keep
    # the first and return nonzero, which stops the run.
    def _fail(self, name, e):
        if self.error is None:
            self.error = e
        return 1

    def _args(self, batch, nbatch):
        """The minibatch argument the oracles take: none for a problem
        without components, else an int64 array (a copy) or None for the
        full sum."""
        if not self._batched:
            return ()
        if batch is None:
            return (None,)
        return (np.ctypeslib.as_array((ctypes.c_int64 * nbatch).from_address(batch)).copy(),)

    def _value(self, fn, name, sx, sy):
        lx, ly = int(np.prod(sx)), int(np.prod(sy))

        def cb(user, x, y, batch, nbatch, out):
            try:
                r = f64(fn(_view(x, lx).reshape(sx).copy(), _view(y, ly).reshape(sy).copy(),
                           *self._args(batch, nbatch)), f"{name}'s value")
                if r.size != 1:
                    raise ValueError(f"rhgd: {name} returned {r.size} values, want one")
                ctypes.c_double.from_address(out).value = float(r.reshape(()))
                return 0
            except BaseException as e:
                return self._fail(name, e)
        return cb

    def _grad(self, fn, name, sx, sy, n):
        lx, ly = int(np.prod(sx)), int(np.prod(sy))

        def cb(user, x, y, batch, nbatch, out):
            try:
                r = f64(fn(_view(x, lx).reshape(sx).copy(), _view(y, ly).reshape(sy).copy(),
                           *self._args(batch, nbatch)), f"{name}'s result")
                if r.size != n:
                    raise ValueError(f"rhgd: {name} returned {r.size} entries, want {n}")
                _view(out, n)[:] = r.ravel()
                return 0
            except BaseException as e:
                return self._fail(name, e)
        return cb

    def _hvp(self, fn, name, sx, sy, vshape, n):
        lx, ly = int(np.prod(sx)), int(np.prod(sy))
        lv, sv = vshape

        def cb(user, x, y, batch, nbatch, v, out):
            try:
                r = f64(fn(_view(x, lx).reshape(sx).copy(), _view(y, ly).reshape(sy).copy(),
                           _view(v, lv).reshape(sv).copy(), *self._args(batch, nbatch)), f"{name}'s result")
                if r.size != n:
                    raise ValueError(f"rhgd: {name} returned {r.size} entries, want {n}")
                _view(out, n)[:] = r.ravel()
                return 0
            except BaseException as e:
                return self._fail(name, e)
        return cb

    def _dims(self):
        lx, ly = ctypes.c_int64(), ctypes.c_int64()
        _lib.check(_lib.lib().rhgd_problem_dims(self._h, ctypes.byref(lx), ctypes.byref(ly)))
        self.len_x, self.len_y = lx.value, ly.value

    @property
    def describe(self):
        """One line saying what the problem is."""
        return _lib.copy_out(_lib.lib().rhgd_problem_describe, self._h)

    @property
    def notes(self):
        """What rhgd did to the inputs given with the problem (its data, the
        marginals of its manifolds, the starting points set or run from):
        one line per input that was within float32 rounding of a
        constraint and projected onto it. Each is also issued once as a
        ProjectedInput warning."""
        s = _lib.copy_out(_lib.lib().rhgd_problem_notes, self._h)
        return s.split("\n") if s else []

    def _warn_notes(self):
        """Warn of the notes not warned of yet (they only grow)."""
        notes = self.notes
        for note in notes[getattr(self, "_warned", 0):]:
            warnings.warn("rhgd: " + note, _lib.ProjectedInput, stacklevel=3)
        self._warned = len(notes)

    def start(self):
        """The starting point (x0, y0), shaped like the manifolds' points;
        InvalidArgument if there is none."""
        x0, y0 = np.empty(self.mx.shape), np.empty(self.my.shape)
        _lib.check(_lib.lib().rhgd_problem_start(self._h, x0.ctypes.data, y0.ctypes.data))
        return x0, y0

    def set_start(self, x0, y0):
        """Set the starting point (checked to be on the manifolds; a point
        within float32 rounding of its manifold is projected onto it, with a
        ProjectedInput warning)."""
        x0, y0 = self._flat(x0, self.len_x, "x0"), self._flat(y0, self.len_y, "y0")
        _lib.check(_lib.lib().rhgd_problem_set_start(self._h, x0.ctypes.data, y0.ctypes.data))
        self._warn_notes()

    @staticmethod
    def _flat(a, n, name):
        a = f64(a, name)
        if a.size != n:
            raise ValueError(f"rhgd: {name} has {a.size} entries, want {n}")
        return a

    def oracle(self, name, x, y, v=None):
        """Evaluate one oracle at (x, y) (and v), Riemannian, the second-order
        ones by finite differences where the problem lacks them."""
        x, y = self._flat(x, self.len_x, "x"), self._flat(y, self.len_y, "y")
        n = dict(f=1, g=1, grad_fx=self.len_x, grad_gx=self.len_x, cross_gxy=self.len_x).get(name, self.len_y)
        vp = None
        if v is not None:
            v = self._flat(v, self.len_x if name == "cross_gyx" else self.len_y, "v")
            vp = v.ctypes.data
        out = np.empty(n)
        self.error = None
        rc = _lib.lib().rhgd_problem_oracle(self._h, name.encode(), x.ctypes.data, y.ctypes.data, vp,
                                            out.ctypes.data)
        _raise_callback(rc, self)
        return out[0] if n == 1 and name in ("f", "g") else out

    def accuracy(self, x, y):
        """The classification accuracy in percent that a built-in
        application reaches with (x, y); InvalidArgument for problems
        without one."""
        x, y = self._flat(x, self.len_x, "x"), self._flat(y, self.len_y, "y")
        a = ctypes.c_double()
        _lib.check(_lib.lib().rhgd_problem_accuracy(self._h, x.ctypes.data, y.ctypes.data, ctypes.byref(a)))
        return a.value

    def __repr__(self):
        return f"<rhgd problem {self.describe}>"


def _raise_callback(rc, problem):
    """check(rc), with a callback's own exception as the cause and named in
    the message."""
    err = problem.error if problem is not None else None
    if problem is not None:
        problem.error = None
    if rc >= 0:
        return
    if err is None:
        raise _lib.error(rc)
    if isinstance(err, (KeyboardInterrupt, SystemExit)):
        raise err
    msg = _lib.CALLBACK_FAILED.sub(lambda m: f"the {m[1]} callback raised {type(err).__name__}: {err}",
                                   _lib.last_error())
    raise _lib.error(rc, msg) from err


def problem_names():
    """The names of rhgd's built-in problems."""
    s = _lib.copy_out(_lib.lib().rhgd_problem_names)
    return s.split(",") if s else []


def problem_params(name):
    """A built-in problem's parameters: {key: (default, description)}.

    The list comes from the problem's Go Params struct (its rhgd and doc
    tags), the same table as the rhgd command's flags ("start-seed" there,
    start_seed here): a parameter added in Go is a keyword of builtin at
    once. Defaults are the paper's, as strings."""
    s = _lib.copy_out(_lib.lib().rhgd_problem_params, name.encode())
    out = {}
    for line in s.splitlines():
        kv, _, desc = line.partition("\t")
        k, _, d = kv.partition("=")
        out[k] = (d, desc)
    return out


def builtin(name, data=None, seed=None, **params):
    """One of rhgd's built-in problems by name (problem_names() lists them),
    with its parameters as keywords (problem_params(name) lists them).

    data is None (generated or built-in data), a path to a .npz file, or a
    dict of numpy arrays, which is written to a temporary .npz (for the
    synthetic problem: X (n x d), Y (n x r), optionally W0, M0, nu).
    float32 data are welcome: inputs within float32 rounding of their
    constraints are projected onto them, with a ProjectedInput warning
    each (Problem.notes). seed seeds generated data and random starts;
    None takes the rhgd command's default (42), so that
    builtin("synthetic") is make demo's problem. The problem's mx and my
    are its manifolds: their shape is that of x and y (results are shaped
    so), a Product's split views its parts.
    """
    lib = _lib.lib()
    if seed is None:
        seed = lib.rhgd_default_seed()
    items = [f"{k}={_fmt(v)}".encode() for k, v in params.items()]
    arr = (ctypes.c_char_p * max(1, len(items)))(*items)
    tmp = None
    try:
        if isinstance(data, dict):
            fd, tmp = tempfile.mkstemp(suffix=".npz", prefix="rhgd-")
            os.close(fd)
            np.savez(tmp, **{k: f64(v, f"data[{k!r}]") for k, v in data.items()})
            data = tmp
        p = Problem.__new__(Problem)
        p._own(_new_handle(lib.rhgd_problem_builtin, name.encode(), len(items), arr,
                           None if data is None else os.fsencode(data), seed))
    finally:
        if tmp is not None:
            os.unlink(tmp)
    p.builtin_name, p.error, p._c = name, None, {}
    mx, my = _lib.ManifoldT(), _lib.ManifoldT()
    _lib.check(lib.rhgd_problem_manifolds(p.handle, ctypes.byref(mx), ctypes.byref(my)))
    p.mx, p.my = _adopt_manifold(mx.id), _adopt_manifold(my.id)
    p._dims()
    p._warn_notes()
    return p


def _fmt(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


# ---------------------------------------------------------------- solvers


# The run statuses (rhgd_result.status; Go's solver.Status, in order):
# status code -> (name, message). OptimizeResult.status is the code, as
# scipy's is an int; status_name is the name, which the library's
# rhgd_status_string gives too (a test checks that the two agree).
#
#   code  status_name        the run stopped because
#   0     NotTerminated      it has not ended (never in a result)
#   1     GradientThreshold  the hypergradient norm fell to grad_tol (or rel_grad_tol times its first value)
#   2     IterationLimit     all epochs ran
#   3     RuntimeLimit       the runtime budget ran out
#   4     Cancelled          the callback, Solver.cancel or Ctrl-C stopped it
#   5     Diverged           an iterate or the hypergradient became non-finite, or grew beyond diverge
#   6     Failure            an operation failed (an oracle, a retraction, an estimator)
STATUS = {
    0: ("NotTerminated", "The run has not terminated."),
    1: ("GradientThreshold", "The hypergradient norm fell to the tolerance."),
    2: ("IterationLimit", "The epoch limit was reached."),
    3: ("RuntimeLimit", "The runtime limit was reached."),
    4: ("Cancelled", "The run was cancelled."),
    5: ("Diverged", "The run diverged."),
    6: ("Failure", "An operation failed."),
}


class OptimizeResult(dict):
    """The outcome of a run, with scipy.optimize.OptimizeResult's names and
    behaviour (a dict whose keys are also attributes, printed one key a
    line):

    - ``x``: the final upper iterate, shaped like mx's points;
    - ``fun``: f(x, y) at the last epoch;
    - ``nit``: the number of epochs run;
    - ``status``: an int, Go's solver.Status (``rhgd.STATUS`` maps each
      code to its name and message: 1 GradientThreshold, 2 IterationLimit,
      3 RuntimeLimit, 4 Cancelled, 5 Diverged, 6 Failure);
    - ``success``: the run ended by a stopping rule and was not cancelled;
    - ``message``: what stopped it, in words.

    rhgd's extras: ``status_name`` ('IterationLimit', ...), ``error`` (the
    library's return code, 0 or negative), ``y`` (the final lower iterate),
    ``best_x``, ``best_y`` and ``best_f`` (the epoch with the lowest f),
    ``hypergrad_norm``, ``runtime`` (seconds), the oracle counts
    (``upper_grads``, ``lower_grads``, ``hess_vecs``, ``cross_vecs``,
    ``iterations``, ``residual``, ``lower_values``, ``lower_solves``,
    ``retract_failures``), ``history`` (a dict of per-epoch numpy arrays:
    epoch, f, hypergrad_norm, lower_grad_norm, elapsed, upper_grads,
    lower_grads, hess_vecs, cross_vecs, iterations, residual, lower_steps,
    upper_step, lower_solves) and ``settings`` (the effective
    'estimator;settings'). The older names ``f`` and ``epochs`` still read
    ``fun`` and ``nit``."""

    _ALIASES = {"f": "fun", "epochs": "nit"}

    def __missing__(self, k):
        if k in self._ALIASES:
            return self[self._ALIASES[k]]
        raise KeyError(k)

    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k) from None

    __setattr__ = dict.__setitem__
    __delattr__ = dict.__delitem__

    def __dir__(self):
        return list(self.keys())

    def __repr__(self):
        if not self:
            return self.__class__.__name__ + "()"
        w = max(map(len, self.keys())) + 1
        return "\n".join(k.rjust(w) + ": " + _fmt_value(v, w + 2) for k, v in self.items())


def _fmt_value(v, indent):
    """One value of OptimizeResult's repr, continuation lines indented."""
    if isinstance(v, np.ndarray):
        s = np.array2string(v, threshold=12, edgeitems=3, precision=6)
    elif isinstance(v, dict):
        n = {len(a) for a in v.values() if hasattr(a, "__len__")}
        s = f"{{{', '.join(v)}}}" + (f" ({n.pop()} rows)" if len(n) == 1 else "")
    else:
        s = repr(v) if isinstance(v, str) else str(v)
    return s.replace("\n", "\n" + " " * indent)


class Solver(_Handle):
    """RHGD on one problem with an estimator spec ('hinv', 'cg:tol=1e-8',
    'ns:gamma=1,terms=50', 'ad'; None: the problem's default) and settings,
    the keys of rhgd_solver_new (see rhgd.h): preset, eta_x, eta_y, inner,
    epochs, grad_tol, rel_grad_tol, runtime, diverge, fd_step, seed,
    batches, batch_lower, batch_upper, batch_cross, batch_hess,
    batch_report, lower_solve, lower_tol, lower_maxiter, lower_bb,
    upper_bb, upper_min_step, upper_max_step."""

    _kind = "solver"

    def __init__(self, problem, estimator=None, **settings):
        self.problem = problem
        spec = ",".join(f"{k}={_fmt(v)}" for k, v in settings.items())
        self._own(_new_handle(_lib.lib().rhgd_solver_new, problem.handle,
                              estimator.encode() if estimator else None, spec.encode() if spec else None))

    @property
    def settings(self):
        """The effective 'estimator;settings'."""
        return _lib.copy_out(_lib.lib().rhgd_solver_settings, self._h)

    def cancel(self):
        """Ask a running solver (in another thread) to stop after its epoch."""
        _lib.check(_lib.lib().rhgd_solver_cancel(self._h))

    def run(self, x0=None, y0=None, callback=None):
        """Run from (x0, y0) (None: the problem's start). callback(info), if
        given, sees each epoch (a dict: epoch, f, hypergrad_norm, x, y,
        hypergrad, ...; arrays are copies) and stops the run by returning
        True. Returns an OptimizeResult; a failed run raises, with the
        result as the exception's ``result``."""
        lib = _lib.lib()
        p = self.problem
        xp = yp = None
        if (x0 is None) != (y0 is None):
            raise ValueError("rhgd: give both x0 and y0, or neither")
        if x0 is not None:
            x0 = Problem._flat(x0, p.len_x, "x0")
            y0 = Problem._flat(y0, p.len_y, "y0")
            xp, yp = x0.ctypes.data, y0.ctypes.data
        cb_err = []
        # Ctrl-C: Python runs its SIGINT handler only between bytecodes, so
        # during a run only inside a callback. On the main thread, with the
        # default handler in place, a temporary one cancels the solver (the
        # run stops after its epoch) and KeyboardInterrupt follows the run;
        # an epoch callback is always installed then, so that Ctrl-C is
        # seen within one epoch even when nothing else calls Python.
        interrupted, old_handler = [], None
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            def on_sigint(signum, frame):
                interrupted.append(signum)
                lib.rhgd_solver_cancel(self._h)
            old_handler = signal.signal(signal.SIGINT, on_sigint)
        cfn = _lib.EPOCH_FN()  # NULL
        if callback is not None:
            def on_epoch(user, ep):
                try:
                    e = ep.contents
                    info = {k: getattr(e, k) for k in _lib.HISTORY_NAMES}
                    info["x"] = _view(e.x, e.len_x).reshape(p.mx.shape).copy()
                    info["y"] = _view(e.y, e.len_y).reshape(p.my.shape).copy()
                    info["hypergrad"] = _view(e.hypergrad, e.len_x).reshape(p.mx.shape).copy()
                    return 1 if callback(info) else 0
                except BaseException as exc:
                    cb_err.append(exc)
                    return 1
            cfn = _lib.EPOCH_FN(on_epoch)
        elif old_handler is not None:
            cfn = _lib.EPOCH_FN(lambda user, ep: 0)
        p.error = None
        try:
            rc = lib.rhgd_solver_run(self._h, xp, yp, cfn, None)
        finally:
            if old_handler is not None:
                signal.signal(signal.SIGINT, old_handler)
        if interrupted:
            raise KeyboardInterrupt
        p._warn_notes()
        res = None
        if rc >= 0 or rc in (_lib.ENUMERIC, _lib.ENOTCONV, _lib.ECALLBACK, _lib.EINTERNAL):
            try:
                res = self.result()
            except _lib.RHGDError:
                res = None
        if cb_err:
            raise cb_err[0]
        try:
            _raise_callback(rc, p)
        except _lib.RHGDError as e:
            e.result = res
            raise
        return res

    def result(self):
        """The last run's OptimizeResult."""
        lib = _lib.lib()
        r = _lib.Result()
        _lib.check(lib.rhgd_solver_result(self._h, ctypes.byref(r)))
        p = self.problem
        x, y = np.empty(p.mx.shape), np.empty(p.my.shape)
        _lib.check(lib.rhgd_solver_x(self._h, p.len_x, x.ctypes.data))
        _lib.check(lib.rhgd_solver_y(self._h, p.len_y, y.ctypes.data))
        bx, by = np.empty(p.mx.shape), np.empty(p.my.shape)
        _lib.check(lib.rhgd_solver_best(self._h, p.len_x, bx.ctypes.data, p.len_y, by.ctypes.data))
        n = ctypes.c_int64()
        _lib.check(lib.rhgd_solver_history(self._h, 0, _lib.HISTORY_COLS, None, ctypes.byref(n)))
        rows = np.empty((n.value, _lib.HISTORY_COLS))
        if n.value:
            _lib.check(lib.rhgd_solver_history(self._h, n.value, _lib.HISTORY_COLS, rows.ctypes.data,
                                               ctypes.byref(n)))
        hist = {k: rows[:, i].copy() for i, k in enumerate(_lib.HISTORY_NAMES)}
        for k in ("epoch", "upper_grads", "lower_grads", "hess_vecs", "cross_vecs", "iterations", "lower_steps",
                  "lower_solves"):
            hist[k] = hist[k].astype(np.int64)
        name = lib.rhgd_status_string(r.status).decode()
        message = STATUS.get(r.status, (name, f"The run ended with status {name}."))[1]
        return OptimizeResult(
            message=message, success=r.error == 0 and name != "Cancelled", status=r.status, fun=r.f, x=x, nit=r.epochs,
            status_name=name, error=r.error, y=y, best_x=bx, best_y=by, best_f=r.best_f,
            hypergrad_norm=r.hypergrad_norm, runtime=r.runtime,
            upper_grads=r.upper_grads, lower_grads=r.lower_grads, hess_vecs=r.hess_vecs, cross_vecs=r.cross_vecs,
            iterations=r.iterations, residual=r.residual, lower_values=r.lower_values, lower_solves=r.lower_solves,
            retract_failures=r.retract_failures, history=hist, settings=self.settings)


# The keywords of the removed minimize(mx=, my=, f=, ...) form: oracles
# and problem options, which belong to Problem.
_PROBLEM_KEYWORDS = frozenset(("mx", "my", "f", "grad_fx", "grad_fy", "grad_gy", "g", "grad_gx", "hess_gy",
                               "cross_gxy", "cross_gyx", "hess_gy_inv", "gradients", "n_f", "n_g"))


def minimize(problem=None, x0=None, y0=None, *, estimator=None, callback=None, **settings):
    """Run RHGD on problem from (x0, y0) and return an OptimizeResult.

    problem is any rhgd Problem: a built-in one (``rhgd.builtin(name,
    ...)``), one given by callbacks (``rhgd.Problem(mx, my, f=...,
    grad_fx=..., ...)``) or one written in PyTorch
    (``rhgd.torch.Problem(f, g, mx, my)``; ``rhgd.torch.minimize(f, g, mx,
    my, ...)`` builds it for you). x0, y0: the start (both or neither;
    None: the problem's). estimator is a spec ('cg', 'hinv',
    'ns:gamma=1,terms=50', 'ad'; None: the problem's default); callback(info)
    sees each epoch and stops the run by returning True; the remaining
    keywords are solver settings (eta_x, eta_y, inner, epochs, grad_tol,
    runtime, seed, preset, batch_lower, lower_solve=True, ...: see Solver).
    A failed run raises, with the result as the exception's ``result``.
    """
    given = sorted(_PROBLEM_KEYWORDS.intersection(settings))
    if callable(settings.get("lower_solve")):
        given.append("lower_solve")
    if not isinstance(problem, Problem) or given:
        what = f"got {', '.join(given)}" if given else f"got {type(problem).__name__}"
        raise TypeError(f"rhgd.minimize(problem, x0, y0, *, estimator=, callback=, **settings) takes a Problem "
                        f"and solver settings ({what}): build the problem first, with rhgd.builtin(name), "
                        f"rhgd.Problem(mx, my, f=..., grad_fx=..., grad_fy=..., grad_gy=..., ...) or "
                        f"rhgd.torch.Problem(f, g, mx, my)")
    return Solver(problem, estimator, **settings).run(x0, y0, callback)


# ---------------------------------------------------------------- backend


def init(backend=None, threads=0, shared=True):
    """Start the numerical backend explicitly, before any computation:
    backend 'auto' | 'openblas' | 'gonum'; threads for OpenBLAS (0: leave it);
    shared=True leaves OpenBLAS's kernels and threads to the host (numpy),
    False lets rhgd own them (see the README)."""
    _lib.check(_lib.lib().rhgd_init(backend.encode() if backend else None, int(threads), 1 if shared else 0))


def set_threads(n):
    """Set OpenBLAS's thread count, for the whole process (numpy's too)."""
    _lib.check(_lib.lib().rhgd_set_threads(int(n)))


def info():
    """The backend: library, kernels, threads, shared mode, CPU (a dict)."""
    return json.loads(_lib.copy_out(_lib.lib().rhgd_info))


def version():
    """The library's version."""
    return _lib.lib().rhgd_version().decode()


def live_handles():
    """The number of live library handles (for leak checks)."""
    n = ctypes.c_int64()
    _lib.check(_lib.lib().rhgd_live_handles(ctypes.byref(n)))
    return n.value

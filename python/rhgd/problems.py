"""Bilevel problems over librhgd's handles: ``Problem`` (given by Python
callbacks), ``builtin`` (rhgd's ready-made problems), ``problem_names``
and ``problem_params``."""

import ctypes
import json
import os
import tempfile
import warnings

import numpy as np

from . import _lib
from ._arrays import Like, f64, shaped
from ._handle import _Handle, _new_handle
from .manifolds import _adopt_manifold

__all__ = ["Problem", "builtin", "problem_names", "problem_params"]


def _view(ptr, n):
    """The n doubles at address ptr, as a numpy array (no copy)."""
    return np.ctypeslib.as_array((ctypes.c_double * n).from_address(ptr))


def _put(out, n, r, name):
    """Copy r, the result of the callback name, to the n doubles at out."""
    r = f64(r, f"{name}'s result")
    if r.size != n:
        raise ValueError(f"rhgd: {name} returned {r.size} entries, want {n}")
    _view(out, n)[:] = r.ravel()


_ORACLES = ("f", "grad_fx", "grad_fy", "g", "grad_gx", "grad_gy", "hess_gy", "cross_gxy", "cross_gyx",
            "hess_gy_inv", "lower_solve", "hess_gy_batch")


class Problem(_Handle):
    """A bilevel problem min_x f(x, y*(x)), y*(x) = argmin_y g(x, y).

    ``Problem(mx, my, *, f=..., grad_fx=..., grad_fy=..., grad_gy=...,
    ...)``: the manifolds are positional, every oracle and option a
    keyword (as pymanopt's Problem(manifold, cost, *, euclidean_gradient=,
    ...)), since a dozen callables of like arguments are easy to give
    in the wrong order. Give it by Python callables on numpy arrays (shaped
    like the manifolds' points): ``f(x, y) -> float``, ``grad_fx(x, y)``, ``grad_fy(x, y)``,
    ``grad_gy(x, y) -> array``, and optionally ``g``, ``grad_gx`` (lets the
    library fill cross_gxy by finite differences), ``hess_gy(x, y, v)``,
    ``cross_gxy(x, y, v)`` (D_y grad_x g [v], v tangent at y),
    ``cross_gyx(x, y, u)``, ``hess_gy_inv(x, y, v)`` (for the 'hinv'
    estimator: the Riemannian inverse Hessian whatever ``gradients`` says,
    taken as given; without it 'hinv' derives it from hess_gy on a lower
    manifold of dimension up to its maxdim, 500 by default) and ``lower_solve(x, y) -> y*(x)`` (the exact
    lower solution, y the current iterate as a warm start; the setting
    lower_solve=true runs it instead of lower steps) and
    ``hess_gy_batch(x, y, V)`` (hess_gy on k directions at once: V has
    shape ``(k, *my.shape)`` and the result too, row i hess_gy(x, y, V[i]);
    'hinv' deriving the inverse calls it once per point, with the
    dim(My) basis directions, in place of that many hess_gy calls).
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
                 x0=None, y0=None, n_f=0, n_g=0, hess_gy_batch=None):
        if gradients not in ("euclidean", "riemannian"):
            raise ValueError("rhgd: gradients must be 'euclidean' or 'riemannian'")
        self.mx, self.my = mx, my
        self.builtin_name = None
        self.error = None  # the first exception a callback raised in the current run
        fns = dict(f=f, grad_fx=grad_fx, grad_fy=grad_fy, g=g, grad_gx=grad_gx, grad_gy=grad_gy,
                   hess_gy=hess_gy, cross_gxy=cross_gxy, cross_gyx=cross_gyx, hess_gy_inv=hess_gy_inv,
                   lower_solve=lower_solve, hess_gy_batch=hess_gy_batch)
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
            if name == "hess_gy_batch":
                cb = _lib.HVPS_FN(self._hvps(fn, name, sx, sy))
            elif name in v_len:
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
                _put(out, n, fn(_view(x, lx).reshape(sx).copy(), _view(y, ly).reshape(sy).copy(),
                                *self._args(batch, nbatch)), name)
                return 0
            except BaseException as e:
                return self._fail(name, e)
        return cb

    def _hvp(self, fn, name, sx, sy, vshape, n):
        lx, ly = int(np.prod(sx)), int(np.prod(sy))
        lv, sv = vshape

        def cb(user, x, y, batch, nbatch, v, out):
            try:
                _put(out, n, fn(_view(x, lx).reshape(sx).copy(), _view(y, ly).reshape(sy).copy(),
                                _view(v, lv).reshape(sv).copy(), *self._args(batch, nbatch)), name)
                return 0
            except BaseException as e:
                return self._fail(name, e)
        return cb

    def _hvps(self, fn, name, sx, sy):
        lx, ly = int(np.prod(sx)), int(np.prod(sy))

        def cb(user, x, y, batch, nbatch, k, v, out):
            try:
                _put(out, k * ly, fn(_view(x, lx).reshape(sx).copy(), _view(y, ly).reshape(sy).copy(),
                                     _view(v, k * ly).reshape((k,) + tuple(sy)).copy(),
                                     *self._args(batch, nbatch)), name)
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
        """The starting point (x0, y0), shaped like the manifolds' points
        (torch tensors when it was set from tensors); InvalidArgument if
        there is none."""
        x0, y0 = np.empty(self.mx.shape), np.empty(self.my.shape)
        _lib.check(_lib.lib().rhgd_problem_start(self._h, x0.ctypes.data, y0.ctypes.data))
        like = getattr(self, "_like", None) or Like()
        return like.out(x0), like.out(y0)

    def set_start(self, x0, y0):
        """Set the starting point (checked to be on the manifolds; a point
        within float32 rounding of its manifold is projected onto it, with a
        ProjectedInput warning)."""
        like = Like(x0, y0)
        x0, y0 = self._x(x0, "x0"), self._y(y0, "y0")
        _lib.check(_lib.lib().rhgd_problem_set_start(self._h, x0.ctypes.data, y0.ctypes.data))
        self._like = like  # runs from this start give results of its kind
        self._warn_notes()

    def _x(self, a, name):
        """a, a point or tangent of mx, as the library reads it: a float64
        array of mx's shape exactly (a transposed or flattened array is
        refused: its entries would be read in another order); a torch
        tensor is read through .detach()."""
        return shaped(a, self.mx.shape, name, f"x's manifold {self.mx.spec}")

    def _y(self, a, name):
        """a, a point or tangent of my, as _x for mx."""
        return shaped(a, self.my.shape, name, f"y's manifold {self.my.spec}")

    def oracle(self, name, x, y, v=None):
        """Evaluate one oracle at (x, y) (and v), Riemannian, the second-order
        ones by finite differences where the problem lacks them."""
        like = Like(x, y, v)
        x, y = self._x(x, "x"), self._y(y, "y")
        at_x = name in ("grad_fx", "grad_gx", "cross_gxy")
        n = 1 if name in ("f", "g") else self.len_x if at_x else self.len_y
        vp = None
        if v is not None:
            v = self._x(v, "v") if name == "cross_gyx" else self._y(v, "v")
            vp = v.ctypes.data
        out = np.empty(n)
        self.error = None
        rc = _lib.lib().rhgd_problem_oracle(self._h, name.encode(), x.ctypes.data, y.ctypes.data, vp,
                                            out.ctypes.data)
        _raise_callback(rc, self)
        if name in ("f", "g"):
            return like.scalar(float(out[0]))
        return like.out(out.reshape(self.mx.shape if at_x else self.my.shape))

    def check(self, x=None, y=None, *, seed=0, tol=None, second_order_y=False, critical=False):
        """Check the problem's oracles at (x, y) (None for both: the
        starting point) with Go's solver.CheckProblem: each gradient by the
        Taylor slope of its objective, hess_gy by its slope, symmetry,
        tangency and against finite differences of grad_gy, the cross
        derivatives against finite differences and for adjointness,
        hess_gy_inv against hess_gy, cached evaluations against fresh ones.
        Only the oracles the problem has are checked, Riemannian (as the
        solver sees them: Euclidean ones after the manifolds' conversion),
        on the full sum.

        seed seeds the random tangent directions; tol (> 0; None: 1e-6) is
        the relative tolerance of the comparisons that are not slopes;
        second_order_y says my's retraction is of second order; critical
        that y is a critical point of g(x, .). Returns a dict: ``ok``
        (every check passed) and ``reports``, one dict per check with
        ``name``, ``ok``, ``slope`` (of log error against log step; None
        when not measured), ``want``, ``at_least``, ``exact``, ``fitted``,
        ``steps``, ``errors``, ``residuals`` and ``msg``. A failing check is
        a report, not an exception; an oracle that raises fails its check,
        with the error in ``msg``."""
        xp = yp = None
        if (x is None) != (y is None):
            raise ValueError("rhgd: give both x and y, or neither (the starting point)")
        if x is not None:
            x, y = self._x(x, "x"), self._y(y, "y")
            xp, yp = x.ctypes.data, y.ctypes.data
        opts = f"seed={int(seed)},second_order_y={_fmt(bool(second_order_y))},critical={_fmt(bool(critical))}" + \
            ("" if tol is None else f",tol={float(tol)!r}")
        lib = _lib.lib()
        size = 1 << 16  # the checks run again when the report does not fit
        self.error = None
        try:
            while True:
                buf = ctypes.create_string_buffer(size)
                n = _lib.check(lib.rhgd_problem_check(self._h, xp, yp, opts.encode(), buf, size))
                if n < size:
                    break
                size = n + 1
        finally:
            self.error = None
        return json.loads(buf.value.decode("utf-8", "replace"))

    def accuracy(self, x, y):
        """The classification accuracy in percent that a built-in
        application reaches with (x, y); InvalidArgument for problems
        without one."""
        x, y = self._x(x, "x"), self._y(y, "y")
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
        explain = getattr(problem, "_explain", None)
        raise _lib.error(rc, explain(_lib.last_error()) if explain is not None else None)
    if isinstance(err, (KeyboardInterrupt, SystemExit)):
        raise err
    msg = _lib.last_error(lambda kind, key, text: f"the {key} callback raised {type(err).__name__}: {err}"
                          if kind == "callback" else _lib.python_spelling(kind, key, text))
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
    The file is untrusted: a missing array, declared shapes that
    disagree, a header its member does not bear out, an object array or
    an array over RHGD_NPZ_MAX_BYTES (default 1 GiB as float64) raises
    InvalidArgument naming the file and the array, before data are read.
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

"""Loading librhgd.so, its prototypes, errors and fork detection.

Nothing here touches the library at import time: ``lib()`` loads it on
first use. The library carries the Go runtime, which does not survive
``fork()`` (golang/go#15538): a child forked after the load would deadlock
on its first call, so such a child gets ``ForkError`` instead.
"""

import ctypes
import ctypes.util
import os
import pathlib
import threading

__all__ = ["lib", "check", "error", "RHGDError", "InvalidArgument", "NotConverged", "NumericalError",
           "BadHandle", "InternalError", "CallbackError", "BusyError", "ForkError", "library_path"]

ENV_LIBRARY = "RHGD_LIBRARY"

# Status codes of rhgd.h.
OK = 0
EINVAL = -1
ENOTCONV = -2
ENUMERIC = -3
EBADHANDLE = -4
EINTERNAL = -5
ECALLBACK = -6
EBUSY = -7


class RHGDError(Exception):
    """An error the library reported: ``code`` is its status code (negative)
    and the message is the library's."""

    code = None

    def __init__(self, message, code=None):
        super().__init__(message)
        if code is not None:
            self.code = code


class InvalidArgument(RHGDError, ValueError):
    """RHGD_EINVAL: a bad argument (size, NaN, not symmetric or SPD, off the
    manifold, a bad setting)."""
    code = EINVAL


class NotConverged(RHGDError, ArithmeticError):
    """RHGD_ENOTCONV: an iteration (Sinkhorn, LAPACK) did not converge."""
    code = ENOTCONV


class NumericalError(RHGDError, ArithmeticError):
    """RHGD_ENUMERIC: not positive definite, singular, overflow, divergence."""
    code = ENUMERIC


class BadHandle(RHGDError):
    """RHGD_EBADHANDLE: an unknown or freed handle."""
    code = EBADHANDLE


class InternalError(RHGDError):
    """RHGD_EINTERNAL: a defect in rhgd, caught at the library's boundary."""
    code = EINTERNAL


class CallbackError(RHGDError):
    """RHGD_ECALLBACK: one of your callbacks failed (its exception, if any,
    is the ``__cause__``)."""
    code = ECALLBACK


class BusyError(RHGDError):
    """RHGD_EBUSY: the object is in use by another call (another thread)."""
    code = EBUSY


class ForkError(RuntimeError):
    """librhgd was loaded before this process was forked; the Go runtime in
    it does not survive fork(), so this process cannot use it."""


class ProjectedInput(UserWarning):
    """An input within float32 rounding of its constraint (a symmetric or
    orthonormal matrix, a coupling's marginals) that rhgd projected onto it:
    the message is the library's note (Problem.notes keeps them all)."""


_ERRORS = {c.code: c for c in (InvalidArgument, NotConverged, NumericalError, BadHandle,
                               InternalError, CallbackError, BusyError)}

# The exceptions and the warning are rhgd's public names: tracebacks,
# repr() and pickling (Dask sends them between processes) say
# rhgd.InvalidArgument, not rhgd._lib.InvalidArgument.
for _c in (RHGDError, ForkError, ProjectedInput, *_ERRORS.values()):
    _c.__module__ = "rhgd"
del _c

# How Python spells the names in the library's messages, which
# rhgd_last_error_terms marks with their kind and key: (kind, key) →
# Python's words. A name not listed reads as the C ABI spells it:
# settings, parameters and oracles are keywords of the same names
# (eta_x, start_seed, grad_gy). This is the one place where messages are
# put in Python's terms.
_PYTHON_SPELLING = {
    ("constant", "RHGD_EUCLIDEAN"): "gradients='euclidean'",
    ("constant", "RHGD_RIEMANNIAN"): "gradients='riemannian'",
    ("function", "rhgd_problem_set_start"): "Problem.set_start",
    ("function", "rhgd_solver_run"): "Solver.run",
    ("function", "rhgd_solver_resume"): "Solver.run(checkpoint=...)",
    ("function", "rhgd_init"): "rhgd.init()",
    ("argument", "every"): "checkpoint_every",
    ("null", "NULL"): "None",
}


def python_spelling(kind, key, text):
    """A name of the library's messages, of the kind and key
    rhgd_last_error_terms marks it with (text: the C ABI's spelling), in
    Python's terms."""
    if kind == "callback":  # "callback failed: grad_gy returned 1"
        return f"the {key} callback failed"
    return _PYTHON_SPELLING.get((kind, key), text)


def render_terms(marked, spell=python_spelling):
    """A message of rhgd_last_error_terms with each marked name
    (\\x01kind:key\\x02text\\x03) spelled by spell(kind, key, text)."""
    head, *rest = marked.split("\x01")
    out = [head]
    for part in rest:
        term, _, tail = part.partition("\x03")
        name, _, text = term.partition("\x02")
        kind, _, key = name.partition(":")
        out += [spell(kind, key, text), tail]
    return "".join(out)


_lock = threading.Lock()
_lib = None          # the loaded CDLL
_loaded_pid = None   # the process that loaded it
_forked = False      # set in a child forked after the load


def _after_fork_in_child():
    global _forked
    if _lib is not None:
        _forked = True


# Registering the hook is not a load: nothing else happens at import.
os.register_at_fork(after_in_child=_after_fork_in_child)

_FORK_MESSAGE = (
    "rhgd: librhgd was loaded in process {parent} before it forked this process ({child}); "
    "the Go runtime inside it does not survive fork() (golang/go#15538), so calling it here "
    "would deadlock. Start workers with the 'spawn' or 'forkserver' start method "
    "(multiprocessing.get_context('spawn'), or "
    "concurrent.futures.ProcessPoolExecutor(mp_context=multiprocessing.get_context('spawn'))), "
    "or use rhgd only in the children.")


def forked():
    """Whether this process was forked after librhgd was loaded."""
    return _forked or (_lib is not None and os.getpid() != _loaded_pid)


def library_path():
    """The library file to load: $RHGD_LIBRARY, then librhgd.so inside the
    package, then build/librhgd.so of the repository the package sits in,
    then the system's search path."""
    env = os.environ.get(ENV_LIBRARY)
    if env:
        return env
    here = pathlib.Path(__file__).resolve().parent
    for cand in (here / "librhgd.so", here.parent.parent / "build" / "librhgd.so"):
        if cand.is_file():
            return str(cand)
    found = ctypes.util.find_library("rhgd")
    return found or "librhgd.so"


def lib():
    """The loaded library, loading it on first use."""
    global _lib, _loaded_pid
    if _lib is not None and not _forked and os.getpid() == _loaded_pid:
        return _lib
    if forked():
        raise ForkError(_FORK_MESSAGE.format(parent=_loaded_pid, child=os.getpid()))
    with _lock:
        if _lib is None:
            path = library_path()
            try:
                handle = ctypes.CDLL(path)
            except OSError as e:
                raise OSError(f"rhgd: cannot load the library {path!r} ({e}); build it with `make lib` "
                              f"and set ${ENV_LIBRARY} to build/librhgd.so") from None
            _prototypes(handle)
            _loaded_pid = os.getpid()
            _lib = handle
    return _lib


def last_error(spell=python_spelling):
    """The calling thread's last error message, its names spelled by
    spell(kind, key, text) (default: Python's terms)."""
    n = _lib.rhgd_last_error_terms(None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    _lib.rhgd_last_error_terms(buf, len(buf))
    return render_terms(buf.value.decode("utf-8", "replace"), spell)


def error(rc, msg=None):
    """The exception for the negative status code rc, with msg (default:
    the calling thread's last error, in Python's terms)."""
    return _ERRORS.get(rc, RHGDError)(last_error() if msg is None else msg, rc)


def check(rc):
    """Raise the exception for a negative status code; return rc otherwise.
    Must run on the thread that made the call (ctypes calls do)."""
    if rc >= 0:
        return rc
    raise error(rc)


def copy_out(fn, *args):
    """Call a string-returning function fn(*args, buf, len) and return the
    whole string, growing the buffer when it was cut."""
    size = 1024
    while True:
        buf = ctypes.create_string_buffer(size)
        n = check(fn(*args, buf, size))
        if n < size:
            return buf.value.decode("utf-8", "replace")
        size = n + 1


# ctypes types of rhgd.h.
c_int, c_i64, c_u64, c_dbl, c_size, c_char_p, c_void_p = (
    ctypes.c_int, ctypes.c_int64, ctypes.c_uint64, ctypes.c_double, ctypes.c_size_t, ctypes.c_char_p,
    ctypes.c_void_p)
P = c_void_p  # double * / const double *, passed as addresses
PI64 = ctypes.POINTER(c_i64)

PB = ctypes.POINTER(c_i64)  # const int64_t *batch

# The callbacks of rhgd.h: (user, x, y, batch, nbatch[, v], out).
VALUE_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p, c_void_p, c_i64, c_void_p)
HVP_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p, c_void_p, c_i64, c_void_p, c_void_p)
# rhgd_steps_fn, the fused lower loop: (user, x, y, batch, nbatch, steps,
# eta, y_out, grad_norms).
STEPS_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p, c_void_p, c_i64, c_i64, c_dbl, c_void_p, c_void_p)
# rhgd_vjp_fn, the fused loop's reverse mode: (user, x, y, batch, nbatch,
# steps, eta, lam, dx, dy).
VJP_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p, c_void_p, c_i64, c_i64, c_dbl, c_void_p, c_void_p,
                          c_void_p)

# rhgd_hvps_fn, the Hessian on k directions: (user, x, y, batch, nbatch,
# k, v, out), v and out k rows of len(My).
HVPS_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p, c_void_p, c_i64, c_i64, c_void_p, c_void_p)


class _HandleT(ctypes.Structure):
    """A handle of rhgd.h: a struct of one 64-bit id, one type per kind.
    As an argument it also takes the id as an int (what the Python objects
    keep), but never a handle of another kind."""

    _fields_ = [("id", c_u64)]

    @classmethod
    def from_param(cls, obj):
        if isinstance(obj, cls):
            return obj
        if isinstance(obj, int) and not isinstance(obj, bool):
            return cls(obj)
        raise TypeError(f"rhgd: want a {cls.__name__} or its id, got {type(obj).__name__}")


class ManifoldT(_HandleT):
    """rhgd_manifold."""


class ProblemT(_HandleT):
    """rhgd_problem."""


class SolverT(_HandleT):
    """rhgd_solver."""


class Oracles(ctypes.Structure):
    """rhgd_oracles (size-prefixed: size is set on construction)."""

    _fields_ = [("size", c_size), ("f", VALUE_FN), ("grad_fx", VALUE_FN), ("grad_fy", VALUE_FN),
                ("g", VALUE_FN), ("grad_gx", VALUE_FN), ("grad_gy", VALUE_FN), ("hess_gy", HVP_FN),
                ("cross_gxy", HVP_FN), ("cross_gyx", HVP_FN), ("hess_gy_inv", HVP_FN),
                ("n_f", c_i64), ("n_g", c_i64), ("lower_solve", VALUE_FN), ("lower_steps", STEPS_FN),
                ("lower_steps_vjp", VJP_FN), ("hess_gy_batch", HVPS_FN)]

    def __init__(self, **kw):
        super().__init__(size=ctypes.sizeof(Oracles), **kw)


class Epoch(ctypes.Structure):
    """rhgd_epoch, as the library fills it (size is the library's)."""

    _fields_ = [("size", c_size), ("epoch", c_i64), ("f", c_dbl), ("hypergrad_norm", c_dbl),
                ("lower_grad_norm", c_dbl), ("elapsed", c_dbl), ("upper_grads", c_i64), ("lower_grads", c_i64),
                ("hess_vecs", c_i64), ("cross_vecs", c_i64), ("iterations", c_i64), ("residual", c_dbl),
                ("len_x", c_i64), ("len_y", c_i64), ("x", c_void_p), ("y", c_void_p), ("hypergrad", c_void_p),
                ("lower_steps", c_i64), ("upper_step", c_dbl), ("lower_solves", c_i64),
                ("lower_min_eig", c_dbl), ("hypergrad_err_bound", c_dbl)]


EPOCH_FN = ctypes.CFUNCTYPE(c_int, c_void_p, ctypes.POINTER(Epoch))


class Result(ctypes.Structure):
    """rhgd_result (size-prefixed: size is set on construction)."""

    _fields_ = [("size", c_size), ("status", ctypes.c_int32), ("error", ctypes.c_int32), ("epochs", c_i64),
                ("f", c_dbl), ("best_f", c_dbl), ("hypergrad_norm", c_dbl), ("runtime", c_dbl),
                ("upper_grads", c_i64), ("lower_grads", c_i64), ("hess_vecs", c_i64), ("cross_vecs", c_i64),
                ("iterations", c_i64), ("residual", c_dbl), ("lower_values", c_i64), ("lower_solves", c_i64),
                ("retract_failures", c_i64), ("lower_x_grads", c_i64), ("upper_y_grads", c_i64)]

    def __init__(self):
        super().__init__(size=ctypes.sizeof(Result))


# The history columns this module knows (rhgd.h's RHGD_HISTORY_*): rows
# are read with this width, whatever the library's (rhgd_history_cols).
HISTORY_NAMES = ("epoch", "f", "hypergrad_norm", "lower_grad_norm", "elapsed", "upper_grads", "lower_grads",
                 "hess_vecs", "cross_vecs", "iterations", "residual", "lower_steps", "upper_step", "lower_solves",
                 "lower_min_eig", "hypergrad_err_bound")
HISTORY_COLS = len(HISTORY_NAMES)

PM, PP, PS = ctypes.POINTER(ManifoldT), ctypes.POINTER(ProblemT), ctypes.POINTER(SolverT)
M, Pr, S = ManifoldT, ProblemT, SolverT

_PROTOS = {
    "rhgd_last_error": (c_int, [c_char_p, c_size]),
    "rhgd_last_error_terms": (c_int, [c_char_p, c_size]),
    "rhgd_version": (c_char_p, []),
    "rhgd_strerror": (c_char_p, [c_int]),
    "rhgd_status_string": (c_char_p, [c_int]),
    "rhgd_init": (c_int, [c_char_p, c_i64, c_int]),
    "rhgd_set_threads": (c_int, [c_i64]),
    "rhgd_set_shared_windows": (c_int, [c_int]),
    "rhgd_info": (c_int, [c_char_p, c_size]),
    "rhgd_expsym": (c_int, [c_i64, P, P]),
    "rhgd_logsym": (c_int, [c_i64, P, P]),
    "rhgd_sqrtsym": (c_int, [c_i64, P, P]),
    "rhgd_expm": (c_int, [c_i64, P, P]),
    "rhgd_lyapunov_sym": (c_int, [c_i64, P, P, P]),
    "rhgd_lyapunov_sym_many": (c_int, [c_i64, c_i64, P, P, P]),
    "rhgd_spd_exp": (c_int, [c_i64, P, P, P]),
    "rhgd_spd_log": (c_int, [c_i64, P, P, P]),
    "rhgd_spd_dist": (c_int, [c_i64, P, P, ctypes.POINTER(c_dbl)]),
    "rhgd_stiefel_retr_qr": (c_int, [c_i64, c_i64, P, P, P]),
    "rhgd_coupling_retr": (c_int, [c_i64, c_i64, P, P, P, P, P]),
    # The batched spectral kernels (rhgd.spectral).
    "rhgd_spectral_eig_batch": (c_int, [c_i64, c_i64, P, P, P]),
    "rhgd_spectral_exp_batch": (c_int, [c_i64, c_i64, P, P]),
    "rhgd_spectral_log_batch": (c_int, [c_i64, c_i64, P, P]),
    "rhgd_spectral_reeig_batch": (c_int, [c_i64, c_i64, c_dbl, P, P]),
    "rhgd_spectral_exp_batch_backward": (c_int, [c_i64, c_i64, P, P, P]),
    "rhgd_spectral_log_batch_backward": (c_int, [c_i64, c_i64, P, P, P]),
    "rhgd_spectral_reeig_batch_backward": (c_int, [c_i64, c_i64, c_dbl, P, P, P]),
    "rhgd_manifold_new": (c_int, [c_char_p, PM]),
    "rhgd_manifold_coupling": (c_int, [c_i64, c_i64, P, P, c_char_p, PM]),
    "rhgd_manifold_product": (c_int, [c_i64, PM, PM]),
    "rhgd_manifold_free": (c_int, [M]),
    "rhgd_manifold_len": (c_int, [M, PI64, PI64]),
    "rhgd_manifold_shape": (c_int, [M, PI64, PI64, PI64]),
    "rhgd_manifold_factor": (c_int, [M, c_i64, PM]),
    "rhgd_manifold_describe": (c_int, [M, c_char_p, c_size]),
    "rhgd_manifold_check_point": (c_int, [M, P]),
    "rhgd_manifold_snap_point": (c_int, [M, P, P, c_char_p, c_size]),
    "rhgd_manifold_rand_point": (c_int, [M, c_u64, P]),
    "rhgd_manifold_project": (c_int, [M, P, P, P]),
    "rhgd_manifold_retract": (c_int, [M, P, P, c_dbl, P]),
    "rhgd_manifold_inner": (c_int, [M, P, P, P, ctypes.POINTER(c_dbl)]),
    "rhgd_manifold_norm": (c_int, [M, P, P, ctypes.POINTER(c_dbl)]),
    "rhgd_manifold_supports": (c_int, [M, c_char_p, ctypes.POINTER(c_int)]),
    "rhgd_manifold_dist": (c_int, [M, P, P, ctypes.POINTER(c_dbl)]),
    "rhgd_manifold_exp": (c_int, [M, P, P, c_dbl, P]),
    "rhgd_manifold_log": (c_int, [M, P, P, P]),
    "rhgd_manifold_egrad2rgrad": (c_int, [M, P, P, P]),
    "rhgd_manifold_ehess2rhess": (c_int, [M, P, P, P, P, P]),
    "rhgd_manifold_transport": (c_int, [M, P, P, P, P]),
    "rhgd_manifold_rand_tangent": (c_int, [M, P, c_u64, P]),
    "rhgd_manifold_check_tangent": (c_int, [M, P, P]),
    "rhgd_sylvester": (c_int, [c_i64, c_i64, P, P, P, P]),
    "rhgd_lyapunov": (c_int, [c_i64, P, P, P]),
    "rhgd_expsym_frechet": (c_int, [c_i64, P, P, P]),
    "rhgd_logsym_frechet": (c_int, [c_i64, P, P, P]),
    "rhgd_sqrtsym_frechet": (c_int, [c_i64, P, P, P]),
    "rhgd_default_seed": (c_u64, []),
    "rhgd_problem_names": (c_int, [c_char_p, c_size]),
    "rhgd_problem_params": (c_int, [c_char_p, c_char_p, c_size]),
    "rhgd_problem_builtin": (c_int, [c_char_p, c_i64, ctypes.POINTER(c_char_p), c_char_p, c_u64, PP]),
    "rhgd_problem_callbacks": (c_int, [M, M, ctypes.POINTER(Oracles), c_int, c_void_p, PP]),
    "rhgd_problem_free": (c_int, [Pr]),
    "rhgd_problem_manifolds": (c_int, [Pr, PM, PM]),
    "rhgd_problem_dims": (c_int, [Pr, PI64, PI64]),
    "rhgd_problem_start": (c_int, [Pr, P, P]),
    "rhgd_problem_set_start": (c_int, [Pr, P, P]),
    "rhgd_problem_describe": (c_int, [Pr, c_char_p, c_size]),
    "rhgd_problem_notes": (c_int, [Pr, c_char_p, c_size]),
    "rhgd_problem_oracle": (c_int, [Pr, c_char_p, P, P, P, P]),
    "rhgd_problem_accuracy": (c_int, [Pr, P, P, ctypes.POINTER(c_dbl)]),
    "rhgd_solver_new": (c_int, [Pr, c_char_p, c_char_p, PS]),
    "rhgd_solver_settings": (c_int, [S, c_char_p, c_size]),
    "rhgd_solver_run": (c_int, [S, P, P, EPOCH_FN, c_void_p]),
    "rhgd_solver_cancel": (c_int, [S]),
    "rhgd_solver_set_checkpoint": (c_int, [S, c_char_p, c_i64]),
    "rhgd_solver_resume": (c_int, [S, c_char_p, EPOCH_FN, c_void_p]),
    "rhgd_solver_hypergradient": (c_int, [S, c_i64, P, c_i64, P, P, P, ctypes.POINTER(c_dbl)]),
    "rhgd_solver_result": (c_int, [S, ctypes.POINTER(Result)]),
    "rhgd_solver_x": (c_int, [S, c_i64, P]),
    "rhgd_solver_y": (c_int, [S, c_i64, P]),
    "rhgd_solver_history": (c_int, [S, c_i64, c_i64, P, PI64]),
    "rhgd_solver_free": (c_int, [S]),
    "rhgd_live_handles": (c_int, [PI64]),
    "rhgd_solver_best": (c_int, [S, c_i64, P, c_i64, P]),
    "rhgd_solver_result_value": (c_int, [S, c_char_p, ctypes.POINTER(c_dbl)]),
    "rhgd_result_names": (c_int, [c_char_p, c_size]),
    "rhgd_history_cols": (c_int, [PI64]),
    "rhgd_history_names": (c_int, [c_char_p, c_size]),
}


# rhgd_problem_check (Problem.check): the oracle checks' report as JSON.
_PROTOS["rhgd_problem_check"] = (c_int, [Pr, P, P, c_char_p, c_char_p, c_size])


def _prototypes(handle):
    for name, (res, args) in _PROTOS.items():
        fn = getattr(handle, name)
        fn.restype = res
        fn.argtypes = args


def free_handle(kind, h, pid):
    """Free a handle from a finalizer: quietly, and never in a forked child
    or a process that did not create it."""
    if _lib is None or forked() or os.getpid() != pid or h == 0:
        return
    try:
        getattr(_lib, f"rhgd_{kind}_free")(h)
    except Exception:  # interpreter shutdown
        pass

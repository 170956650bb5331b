"""RHGD runs over librhgd's handles: ``Solver``, ``minimize`` and their
``OptimizeResult`` (problems are in problems.py, the backend's controls
in backend.py, manifolds in manifolds.py)."""

import ctypes
import os
import signal
import threading

import numpy as np

from . import _lib
from . import _progress
from ._arrays import Like
from ._handle import _Handle, _new_handle
from .problems import Problem, _fmt, _raise_callback, _view

__all__ = ["Solver", "OptimizeResult", "minimize", "STATUS"]

# The epochs between checkpoints when checkpoint_every is left out (the
# CLI's -checkpoint-every default).
CHECKPOINT_EVERY = 10


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
    - ``fun``: f(x, y) at the returned ``x`` and ``y``: after the epoch or
      runtime limit or a cancellation, the last epoch had stepped x to
      x_K, and the run ended with a final lower solve there (as an epoch
      starts: the inner steps, the adaptive loop or lower_solve; counted
      in the oracle counts, not in ``history``), so ``y`` = y_{K+1} and
      ``fun`` = f(x_K, y_{K+1}); after the gradient threshold x did not
      move and ``fun`` is the last epoch's f; after an error ``x``, ``y``
      are ``best_x``, ``best_y`` and ``fun`` is ``best_f``;
    - ``nit``: the number of epochs run;
    - ``status``: an int, Go's solver.Status (``rhgd.STATUS`` maps each
      code to its name and message: 1 GradientThreshold, 2 IterationLimit,
      3 RuntimeLimit, 4 Cancelled, 5 Diverged, 6 Failure);
    - ``success``: the run ended by a stopping rule and was not cancelled;
    - ``message``: what stopped it, in words.

    rhgd's extras: ``status_name`` ('IterationLimit', ...), ``error`` (the
    library's return code, 0 or negative), ``y`` (the final lower iterate,
    the one that goes with ``x``), ``best_x``, ``best_y`` and ``best_f``
    (the iterates with the lowest f, f(best_x, best_y)),
    ``hypergrad_norm`` (the last epoch's, at x_{K-1}, the point before its
    upper step: at ``x`` only after the gradient threshold), ``runtime``
    (seconds), the oracle counts (``upper_grads``, ``lower_grads``,
    ``hess_vecs``, ``cross_vecs``, ``iterations``, ``residual``,
    ``lower_values``, ``lower_solves``, ``retract_failures``, and the
    first-order estimator's ``lower_x_grads`` and ``upper_y_grads``),
    ``history`` (a dict of per-epoch numpy arrays, the values at each
    epoch's (x_k, y_{k+1}) as the callback sees them:
    epoch, f, hypergrad_norm, lower_grad_norm, elapsed, upper_grads,
    lower_grads, hess_vecs, cross_vecs, iterations, residual, lower_steps,
    upper_step, lower_solves, lower_min_eig (the Lanczos estimate of the
    lower Hessian's smallest eigenvalue, NaN when not estimated) and
    hypergrad_err_bound (the a-posteriori estimate of the hypergradient's
    error, solver/doc.go)) and ``settings`` (the effective
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
    'ns:gamma=1,terms=50', 'ad'; None: the problem's default) and settings
    as keywords. On a built-in problem the estimator's name alone ('cg') is
    the paper's spec for that problem; a spec with options stands for
    itself, its options left out taking the estimator's defaults. The
    estimators and their options (as rhgd.h lists them):

    hinv              the exact inverse Hessian: the problem's hess_gy_inv, or,
                      without it, derived from hess_gy when the lower dimension
                      D ≤ maxdim (D products and a Cholesky factor per point)
      maxdim=N        the largest lower dimension at which hess_gy_inv is
                      derived (default 500; never 0)
    cg                conjugate gradients on H v = grad_y f
      maxiter=N       iteration cap (default 50; never 0)
      tol=X           stop once ‖b − H v‖ ≤ tol·‖b‖ (default 1e-10; never 0)
      warm=B          start from the last epoch's solution (default false)
      damping=X|auto  solve (H + δI) v = b: δ = X, or auto: from a Lanczos
                      estimate of H's spectrum (default 0: none)
    ns (neumann)      truncated Neumann series γ Σ_{i<T} (I − γH)^i
      gamma=X         step γ (default 1/λ̂_max by power iteration; never 0)
      terms=N         terms T (default 50; never 0)
      power=N         power iterations estimating λ_max to check γ; negative:
                      no check (default 10; never 0)
      damping=X|auto  the series of (H + δI)⁻¹: δ = X, or auto, as cg's
                      (default 0: none)
    ad                reverse-mode differentiation through the lower steps
    gda               gradient descent–ascent, for min-max problems
    fo (firstorder)   first-order penalty method (F²SA), gradients only (not
                      the paper's)
      lambda=X        the penalty's first λ (default 10; never 0)
      growth=X        λ_k = lambda + growth·k^power; negative: λ fixed (default
                      λ adapts to the bias estimate; 10 with power or
                      minibatches; never 0)
      power=X         the schedule's exponent (default λ adapts to the bias
                      estimate; 1/3 with growth, 1/7 with minibatches; never 0)
      zsteps=N        z steps per estimate (default the solver's inner; never
                      0)
      eta=X           z step size (default the solver's eta_y; never 0)
      ztol=X          end the z steps at ‖z gradient‖ ≤ ztol·‖ĝ‖/λ (default 0:
                      off)
    saba (vr)         SABA: variance-reduced joint steps on y, v and x, SAGA
                      memories transported on the manifolds (for minibatches;
                      inner=1) (not the paper's)
      eta=X           v's constant step (default the solver's eta_y; never 0)
      shuffle=B       draw the memory blocks in a random order per pass
                      (default false: each block with probability its share)
    adagd             AdaRHD's gradient descent on H v = grad_y f with
                      AdaGrad-norm steps (not the paper's)
      maxiter=N       first iteration cap, 50 more every five estimates up to
                      500 (default 50; never 0)
      tol=X           stop once ‖H v − b‖² < tol (default 0.0001; never 0)
      gamma=X         the first AdaGrad accumulator γ₀ (steps 1/γ) (default
                      1/eta_y; never 0)

    A setting left out, or None, takes its default (the problem's); 0 for
    one whose default is not 0 is InvalidArgument naming it, never
    silently the default (likewise cg:maxiter=0 and the like in the
    estimator spec). Those never 0: eta_x, eta_y, inner, epochs,
    diverge, fd_step, lower_maxiter, upper_min_step, upper_max_step. The
    settings are the keys of rhgd_solver_new (see rhgd.h): preset, eta_x,
    eta_y, inner, epochs, grad_tol, rel_grad_tol, runtime, diverge,
    fd_step, seed, batches, batch_lower, batch_upper, batch_cross,
    batch_hess, batch_report, lower_solve, lower_tol, lower_maxiter,
    lower_err_bound, lower_bb, lower_adagrad, upper_bb, upper_adagrad,
    upper_min_step, upper_max_step, lanczos."""

    _kind = "solver"

    def __init__(self, problem, estimator=None, **settings):
        self.problem = problem
        spec = getattr(problem, "_estimator_spec", None)
        if spec is not None:
            estimator = spec(estimator)
        spec = ",".join(f"{k}={_fmt(v)}" for k, v in settings.items() if v is not None)
        self._own(_new_handle(_lib.lib().rhgd_solver_new, problem.handle,
                              estimator.encode() if estimator else None, spec.encode() if spec else None))

    @property
    def settings(self):
        """The effective 'estimator;settings'."""
        return _lib.copy_out(_lib.lib().rhgd_solver_settings, self._h)

    def cancel(self):
        """Ask a running solver (in another thread) to stop after its epoch."""
        _lib.check(_lib.lib().rhgd_solver_cancel(self._h))

    def run(self, x0=None, y0=None, callback=None, *, progress=False, checkpoint=None, checkpoint_every=None):
        """Run from (x0, y0) (None: the problem's start). callback(info), if
        given, sees each epoch k (a dict: epoch, f, hypergrad_norm, x, y,
        hypergrad, ...; arrays are copies) and stops the run by returning
        True. info["x"] is x_k, the point at which f and the hypergradient
        were evaluated, before the epoch's upper step moved it to x_{k+1};
        info["y"] is y_{k+1}, the lower iterate the epoch's lower solve
        reached at x_k; info["f"] is f(x_k, y_{k+1}) and info["hypergrad"]
        the estimate at x_k (the history rows hold the same values). So
        the last epoch's x is not the result's x, which is one step further
        (see OptimizeResult). progress shows the run's progress on stderr:
        True (a tqdm bar when tqdm imports, else one line rewritten in
        place), 'tqdm' or 'line'. Returns an OptimizeResult; a failed run
        raises, with the result as the exception's ``result``.

        x0 and y0 may be numpy arrays or torch tensors (read through
        .detach()), shaped like the manifolds' points; the result's x, y,
        best_x and best_y, and the callback's x, y and hypergrad, are then
        of the same kind (tensors of x0's dtype and device). Without x0 and
        y0 they follow the start set on the problem.

        checkpoint (a file path) makes the run survive its process: its
        whole state (iterates, best iterate, counts, step-size memories,
        random streams, the estimator's warm starts, the history so far)
        is written there every checkpoint_every epochs (default 10; 0 is
        InvalidArgument) and when the run is cancelled (Ctrl-C, the
        callback, Solver.cancel), to a temporary file renamed over the
        path, so that a process killed at any moment leaves the last
        checkpoint whole. When the file exists, the run resumes it
        instead of starting from x0, y0 (which are then not used), and
        ends as the run never stopped would, bit for bit on the same
        backend but for the elapsed times, which continue from the
        checkpoint's. A checkpoint of another problem (a built-in one's
        name, parameters, data and seed; callbacks on other manifolds or
        with another f), other settings or sizes, or a truncated or
        corrupt one raises InvalidArgument naming what differs; delete
        the file to start afresh. The checkpoint of a finished run
        resumes to its result at once."""
        lib = _lib.lib()
        p = self.problem
        xp = yp = None
        if (x0 is None) != (y0 is None):
            raise ValueError("rhgd: give both x0 and y0, or neither")
        ck = None
        if checkpoint is None:
            if checkpoint_every is not None:
                raise ValueError("rhgd: checkpoint_every is given without checkpoint")
            _lib.check(lib.rhgd_solver_set_checkpoint(self._h, None, 0))
        else:
            ck = os.fsencode(os.fspath(checkpoint))
            every = CHECKPOINT_EVERY if checkpoint_every is None else checkpoint_every
            _lib.check(lib.rhgd_solver_set_checkpoint(self._h, ck, every))
        like = getattr(p, "_like", None) or Like()
        if x0 is not None:
            like = Like(x0, y0)
            x0, y0 = p._x(x0, "x0"), p._y(y0, "y0")
            xp, yp = x0.ctypes.data, y0.ctypes.data
        bar = _progress.open(progress, self)
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
        if callback is not None or bar is not None:
            def on_epoch(user, ep):
                try:
                    e = ep.contents
                    if bar is not None:
                        bar.update(e.epoch, e.f, e.hypergrad_norm, e.elapsed)
                    if interrupted:  # a Ctrl-C before the run began, which its cancel could not reach
                        return 1
                    if callback is None:
                        return 0
                    info = {k: getattr(e, k) for k in _lib.HISTORY_NAMES}
                    info["x"] = like.out(_view(e.x, e.len_x).reshape(p.mx.shape).copy())
                    info["y"] = like.out(_view(e.y, e.len_y).reshape(p.my.shape).copy())
                    info["hypergrad"] = like.out(_view(e.hypergrad, e.len_x).reshape(p.mx.shape).copy())
                    return 1 if callback(info) else 0
                except BaseException as exc:
                    cb_err.append(exc)
                    return 1
            cfn = _lib.EPOCH_FN(on_epoch)
        elif old_handler is not None:
            # The handler's rhgd_solver_cancel reaches a running solver only:
            # a SIGINT between installing it and the run's start is seen here.
            cfn = _lib.EPOCH_FN(lambda user, ep: 1 if interrupted else 0)
        p.error = None
        try:
            if ck is not None and os.path.exists(ck):
                rc = lib.rhgd_solver_resume(self._h, ck, cfn, None)
            else:
                rc = lib.rhgd_solver_run(self._h, xp, yp, cfn, None)
        finally:
            if old_handler is not None:
                signal.signal(signal.SIGINT, old_handler)
            if bar is not None:
                bar.close()
        if interrupted:
            raise KeyboardInterrupt
        p._warn_notes()
        res = None
        if rc >= 0 or rc in (_lib.ENUMERIC, _lib.ENOTCONV, _lib.ECALLBACK, _lib.EINTERNAL):
            try:
                res = self.result(like)
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

    def result(self, like=None):
        """The last run's OptimizeResult (its arrays as numpy arrays, or of
        like's kind: an rhgd._arrays.Like)."""
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
        like = like or Like()
        x, y, bx, by = like.out(x), like.out(y), like.out(bx), like.out(by)
        return OptimizeResult(
            message=message, success=r.error == 0 and name != "Cancelled", status=r.status, fun=r.f, x=x, nit=r.epochs,
            status_name=name, error=r.error, y=y, best_x=bx, best_y=by, best_f=r.best_f,
            hypergrad_norm=r.hypergrad_norm, runtime=r.runtime,
            upper_grads=r.upper_grads, lower_grads=r.lower_grads, hess_vecs=r.hess_vecs, cross_vecs=r.cross_vecs,
            iterations=r.iterations, residual=r.residual, lower_values=r.lower_values, lower_solves=r.lower_solves,
            retract_failures=r.retract_failures, lower_x_grads=r.lower_x_grads, upper_y_grads=r.upper_y_grads,
            history=hist, settings=self.settings)


# The keywords of the removed minimize(mx=, my=, f=, ...) form: oracles
# and problem options, which belong to Problem.
_PROBLEM_KEYWORDS = frozenset(("mx", "my", "f", "grad_fx", "grad_fy", "grad_gy", "g", "grad_gx", "hess_gy",
                               "cross_gxy", "cross_gyx", "hess_gy_inv", "gradients", "n_f", "n_g"))


def minimize(problem=None, x0=None, y0=None, *, estimator=None, callback=None, progress=False, checkpoint=None,
             checkpoint_every=None, **settings):
    """Run RHGD on problem from (x0, y0) and return an OptimizeResult.

    problem is any rhgd Problem: a built-in one (``rhgd.builtin(name,
    ...)``), one given by callbacks (``rhgd.Problem(mx, my, f=...,
    grad_fx=..., ...)``) or one written in PyTorch
    (``rhgd.torch.Problem(f, g, mx, my)``; ``rhgd.torch.minimize(f, g, mx,
    my, ...)`` builds it for you). x0, y0: the start (both or neither;
    None: the problem's). estimator is a spec ('cg', 'hinv',
    'ns:gamma=1,terms=50', 'ad'; None: the problem's default); callback(info)
    sees each epoch and stops the run by returning True; progress=True
    shows the run's progress; checkpoint='run.ckpt' saves the run's state
    there every checkpoint_every epochs (default 10) and on a
    cancellation, and resumes it when the file exists (see Solver.run);
    the remaining
    keywords are solver settings (eta_x, eta_y, inner, epochs, grad_tol,
    runtime, seed, preset, batch_lower, lower_solve=True, ...: see Solver;
    one left out or None takes its default, and epochs=0 and the like are
    InvalidArgument, not the default).
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
    return Solver(problem, estimator, **settings).run(x0, y0, callback, progress=progress, checkpoint=checkpoint,
                                                      checkpoint_every=checkpoint_every)

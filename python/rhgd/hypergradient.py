"""The hypergradient of a bilevel problem at a given point,
``hypergradient``, over the C ABI's rhgd_solver_hypergradient (Go's
RHGD.Estimate and RHGD.EstimateLower)."""

import ctypes

import numpy as np

from . import _lib
from ._arrays import Like
from .problems import Problem, _raise_callback
from .solver import Solver

__all__ = ["hypergradient"]


def hypergradient(problem, x, y=None, estimator=None, *, full_output=False, **settings):
    """The hypergradient estimate of F(x) = f(x, y*(x)) at x, shaped like
    the problem's mx points (tangent at x): a numpy array, or a torch
    tensor of x's dtype and device when x is a tensor (read through
    .detach(); y likewise).

    problem is any rhgd Problem (``rhgd.builtin``, ``rhgd.Problem``,
    ``rhgd.torch.Problem``); estimator a spec as for ``rhgd.minimize``
    ('hinv', 'cg', 'cg:tol=1e-12', 'ns:gamma=1,terms=50', 'ad'; None: the
    problem's default) and the keywords are solver settings (see
    ``rhgd.Solver``): the lower solve below follows them.

    - With y given, the estimate at (x, y) as it stands: no lower steps
      (so y should be y*(x), or close to it; 'ad' then differentiates a
      path of one point, its grad_x f term alone).
    - With y None, y is the lower iterate the solver's lower solve reaches
      at x from the problem's starting y0 (its start, as set by
      ``Problem(..., y0=...)`` or ``set_start``; InvalidArgument when it
      has none): the problem's exact ``lower_solve`` (y0 its warm start)
      with ``lower_solve=True`` when the problem has one, else one epoch's
      lower loop from y0: ``inner`` steps of ``eta_y`` (raise ``inner``
      for an accurate y), or the BB steps of ``lower_bb``.

    With ``full_output=True`` it returns the tuple (hypergradient, y,
    lower_grad_norm): y the lower iterate used (shaped like my's points)
    and lower_grad_norm = ||grad_y g(x, y)|| on the whole sums, which says
    how accurate y is (for g strongly convex in y with modulus mu,
    dist(y, y*(x)) <= lower_grad_norm / mu, and the hypergradient's error
    is at most a constant times that distance).

    Equal arguments give equal results. An exception raised by one of the
    problem's callbacks propagates (as the cause of a CallbackError), as in
    ``Solver.run``; points within float32 rounding of their manifold are
    projected, with a ProjectedInput warning."""
    if not isinstance(problem, Problem):
        raise TypeError(f"rhgd.hypergradient(problem, x, y=None, ...) takes a Problem, got {type(problem).__name__}")
    like = Like(x, y)
    x = problem._x(x, "x")
    yp = None
    if y is not None:
        y = problem._y(y, "y")
        yp = y.ctypes.data
    solver = Solver(problem, estimator, **settings)
    try:
        hg, y_out, norm = np.empty(problem.mx.shape), np.empty(problem.my.shape), ctypes.c_double()
        problem.error = None
        rc = _lib.lib().rhgd_solver_hypergradient(solver.handle, problem.len_x, x.ctypes.data, problem.len_y, yp,
                                                  hg.ctypes.data, y_out.ctypes.data, ctypes.byref(norm))
        problem._warn_notes()
        _raise_callback(rc, problem)
    finally:
        solver.free()
    if full_output:
        return like.out(hg), like.out(y_out), norm.value
    return like.out(hg)

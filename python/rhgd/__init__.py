"""rhgd: Riemannian hypergradient descent for bilevel optimization on
manifolds (Han, Mishra, Jawanpuria and Takeda, NeurIPS 2024), from Python,
over the C ABI of the Go library (librhgd.so) with ctypes and numpy.

Importing the package loads nothing: the library is loaded on first use,
from $RHGD_LIBRARY, the package directory, the repository's build/ or the
system's search path (see ``_lib.library_path``).

The library carries the Go runtime, which does not survive fork(): a
process forked after the library was loaded raises ForkError on its first
call. Use multiprocessing's 'spawn' or 'forkserver' start method (Dask's
worker processes use spawn), or load rhgd only in the workers.

``rhgd.torch`` (problems written in PyTorch: f and g only, every
derivative from autograd) is imported on first use, so that ``import rhgd``
needs no torch.
"""

from ._lib import (BadHandle, BusyError, CallbackError, ForkError, InternalError, InvalidArgument, NotConverged,
                   NumericalError, ProjectedInput, RHGDError, library_path)
from .kernels import (coupling_retr, expm, expsym, expsym_frechet, logsym, logsym_frechet, lyapunov, lyapunov_sym,
                      lyapunov_sym_many, spd_dist, spd_exp, spd_log, sqrtsym, sqrtsym_frechet, stiefel_retr_qr,
                      sylvester)
from .backend import info, init, live_handles, set_threads, set_windows, version
from .manifolds import SPD, Coupling, Euclidean, Grassmann, Product, Simplex, Stiefel
from .problems import Problem, builtin, problem_names, problem_params
from ._plot import plot
from .solver import STATUS, OptimizeResult, Solver, minimize
from .hypergradient import hypergradient

__version__ = "0.2.0"

__all__ = [
    "RHGDError", "InvalidArgument", "NotConverged", "NumericalError", "BadHandle", "InternalError",
    "CallbackError", "BusyError", "ForkError", "ProjectedInput", "library_path",
    "expsym", "logsym", "sqrtsym", "expm", "lyapunov_sym", "lyapunov_sym_many", "spd_exp", "spd_log", "spd_dist",
    "stiefel_retr_qr", "coupling_retr", "sylvester", "lyapunov", "expsym_frechet", "logsym_frechet", "sqrtsym_frechet",
    "SPD", "Stiefel", "Grassmann", "Simplex", "Euclidean", "Coupling", "Product", "Problem", "Solver", "OptimizeResult", "builtin",
    "minimize", "problem_names", "problem_params", "init", "info", "set_threads", "set_windows", "version", "live_handles",
    "STATUS", "plot",
    "hypergradient",
]


def __getattr__(name):
    # rhgd.torch on first use: importing torch takes a second, and rhgd
    # works without it.
    if name == "torch":
        import importlib
        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module 'rhgd' has no attribute {name!r}")

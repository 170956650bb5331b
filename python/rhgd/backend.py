"""The numerical backend: start it (``init``), set OpenBLAS's threads,
and read what it is (``info``, ``version``, ``live_handles``)."""

import ctypes
import json

from . import _lib

__all__ = ["init", "info", "set_threads", "set_windows", "version", "live_handles"]


def init(backend=None, threads=None, shared=True):
    """Start the numerical backend explicitly, before any computation:
    backend 'auto' | 'openblas' | 'gonum'; threads for OpenBLAS (>= 1;
    None: leave it, or in owned mode the physical cores; 0 is an error,
    not that default); shared=True leaves OpenBLAS's kernels and threads
    to the host (numpy), False lets rhgd own them (see the README)."""
    if threads is not None and int(threads) == 0:
        # rhgd_init's 0 is "not given": from Python, leave the keyword out.
        raise _lib.InvalidArgument("rhgd: threads=0 would mean the default, not 0; leave threads out (or None) for "
                                   "the default (leave OpenBLAS's, or in owned mode the physical cores)")
    _lib.check(_lib.lib().rhgd_init(backend.encode() if backend else None, int(threads or 0), 1 if shared else 0))


def set_threads(n):
    """Set OpenBLAS's thread count, for the whole process (numpy's too)."""
    _lib.check(_lib.lib().rhgd_set_threads(int(n)))


def set_windows(on):
    """Turn rhgd's one-thread windows on or off in shared mode (see the
    README, "OpenBLAS inside a numpy process"): around each of rhgd's
    calls too small to gain from threads, OpenBLAS runs on one thread, and
    the count is restored after it."""
    _lib.check(_lib.lib().rhgd_set_shared_windows(1 if on else 0))


def info():
    """The backend: library, kernels, threads, shared mode, CPU (a dict).

    'thread_table' is the table of one-thread windows in use: its source
    (the profile `rhgd tune` wrote for this machine, named by RHGD_PROFILE
    or under $XDG_CACHE_HOME/rhgd, else the fallback), the order from which
    each call kind runs on all threads, and this machine's profile key."""
    return json.loads(_lib.copy_out(_lib.lib().rhgd_info))


def version():
    """The library's version."""
    return _lib.lib().rhgd_version().decode()


def live_handles():
    """The number of live library handles (for leak checks)."""
    n = ctypes.c_int64()
    _lib.check(_lib.lib().rhgd_live_handles(ctypes.byref(n)))
    return n.value

"""Library handles owned by Python objects."""

import ctypes
import os
import weakref

from . import _lib


def _new_handle(fn, *args):
    h = fn.argtypes[-1]._type_()  # the handle struct of the kind fn makes
    _lib.check(fn(*args, ctypes.byref(h)))
    return h.id


class _Handle:
    """A library handle freed when the Python object goes away."""

    _kind = None

    def _own(self, h):
        self._h = h
        self._finalizer = weakref.finalize(self, _lib.free_handle, self._kind, h, os.getpid())

    @property
    def handle(self):
        """The library's handle id (an int; the argument types of _lib
        make it the handle struct of this kind)."""
        return self._h

    def free(self):
        """Free the handle now (it is freed on garbage collection anyway)."""
        self._finalizer()

"""Conversion of array arguments to what the library reads."""

import numpy as np

F64 = np.float64


def f64(a, name):
    """a as a C-contiguous float64 array: the array itself when it is one
    (no copy), else a copy. Complex input raises TypeError, as do strings
    and dates: converting them would drop the imaginary part or parse text
    silently, and compute something else than asked."""
    arr = np.asarray(a)
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(f"rhgd: {name} is complex ({arr.dtype}); rhgd computes with real numbers "
                        f"(pass a.real if the imaginary part is zero)")
    if kind not in "biufO":
        raise TypeError(f"rhgd: {name} has dtype {arr.dtype}; want real numbers")
    return np.ascontiguousarray(arr, dtype=F64)

"""Conversion of array arguments to what the library reads, and of its
results back to what the caller gave (numpy arrays, or torch tensors)."""

import sys

import numpy as np

F64 = np.float64


def tensor(a):
    """a when it is a torch.Tensor, else None; torch is not imported here
    (a tensor exists only where torch was imported already)."""
    t = sys.modules.get("torch")
    if t is not None and isinstance(a, t.Tensor):
        return a
    return None


def _numpy(t, name):
    """The values of the tensor t as a numpy array: a view of its memory
    when it is on the CPU and not a conjugate or negative view. A tensor
    that requires grad (a start point made by a torch computation, a
    parameter) is read through .detach(): rhgd reads values and builds no
    graph through them."""
    if t.is_complex():
        raise TypeError(f"rhgd: {name} is complex ({t.dtype}); rhgd computes with real numbers "
                        f"(pass {name}.real if the imaginary part is zero)")
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == getattr(sys.modules["torch"], "bfloat16"):
        t = t.float()  # numpy has no bfloat16
    return t.resolve_neg().numpy()


def low_precision(a):
    """Whether a holds floats less precise than float64 (float32, float16,
    bfloat16: numpy or torch), whose points miss their constraints by
    their rounding."""
    t = tensor(a)
    if t is not None:
        return t.is_floating_point() and t.element_size() < 8
    dt = getattr(a, "dtype", None)
    return dt is not None and np.dtype(dt).kind == "f" and np.dtype(dt).itemsize < 8


def f64(a, name):
    """a as a C-contiguous float64 array: the array itself when it is one
    (no copy; a C-contiguous float64 CPU tensor's memory, too), else a copy.
    Complex input raises TypeError, as do strings and dates: converting
    them would drop the imaginary part or parse text silently, and compute
    something else than asked."""
    t = tensor(a)
    arr = _numpy(t, name) if t is not None else np.asarray(a)
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(f"rhgd: {name} is complex ({arr.dtype}); rhgd computes with real numbers "
                        f"(pass a.real if the imaginary part is zero)")
    if kind not in "biufO":
        raise TypeError(f"rhgd: {name} has dtype {arr.dtype}; want real numbers")
    return np.ascontiguousarray(arr, dtype=F64)


def _squeezed(shape):
    return tuple(n for n in shape if n != 1)


def shaped(a, shape, name, what):
    """f64(a) checked to have the shape shape (a tuple), which what (a
    manifold, say) needs, up to dimensions of size 1 (a vector as (n,),
    (n, 1) or (1, n): the same entries in the same order): a transposed
    matrix or a flattened one has the right size and the wrong meaning, and
    is refused."""
    arr = f64(a, name)
    shape = tuple(shape)
    if arr.shape != shape and _squeezed(arr.shape) != _squeezed(shape):
        hint = ""
        if arr.shape == shape[::-1] and len(shape) == 2:
            hint = f" (transposed? {name}.T has the shape wanted)"
        elif arr.size == int(np.prod(shape)):
            hint = f" (the same number of entries: reshape it to {shape} if that is what it holds)"
        raise ValueError(f"rhgd: {name} has shape {arr.shape}; {what} needs shape {shape}{hint}")
    return arr


class Like:
    """How to give results back: as numpy arrays, or as torch tensors of
    the first tensor argument's dtype and device."""

    __slots__ = ("t",)

    def __init__(self, *args):
        self.t = None
        for a in args:
            t = tensor(a)
            if t is not None:
                self.t = t
                break

    def out(self, arr):
        """arr (a new float64 numpy array) as the caller's kind: a tensor
        sharing arr's memory when the caller's tensors are float64 on the
        CPU, else a copy in their dtype and on their device."""
        if self.t is None:
            return arr
        torch = sys.modules["torch"]
        r = torch.from_numpy(arr)
        dtype = self.t.dtype if self.t.dtype.is_floating_point else torch.float64
        if dtype != torch.float64 or self.t.device.type != "cpu":
            r = r.to(dtype=dtype, device=self.t.device)
        return r

    def scalar(self, v):
        """The float v as the caller's kind: a float for numpy, a 0-d tensor
        of the caller's dtype and device for torch."""
        if self.t is None:
            return v
        torch = sys.modules["torch"]
        dtype = self.t.dtype if self.t.dtype.is_floating_point else torch.float64
        return torch.tensor(v, dtype=dtype, device=self.t.device)

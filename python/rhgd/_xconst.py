"""What depends on x alone, computed once per lower loop.

In the paper's lower loop x is fixed and only y moves, yet a function
g(x, y) written in torch computes everything again at each step: the
features φ(x) of a hyper-representation (a logm of a batch of matrices),
a metric's factor, an SPD network's layers. A hand-written loop pays that
S times an epoch; rhgd.torch's fused lower loop (lower_steps) pays it once.

XConst is a torch function mode (torch.overrides.TorchFunctionMode) around
the calls of g in one lower loop. An operation depends on y when one of
its tensor arguments does: the step's leaf, which requires grad (x and the
data do not, in the lower loop), anything autograd tracks from it (it
requires grad too, whichever way it was made), any result of an operation
the mode saw depend on y (comparisons, integer results, detached values),
and views of those (by their base). Every other operation is "x-only".
The first call records each x-only operation's function, arguments and
result, in order. Later calls return the recorded result for the same
operation on the same arguments (the same tensor objects, which the
recorded results themselves are, unchanged since: the same version
counter; or views of the same base at the same offset, shape and strides,
which torch 1.13's indexing makes without the mode seeing it; or, for a
tensor the mode did not see made (a copy by advanced indexing, A[idx]),
one of the same shape, strides and dtype with bitwise equal values; and
equal other arguments) instead of computing it again. The arithmetic is the
same, so the results are bitwise those of recomputing.

It gives up (computes everything, records nothing more) at the first
sign that reuse could change a result:
  - a later call whose x-only operations differ from the first's in
    order, function or arguments (control flow on y, a value made from a
    Python number that changed);
  - an in-place operation, or an out= argument, on a tensor that does not
    depend on y, or a recorded result or argument whose version counter
    moved (written in place, even by an indexing assignment the mode does
    not see);
  - random numbers are never reused: an operation that draws them, and
    everything computed from it, counts as depending on y;
  - tensors that require grad without depending on y (a closure over a
    module's parameters) count as depending on y: nothing is reused;
    except x itself when given (XConst(x): AD's unrolled loop), and what
    the mode saw computed from x alone, which are reused with their
    autograd graph.

Whether it pays is the caller's to measure: the mode costs a few µs per
torch call, which a cheap g (a 10 × 10 metric's factor) does not win back.
rhgd.torch's fused loop times a step with reuse against one without, on
the user's machine, and keeps the faster.
"""

import re

import torch
from torch.overrides import TorchFunctionMode

# Names of operations that write into an argument (add_, copy_,
# __setitem__, __iadd__, ...).
_INPLACE = re.compile(r"^(__i[a-z]+__|__setitem__)$|[^_]_$")
# Names of operations that draw random numbers: never reused.
_RANDOM = re.compile(r"rand|normal|bernoulli|dropout|multinomial|poisson|uniform|exponential|cauchy|geometric|"
                     r"rrelu|shuffle|sample")


def _tensors(x, out):
    """The tensors in x (nested lists, tuples and dicts), appended to out."""
    if isinstance(x, torch.Tensor):
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for a in x:
            _tensors(a, out)
    elif isinstance(x, dict):
        for a in x.values():
            _tensors(a, out)
    return out


def _versions(args, result):
    """The version counters of an operation's tensor arguments and result:
    an in-place write moves them."""
    return tuple(t._version for t in args) + tuple(t._version for t in _tensors(result, []))


def _same_tensor(a, b):
    """Whether b is the recorded tensor argument a again: the same object,
    or a view of the same base at the same place (indexing a constant
    makes a new view object each call)."""
    if a is b:
        return True
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return False
    if not (a.shape == b.shape and a.stride() == b.stride() and a.dtype == b.dtype and a.device == b.device):
        return False
    if a._base is not None and a._base is b._base and a.storage_offset() == b.storage_offset():
        return True
    # A copy the mode did not see made (torch 1.13's advanced indexing,
    # A[idx], runs below it): the same values give the same result.
    return not (a.requires_grad or b.requires_grad) and torch.equal(a, b)


def _same(a, b):
    """Whether b is the argument a again: the same tensors (by identity, or
    equal views of the same base), equal other values."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return _same_tensor(a, b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


class XConst(TorchFunctionMode):
    """Reuse of g's x-only operations across the calls of one lower loop
    (see the module's doc). Use: xc = XConst(); for each step,
    `with xc.call(w): v = g(x, w)` (a no-op once it gave up)."""

    def __init__(self, x=None):
        super().__init__()
        # x, when given, is the upper variable's leaf, which requires grad
        # (AD's unrolled loop, differentiated in x): x and what the mode
        # sees computed from it alone do not count as depending on y, so
        # x-only results are reused with their graph, and the backward pass
        # goes through them once, their gradients summed over the steps.
        self.xs = set() if x is None else {id(x)}
        self.xalive = [] if x is None else [x]
        self.rec = []  # (func, args, kwargs, result, versions) of the x-only operations, in order
        self.first = True
        self.off = False  # gave up: everything is computed
        self.pos = 0
        self.dep = set()  # ids of the tensors that depend on y in this call
        self.alive = []  # those tensors, kept so that their ids stay theirs during the call
        self.reused = 0  # operations reused (for tests)

    def call(self, w):
        """The context of one call of g with y's leaf w: the mode, or
        nothing once it does not pay."""
        if self.off:
            return _NULL
        self.pos = 0
        self.dep = {id(w)}
        self.alive = [w]
        return self

    def __exit__(self, *exc):
        r = super().__exit__(*exc)
        if self.first:
            self.first = False
        self.dep, self.alive = set(), []
        return r

    def _depends(self, r):
        for t in _tensors(r, []):
            self.dep.add(id(t))
            self.alive.append(t)

    def _on_y(self, t):
        """Whether the tensor t depends on y (see the module's doc)."""
        b = t._base
        if id(t) in self.dep or b is not None and id(b) in self.dep:
            return True
        if t.requires_grad or b is not None and b.requires_grad:
            return not (id(t) in self.xs or b is not None and id(b) in self.xs)
        return False

    def _from_x(self, ts, r):
        """Marks r, an x-only operation's result, as computed from x when
        one of its tensor arguments ts is."""
        if self.xs and any(id(t) in self.xs or t._base is not None and id(t._base) in self.xs for t in ts):
            for t in _tensors(r, []):
                self.xs.add(id(t))
                self.xalive.append(t)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.off:
            return func(*args, **kwargs)
        ts = _tensors(args, _tensors(kwargs, []))
        dep = any(self._on_y(t) for t in ts)
        name = getattr(func, "__name__", "")
        if _INPLACE.search(name) or "out" in kwargs:
            if not (ts and self._on_y(ts[0])) or "out" in kwargs:
                self._give_up()  # it may write into a recorded result or the data
                return func(*args, **kwargs)
        if dep or _RANDOM.search(name):
            r = func(*args, **kwargs)
            self._depends(r)
            return r
        if self.first:
            r = func(*args, **kwargs)
            self._from_x(ts, r)
            self.rec.append((func, args, kwargs, r, _versions(ts, r)))
            return r
        if self.pos < len(self.rec):
            f0, a0, k0, r0, v0 = self.rec[self.pos]
            if (f0 is func or f0 == func) and _same(a0, args) and _same(k0, kwargs) and v0 == _versions(ts, r0):
                self.pos += 1
                self.reused += 1
                return r0
        self._give_up()  # a call that differs from the first: compute, from here on
        return func(*args, **kwargs)

    def _give_up(self):
        self.off = True
        self.rec = []


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NULL = _Null()

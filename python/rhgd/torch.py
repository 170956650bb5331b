"""rhgd.torch: bilevel problems written in PyTorch, solved by rhgd.

The user writes the upper and lower objectives ``f(x, y)`` and ``g(x, y)``
as functions of torch tensors shaped like the manifolds' points (float64
on the CPU unless Problem's dtype= and device= say otherwise; a Product's
points are flat vectors, ``split`` views their parts), picks the
manifolds and calls ``minimize``::

    import torch, rhgd, rhgd.torch
    mx, my = rhgd.Stiefel(50, 20), rhgd.SPD(50)
    f = lambda W, M: -torch.sum((M @ C) * W)
    g = lambda W, M: torch.sum(M * A) + torch.sum(torch.linalg.inv(M) * (W @ YtY @ W.T + nu * I))
    r = rhgd.torch.minimize(f, g, mx, my, x0, y0, estimator="cg", epochs=100)

f and g must return their value with its autograd graph: one that carries
none (a float, .item(), .detach(), numpy, torch.no_grad()) raises
GraphLost, named, instead of giving zero derivatives. Starting points may
be tensors (even ones that require grad: they are read through .detach()),
and results then are tensors too.

Nothing else: rhgd derives every oracle the estimators need with
torch.autograd (double backward, so torch 1.13 is enough): the gradients
∇_x f, ∇_y f, ∇_x g, ∇_y g and the exact products ∇²_yy g·v, ∇²_xy g·v and
∇²_yx g·u, all Euclidean. The library's manifolds turn them into
Riemannian oracles (egrad→rgrad, ehess→rhess with the Weingarten term), so
the CG, NS and AD estimators and the adaptive preset run on them.

Cost. One point's autograd graph of ∇_y g (create_graph=True) is built
once and reused by every product at that point (retain_graph=True): CG's
many Hessian products at one (x, y) each cost one backward pass. Each
gradient is computed only when asked for, by one backward pass through
the point's retained forward graph: a lower step, which needs ∇_y g alone,
does not differentiate through what depends on x only. With AD,
minimize also keeps the lower path's graphs for the backward sweep
(Problem.keep_points). Points
are recognized by their values (x, y and the minibatch), compared bitwise with the
last point's; the library's arrays are wrapped with torch.from_numpy, not
copied, and results are written into its output arrays in place.

Finite sums f = (1/n_f) Σ f_i, g = (1/n_g) Σ g_i: give ``n_f`` and/or
``n_g``, and f (g) is then called as ``f(x, y, batch)`` with batch a torch
int64 tensor of component indices (all of them, ``arange(n)``, for the full
sum), so that RSHGD (the batch_* settings) runs on the problem.

The inverse Hessian (the 'hinv' estimator) is not derived: give it as
``hess_gy_inv(x, y, v)``, Riemannian, on tensors. The library takes one
only beside Riemannian oracles, so such a problem's oracles go through the
library's conversion of a second, Euclidean problem (one more crossing
each, and full sums only).
"""

import collections
import ctypes
import threading

import numpy as np
import torch

from . import _lib
from . import problems as _problems
from . import solver as _solver
from ._handle import _new_handle
from ._torch_symfn import sqrtm, invsqrtm, logm, expm, powm, symfn, reeig

__all__ = ["Problem", "minimize", "split", "GraphLost", "sqrtm", "invsqrtm", "logm", "expm", "powm", "symfn", "reeig"]

_F64 = torch.float64


def _view(ptr, n):
    """The n doubles at address ptr as a numpy array (no copy)."""
    return np.frombuffer((ctypes.c_double * n).from_address(ptr), dtype=np.float64)


def _iview(ptr, n):
    """The n int64s at address ptr as a numpy array (no copy)."""
    return np.frombuffer((ctypes.c_int64 * n).from_address(ptr), dtype=np.int64)


_memcmp = ctypes.CDLL(None).memcmp
_memcmp.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_memcmp.restype = ctypes.c_int


def _equal(key, ptr, n, item=8):
    """Whether the n items at ptr are bitwise those of the array key (the
    same bits give the same derivatives; np.array_equal costs ten times
    more on a 50 x 50 point)."""
    return key is not None and key.size == n and _memcmp(key.ctypes.data, ptr, n * item) == 0


def split(m, x):
    """Views of the flat tensor x's parts, one per factor of the Product m,
    each in its factor's shape (for f and g on product manifolds)."""
    out, k = [], 0
    for fm in m.factors:
        out.append(x[k:k + fm.size].reshape(fm.shape))
        k += fm.size
    return out


class _Cache:
    """The last point's derivatives of one objective (f or g): its value,
    its gradients in x and y, and, once a product was asked for there, the
    autograd graph of the gradients (create_graph=True), which every
    further product at the point reuses.

    The key is a copy of the point's x, y and minibatch; a call at another
    point recomputes."""

    def __init__(self, fn, n, sx, sy, name, dtype=_F64, device=None):
        self.fn, self.n, self.sx, self.sy, self.name = fn, n, sx, sy, name
        self.dtype, self.device = dtype, device
        self.kx = self.ky = self.kb = None
        self.value = self.gx = self.gy = None
        self.fwd = None  # (xt, yt, value) with its graph, or None
        self.graph = None  # [xt, yt, gx, gy] with create_graph (False: not built yet), or None
        # keep > 1 also keeps the keep − 1 points before the last, by their
        # bytes (AD's backward sweep revisits the lower path's points).
        self.keep = 1
        self.old = collections.OrderedDict()

    _STATE = ("kx", "ky", "kb", "value", "gx", "gy", "graph", "fwd")

    def _key(self):
        return self.kx.tobytes() + self.ky.tobytes() + (b"" if self.kb is None else b"b" + self.kb.tobytes())

    def at(self, x, y, lx, ly, batch, nbatch):
        """Key the cache to the point at the addresses x, y (lx, ly doubles)
        and the minibatch (None: the full sum), dropping what it held
        unless the point is the last one."""
        if _equal(self.kx, x, lx) and _equal(self.ky, y, ly) and \
                (self.kb is None if not batch else _equal(self.kb, batch, nbatch)):
            return
        if self.keep > 1:
            if self.kx is not None:
                self.old[self._key()] = tuple(getattr(self, k) for k in self._STATE)
                while len(self.old) > self.keep - 1:
                    self.old.popitem(last=False)
            kx, ky = _view(x, lx).copy(), _view(y, ly).copy()
            kb = _iview(batch, nbatch).copy() if batch else None
            key = kx.tobytes() + ky.tobytes() + (b"" if kb is None else b"b" + kb.tobytes())
            st = self.old.pop(key, None)
            if st is not None:
                for k, v in zip(self._STATE, st):
                    setattr(self, k, v)
                return
            self.kx, self.ky, self.kb = kx, ky, kb  # fresh arrays: the kept states hold the old ones
        elif self.kx is None:
            self.kx, self.ky = _view(x, lx).copy(), _view(y, ly).copy()
            self.kb = _iview(batch, nbatch).copy() if batch else None
        else:
            np.copyto(self.kx, _view(x, lx))
            np.copyto(self.ky, _view(y, ly))
            self.kb = _iview(batch, nbatch).copy() if batch else None
        self.value = self.gx = self.gy = self.graph = self.fwd = None

    def _args(self):
        """The point's leaf tensors (owned copies: a graph may outlive the
        library's arrays) and the minibatch argument."""
        dt, dev = self.dtype, self.device
        xt = torch.tensor(self.kx, dtype=dt, device=dev).reshape(self.sx).requires_grad_(True)
        yt = torch.tensor(self.ky, dtype=dt, device=dev).reshape(self.sy).requires_grad_(True)
        if not self.n:
            return xt, yt, ()
        b = torch.arange(self.n, device=dev) if self.kb is None else torch.from_numpy(self.kb).to(dev)
        return xt, yt, (b,)

    def _call(self, xt, yt, args):
        v = self.fn(xt, yt, *args)
        if not isinstance(v, torch.Tensor):
            raise GraphLost(f"rhgd: {self.name} returned a {type(v).__name__}, not a torch tensor: rhgd "
                             f"differentiates {self.name} with torch.autograd, and a {type(v).__name__} carries "
                             f"no graph, so every derivative of {self.name} would be zero. " + _GRAPH_CAUSES)
        if v.numel() != 1:
            raise ValueError(f"rhgd: {self.name} returned {v.numel()} values, want one (a scalar)")
        if not v.requires_grad:
            raise GraphLost(f"rhgd: {self.name} returned a tensor that carries no autograd graph, although x "
                             f"and y require grad: rhgd differentiates {self.name} with torch.autograd, and "
                             f"without the graph every derivative of {self.name} would be zero. " + _GRAPH_CAUSES)
        return v.reshape(())

    def val(self):
        # The forward pass with its graph: a gradient at the same point (a
        # lower step's trial point once accepted, f's gradients after its
        # value) then costs one backward pass and no second forward.
        if self.value is None:
            self._forward()
        return self.value

    def _forward(self):
        """The point's value with its autograd graph (x and y leaves that
        require grad), built once per point and kept: each gradient is then
        one backward pass through it (retain_graph), and only the gradient
        asked for is computed (the lower steps need ∇_y g alone, whose
        backward pass skips everything that depends on x only, such as a
        feature map's eigendecompositions)."""
        if self.fwd is None:
            xt, yt, args = self._args()
            with torch.enable_grad():
                v = self._call(xt, yt, args)
            self.fwd = (xt, yt, v)
            self.value = float(v.detach())
        return self.fwd

    def _grad(self, which, create_graph):
        xt, yt, v = self._forward()
        wrt = (xt, yt)[which]
        r = None
        if v.requires_grad:
            with torch.enable_grad():
                (r,) = torch.autograd.grad(v, wrt, create_graph=create_graph, retain_graph=True, allow_unused=True)
        return r, wrt

    def grads(self, which=None):
        """(gx, gy), computing the one at index which (both when None)."""
        for w in ((0, 1) if which is None else (which,)):
            if (self.gx, self.gy)[w] is None:
                g = self.graph[2 + w] if self.graph is not None and self.graph[2 + w] is not False else None
                if g is None:
                    g, wrt = self._grad(w, False)
                    g = torch.zeros_like(wrt) if g is None else g
                g = g.detach()
                self.finite(g, ("grad_" + self.name + "x", "grad_" + self.name + "y")[w])
                if w == 0:
                    self.gx = g
                else:
                    self.gy = g
        return self.gx, self.gy

    def finite(self, r, oracle):
        """Raise, naming oracle and the cause, when the derivative r has a
        NaN or Inf at a finite point (the library would only say that it
        is not finite): most often the backward pass of an
        eigendecomposition at repeated eigenvalues."""
        if bool(torch.isfinite(r).all()) or not (np.isfinite(self.kx).all() and np.isfinite(self.ky).all()):
            return
        bad = int((~torch.isfinite(r)).sum())
        what = f"rhgd: {oracle} has {bad} non-finite entr{'y' if bad == 1 else 'ies'} (NaN or Inf) at a finite point"
        if self.value is not None and np.isfinite(self.value):
            what += f", where {self.name} = {self.value:.6g} is finite"
        nodes = _spectral_nodes(self.fwd[2]) if self.fwd is not None else set()
        if nodes:
            raise FloatingPointError(
                f"{what}: {self.name} goes through an eigendecomposition ({', '.join(sorted(nodes))}), whose "
                f"backward divides by differences of eigenvalues, 0/0 = NaN at repeated eigenvalues (M = I, a "
                f"natural start, has all of them equal). Use a form whose derivative is stable there: for M^(1/2) "
                f"as a metric factor, L = torch.linalg.cholesky(M) gives the same distances (xᵀMx = |Lᵀx|²) with "
                f"a finite backward; or start where the eigenvalues are distinct")
        raise FloatingPointError(f"{what}: {self.name}'s derivative is not finite there (a division by zero, or "
                                 f"a sqrt or log at 0, inside {self.name} or its backward pass)")

    def second(self, which=1):
        """(xt, yt, gx, gy): the gradients with their graph
        (create_graph=True), each built once per point when first asked for
        (which: 0 for gx, 1 for gy); one not built yet is False."""
        if self.graph is None:
            xt, yt, _ = self._forward()
            self.graph = [xt, yt, False, False]
        if self.graph[2 + which] is False:
            g, _ = self._grad(which, True)
            self.graph[2 + which] = g
        return self.graph


class GraphLost(RuntimeError):
    """f or g returned a value that carries no autograd graph although x
    and y require grad (a float, .item(), .detach(), numpy, no_grad): every
    derivative would be zero. Raised inside the callback; the run raises
    rhgd.CallbackError with it as the cause."""


_GRAPH_CAUSES = ("Likely causes: it returns a Python float or calls .item(); it calls .detach() or uses .data; "
                 "it computes in numpy (x.numpy(), np.asarray(x)); it runs under torch.no_grad() or "
                 "torch.inference_mode(). Compute it with torch operations on x and y. (A function that truly "
                 "does not depend on x, or on y, is fine: its gradient there is zero.)")

# The autograd nodes of eigen- and singular-value decompositions: their
# backward passes divide by eigenvalue (singular value) differences.
_SPECTRAL = ("LinalgEigh", "LinalgEig", "Symeig", "Eig", "LinalgSvd", "Svd")


def _spectral_nodes(v):
    """The names of the spectral decompositions' backward nodes in v's
    autograd graph (an error's diagnosis only: it walks the whole graph)."""
    found, seen, stack = set(), set(), [v.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        name = type(fn).__name__
        if name.startswith(_SPECTRAL):
            found.add(name)
        stack.extend(nxt for nxt, _ in fn.next_functions)
    return found


def _product(out_of, wrt, vec):
    """D(out_of)[.]ᵀ vec with respect to wrt, by one backward pass through the
    retained graph; zero where out_of does not depend on wrt."""
    if out_of is None or not out_of.requires_grad:
        return None
    (r,) = torch.autograd.grad(out_of, wrt, grad_outputs=vec, retain_graph=True, allow_unused=True)
    return r


class Problem(_problems.Problem):
    """A bilevel problem min_x f(x, y*(x)), y*(x) = argmin_y g(x, y), with f
    and g written in PyTorch on the manifolds mx × my; every derivative
    comes from torch.autograd, Euclidean, converted by the manifolds.

    f(x, y) and g(x, y) take tensors shaped like mx's and my's points and
    return a scalar tensor that carries its autograd graph (a Python float,
    .item(), .detach(), numpy or torch.no_grad() inside them would make
    every derivative zero: rhgd raises instead, naming f or g). The
    tensors are float64 on the CPU by default; dtype= and device= (a torch
    dtype such as torch.float32, a device such as 'cuda') evaluate f and g
    there instead: the solver's state and geometry stay float64 on the
    host, each point's x and y are cast and copied to the device, and the
    derivatives cast back. Derivatives in float32 carry relative errors of
    about 1e-7 times the problem's conditioning, and so does the
    hypergradient, whatever CG's tolerance: 'cg:tol=1e-6' gets as far as
    the default 1e-10 with fewer iterations (python/README.md, "float32").
    n_f > 0 (n_g > 0) makes f (g) a
    finite sum of n_f (n_g) components called as f(x, y, batch), batch an
    int64 tensor of component indices. lower_solve(x, y), optional, returns
    the exact lower solution y*(x) (a tensor or array; y is the warm start)
    for the setting lower_solve=True. hess_gy_inv(x, y, v), optional,
    returns the Riemannian inverse Hessian of g in y applied to the tangent
    v (for the 'hinv' estimator; full sums only). x0, y0 set the starting
    point. The
    result is an rhgd.Problem: rhgd.Solver, rhgd.minimize, oracle() and
    start() take it."""

    def __init__(self, f, g, mx, my, *, x0=None, y0=None, n_f=0, n_g=0, lower_solve=None, hess_gy_inv=None,
                 dtype=None, device=None):
        n_f, n_g = int(n_f), int(n_g)
        if n_f < 0 or n_g < 0:
            raise ValueError(f"rhgd: n_f = {n_f}, n_g = {n_g}: want >= 0")
        if not (callable(f) and callable(g)):
            raise TypeError("rhgd: f and g must be callables of (x, y) torch tensors")
        self.mx, self.my = mx, my
        self.builtin_name = None
        self.error = None
        self._batched = n_f > 0 or n_g > 0
        self._lock = threading.Lock()
        sx, sy = tuple(mx.shape), tuple(my.shape)
        self._lx, self._ly, self._sx, self._sy = mx.size, my.size, sx, sy
        dtype = _F64 if dtype is None else dtype
        if not (isinstance(dtype, torch.dtype) and dtype.is_floating_point and not dtype.is_complex):
            raise TypeError(f"rhgd: dtype={dtype!r}: want a real floating torch dtype (torch.float64, torch.float32)")
        device = None if device is None else torch.device(device)
        self.dtype, self.device = dtype, device
        self._f = _Cache(f, n_f, sx, sy, "f", dtype, device)
        self._g = _Cache(g, n_g, sx, sy, "g", dtype, device)
        self._lower = lower_solve
        V, H = _lib.VALUE_FN, _lib.HVP_FN
        c = dict(f=V(self._cb_value(self._f)), g=V(self._cb_value(self._g)),
                 grad_fx=V(self._cb_grad(self._f, 0)), grad_fy=V(self._cb_grad(self._f, 1)),
                 grad_gx=V(self._cb_grad(self._g, 0)), grad_gy=V(self._cb_grad(self._g, 1)),
                 hess_gy=H(self._cb_hvp("hess_gy")), cross_gxy=H(self._cb_hvp("cross_gxy")),
                 cross_gyx=H(self._cb_hvp("cross_gyx")))
        if lower_solve is not None:
            c["lower_solve"] = V(self._cb_lower())
        self._c = c  # the ctypes callbacks: alive as long as the problem
        o = _lib.Oracles(n_f=n_f, n_g=n_g, **c)
        try:
            h = _new_handle(_lib.lib().rhgd_problem_callbacks, mx.handle, my.handle, ctypes.byref(o), 1,
                                    None)
            if hess_gy_inv is not None:
                h = self._riemannian(h, hess_gy_inv, n_f, n_g)
        except BaseException:
            # A refused problem keeps nothing alive (its callbacks refer back
            # to it: a cycle that would hold the manifolds' handles until a
            # later collection), as rhgd.Problem does.
            self._c, self._c_riemannian, self._euclid, self.mx, self.my = {}, {}, None, None, None
            raise
        self._own(h)
        self._dims()
        if x0 is not None or y0 is not None:
            self.set_start(x0, y0)
        self._warn_notes()

    def keep_points(self, n):
        """Keep the autograd graphs of the last n points (default 1) for f
        and for g, instead of the last one only: worth it when a solver
        revisits points, as AD's backward sweep does over the lower path
        (minimize sets n = inner + 2 for 'ad'). Memory grows with n."""
        n = int(n)
        if n < 1:
            raise ValueError(f"rhgd: keep_points({n}): want >= 1")
        with self._lock:
            for c in (self._f, self._g):
                c.keep = n
                while len(c.old) > n - 1:
                    c.old.popitem(last=False)

    def _riemannian(self, h, hess_gy_inv, n_f, n_g):
        """The handle of the problem with the inverse Hessian: the library
        takes one only beside Riemannian oracles, so this problem's are
        those of the Euclidean one (handle h, kept as self._euclid), which
        the library converts (rhgd_problem_oracle), and hess_gy_inv(x, y, v)
        is the user's, on tensors. Full sums only: rhgd_problem_oracle takes
        no minibatch."""
        inner = _problems.Problem.__new__(_problems.Problem)
        inner._own(h)
        inner.error = None
        self._euclid = inner
        lib, lx, ly, sx, sy = _lib.lib(), self._lx, self._ly, self._sx, self._sy

        def through(name):
            key = name.encode()

            def cb(user, x, y, batch, nbatch, *rest):
                try:
                    if batch:
                        raise ValueError("rhgd: a problem with hess_gy_inv runs on full sums only (no batch_* "
                                         "settings): the library converts its oracles without a minibatch")
                    v, out = rest if len(rest) == 2 else (None, rest[0])
                    rc = lib.rhgd_problem_oracle(inner._h, key, x, y, v, out)
                    if rc < 0:
                        raise _lib.error(rc)
                    return 0
                except BaseException as e:
                    return self._fail(name, e)
            return cb

        def inv(user, x, y, batch, nbatch, v, out):
            try:
                xt = self._tensor(_view(x, lx)).reshape(sx)
                yt = self._tensor(_view(y, ly)).reshape(sy)
                vt = self._tensor(_view(v, ly)).reshape(sy)
                with torch.no_grad():
                    r = torch.as_tensor(hess_gy_inv(xt, yt, vt))
                if tuple(r.shape) != sy:
                    raise ValueError(f"rhgd: hess_gy_inv returned shape {tuple(r.shape)}, want {sy} (y's)")
                torch.from_numpy(_view(out, ly)).copy_(r.reshape(-1))
                return 0
            except BaseException as e:
                return self._fail("hess_gy_inv", e)

        V, H = _lib.VALUE_FN, _lib.HVP_FN
        c = {k: V(through(k)) for k in ("f", "g", "grad_fx", "grad_fy", "grad_gx", "grad_gy")}
        c.update({k: H(through(k)) for k in ("hess_gy", "cross_gxy", "cross_gyx")})
        c["hess_gy_inv"] = H(inv)
        if "lower_solve" in self._c:
            c["lower_solve"] = self._c["lower_solve"]
        self._c_riemannian = c
        o = _lib.Oracles(n_f=n_f, n_g=n_g, **c)
        return _new_handle(lib.rhgd_problem_callbacks, self.mx.handle, self.my.handle, ctypes.byref(o), 0,
                                   None)

    # Every callback catches every exception (nothing may unwind into C),
    # keeps the first in self.error and returns nonzero, which stops the run.

    def _fail(self, name, e):
        # rhgd's points are float64; a float32 tensor of the user's (data
        # made in float32, or torch's default dtype) meets them inside f or
        # g, and torch's message does not say where the float64 came from.
        if isinstance(e, RuntimeError) and "double" in str(e).lower() and "float" in str(e).lower():
            if self.dtype == _F64:
                how = ("build the tensors f and g use in float64, with .double() or "
                       "torch.set_default_dtype(torch.float64), or evaluate f and g in your data's dtype with "
                       "rhgd.torch.Problem(..., dtype=torch.float32)")
            else:
                how = f"build the tensors f and g use in {self.dtype}, as Problem's dtype= says"
            hint = TypeError(f"{e} (rhgd passes x and y as {str(self.dtype).replace('torch.', '')} tensors: {how})")
            hint.__cause__ = e
            e = hint
        return super()._fail(name, e)

    def _tensor(self, a):
        """The library's array a as a tensor of the problem's dtype and
        device: a view of a's memory for float64 on the CPU, valid only
        during the callback, else a copy."""
        t = torch.from_numpy(a)
        if self.dtype != _F64 or self.device is not None:
            t = t.to(dtype=self.dtype, device=self.device)
        return t

    def _point(self, cache, x, y, batch, nbatch):
        cache.at(x, y, self._lx, self._ly, batch, nbatch)

    def _cb_value(self, cache):
        def cb(user, x, y, batch, nbatch, out):
            try:
                with self._lock:
                    self._point(cache, x, y, batch, nbatch)
                    _view(out, 1)[0] = cache.val()
                return 0
            except BaseException as e:
                return self._fail(cache.name, e)
        return cb

    def _cb_grad(self, cache, which):
        name = ("grad_" + cache.name + "x", "grad_" + cache.name + "y")[which]
        n = (self._lx, self._ly)[which]

        def cb(user, x, y, batch, nbatch, out):
            try:
                with self._lock:
                    self._point(cache, x, y, batch, nbatch)
                    r = cache.grads(which)[which]
                    torch.from_numpy(_view(out, n)).copy_(r.reshape(-1))
                return 0
            except BaseException as e:
                return self._fail(name, e)
        return cb

    def _cb_hvp(self, name):
        # hess_gy: ∂_y <∇_y g, v>; cross_gxy: ∂_x <∇_y g, v> (v at y, result
        # at x); cross_gyx: ∂_y <∇_x g, u> (u at x, result at y).
        lx, ly, sx, sy = self._lx, self._ly, self._sx, self._sy
        lv, sv, n = dict(hess_gy=(ly, sy, ly), cross_gxy=(ly, sy, lx), cross_gyx=(lx, sx, ly))[name]
        cache = self._g

        def cb(user, x, y, batch, nbatch, v, out):
            try:
                with self._lock:
                    self._point(cache, x, y, batch, nbatch)
                    xt, yt, gx, gy = cache.second(0 if name == "cross_gyx" else 1)
                    vt = self._tensor(_view(v, lv)).reshape(sv)
                    if name == "hess_gy":
                        r = _product(gy, yt, vt)
                    elif name == "cross_gxy":
                        r = _product(gy, xt, vt)
                    else:
                        r = _product(gx, yt, vt)
                    o = torch.from_numpy(_view(out, n))
                    if r is None:
                        o.zero_()
                    else:
                        cache.finite(r, name)
                        o.copy_(r.reshape(-1))
                return 0
            except BaseException as e:
                return self._fail(name, e)
        return cb

    def _cb_lower(self):
        lx, ly, sx, sy = self._lx, self._ly, self._sx, self._sy

        def cb(user, x, y, batch, nbatch, out):
            try:
                xt = torch.tensor(_view(x, lx), dtype=self.dtype, device=self.device).reshape(sx)
                yt = torch.tensor(_view(y, ly), dtype=self.dtype, device=self.device).reshape(sy)
                with torch.no_grad():
                    r = torch.as_tensor(self._lower(xt, yt))
                if tuple(r.shape) != sy:
                    raise ValueError(f"rhgd: lower_solve returned shape {tuple(r.shape)}, want {sy} (y's)")
                torch.from_numpy(_view(out, ly)).copy_(r.reshape(-1))
                return 0
            except BaseException as e:
                return self._fail("lower_solve", e)
        return cb


def minimize(f, g, mx, my, x0=None, y0=None, *, estimator=None, callback=None, progress=False, n_f=0, n_g=0,
             lower_solve=None, hess_gy_inv=None, dtype=None, device=None, **settings):
    """rhgd.minimize(Problem(f, g, mx, my, ...), x0, y0, ...) in one call:
    minimize f(x, y*(x)), y*(x) = argmin_y g(x, y), f and g in PyTorch on
    mx × my, by RHGD from (x0, y0) with the estimator spec ('cg', 'ns',
    'ad', 'cg:tol=1e-10', ...; None: the library's default) and the
    solver's settings as keywords (preset, eta_x, eta_y, inner, epochs,
    batches, batch_lower, ...: see rhgd.Solver). callback(info) sees each
    epoch and stops the run by returning True; progress shows one (see
    rhgd.Solver.run). n_f, n_g, hess_gy_inv, dtype, device and a callable
    lower_solve are Problem's; lower_solve=True (not callable) is the
    solver setting. Returns an rhgd.OptimizeResult, whose x, y, best_x and
    best_y are torch tensors when x0 is one (of its dtype and device)."""
    if lower_solve is not None and not callable(lower_solve):
        settings["lower_solve"], lower_solve = lower_solve, None
    p = Problem(f, g, mx, my, n_f=n_f, n_g=n_g, lower_solve=lower_solve, hess_gy_inv=hess_gy_inv, dtype=dtype,
                device=device)
    s = _solver.Solver(p, estimator, **settings)
    est, _, rest = s.settings.partition(";")
    if est.split(":")[0] == "ad":
        # AD's backward sweep revisits the S + 1 points of the lower path in
        # reverse: keep their forward graphs (as autograd through the
        # unrolled loop would) instead of recomputing f and g there.
        kv = dict(item.split("=", 1) for item in rest.split(",") if "=" in item)
        p.keep_points(int(kv.get("inner", "0")) + 2)
    return s.run(x0, y0, callback, progress=progress)

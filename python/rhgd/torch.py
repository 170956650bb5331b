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
does not differentiate through what depends on x only. With AD on a
non-Euclidean lower level, minimize also keeps the lower path's graphs
for the backward sweep (Problem.keep_points). Points
are recognized by their values (x, y and the minibatch), compared bitwise with the
last point's; the library's arrays are wrapped with torch.from_numpy, not
copied, and results are written into its output arrays in place.

Finite sums f = (1/n_f) Σ f_i, g = (1/n_g) Σ g_i: give ``n_f`` and/or
``n_g``, and f (g) is then called as ``f(x, y, batch)`` with batch a torch
int64 tensor of component indices (all of them, ``arange(n)``, for the full
sum), so that RSHGD (the batch_* settings) runs on the problem.

On a Euclidean lower level (R^(r x c), or a product of such) more comes
from torch: the paper's S lower steps of an epoch run here in one
crossing (lower_steps), the steps after the first replaying ∇_y g's
recorded aten operations with the x-only half computed once
(rhgd._replay); AD differentiates that loop in one crossing too
(lower_steps_vjp: the unrolled loop's backward pass, x-only work reused
with its graph); and the inverse Hessian of the 'hinv' estimator is
derived (the Hessian of g in y by one batched Hessian-vector product,
factored by Cholesky once per point) when y has at most hinv_max_dim
coordinates. On any other lower level (SPD, Stiefel, Grassmann, the
simplex, products) of dimension at most hinv_max_dim the library derives
it (solver.HInv: the Riemannian Hessian in an orthonormal basis of the
tangent space by as many Hessian-vector products, factored by Cholesky
once per point and minibatch); it asks for a point's products in one
crossing (hess_gy_batch), computed here by one backward pass batched over
the directions (is_grads_batched; where vmap cannot batch g's backward, a
loop over them in that crossing, Problem.hess_batch_off saying why), each
converted to the Riemannian Hessian by the library. Above the cap 'hinv' needs
``hess_gy_inv(x, y, v)``, Riemannian, on tensors, and runs as CG with a
warning without one.
"""

import collections
import ctypes
import re
import threading
import time
import warnings

import numpy as np
import torch

from . import _lib
from . import problems as _problems
from . import solver as _solver
from ._handle import _new_handle
from . import _replay
from ._xconst import XConst, _NULL
from ._torch_symfn import sqrtm, invsqrtm, logm, expm, powm, symfn, reeig

__all__ = ["Problem", "minimize", "split", "GraphLost", "sqrtm", "invsqrtm", "logm", "expm", "powm", "symfn", "reeig"]

_F64 = torch.float64

# HINV_MAX_DIM bounds the lower levels whose inverse Hessian is derived:
# forming the Hessian takes as many Hessian-vector products as y's
# dimension, in one batched backward pass here, with memory for as many
# copies of the graph's intermediates (on a Euclidean lower level for
# hess_factor; elsewhere for the library's one hess_gy_batch crossing per
# point, whose hinv:maxdim default is the same 500); above it 'hinv' runs
# as CG.
HINV_MAX_DIM = 500


def _euclidean(m):
    """Whether the manifold m is a Euclidean space (R^(r x c), or a product
    of such): its lower steps are y − η ∇_y g and its Hessian is ∇²g."""
    if m.spec.startswith("euclid:"):
        return True
    return bool(getattr(m, "factors", None)) and all(_euclidean(f) for f in m.factors)


_memcmp = ctypes.CDLL(None).memcmp
_memcmp.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_memcmp.restype = ctypes.c_int


def _equal_batch(key, ptr, n):
    """Whether the n int64s at ptr are those of the numpy array key."""
    return key is not None and key.size == n and _memcmp(key.ctypes.data, ptr, n * 8) == 0


def _batch(ptr, n):
    """A copy of the minibatch's n int64 indices at ptr, or None (ptr NULL:
    the full sum)."""
    return np.frombuffer((ctypes.c_int64 * n).from_address(ptr), dtype=np.int64).copy() if ptr else None


class _Views:
    """float64 tensors over the library's arrays by address and length,
    made once: a run passes the same few buffers (the solver's x, y, its
    gradient buffers) call after call, and making a view costs more than a
    small Hessian product. A view is read or written only during a callback
    that passed its address, when the memory is the library's to lend."""

    def __init__(self):
        self.d = {}

    def __call__(self, ptr, n):
        t = self.d.get((ptr, n))
        if t is None:
            if len(self.d) >= 256:
                self.d.clear()
            t = torch.frombuffer((ctypes.c_double * n).from_address(ptr), dtype=_F64)
            self.d[(ptr, n)] = t
        return t


def split(m, x):
    """Views of the flat tensor x's parts, one per factor of the Product m,
    each in its factor's shape (for f and g on product manifolds)."""
    out, k = [], 0
    for fm in m.factors:
        out.append(x[k:k + fm.size].reshape(fm.shape))
        k += fm.size
    return out


_NOT_BUILT = object()  # a graph gradient not built yet (None: f or g does not depend on that variable)


class _Cache:
    """The last point's derivatives of one objective (f or g): its value,
    its gradients in x and y, and, once a product was asked for there, the
    autograd graph of the gradients (create_graph=True), which every
    further product at the point reuses.

    The key is a float64 copy of the point's x and y (and its minibatch),
    compared bitwise with the library's arrays (memcmp); a call at another
    point recomputes. For float64 on the CPU the copies are also the leaf
    tensors f and g receive.

    The lower loop asks for ∇_y g alone at each of its points. After a
    point that saw nothing else, the next point's forward pass of g tracks y
    only (x as a constant: no graph for what depends on x alone, as a hand
    loop writes it); a request that needs x there (∇_x g, a product)
    builds the full forward pass once."""

    def __init__(self, fn, n, sx, sy, name, dtype, device, views):
        self.fn, self.n, self.sx, self.sy, self.name = fn, n, sx, sy, name
        self.dtype, self.device, self.views = dtype, device, views
        self.lx, self.ly = int(np.prod(sx)), int(np.prod(sy))
        self.direct = dtype == _F64 and (device is None or torch.device(device).type == "cpu")
        self.kx = self.ky = self.kb = None
        self.kxa = self.kya = 0
        self._clear()
        self.lower_mode = False  # the last point saw only lower-loop requests (g's value and ∇_y g)
        self.other = False  # the current point saw another request
        # keep > 1 also keeps the keep − 1 points before the last, by their
        # bytes (AD's backward sweep revisits the lower path's points).
        self.keep = 1
        self.old = collections.OrderedDict()

    def _clear(self):
        self.xt = self.yt = self.v = None  # the forward pass: leaves and value with its graph
        self.full = False  # the forward pass tracks x too
        self.value = self.gx = self.gy = None
        self.graph = None  # [gx, gy] with create_graph (_NOT_BUILT, or None where independent)
        self.factor = None  # the Cholesky factor of g's Hessian in y (hess_factor)

    _STATE = ("kx", "ky", "kb", "kxa", "kya", "xt", "yt", "v", "full", "value", "gx", "gy", "graph", "factor")

    def _key(self):
        return self.kx.numpy().tobytes() + self.ky.numpy().tobytes() + \
            (b"" if self.kb is None else b"b" + self.kb.tobytes())

    def at(self, x, y, batch, nbatch):
        """Key the cache to the point at the addresses x, y and the
        minibatch (None: the full sum), dropping what it held unless the
        point is the last one."""
        if self.kxa and _memcmp(self.kxa, x, 8 * self.lx) == 0 and _memcmp(self.kya, y, 8 * self.ly) == 0 and \
                (self.kb is None if not batch else _equal_batch(self.kb, batch, nbatch)):
            return
        if self.kxa:
            self.lower_mode = not self.other
        self.other = False
        kx, ky = self.views(x, self.lx).clone(), self.views(y, self.ly).clone()
        kb = _batch(batch, nbatch)
        if self.keep > 1:
            if self.kxa:
                self.old[self._key()] = tuple(getattr(self, k) for k in self._STATE)
                while len(self.old) > self.keep - 1:
                    self.old.popitem(last=False)
            key = kx.numpy().tobytes() + ky.numpy().tobytes() + (b"" if kb is None else b"b" + kb.tobytes())
            st = self.old.pop(key, None)
            if st is not None:
                for k, v in zip(self._STATE, st):
                    setattr(self, k, v)
                return
        self.kx, self.ky, self.kb = kx, ky, kb
        self.kxa, self.kya = kx.data_ptr(), ky.data_ptr()
        self._clear()

    def args(self, kb):
        """The trailing arguments of fn for the minibatch kb (a numpy int64
        array, None for the full sum): none unless fn is a finite sum."""
        if not self.n:
            return ()
        return (torch.arange(self.n, device=self.device) if kb is None else torch.from_numpy(kb).to(self.device),)

    def _leaf(self, k, shape, grad):
        """A leaf tensor of the point's values (the key's memory for float64
        on the CPU: nothing writes it; else a copy in the problem's dtype
        and device)."""
        t = k if self.direct else k.to(dtype=self.dtype, device=self.device)
        return t.view(shape).detach().requires_grad_(grad)

    def _forward(self, full):
        """The point's value with its autograd graph, built once per point
        and kept (each gradient is then one backward pass through it), with
        x tracked when full (or when the point is not in a lower loop)."""
        # (AD, keep > 1, revisits the lower path's points for products in x)
        full = full or self.name == "f" or not self.lower_mode or self.keep > 1
        if self.v is not None and (self.full or not full):
            return
        xt, yt = self._leaf(self.kx, self.sx, full), self._leaf(self.ky, self.sy, True)
        args = self.args(self.kb)
        if torch.is_grad_enabled():
            v = self._call(xt, yt, args, full)
        else:
            with torch.enable_grad():
                v = self._call(xt, yt, args, full)
        self.xt, self.yt, self.v, self.full = xt, yt, v, full
        self.graph = None  # built again from this forward pass when asked for

    def _call(self, xt, yt, args, full):
        v = self.fn(xt, yt, *args)
        if not isinstance(v, torch.Tensor):
            raise GraphLost(f"rhgd: {self.name} returned a {type(v).__name__}, not a torch tensor: rhgd "
                            f"differentiates {self.name} with torch.autograd, and a {type(v).__name__} carries "
                            f"no graph, so every derivative of {self.name} would be zero. " + _GRAPH_CAUSES)
        if v.numel() != 1:
            raise ValueError(f"rhgd: {self.name} returned {v.numel()} values, want one (a scalar)")
        if not v.requires_grad:
            if not full:  # independent of y, or a lost graph: the full pass tells
                return self._call(xt.detach().requires_grad_(True), yt, args, True)
            raise GraphLost(f"rhgd: {self.name} returned a tensor that carries no autograd graph, although x "
                            f"and y require grad: rhgd differentiates {self.name} with torch.autograd, and "
                            f"without the graph every derivative of {self.name} would be zero. " + _GRAPH_CAUSES)
        return v.reshape(())

    def val(self):
        # The forward pass with its graph: a gradient at the same point (a
        # lower step's trial point once accepted, f's gradients after its
        # value) then costs one backward pass and no second forward.
        if self.value is None:
            self._forward(False)
            self.value = float(self.v)
        return self.value

    def grad(self, which):
        """∇_x (which 0) or ∇_y (1) of the objective at the point, detached.
        f's two gradients come from one backward pass (every estimator
        needs both); g's from the graph of a product when there is one."""
        if which == 0:
            self.other = True
        r = (self.gx, self.gy)[which]
        if r is not None:
            return r
        if self.graph is not None and self.graph[which] is not _NOT_BUILT:
            r = self.graph[which]
            r = torch.zeros(((self.sx, self.sy)[which]), dtype=self.dtype, device=self.device) if r is None \
                else r.detach()
        elif self.name == "f":
            self._forward(True)
            gx, gy = torch.autograd.grad(self.v, (self.xt, self.yt), retain_graph=True, allow_unused=True)
            self.gx = torch.zeros_like(self.xt) if gx is None else gx
            self.gy = torch.zeros_like(self.yt) if gy is None else gy
            return (self.gx, self.gy)[which]
        else:
            self._forward(which == 0)
            wrt = (self.xt, self.yt)[which]
            # retain the graph for later gradients, unless it tracks y alone
            # (a lower step: nothing else is asked for at its point)
            (r,) = torch.autograd.grad(self.v, wrt, retain_graph=self.full, allow_unused=True)
            r = torch.zeros_like(wrt) if r is None else r
        if which == 0:
            self.gx = r
        else:
            self.gy = r
        return r

    def second(self, which=1):
        """(xt, yt, gx, gy): the gradients with their graph
        (create_graph=True), each built once per point when first asked for
        (which: 0 for gx, 1 for gy), None where the objective does not
        depend on that variable."""
        self.other = True
        self._forward(True)
        if self.graph is None:
            self.graph = [_NOT_BUILT, _NOT_BUILT]
        if self.graph[which] is _NOT_BUILT:
            (r,) = torch.autograd.grad(self.v, (self.xt, self.yt)[which], create_graph=True, retain_graph=True,
                                       allow_unused=True)
            self.graph[which] = r
        gx, gy = self.graph
        return self.xt, self.yt, (None if gx is _NOT_BUILT else gx), (None if gy is _NOT_BUILT else gy)

    def hess_factor(self):
        """The lower Cholesky factor of ∇²_yy g at the point (g's, a
        Euclidean lower level), made once per point from one batched
        Hessian-vector product over the identity. A Hessian that is not
        positive definite there is an error that says so."""
        if self.factor is None:
            _, yt, _, gy = self.second(1)
            m = self.ly
            if gy is None:
                raise ValueError("rhgd: hess_gy_inv: g does not depend on y, so its Hessian in y is zero")
            eye = torch.eye(m, dtype=yt.dtype, device=yt.device).view(m, *self.sy)
            (h,) = torch.autograd.grad(gy, yt, eye, retain_graph=True, is_grads_batched=True, allow_unused=True)
            h = torch.zeros(m, m, dtype=yt.dtype, device=yt.device) if h is None else h.reshape(m, m)
            h = 0.5 * (h + h.T)
            L, info = torch.linalg.cholesky_ex(h.to(_F64))
            if int(info):
                lam = float(torch.linalg.eigvalsh(h.to(_F64))[0])
                raise FloatingPointError(
                    f"rhgd: hess_gy_inv: the Hessian of g in y is not positive definite here (smallest eigenvalue "
                    f"{lam:.3g}): g is not strongly convex in y at this point, so it has no inverse; use "
                    f"estimator='cg:damping=auto', which damps the solve")
            self.factor = L
        return self.factor

    def explain(self, oracle):
        """Why oracle, a derivative of this objective, was not finite at the
        current point (the library found it so): an eigendecomposition's
        backward pass at repeated eigenvalues, or another cause."""
        nodes = _spectral_nodes(self.v) if self.v is not None else set()
        what = f"{oracle} is not finite at a finite point"
        if self.value is not None and np.isfinite(self.value):
            what += f", where {self.name} = {self.value:.6g} is finite"
        if nodes:
            return (f"{what}: {self.name} goes through an eigendecomposition ({', '.join(sorted(nodes))}), whose "
                    f"backward divides by differences of eigenvalues, 0/0 = NaN at repeated eigenvalues (M = I, a "
                    f"natural start, has all of them equal). Use a form whose derivative is stable there: "
                    f"rhgd.torch.sqrtm, invsqrtm, logm, expm, powm, reeig or symfn in place of eigh (exact "
                    f"derivatives at repeated eigenvalues, double backward included); for M^(1/2) as a metric "
                    f"factor, L = torch.linalg.cholesky(M) gives the same distances (xᵀMx = |Lᵀx|²); or start "
                    f"where the eigenvalues are distinct")
        return (f"{what}: {self.name}'s derivative is not finite there (a division by zero, or a sqrt or log at 0, "
                f"inside {self.name} or its backward pass)")


# A derivative the library found not finite ("grad_fx: non-finite value").
_NOT_FINITE = re.compile(r"\b(grad_f[xy]|grad_g[xy]|hess_gy(?:_batch)?|cross_gxy|cross_gyx|lower_steps(?:_vjp)?)\b[^;]*?non-finite")


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
    v (for the 'hinv' estimator; with minibatches, the minibatch's); on a
    lower level of dimension at most hinv_max_dim it is derived when not
    given (here on a Euclidean one, by the library on the others). fuse_lower=False keeps the lower steps one crossing
    each (by default one crossing runs an epoch's fixed lower steps on a
    Euclidean lower level). In those loops g is called at the first step
    of each loop; the other steps replay the torch operations of ∇_y g
    recorded once (torch.fx), skipping those on x alone and the autograd
    engine, with bitwise the same results, checked at every loop's first
    step (rhgd._replay; a g that draws random numbers, writes in place or
    reads a tensor's value in Python is called instead, and replay_off
    says why); so a g with Python side effects (a call counter) sees one
    call per loop. replay=False calls g at every step; reuse_x=False then
    computes g's operations on x alone again at each step (by default
    once per loop where that measured faster: rhgd._xconst). x0, y0 set
    the starting point. crossings counts the callbacks made, by oracle
    name (hess_gy_batch: a point's Hessian products for the library's
    derived 'hinv', in one crossing; hess_batch_off is None, or why they
    are computed one by one inside it). The
    result is an rhgd.Problem: rhgd.Solver, rhgd.minimize, oracle() and
    start() take it."""

    def __init__(self, f, g, mx, my, *, x0=None, y0=None, n_f=0, n_g=0, lower_solve=None, hess_gy_inv=None,
                 dtype=None, device=None, fuse_lower=True, replay=True, reuse_x=True, hinv_max_dim=HINV_MAX_DIM,
                 _hess_gy_batch=True):
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
        self._views = _Views()
        self._reuse_x, self._xc_skip = bool(reuse_x), 0
        self._replay, self._step_graph = bool(replay), None
        self._bound, self._bound_fresh = None, False  # (x's bytes, rhgd._replay.Bound) for g called point by point
        self._seen = None  # the last x's bytes seen there before a recording
        self.replay_off = None if replay else "replay=False"  # why the fused loop calls g at every step
        self.crossings = collections.Counter()  # callbacks made, by oracle name
        self._f = _Cache(f, n_f, sx, sy, "f", dtype, device, self._views)
        self._g = _Cache(g, n_g, sx, sy, "g", dtype, device, self._views)
        self._lower = lower_solve
        V, H = _lib.VALUE_FN, _lib.HVP_FN
        c = dict(f=V(self._cb_value(self._f)), g=V(self._cb_value(self._g)),
                 grad_fx=V(self._cb_grad(self._f, 0)), grad_fy=V(self._cb_grad(self._f, 1)),
                 grad_gx=V(self._cb_grad(self._g, 0)), grad_gy=V(self._cb_grad(self._g, 1)),
                 hess_gy=H(self._cb_hvp("hess_gy")), cross_gxy=H(self._cb_hvp("cross_gxy")),
                 cross_gyx=H(self._cb_hvp("cross_gyx")))
        # hess_gy_batch: k Hessian-vector products in one crossing and one
        # batched backward pass (the library's derived 'hinv' asks for
        # dim(My) of them per point); _hess_gy_batch=False (private, for
        # tests and measurements) leaves it out.
        self.hess_batch_off = None  # why hess_gy_batch loops over its directions (vmap failed on g)
        if _hess_gy_batch:
            c["hess_gy_batch"] = _lib.HVPS_FN(self._cb_hvps())
        if lower_solve is not None:
            c["lower_solve"] = V(self._cb_lower())
        flat = _euclidean(my)
        if fuse_lower and flat:
            c["lower_steps"] = _lib.STEPS_FN(self._cb_steps())
            c["lower_steps_vjp"] = _lib.VJP_FN(self._cb_vjp())
        # hess_gy_inv: the user's, or derived where the lower level is
        # small enough to form its Hessian: here on a Euclidean one (one
        # batched product), by the library on the others (its hinv
        # estimator without hess_gy_inv: one hess_gy_batch crossing per
        # point, its basis of dim(My) vectors in one batched product). 'hinv' runs as CG otherwise, with a warning
        # (_estimator_spec).
        self.hinv = "given" if hess_gy_inv is not None else None
        self._hinv_max_dim = int(hinv_max_dim)
        if hess_gy_inv is not None:
            c["hess_gy_inv"] = H(self._cb_user_hinv(hess_gy_inv))
        elif flat and my.size <= int(hinv_max_dim):
            c["hess_gy_inv"] = H(self._cb_hinv())
            self.hinv = "derived"
        elif flat:
            self._no_hinv = (f"the lower level has {my.size} coordinates, above hinv_max_dim = {int(hinv_max_dim)} "
                             f"(forming its Hessian would take that many products)")
        elif my.dim <= int(hinv_max_dim):
            self.hinv = "library"
        else:
            self._no_hinv = (f"the lower level {my.spec} has dimension {my.dim}, above hinv_max_dim = "
                             f"{int(hinv_max_dim)} (forming its Hessian would take that many products)")
        self._c = c  # the ctypes callbacks: alive as long as the problem
        o = _lib.Oracles(n_f=n_f, n_g=n_g, **c)
        try:
            h = _new_handle(_lib.lib().rhgd_problem_callbacks, mx.handle, my.handle, ctypes.byref(o), 1, None)
        except BaseException:
            # A refused problem keeps nothing alive (its callbacks refer back
            # to it: a cycle that would hold the manifolds' handles until a
            # later collection), as rhgd.Problem does.
            self._c, self.mx, self.my = {}, None, None
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

    def _estimator_spec(self, spec):
        """The estimator spec a solver of this problem runs: 'hinv' where
        the inverse Hessian is neither given nor derived runs as CG, with a
        warning that says why; where the library derives it, 'hinv' alone
        carries hinv_max_dim as its maxdim when that is above the
        library's default."""
        name = (spec or "").split(":")[0].strip().lower()
        if name == "hinv" and self.hinv == "library" and ":" not in spec and self._hinv_max_dim > HINV_MAX_DIM:
            return f"hinv:maxdim={self._hinv_max_dim}"
        if name != "hinv" or self.hinv is not None:
            return spec
        warnings.warn(f"rhgd: estimator 'hinv' runs as 'cg': {self._no_hinv}; give hess_gy_inv= to "
                      f"rhgd.torch.Problem, raise hinv_max_dim, or choose 'cg' yourself", stacklevel=4)
        return "cg"

    def _cb_user_hinv(self, hess_gy_inv):
        """The user's hess_gy_inv(x, y, v), Riemannian, on tensors."""
        lx, ly, sx, sy = self._lx, self._ly, self._sx, self._sy

        def cb(user, x, y, batch, nbatch, v, out):
            try:
                self.crossings["hess_gy_inv"] += 1
                xt = self._tensor(x, lx).reshape(sx)
                yt = self._tensor(y, ly).reshape(sy)
                vt = self._tensor(v, ly).reshape(sy)
                with torch.no_grad():
                    r = torch.as_tensor(hess_gy_inv(xt, yt, vt))
                if tuple(r.shape) != sy:
                    raise ValueError(f"rhgd: hess_gy_inv returned shape {tuple(r.shape)}, want {sy} (y's)")
                self._views(out, ly).copy_(r.reshape(-1))
                return 0
            except BaseException as e:
                return self._fail("hess_gy_inv", e)
        return cb

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

    def _tensor(self, ptr, n):
        """The library's n doubles at ptr as a tensor of the problem's dtype
        and device: a view of the memory for float64 on the CPU, valid only
        during the callback, else a copy."""
        t = self._views(ptr, n)
        if not self._f.direct:
            t = t.to(dtype=self.dtype, device=self.device)
        return t

    def _explain(self, msg):
        """The library's message msg, with the cause added when it says that
        a derivative of f or g was not finite."""
        m = _NOT_FINITE.search(msg)
        if m is None:
            return msg
        cache = self._f if m[1].startswith("grad_f") else self._g
        with self._lock:
            return msg + " (" + cache.explain(m[1]) + ")"

    def _g_replayed(self, cache):
        """g's value and ∇_y g at the cache's point by replay (rhgd._replay),
        where g is called step by step (a BB or tolerance-driven lower
        loop: the adaptive preset): at a point whose x is the last one
        bound, the recording's y-half runs alone. At a new x, g is called
        (the cache computes as usual) and the recording, bound to x, must
        give bitwise its value and gradient there; a new recording must
        also match at a second point. A mismatch drops the recording."""
        if not self._replay or self._step_graph is False or cache.kb is not None or \
                (cache.value is not None and cache.gy is not None):
            return
        key = cache.kx.numpy().tobytes()
        b = self._bound
        if b is not None and b[0] == key and not self._bound_fresh:
            v, gy = b[1].both(cache._leaf(cache.ky, cache.sy, False))
            cache.value, cache.gy = float(v), gy
            return
        v, gy = cache.val(), cache.grad(1)  # g called: the reference
        xt, yt = cache._leaf(cache.kx, cache.sx, False), cache._leaf(cache.ky, cache.sy, False)
        args = cache.args(None)  # the full sum: cache.kb is None here
        if self._step_graph is None:
            # Recorded at a second point of one x, where a loop is running
            # (a lone oracle call, a checker's, records nothing).
            if self._seen != key:
                self._seen = key
                return
            sg, why = _replay.record(cache.fn, xt, yt, args)
            if sg is None:
                self._step_graph, self.replay_off = False, why
                return
            self._step_graph, self._bound, self._bound_fresh = sg, (key, sg.bind(xt, args)), True
            return
        bound = self._bound[1] if b is not None and b[0] == key else self._step_graph.bind(xt, args)
        vr, gr = bound.both(yt)
        if float(vr) != v or not torch.equal(gr, gy):
            self._replay_drop("its value or gradient differs from g's at a new point")
            self._bound = None
            return
        self._bound, self._bound_fresh = (key, bound), False

    def _cb_value(self, cache):
        views, crossings = self._views, self.crossings

        def cb(user, x, y, batch, nbatch, out):
            try:
                with self._lock:
                    crossings[cache.name] += 1
                    cache.at(x, y, batch, nbatch)
                    if cache is self._g:
                        self._g_replayed(cache)
                    views(out, 1)[0] = cache.val()
                return 0
            except BaseException as e:
                return self._fail(cache.name, e)
        return cb

    def _cb_grad(self, cache, which):
        name = ("grad_" + cache.name + "x", "grad_" + cache.name + "y")[which]
        n, views, crossings = (self._lx, self._ly)[which], self._views, self.crossings

        def cb(user, x, y, batch, nbatch, out):
            try:
                with self._lock:
                    crossings[name] += 1
                    cache.at(x, y, batch, nbatch)
                    if cache is self._g and which == 1:
                        self._g_replayed(cache)
                    views(out, n).copy_(cache.grad(which).reshape(-1))
                return 0
            except BaseException as e:
                return self._fail(name, e)
        return cb

    def _cb_hvp(self, name):
        # hess_gy: ∂_y <∇_y g, v>; cross_gxy: ∂_x <∇_y g, v> (v at y, result
        # at x); cross_gyx: ∂_y <∇_x g, u> (u at x, result at y).
        lx, ly, sx, sy = self._lx, self._ly, self._sx, self._sy
        lv, sv, n = dict(hess_gy=(ly, sy, ly), cross_gxy=(ly, sy, lx), cross_gyx=(lx, sx, ly))[name]
        cache, views, crossings = self._g, self._views, self.crossings

        def cb(user, x, y, batch, nbatch, v, out):
            try:
                with self._lock:
                    crossings[name] += 1
                    cache.at(x, y, batch, nbatch)
                    xt, yt, gx, gy = cache.second(0 if name == "cross_gyx" else 1)
                    vt = self._tensor(v, lv).view(sv)
                    if name == "hess_gy":
                        r = _product(gy, yt, vt)
                    elif name == "cross_gxy":
                        r = _product(gy, xt, vt)
                    else:
                        r = _product(gx, yt, vt)
                    o = views(out, n)
                    if r is None:
                        o.zero_()
                    else:
                        o.copy_(r.reshape(-1))
                return 0
            except BaseException as e:
                return self._fail(name, e)
        return cb

    def _cb_hvps(self):
        """hess_gy_batch: ∇²_yy g applied to k directions (k rows of y's
        shape) in one crossing, by one backward pass through the point's
        graph of ∇_y g batched over them (torch.autograd.grad with
        is_grads_batched, as hess_factor forms the Hessian). Where vmap
        cannot batch g's backward, the first such call records why in
        hess_batch_off and this and every later call loop over the k
        directions inside the one crossing (no warning)."""
        ly, sy = self._ly, self._sy
        cache, views, crossings = self._g, self._views, self.crossings

        def cb(user, x, y, batch, nbatch, k, v, out):
            try:
                with self._lock:
                    crossings["hess_gy_batch"] += 1
                    k = int(k)
                    cache.at(x, y, batch, nbatch)
                    _, yt, _, gy = cache.second(1)
                    o = views(out, k * ly).view(k, ly)
                    if gy is None or not gy.requires_grad:
                        o.zero_()
                        return 0
                    vt = self._tensor(v, k * ly).view(k, *sy)
                    if self.hess_batch_off is None:
                        try:
                            (r,) = torch.autograd.grad(gy, yt, vt, retain_graph=True, is_grads_batched=True,
                                                       allow_unused=True)
                        except (RuntimeError, NotImplementedError) as e:
                            self.hess_batch_off = f"is_grads_batched failed on g's backward: {e}"
                        else:
                            if r is None:
                                o.zero_()
                            else:
                                o.copy_(r.reshape(k, ly))
                            return 0
                    for i in range(k):
                        r = _product(gy, yt, vt[i])
                        if r is None:
                            o[i].zero_()
                        else:
                            o[i].copy_(r.reshape(-1))
                return 0
            except BaseException as e:
                return self._fail("hess_gy_batch", e)
        return cb

    def _cb_steps(self):
        """lower_steps: the paper's S lower steps y ← y − η ∇_y g(x, y) in
        one crossing, for a Euclidean lower manifold, as a hand-written
        loop runs them, or faster: the first step calls g (its checks: a
        scalar with a graph); the others replay its recorded operations
        (rhgd._replay) where that was recorded and checked, else call g
        with x as a constant (no graph for what depends on x alone), its
        x-only work reused where that measured faster (rhgd._xconst)."""
        g, lx, ly, sx, sy, views = self._g, self._lx, self._ly, self._sx, self._sy, self._views

        def cb(user, x, y, batch, nbatch, steps, eta, y_out, grad_norms):
            try:
                with self._lock:
                    self.crossings["lower_steps"] += 1
                    xt = g._leaf(views(x, lx), sx, False)
                    w = views(y, ly).to(dtype=self.dtype, device=self.device, copy=True).view(sy)
                    args = g.args(_batch(batch, nbatch))
                    gs = []
                    with torch.enable_grad():
                        grad, fresh = None, False
                        if steps:
                            w.requires_grad_(True)
                            (gw,) = torch.autograd.grad(g._call(xt, w, args, False), w)
                            w = w.detach()
                            gs.append(gw)
                            if self._replay and steps > 2:
                                grad, fresh = self._replayed(xt, w, args, gw)
                            w = w - eta * gw
                        if grad is None and steps > 1:
                            w = self._eager_steps(xt, w, args, steps - 1, eta, gs)
                        for s in range(1, steps if grad is not None else 0):
                            gw = grad(w)
                            if fresh:  # a new recording: checked at a second point before it is trusted
                                fresh = False
                                wr = w.detach().requires_grad_(True)
                                (ge,) = torch.autograd.grad(g.fn(xt, wr, *args), wr)
                                if not torch.equal(gw, ge):
                                    self._replay_drop("its gradient differs from g's at the second step")
                                    gs.append(ge)
                                    w = self._eager_steps(xt, w - eta * ge, args, steps - s - 1, eta, gs)
                                    break
                            gs.append(gw)
                            w = w - eta * gw
                    views(y_out, ly).copy_(w.reshape(-1))
                    if steps:
                        views(grad_norms, steps).copy_(torch.stack(gs).reshape(steps, -1).norm(dim=1))
                return 0
            except BaseException as e:
                return self._fail("lower_steps", e)
        return cb

    def _cb_vjp(self):
        """lower_steps_vjp, for AD on a Euclidean lower level: the S lower
        steps from y_0 unrolled with their graph (create_graph), as
        autograd through a hand-written loop, then one backward pass for
        ∇_x and ∇_{y_0} of ⟨λ, y_S⟩. g's work on x alone (features of x)
        is computed once and reused with its graph (XConst(x)), so that
        its backward pass runs once, not S times."""
        g, lx, ly, sx, sy, views = self._g, self._lx, self._ly, self._sx, self._sy, self._views

        def cb(user, x, y, batch, nbatch, steps, eta, lam, dx, dy):
            try:
                with self._lock:
                    self.crossings["lower_steps_vjp"] += 1
                    dev = dict(dtype=self.dtype, device=self.device)
                    xt = views(x, lx).to(copy=True, **dev).view(sx).requires_grad_(True)
                    y0 = views(y, ly).to(copy=True, **dev).view(sy).requires_grad_(True)
                    args = g.args(_batch(batch, nbatch))
                    xc = XConst(xt) if self._reuse_x else None
                    w = y0
                    with torch.enable_grad():
                        for s in range(steps):
                            with (xc.call(w) if xc is not None else _NULL):
                                v = g._call(xt, w, args, True) if s == 0 else g.fn(xt, w, *args)
                            (gw,) = torch.autograd.grad(v, w, create_graph=True)
                            w = w - eta * gw
                        gx, gy = torch.autograd.grad(w, (xt, y0), self._tensor(lam, ly).view(sy), allow_unused=True)
                    o = views(dx, lx)
                    o.zero_() if gx is None else o.copy_(gx.reshape(-1))
                    views(dy, ly).copy_(gy.reshape(-1))
                return 0
            except BaseException as e:
                return self._fail("lower_steps_vjp", e)
        return cb

    def _replayed(self, xt, w, args, gw):
        """(grad, fresh): this loop's replayed gradient ∇_y g(x, ·), or
        None to call g; recorded at the first loop (fresh: not yet checked
        at a second point), and checked at every later loop's first point
        w, whose gradient by g is gw."""
        sg = self._step_graph
        if sg is None:
            sg, why = _replay.record(self._g.fn, xt, w, args)
            if sg is None:
                self._step_graph, self.replay_off = False, why
                return None, False
            self._step_graph = sg
            return sg.bind(xt, args).grad, True
        if sg is False:
            return None, False
        grad = sg.bind(xt, args).grad
        if not torch.equal(grad(w), gw):
            self._replay_drop("its gradient differs from g's at a loop's first point")
            return None, False
        return grad, False

    def _replay_drop(self, why):
        self._step_graph, self.replay_off = False, "the recording of g was dropped: " + why

    def _eager_steps(self, xt, w, args, steps, eta, gs):
        """steps lower steps from w calling g, the gradients appended to
        gs; returns the last point. Reuse of g's x-only work (XConst) pays
        where that work outweighs the mode's cost per torch call; measured
        here: the first step records, the second runs plain, the third
        reuses, and the faster of the last two runs the rest. After a loop
        where reuse lost, the next 63 go without the mode."""
        g = self._g
        xc = None
        if self._reuse_x and steps > 2:
            if self._xc_skip > 0:
                self._xc_skip -= 1
            else:
                xc = XConst()
        reuse, t_plain = True, 0.0
        for s in range(steps):
            w.requires_grad_(True)
            t0 = time.perf_counter()
            if xc is None or s == 1 or not reuse:
                v = g.fn(xt, w, *args)
            else:
                with xc.call(w):
                    v = g.fn(xt, w, *args)
            if s == 1:
                t_plain = time.perf_counter() - t0
            elif s == 2 and xc is not None:
                reuse = not xc.off and time.perf_counter() - t0 < t_plain
            (gw,) = torch.autograd.grad(v, w)
            gs.append(gw)
            w = w.detach() - eta * gw
        if xc is not None and (not reuse or xc.off):
            self._xc_skip = 63
        return w

    def _cb_hinv(self):
        """hess_gy_inv, derived for a Euclidean lower manifold: the Hessian
        of g in y as a matrix, by one batched Hessian-vector product over
        the identity (torch.autograd.grad with is_grads_batched, through
        the point's graph of ∇_y g), factored by Cholesky once per point;
        each call is then a triangular solve."""
        g, ly, sy, views = self._g, self._ly, self._sy, self._views

        def cb(user, x, y, batch, nbatch, v, out):
            try:
                with self._lock:
                    self.crossings["hess_gy_inv"] += 1
                    g.at(x, y, batch, nbatch)
                    L = g.hess_factor()
                    b = self._tensor(v, ly).view(ly, 1)
                    views(out, ly).copy_(torch.cholesky_solve(b.to(L.dtype), L).reshape(-1))
                return 0
            except BaseException as e:
                return self._fail("hess_gy_inv", e)
        return cb

    def _cb_lower(self):
        lx, ly, sx, sy = self._lx, self._ly, self._sx, self._sy

        def cb(user, x, y, batch, nbatch, out):
            try:
                self.crossings["lower_solve"] += 1
                views = self._views
                xt = views(x, lx).to(dtype=self.dtype, device=self.device, copy=True).view(sx)
                yt = views(y, ly).to(dtype=self.dtype, device=self.device, copy=True).view(sy)
                with torch.no_grad():
                    r = torch.as_tensor(self._lower(xt, yt))
                if tuple(r.shape) != sy:
                    raise ValueError(f"rhgd: lower_solve returned shape {tuple(r.shape)}, want {sy} (y's)")
                views(out, ly).copy_(r.reshape(-1))
                return 0
            except BaseException as e:
                return self._fail("lower_solve", e)
        return cb


def minimize(f, g, mx, my, x0=None, y0=None, *, estimator=None, callback=None, progress=False, n_f=0, n_g=0,
             lower_solve=None, hess_gy_inv=None, dtype=None, device=None, checkpoint=None, checkpoint_every=None,
             **settings):
    """rhgd.minimize(Problem(f, g, mx, my, ...), x0, y0, ...) in one call:
    minimize f(x, y*(x)), y*(x) = argmin_y g(x, y), f and g in PyTorch on
    mx × my, by RHGD from (x0, y0) with the estimator spec ('cg', 'ns',
    'ad', 'cg:tol=1e-10', ...; None: the library's default) and the
    solver's settings as keywords (preset, eta_x, eta_y, inner, epochs,
    batches, batch_lower, ...: see rhgd.Solver). callback(info) sees each
    epoch and stops the run by returning True; progress shows one, and
    checkpoint='run.ckpt' saves the run's state every checkpoint_every
    epochs and resumes it when the file exists (see rhgd.Solver.run). n_f, n_g, hess_gy_inv, dtype, device and a callable
    lower_solve are Problem's; lower_solve=True (not callable) is the
    solver setting. Returns an rhgd.OptimizeResult, whose x, y, best_x and
    best_y are torch tensors when x0 is one (of its dtype and device)."""
    if lower_solve is not None and not callable(lower_solve):
        settings["lower_solve"], lower_solve = lower_solve, None
    p = Problem(f, g, mx, my, n_f=n_f, n_g=n_g, lower_solve=lower_solve, hess_gy_inv=hess_gy_inv, dtype=dtype,
                device=device)
    s = _solver.Solver(p, estimator, **settings)
    est, _, rest = s.settings.partition(";")
    if est.split(":")[0] == "ad" and "lower_steps_vjp" not in p._c:
        # AD's backward sweep revisits the S + 1 points of the lower path in
        # reverse: keep their forward graphs (as autograd through the
        # unrolled loop would) instead of recomputing f and g there.
        kv = dict(item.split("=", 1) for item in rest.split(",") if "=" in item)
        p.keep_points(int(kv.get("inner", "0")) + 2)
    return s.run(x0, y0, callback, progress=progress, checkpoint=checkpoint, checkpoint_every=checkpoint_every)

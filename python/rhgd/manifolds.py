"""Manifolds of librhgd: points and tangent vectors as numpy arrays."""

import ctypes

import numpy as np

from . import _lib
from ._arrays import Like, f64, low_precision, shaped, tensor
from ._handle import _Handle, _new_handle

__all__ = ["Manifold", "SPD", "Stiefel", "Grassmann", "Simplex", "Euclidean", "Coupling", "Product"]

_F64 = np.float64


class Manifold(_Handle):
    """A manifold of librhgd. Points and tangent vectors are arrays of
    ``shape`` exactly (a transposed or flattened array is refused; a
    Product's shape is flat); the library sees them flattened, row-major.

    The methods take numpy arrays or torch tensors and give back what they
    were given: numpy arrays for numpy, tensors of the first tensor
    argument's dtype and device for torch (sharing memory with the result
    when that is float64 on the CPU; inner, norm and dist give 0-d tensors).
    rhgd computes in float64 on the host; a tensor that requires grad is
    read through .detach() (no graph goes through these methods). A point
    given in float32 (or float16) is projected onto the manifold first
    when it is within that rounding of it, as starting points are; further
    off it is refused as in float64."""

    _kind = "manifold"

    def __init__(self, spec, shape):
        self.spec = spec
        self.shape = tuple(shape)
        self._own(_new_handle(_lib.lib().rhgd_manifold_new, spec.encode()))
        self._lens()

    def _lens(self):
        n, d = ctypes.c_int64(), ctypes.c_int64()
        _lib.check(_lib.lib().rhgd_manifold_len(self._h, ctypes.byref(n), ctypes.byref(d)))
        self.size, self.dim = n.value, d.value

    def _flat(self, x, name):
        """x as a float64 array of the points' shape (a copy only where
        needed); ValueError for another shape, whatever its size."""
        return shaped(x, self.shape, name, f"the manifold {self.spec}")

    def _pt(self, x, name):
        """The point x as _flat reads it; a point given in float32 (or less)
        is projected onto the manifold first when it is within that
        rounding of it (rhgd_manifold_snap_point): its dtype says it was
        rounded, and the float64 checks would refuse it."""
        a = self._flat(x, name)
        if not low_precision(x):
            return a
        out = np.empty(self.shape, dtype=_F64)
        rc = _lib.lib().rhgd_manifold_snap_point(self._h, a.ctypes.data, out.ctypes.data, None, 0)
        if rc < 0:
            raise _lib.error(rc, _lib.last_error().replace("rhgd: x: ", f"rhgd: {name}: ", 1))
        return out

    def rand_point(self, seed=0, *, dtype=None, device=None):
        """A random point drawn from seed: a numpy array, or a torch tensor
        when dtype is a torch dtype or device is given."""
        out = np.empty(self.shape, dtype=_F64)
        _lib.check(_lib.lib().rhgd_manifold_rand_point(self._h, seed, out.ctypes.data))
        if device is None and (dtype is None or isinstance(dtype, (type, np.dtype, str))):
            return out if dtype is None else out.astype(dtype)
        import torch
        return Like(torch.empty(0, dtype=dtype or torch.float64, device=device)).out(out)

    def check_point(self, x):
        """Raise InvalidArgument, saying what is wrong, unless x is a point."""
        x = self._pt(x, "x")
        _lib.check(_lib.lib().rhgd_manifold_check_point(self._h, x.ctypes.data))

    def project(self, x, v):
        """The projection of the ambient v onto the tangent space at x."""
        like = Like(x, v)
        x, v = self._pt(x, "x"), self._flat(v, "v")
        out = np.empty(self.shape, dtype=_F64)
        _lib.check(_lib.lib().rhgd_manifold_project(self._h, x.ctypes.data, v.ctypes.data, out.ctypes.data))
        return like.out(out)

    def retract(self, x, u, t=1.0):
        """R_x(t u), the manifold's retraction."""
        like = Like(x, u)
        x, u = self._pt(x, "x"), self._flat(u, "u")
        out = np.empty(self.shape, dtype=_F64)
        _lib.check(_lib.lib().rhgd_manifold_retract(self._h, x.ctypes.data, u.ctypes.data, float(t),
                                                     out.ctypes.data))
        return like.out(out)

    # The manifold toolkit: the methods of rhgd's Go manifolds
    # (solver.Manifold), with their names and meaning. Points x, y are
    # checked to be on the manifold and vectors to be finite (the library
    # raises InvalidArgument naming the argument); results are new arrays
    # of ``shape``.

    def _vec_out(self, like, fn, *args):
        out = np.empty(self.shape, dtype=_F64)
        _lib.check(fn(self._h, *args, out.ctypes.data))
        return like.out(out)

    def inner(self, x, u, v):
        """The Riemannian inner product <u, v>_x of tangent vectors at x."""
        like = Like(x, u, v)
        x, u, v = self._pt(x, "x"), self._flat(u, "u"), self._flat(v, "v")
        r = ctypes.c_double()
        _lib.check(_lib.lib().rhgd_manifold_inner(self._h, x.ctypes.data, u.ctypes.data, v.ctypes.data,
                                                   ctypes.byref(r)))
        return like.scalar(r.value)

    def norm(self, x, u):
        """||u||_x, the Riemannian norm of the tangent u at x."""
        like = Like(x, u)
        x, u = self._pt(x, "x"), self._flat(u, "u")
        r = ctypes.c_double()
        _lib.check(_lib.lib().rhgd_manifold_norm(self._h, x.ctypes.data, u.ctypes.data, ctypes.byref(r)))
        return like.scalar(r.value)

    def supports(self, method):
        """Whether the manifold has the closed-form method 'exp', 'log' or
        'dist' (SPD, Euclidean, Grassmann and Simplex all three, Stiefel exp
        only, Coupling none, a Product those all its factors have)."""
        r = ctypes.c_int()
        _lib.check(_lib.lib().rhgd_manifold_supports(self._h, str(method).encode(), ctypes.byref(r)))
        return bool(r.value)

    def dist(self, x, y):
        """The geodesic distance between the points x and y; InvalidArgument
        ("dist is unsupported") where the manifold has no closed form."""
        like = Like(x, y)
        x, y = self._pt(x, "x"), self._pt(y, "y")
        r = ctypes.c_double()
        _lib.check(_lib.lib().rhgd_manifold_dist(self._h, x.ctypes.data, y.ctypes.data, ctypes.byref(r)))
        return like.scalar(r.value)

    def exp(self, x, u, t=1.0):
        """Exp_x(t u), the exponential map, for u tangent at x;
        InvalidArgument ("exp is unsupported") where the manifold has none."""
        like = Like(x, u)
        x, u = self._pt(x, "x"), self._flat(u, "u")
        return self._vec_out(like, _lib.lib().rhgd_manifold_exp, x.ctypes.data, u.ctypes.data, float(t))

    def log(self, x, y):
        """Log_x(y), the tangent at x with exp(x, log(x, y)) = y;
        InvalidArgument ("log is unsupported") where the manifold has none."""
        like = Like(x, y)
        x, y = self._pt(x, "x"), self._pt(y, "y")
        return self._vec_out(like, _lib.lib().rhgd_manifold_log, x.ctypes.data, y.ctypes.data)

    def egrad2rgrad(self, x, egrad):
        """The Riemannian gradient at x of a function whose Euclidean
        gradient there is egrad."""
        like = Like(x, egrad)
        x, g = self._pt(x, "x"), self._flat(egrad, "egrad")
        return self._vec_out(like, _lib.lib().rhgd_manifold_egrad2rgrad, x.ctypes.data, g.ctypes.data)

    def ehess2rhess(self, x, egrad, ehess, u):
        """The Riemannian Hessian at x applied to the tangent u, of a
        function with Euclidean gradient egrad and Euclidean
        Hessian-vector product ehess = D^2 f(x)[u]: the projected ehess plus
        the Weingarten (connection) term of the manifold's geometry."""
        like = Like(x, egrad, ehess, u)
        x, g = self._pt(x, "x"), self._flat(egrad, "egrad")
        h, u = self._flat(ehess, "ehess"), self._flat(u, "u")
        return self._vec_out(like, _lib.lib().rhgd_manifold_ehess2rhess, x.ctypes.data, g.ctypes.data, h.ctypes.data,
                             u.ctypes.data)

    def transport(self, x, y, u):
        """The vector transport of the tangent u at x to the tangent space
        at y, the one the solver uses."""
        like = Like(x, y, u)
        x, y, u = self._pt(x, "x"), self._pt(y, "y"), self._flat(u, "u")
        return self._vec_out(like, _lib.lib().rhgd_manifold_transport, x.ctypes.data, y.ctypes.data, u.ctypes.data)

    def rand_tangent(self, x, seed=0):
        """A random unit-norm tangent vector at x drawn from seed."""
        like = Like(x)
        x = self._pt(x, "x")
        return self._vec_out(like, _lib.lib().rhgd_manifold_rand_tangent, x.ctypes.data, seed)

    def check_tangent(self, x, u):
        """Raise InvalidArgument, saying what is wrong, unless u is a
        tangent vector at the point x."""
        x, u = self._pt(x, "x"), self._flat(u, "u")
        _lib.check(_lib.lib().rhgd_manifold_check_tangent(self._h, x.ctypes.data, u.ctypes.data))

    def __repr__(self):
        return f"<rhgd manifold {self.spec}>"


def _spec(name, keys):
    """A manifold's spec, its keys given as None left out (their defaults
    are the library's: rhgd.h's rhgd_manifold_new)."""
    return name + ":" + ",".join(f"{k}={v}" for k, v in keys if v is not None)


class SPD(Manifold):
    """n x n symmetric positive definite matrices.
    retraction: 'second-order' (default) or 'exp'; transport: 'identity'
    (default) or 'parallel'; metric: 'affine-invariant' (default),
    'log-euclidean' or 'bures-wasserstein' (under the last two both
    retractions are the metric's exponential, and 'bures-wasserstein'
    takes transport 'identity' only)."""

    def __init__(self, n, retraction=None, transport=None, metric=None):
        super().__init__(_spec("spd", (("n", int(n)), ("retr", retraction), ("transport", transport),
                                       ("metric", metric))), (n, n))


class Stiefel(Manifold):
    """St(n, p), n x p matrices with orthonormal columns, embedded metric.
    retraction: 'qr' (default), 'polar', 'cayley' or 'exp'."""

    def __init__(self, n, p, retraction=None):
        super().__init__(_spec("stiefel", (("n", int(n)), ("p", int(p)), ("retr", retraction))), (n, p))


class Grassmann(Manifold):
    """Gr(n, p), the p-dimensional subspaces of R^n, quotient metric: a
    point is an n x p matrix with orthonormal columns standing for its
    column space (any orthonormal basis of the subspace is one; compare
    points by dist, or by the projectors x @ x.T, not entry by entry), a
    tangent vector at x an n x p u with x.T @ u = 0 (its horizontal lift).
    0 < p < n. retraction: 'qr' (default), 'polar' or 'exp'. f and g
    written on it should depend on x only through its span (f(x @ o) =
    f(x) for orthogonal o), as a function on Gr does."""

    def __init__(self, n, p, retraction=None):
        super().__init__(_spec("grassmann", (("n", int(n)), ("p", int(p)), ("retr", retraction))), (n, p))


class Simplex(Manifold):
    """The probability simplex: vectors of n >= 2 positive entries summing
    to one (the categorical distributions with no zero probability), Fisher
    metric <u, v>_x = sum(u * v / x). Tangent vectors sum to zero; the
    retraction is x * exp(u / x), normalized (a softmax step). A point given
    in float32 whose sum is off one by float32 rounding is divided by its
    sum, as other float32 points are projected."""

    def __init__(self, n):
        super().__init__(_spec("simplex", (("n", int(n)),)), (n,))


class Euclidean(Manifold):
    """R^(r x c) (a vector of length r when c is None)."""

    def __init__(self, r, c=None):
        shape = (r,) if c is None else (r, c)
        super().__init__(f"euclid:r={int(r)},c={1 if c is None else int(c)}", shape)


class Coupling(Manifold):
    """m x n couplings (transport plans) of the marginals a and b, Fisher
    metric. The retraction balances by Sinkhorn iterations until the
    relative L1 marginal error (|G 1 - a|_1 + |G' 1 - b|_1) / sum(a) is at
    most tol (default 1e-13), for at most maxiter iterations (default
    10000); points are checked to max(1e-10, 2 tol), so that the
    retraction's results are points whatever tol."""

    def __init__(self, a, b, maxiter=None, tol=None):
        a, b = f64(a, "a").ravel(), f64(b, "b").ravel()
        opts = ",".join(f"{k}={v!r}" for k, v in (("maxiter", maxiter), ("tol", tol)) if v is not None)
        self.spec = f"coupling:m={a.size},n={b.size}" + ("," + opts if opts else "")
        self.shape = (a.size, b.size)
        self.a, self.b = a, b
        self._own(_new_handle(_lib.lib().rhgd_manifold_coupling, a.size, b.size, a.ctypes.data, b.ctypes.data,
                              opts.encode() if opts else None))
        self._lens()

    def retract(self, x, u, t=1.0, out=None):
        """R_x(t u), the Sinkhorn retraction, into out when given (a
        writeable C-contiguous float64 array of the points' shape, which
        may be x). When Sinkhorn does not reach tol within maxiter
        iterations, NotConverged is raised with the best plan found as its
        ``plan`` (out, when given)."""
        like = Like(x, u) if out is None else Like()
        x, u = self._pt(x, "x"), self._flat(u, "u")
        if out is None:
            out = np.empty(self.shape, dtype=_F64)
        elif not (isinstance(out, np.ndarray) and out.dtype == _F64 and out.flags.c_contiguous
                  and out.flags.writeable and out.shape == self.shape):
            raise ValueError(f"rhgd: out must be a writeable C-contiguous float64 array of shape {self.shape}")
        rc = _lib.lib().rhgd_manifold_retract(self._h, x.ctypes.data, u.ctypes.data, float(t), out.ctypes.data)
        if rc == _lib.ENOTCONV:
            e = _lib.error(rc)
            e.args = (e.args[0] + "; maxiter= and tol= set the limits, and the exception's plan is the best plan "
                      "found",)
            e.plan = like.out(out)
            raise e
        _lib.check(rc)
        return like.out(out)


def _adopt_manifold(h):
    """The Manifold (a Product for a product) of the library's manifold
    handle h, which it then owns: the spec, size and shape come from the
    library."""
    lib = _lib.lib()
    m = Manifold.__new__(Manifold)
    m._own(h)  # freed even if a call below fails
    rows, cols, k = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int64()
    _lib.check(lib.rhgd_manifold_shape(h, ctypes.byref(rows), ctypes.byref(cols), ctypes.byref(k)))
    if k.value:
        m.__class__ = Product
        m.factors = tuple(_adopt_manifold(_new_handle(lib.rhgd_manifold_factor, h, i)) for i in range(k.value))
    m.spec = _lib.copy_out(lib.rhgd_manifold_describe, h)
    m._lens()
    m.shape = (m.size,) if k.value else (rows.value, cols.value)
    return m


class Product(Manifold):
    """M_1 x ... x M_k; a point is the concatenation of the factors'
    flattened arrays (``split`` views the parts)."""

    def __init__(self, *factors):
        if not factors or not all(isinstance(m, Manifold) for m in factors):
            raise ValueError("rhgd: Product takes one or more manifolds")
        self.factors = factors
        hs = (_lib.ManifoldT * len(factors))(*[_lib.ManifoldT(m.handle) for m in factors])
        self.spec = "product(" + "; ".join(m.spec for m in factors) + ")"
        self._own(_new_handle(_lib.lib().rhgd_manifold_product, len(factors), hs))
        self._lens()
        self.shape = (self.size,)

    def split(self, x):
        """Views of x's parts, each in its factor's shape (of a numpy array
        or a torch tensor, as given)."""
        out, k = [], 0
        x = x.reshape(-1) if tensor(x) is not None else np.asarray(x).ravel()
        for m in self.factors:
            out.append(x[k:k + m.size].reshape(m.shape))
            k += m.size
        return out

"""A lower step's gradient, recorded once and replayed.

At the size of a user's own problem (a 10 × 10 metric, a small head) a
lower step in torch costs its operations' dispatch, not their arithmetic:
about 35 calls of 3 µs for the forward pass, the autograd engine's
backward pass and g's work on x alone, which does not change in the lower
loop. A hand-written loop pays all of it S times an epoch.

StepGraph records ∇_y g(x, y) once, as the aten operations that torch
runs for it, forward and backward (torch.fx's make_fx, the tracer behind
AOTAutograd), and splits them into the operations that depend on y and
those that do not (x, the data, constants). bind(x) computes the second
kind once per loop; each step then runs only the first kind, with no
autograd engine and no Python of g's. The operations and their order are
torch's own, so the results are bitwise those of calling g; the caller
still checks that (check below).

A recording is refused (record returns None) when replaying could differ
from calling g:
  - g reads a tensor's value in Python (.item(), float(t), if t > 0):
    control flow the recording would freeze (make_fx raises);
  - an operation draws random numbers (dropout), writes in place or to an
    out= argument, or has a value-dependent output shape (nonzero, a
    boolean mask; indexing by integer tensors is replayed);
  - an operation is not an aten operator (a Python-level call the
    recording cannot see into).
What the recording cannot see is a tensor that g makes outside torch
(through numpy or ctypes: rhgd.torch's own matrix functions): it is
frozen as a constant. So a recording is trusted only after check: its
gradient equals g's, bitwise, at a point other than the one it was
recorded at; and the caller checks it again at the first step of every
loop, so that a frozen value of x, or a change in g's Python state, is
found and the recording dropped.
"""

import copy
import operator

import torch
import torch.fx as fx

try:
    from torch.fx.experimental.proxy_tensor import make_fx
except ImportError:  # an older torch: no recording, g is called
    make_fx = None

_OpOverload = getattr(torch._ops, "OpOverload", ())
_REFUSED_TAGS = tuple(getattr(torch.Tag, t) for t in ("nondeterministic_seeded", "data_dependent_output",
                                                       "dynamic_output_shape") if hasattr(torch, "Tag")
                      and hasattr(torch.Tag, t))
# Operations whose result depends on their input's shape and dtype only:
# constants here, since shapes do not change between steps.
_SHAPE_ONLY = tuple(getattr(torch.ops.aten, n).default for n in ("ones_like", "zeros_like"))
_INDEX = torch.ops.aten.index.Tensor


def _int_index(n, vals):
    """Whether n, an aten.index.Tensor node, indexes by integer tensors
    only (whose result's shape is the indices': fixed), not by masks."""
    idx = n.args[1] if len(n.args) > 1 else n.kwargs.get("indices", ())
    return all(i is None or (isinstance(i, fx.Node) and isinstance(vals.get(i), torch.Tensor) and
                             not vals[i].dtype.is_floating_point and vals[i].dtype not in (torch.bool, torch.uint8))
               for i in idx)


def _refusal(gm, vals):
    """Why the recording gm (its trace-time values vals) cannot be
    replayed, or None."""
    for n in gm.graph.nodes:
        if n.op != "call_function":
            continue
        t = n.target
        if t is operator.getitem:
            continue
        if not isinstance(t, _OpOverload):
            return f"{t} is not an aten operator"
        if t._schema.is_mutable:
            return f"{t} writes in place"
        if t is _INDEX and _int_index(n, vals):
            continue  # A[idx]: tagged for masks, whose result shapes depend on values
        if any(tag in _REFUSED_TAGS for tag in t.tags):
            return f"{t} is random or has a value-dependent result shape"
    return None


def _values(gm, inputs):
    """The value of each node of gm on inputs (the trace point's)."""
    vals = {}

    class _Rec(fx.Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            vals[n] = r
            return r
    _Rec(gm).run(*inputs)
    return vals


class StepGraph:
    """fn(x, y, *args) and ∇_y fn, replayed; made by record."""

    def __init__(self, pre, post_grad, post_both):
        self.pre, self.post_grad, self.post_both = pre, post_grad, post_both

    def bind(self, x, args):
        """A Bound for this x and args: the operations that do not depend
        on y run here, once."""
        return Bound(self, self.pre(x, *args))


class Bound:
    """A StepGraph at one x: grad(y) is ∇_y fn(x, y), both(y) the value (a
    0-d tensor) and the gradient."""

    def __init__(self, sg, consts):
        self.sg, self.consts = sg, consts

    def grad(self, y):
        return self.sg.post_grad(y, *self.consts)[0]

    def both(self, y):
        return self.sg.post_both(y, *self.consts)


def record(fn, x, y, args):
    """A StepGraph of fn(x, y, *args) and ∇_y fn, recorded at (x, y, args)
    (x, y detached tensors), or (None, why) when replaying could differ
    from calling fn."""
    if make_fx is None:
        return None, "this torch has no torch.fx.experimental.proxy_tensor"

    def step(xt, yt, *a):
        with torch.enable_grad():
            yt = yt.detach().requires_grad_(True)
            v = fn(xt.detach(), yt, *a)
            (gy,) = torch.autograd.grad(v, yt)
        return (v.detach(), gy)

    try:
        gm = make_fx(step)(x, y, *args)
    except Exception as e:  # a value read in Python, or anything the tracer cannot follow
        return None, f"recording failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    vals = _values(gm, (x, y) + tuple(args))
    why = _refusal(gm, vals)
    if why is not None:
        return None, why
    return _split(gm, vals), None


def _split(gm, vals):
    """pre(x, *args) -> the values the y-dependent operations take from
    the rest; post(y, *values) -> (value, ∇_y), and a copy that computes
    ∇_y alone. vals: the trace-time values."""
    nodes = list(gm.graph.nodes)
    ph = [n for n in nodes if n.op == "placeholder"]
    yph = ph[1]

    var = {yph}
    frozen = set()
    for n in nodes:
        if n.op == "output":
            continue
        if n.op == "call_function" and n.target in _SHAPE_ONLY:
            if any(a in var for a in n.all_input_nodes):
                frozen.add(n)
            continue
        if any(a in var for a in n.all_input_nodes):
            var.add(n)
    out = next(n for n in nodes if n.op == "output")

    # post: the y-dependent operations, taking the others' values as inputs
    post, m, boundary = fx.Graph(), {}, []
    m[yph] = post.placeholder("y")
    frozen_names = {}
    for n in frozen:  # held by gm, the root of both halves
        frozen_names[n] = f"_rhgd_frozen{len(frozen_names)}"
        gm.register_buffer(frozen_names[n], vals[n])

    def get(a):
        if a in m:
            return m[a]
        if a in frozen:
            m[a] = post.get_attr(frozen_names[a])
        else:
            boundary.append(a)
            m[a] = post.placeholder(f"c{len(boundary)}")
        return m[a]

    body = [n for n in nodes if n in var and n is not yph]

    def outside(a):  # the placeholders first: the body's inputs from outside it
        if a not in var and a not in frozen:
            get(a)
        return a
    for n in body:
        fx.graph.map_arg((n.args, n.kwargs), outside)
    fx.graph.map_arg(out.args, outside)
    for n in body:
        m[n] = post.node_copy(n, get)
    post.output(fx.graph.map_arg(out.args[0], get))
    _prune(post)

    # pre: the rest, returning the boundary values
    pre, mp = fx.Graph(), {}
    for p in ph:
        if p is not yph:
            mp[p] = pre.placeholder(p.name)
    for n in nodes:
        if n.op in ("placeholder", "output") or n in var:
            continue
        mp[n] = pre.get_attr(frozen_names[n]) if n in frozen else pre.node_copy(n, lambda a: mp[a])
    pre.output(tuple(mp[a] for a in boundary))
    _prune(pre)
    both = fx.GraphModule(gm, post)
    grad = fx.GraphModule(gm, copy.deepcopy(post))
    out = next(n for n in grad.graph.nodes if n.op == "output")
    out.args = ((out.args[0][1],),)  # the gradient alone
    _prune(grad.graph)
    grad.recompile()
    return StepGraph(fx.GraphModule(gm, pre), grad, both)


def _prune(graph):
    """Dead-code elimination that keeps the operations with no result
    (torch's argument checks, such as a Cholesky factor's error check),
    and what they read."""
    live = set()
    for n in reversed(graph.nodes):
        keep = n.op == "output" or n in live or (
            n.op == "call_function" and isinstance(n.target, _OpOverload) and not n.target._schema.returns)
        if keep:
            live.add(n)
            live.update(n.all_input_nodes)
    for n in reversed(list(graph.nodes)):
        if n not in live and n.op != "placeholder":
            graph.erase_node(n)

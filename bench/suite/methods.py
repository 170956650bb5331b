"""The suite's methods, and the plug point for outside ones.

THE PLUG POINT. An outside method is a Python generator function

    def my_method(problem, budget):
        x, y = problem.x0.copy(), problem.y0.copy()
        for k in range(budget.epochs):
            ...                                  # steps through problem.oracle(...), problem.mx.retract(...)
            yield {"x": x, "y": y, "calls": dict(problem.calls)}

taking a SuiteProblem (problems.py: the manifolds, the start, counted
Riemannian oracles, ``benchopt`` for benchopt's quadratic) and a Budget
(``epochs``, ``seconds``), and yielding iterates: dicts with ``x`` (the
upper iterate), ``y`` (the lower one, or None) and ``calls`` (oracle calls
so far: a dict by kind, or a number). The suite measures each yielded x
(the true hypergradient, outside the method's clock and counts), and
closes the generator when the run reached the suite's last tolerance, ran
out of time or diverged. Register it with

    suite.methods.register("my method", my_method, applies=lambda p: None if p.euclidean else "not Euclidean")

(``applies`` returns None where the method runs and the reason shown as
"n/a" elsewhere), or name it on the command line: ``--method
path/to/file.py:my_method`` (its ``applies`` then is the function's
attribute of that name, when it has one: ``my_method.applies = ...``). Every registered method runs on every suite
problem and appears in the same tables.

A method whose code calls back instead of yielding (rhgd.minimize's epoch
callback, benchopt's trace.record(x)) is registered with ``push=True``:
it is then called as fn(problem, budget, record), and calls record(it)
with the same dicts, which returns False once the run should stop.
"""

import importlib.util
import os

from .adarhd import adarhd


class Budget:
    """What a run may spend: ``epochs`` (outer iterations) and ``seconds``
    (of its own clock, the suite's measuring taken out)."""

    def __init__(self, epochs, seconds):
        self.epochs, self.seconds = int(epochs), float(seconds)


class Method:
    """A registered method: name, fn, applies(problem) -> None or the
    reason it does not apply, push (fn takes a record callback), group
    ("rhgd" or "outside")."""

    def __init__(self, name, fn, applies=None, push=False, group="outside", desc=""):
        self.name, self.fn, self.push, self.group, self.desc = name, fn, push, group, desc
        self.applies = applies or (lambda p: None)


REGISTRY = {}


def register(name, fn, applies=None, push=False, group="outside", desc=""):
    """Add a method to every suite run (see the module documentation);
    desc says what it runs, in the report."""
    REGISTRY[name] = Method(name, fn, applies, push, group, desc or (fn.__doc__ or "").strip().split("\n")[0])
    return REGISTRY[name]


def load(spec):
    """Register the generator function of --method FILE.py:FUNCTION (or
    module:function), named after the function, with the function's
    ``applies`` attribute as its applies when it has one."""
    where, _, fn = spec.rpartition(":")
    if where.endswith(".py"):
        s = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(where))[0], where)
        mod = importlib.util.module_from_spec(s)
        s.loader.exec_module(mod)
    else:
        mod = importlib.import_module(where)
    f = getattr(mod, fn)
    return register(fn, f, getattr(f, "applies", None))


# ------------------------------------------------------------ rhgd's own

def _rhgd(estimator, **extra):
    """rhgd.minimize with the estimator on the problem's settings (a
    built-in's paper settings, the name alone its paper spec), the
    suite's record as the epoch callback: info's x_k and y_{k+1}, and the
    run's oracle counts so far."""
    import rhgd

    def run(problem, budget, record):
        kinds = ("upper_grads", "lower_grads", "hess_vecs", "cross_vecs", "lower_solves")
        settings = dict(problem.settings, **extra)
        settings["epochs"] = min(settings.get("epochs", budget.epochs), budget.epochs)
        # A backstop: record stops the run at budget.seconds of its own time,
        # and rhgd's runtime counts the callback's measuring too.
        settings["runtime"] = budget.seconds * 10 + 10

        def cb(info):
            return not record(dict(x=info["x"], y=info["y"], calls={k: int(info[k]) for k in kinds}))
        rhgd.minimize(problem.problem, problem.x0, problem.y0, estimator=estimator, callback=cb, **settings)
    return run


def _rhgd_applies(estimator, **extra):
    def applies(problem):
        import rhgd
        if estimator not in problem.estimators and "preset" not in extra:
            return f"not for {problem.name}"
        try:
            rhgd.Solver(problem.problem, estimator, **dict(problem.settings, **extra)).free()
        except rhgd.RHGDError as e:
            msg = " ".join(str(e).removeprefix("rhgd: ").split())
            if "preset" in extra and f'preset="{extra["preset"]}"' in msg:
                return f"no preset {extra['preset']} in this build"
            return msg[:70]
        return None
    return applies


for _est in ("hinv", "cg", "ns", "ad", "gda"):
    register(f"rhgd {_est}", _rhgd(_est), _rhgd_applies(_est), push=True, group="rhgd",
             desc=f"rhgd.minimize, estimator {_est!r} (a built-in's paper spec) on the problem's settings")
register("rhgd cg adaptive", _rhgd("cg", preset="adaptive"), _rhgd_applies("cg", preset="adaptive"), push=True,
         group="rhgd", desc="rhgd.minimize, estimator 'cg', preset=adaptive (exact lower solves where the problem "
         "has them, else BB lower steps; BB upper steps)")
# The Go preset of AdaRHD, where this build has it, with CG (AdaRHD-CG) by
# the problem's spec, as "rhgd cg adaptive" has: undamped CG stops at the
# first epoch on plstiefel's singular lower Hessian.
register("rhgd adarhd", _rhgd("cg", preset="adarhd"), _rhgd_applies("cg", preset="adarhd"), push=True, group="rhgd",
         desc="rhgd.minimize, estimator 'cg' (a built-in's paper spec), preset=adarhd (the Go AdaRHD preset)")


# ------------------------------------------------------------ outside methods

def _adarhd(problem, budget):
    return adarhd(problem, budget)


register("AdaRHD (Python)", _adarhd, desc="suite/adarhd.py: the authors' AdaRHD-CG on rhgd's Python API (α₀ = β₀ = 2, "
         "K = 1000: tol_y = 1e-3, CG to ‖r‖² < 1e-10 or 50 iterations, lower cap 50 growing by 50 every 5 "
         "iterations to 500)")


def _benchopt(name):
    """bench/bilevel_quadratic.py's numpy port of a benchopt specialist,
    with the settings its report runs (best_params, or its grid's best
    there), on a problem that gives benchopt's oracles: its trace.record(x)
    is the suite's record."""
    import bilevel_quadratic as bq
    fn = {"SOBA": bq.soba, "SABA": bq.saba, "F2SA": bq.f2sa}[name]
    kw = dict(bq.BEST_PARAMS[name], **bq.SELECTED.get(name, {}))

    class Trace:
        def __init__(self, record):
            self.rec = record

        def record(self, x):
            return self.rec(dict(x=x, y=None, calls=None))

    def run(problem, budget, record):
        G, F = problem.benchopt
        fn(G, F, problem.x0.copy(), problem.y0.copy(), Trace(record), random_state=1, **kw)
    return run


def _euclidean_benchopt(problem):
    if not problem.euclidean:
        return "not Euclidean"
    if problem.benchopt is None:
        return "no minibatch oracles"
    return None


def _benchopt_desc(name):
    import bilevel_quadratic as bq
    kw = dict(bq.BEST_PARAMS[name], **bq.SELECTED.get(name, {}))
    return f"bench/bilevel_quadratic.py's numpy port, {', '.join(f'{k} {v:g}' for k, v in kw.items())} " \
        f"({'its grid' + chr(39) + 's best there' if name in bq.SELECTED else 'best_params'}), random_state 1"


for _n in ("SOBA", "SABA", "F2SA"):
    register(_n, _benchopt(_n), _euclidean_benchopt, push=True, desc=_benchopt_desc(_n))

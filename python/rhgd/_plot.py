"""rhgd.plot, the panels the rhgd command draws, for one's own runs, with
matplotlib (Debian's python3-matplotlib): the objective by epoch, ‖ĝ‖ by
epoch and ‖ĝ‖ by time, one curve per run."""

import os

import numpy as np

__all__ = ["plot"]


def _runs(results, label):
    """[(label, result)] from one result, a list of them or a dict."""
    if isinstance(results, dict) and "history" in results:
        return [(label or "rhgd", results)]
    if isinstance(results, dict):
        return list(results.items())
    return [(f"run {i + 1}", r) for i, r in enumerate(results)]


def _logscale(values):
    """A log axis when every value is positive and they span a decade or
    more (as the rhgd command's panels choose)."""
    v = np.concatenate([a[np.isfinite(a)] for a in values]) if values else np.array([])
    return v.size > 0 and np.all(v > 0) and v.max() >= 10 * v.min()


def plot(results, path=None, *, label=None, title=None):
    """Draw a run's history (an OptimizeResult), or several runs' (a list,
    or a dict {label: result}), as three panels side by side: f(x_k,
    y_{k+1}) by epoch, ‖ĝ_k‖ by epoch and ‖ĝ_k‖ by wall-clock seconds.
    Writes the figure to path when given (the format from its extension:
    .png, .pdf, .svg) and returns the matplotlib Figure. It does not touch
    pyplot or its global state (no backend is selected, no window opens)."""
    from matplotlib.figure import Figure

    runs = _runs(results, label)
    if not runs:
        raise ValueError("rhgd.plot: no results to draw")
    for name, r in runs:
        if not isinstance(r, dict) or "history" not in r:
            raise TypeError(f"rhgd.plot: {name!r} is a {type(r).__name__}, want an OptimizeResult")
    fig = Figure(figsize=(13, 3.8), layout="constrained")
    axes = fig.subplots(1, 3)
    panels = [("f", "epoch", r"$f(x_k, y_{k+1})$", "objective"),
              ("hypergrad_norm", "epoch", r"$\|\hat g_k\|$", "hypergradient by epoch"),
              ("hypergrad_norm", "elapsed", r"$\|\hat g_k\|$", "hypergradient by time")]
    for ax, (col, xcol, ylabel, ptitle) in zip(axes, panels):
        ys = []
        for name, r in runs:
            h = r["history"]
            x, y = np.asarray(h[xcol], dtype=float), np.asarray(h[col], dtype=float)
            ax.plot(x, y, label=name, linewidth=1.5)
            ys.append(y)
        if col == "hypergrad_norm" or _logscale(ys):
            if all(np.any(y > 0) for y in ys):
                ax.set_yscale("log")
        ax.set_xlabel("epoch" if xcol == "epoch" else "seconds")
        ax.set_ylabel(ylabel)
        ax.set_title(ptitle)
        ax.grid(True, which="major", alpha=0.3)
    if len(runs) > 1 or label:
        axes[0].legend(fontsize="small")
    if title:
        fig.suptitle(title)
    if path is not None:
        path = os.fspath(path)
        fig.savefig(path, dpi=120)
    return fig

"""The suite's report: Markdown tables (time and oracle calls to each
tolerance, final values, accuracy or distance to the known solution) and
matplotlib plots of ‖grad F(x_k)‖/‖grad F(x_0)‖ against time and calls."""

import math
import os

from .run import TOLS

NA = "n/a"


def _hit(rows, tol):
    for t, c, r in rows:
        if r <= tol:
            return t, c
    return None


def _num(v, fmt="%.3g"):
    return "–" if v is None or (isinstance(v, float) and not math.isfinite(v)) else fmt % v


def _calls(c):
    return f"{c:.0f}" if c < 1e5 else f"{c:.2e}"


def problem_table(results, unit):
    """One problem's Markdown table, a row per method."""
    head = "| method | status | " + " | ".join(f"{t:g}" for t in TOLS) + \
        " | final ‖g‖/‖g₀‖ | measured | s | final F | accuracy | ‖x − x*‖/‖x₀ − x*‖ |"
    lines = [head, "|---|---|" + "--:|" * (len(TOLS) + 6)]
    for r in results:
        name = f"`{r['method']}`"
        if r["status"] == "n/a":
            lines.append(f"| {name} | n/a: {r['why']} |" + " |" * (len(TOLS) + 6))
            continue
        rows = r["rows"]
        cells = []
        for tol in TOLS:
            h = _hit(rows, tol)
            cells.append("" if h is None else f"{h[0]:.3g} s · {_calls(h[1])}")
        status = r["status"] + (f" ({r['error']})" if r.get("error") else "")
        final = rows[-1][2] if rows else None
        acc = r.get("accuracy")
        lines.append(f"| {name} | {status} | " + " | ".join(cells) +
                     f" | {_num(final, '%.2e')} | {len(rows)} | {_num(r.get('seconds'))} | "
                     f"{_num(r.get('final_f'), '%.8g')} | {_num(acc, '%.1f %%')} | "
                     f"{_num(r.get('solution_error'), '%.2e')} |")
    return "\n".join(lines) + f"\n\nA cell: the first time (the method's own seconds) · {unit} at which " \
        "‖grad F(x_k)‖ ≤ tol·‖grad F(x₀)‖; empty: never.\n"


def _grid(results, problems, methods, cell):
    """A problems × methods table: an empty cell where the pair did not
    run, n/a where the method does not apply, else cell(run)."""
    by = {(r["problem"], r["method"]): r for r in results}
    lines = ["| problem | " + " | ".join(f"`{m}`" for m in methods) + " |",
             "|---|" + "--:|" * len(methods)]
    for p in problems:
        cells = []
        for m in methods:
            r = by.get((p, m))
            cells.append("" if r is None else NA if r["status"] == "n/a" else cell(r))
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def overview(results, problems, methods, tol=1e-3):
    """Problems × methods: seconds to tol, n/a where a method does not
    apply, "–" where it never got there."""
    def cell(r):
        h = _hit(r["rows"], tol)
        return "–" if h is None else f"{h[0]:.3g}"
    return _grid(results, problems, methods, cell)


def finals(results, problems, methods):
    """Problems × methods: the last measured ‖grad F(x_k)‖/‖grad F(x₀)‖, and
    the status where the run did not end by the budget."""
    def cell(r):
        if not r["rows"]:
            return r["status"]
        return f"{r['rows'][-1][2]:.1e}" + (" (error)" if r.get("error") else "")
    return _grid(results, problems, methods, cell)


def plot(results, problem, path):
    """‖grad F(x_k)‖/‖grad F(x₀)‖ by time and by calls, a line per method."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    runs = [r for r in results if r["rows"]]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for i, r in enumerate(runs):
        t = [max(row[0], 1e-5) for row in r["rows"]]
        c = [max(row[1], 1) for row in r["rows"]]
        g = [row[2] for row in r["rows"]]
        style = "-" if r["group"] == "rhgd" else "--"
        axes[0].plot(t, g, style, label=r["method"], color=f"C{i % 10}")
        axes[1].plot(c, g, style, label=r["method"], color=f"C{i % 10}")
    for ax, xl in zip(axes, ("seconds (the method's own)", "oracle calls")):
        ax.set_yscale("log")
        ax.set_xlabel(xl)
        ax.set_ylabel("‖grad F(x_k)‖ / ‖grad F(x₀)‖")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_xscale("log")
    axes[1].set_xscale("log")
    if runs:
        axes[1].legend(fontsize=7, loc="best")
    fig.suptitle(f"{problem}: true hypergradient (solid: rhgd, dashed: outside methods)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def write(results, out, header, problems, methods, descs=None):
    """report.md and a PNG per problem in out; returns the report's path.
    descs: method name -> what it runs, listed after the header."""
    os.makedirs(out, exist_ok=True)
    if descs:
        header += "\nMethods:\n\n" + "".join(f"- `{m}`: {descs.get(m, '')}\n" for m in methods)
    parts = [header, "## Overview: seconds to 1e-3 of ‖grad F(x₀)‖\n", overview(results, problems, methods),
             "\n## Overview: the last ‖grad F(x_k)‖/‖grad F(x₀)‖\n", finals(results, problems, methods)]
    for p in problems:
        rs = [r for r in results if r["problem"] == p]
        if not rs:
            continue
        unit = "sample-oracle calls (benchopt's count)" if p == "quadratic" else "oracle calls"
        parts.append(f"## {p}\n\n{rs[0].get('describe', '')}\n")
        parts.append(problem_table(rs, unit))
        png = f"{p}.png"
        plot(rs, p, os.path.join(out, png))
        parts.append(f"![{p}]({png})\n")
    path = os.path.join(out, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(parts))
    return path

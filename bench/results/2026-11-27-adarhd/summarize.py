"""Tables of the adaptive preset against preset=adarhd from run.sh's output.

Usage: python3 summarize.py OUT[:COUNTS] ...

OUT is run.sh's directory (several merge, their step sizes side by side) (OUT/<problem>/eta<η>/<preset>/cg/history.csv
and summary.json). For each problem and initial step η, and each relative
tolerance of the true hypergradient (‖grad F(x_k)‖ at the exact lower
solution, against its value at the common start x_0), the table gives the
epoch and the solver seconds at which each preset first reached it, and
which reached it first in seconds. COUNTS, when given, is counts.sh's
directory for OUT: the oracle counts of each run cut at the epoch where it
reached 10⁻³ (COUNTS/<problem>/eta<η>/<preset>/cg/summary.json).
Standard library only.
"""
import csv
import json
import os
import sys

TOLS = [1e-1, 1e-2, 1e-3, 1e-4, 1e-6]
PRESETS = ["adaptive", "adarhd", "adarhd-gd"]  # run.sh's and run-gd.sh's
LETTER = {"adaptive": "A", "adarhd": "R", "adarhd-gd": "G"}


def load(run):
    """history rows and summary of one run directory (its estimator's
    subdirectory: cg, or adagd), or None."""
    subs = [d for d in sorted(os.listdir(run)) if os.path.exists(os.path.join(run, d, "history.csv"))] \
        if os.path.isdir(run) else []
    if not subs:
        return None
    h = os.path.join(run, subs[0], "history.csv")
    s = os.path.join(run, subs[0], "summary.json")
    if not os.path.exists(s):
        return None
    with open(h) as f:
        rows = list(csv.DictReader(f))
    with open(s) as f:
        summ = json.load(f)
    return rows, summ


def reach(rows, tol):
    """(epoch, solver seconds) where the true ‖g‖/‖g₀‖ first is ≤ tol."""
    g0 = float(rows[0]["true_hypergrad_norm"])
    for r in rows:
        g = r["true_hypergrad_norm"]
        if g and float(g) <= tol * g0:
            return int(r["epoch"]), float(r["solver_seconds"])
    return None


def first_reach(rows):
    return {t: reach(rows, t) for t in TOLS}


def fmt_reach(x):
    return "–" if x is None else f"{x[0]} / {x[1]:.3g}"


def oracle_cols(o):
    return (f"{o['upper_grads']} | {o['lower_grads']} | {o['hess_vecs']} | {o['cross_vecs']} | "
            f"{o['lower_values']} | {o['lower_solves']}")


def main():
    dirs = {}  # problem → {eta dir name: (run dir, counts dir or None)}
    for arg in sys.argv[1:]:
        out, _, counts = arg.partition(":")
        for prob in os.listdir(out):
            pdir = os.path.join(out, prob)
            if not os.path.isdir(pdir):
                continue
            for eta in os.listdir(pdir):
                if eta.startswith("eta") and os.path.isdir(os.path.join(pdir, eta)):
                    dirs.setdefault(prob, {}).setdefault(eta, []).append(
                        (os.path.join(pdir, eta), os.path.join(counts, prob, eta) if counts else None))
    wins = {p: 0 for p in PRESETS}
    ties, missing = 0, []
    for prob in sorted(dirs):
        print(f"### {prob}\n")
        print("| η | preset | status | epochs | solver s | final ‖g‖/‖g₀‖ | " +
              " | ".join(f"to {t:g}: epoch / s" for t in TOLS) + " | first to each (s) |")
        print("|--:|---|---|--:|--:|--:|" + "--:|" * len(TOLS) + "---|")
        ctab = []
        for eta in sorted(dirs[prob], key=lambda d: float(d[3:])):
            where = {}  # preset → (run dir, counts dir)
            for edir, cdir in dirs[prob][eta]:
                for p in PRESETS:
                    if os.path.isdir(os.path.join(edir, p)):
                        where[p] = (os.path.join(edir, p), os.path.join(cdir, p) if cdir else None)
            present = [p for p in PRESETS if p in where]
            runs = {p: load(where[p][0]) for p in present}
            got = {p: first_reach(r[0]) if r else {t: None for t in TOLS} for p, r in runs.items()}
            firsts = []
            for t in TOLS:
                reached = sorted((got[p][t][1], p) for p in present if got[p][t] is not None)
                if not reached:
                    firsts.append("–")
                elif len(reached) > 1 and reached[0][0] == reached[1][0]:
                    firsts.append("=")
                    ties += 1
                else:
                    firsts.append(LETTER[reached[0][1]])
                    wins[reached[0][1]] += 1
            for p in present:
                r = runs[p]
                if r is None:
                    missing.append(f"{prob} {eta} {p}")
                    print(f"| {eta[3:]} | {p} | (no run) |" + " |" * (4 + len(TOLS)))
                    continue
                rows, s = r
                last = rows[-1]["true_hypergrad_norm"]
                ratio = float(last) / float(rows[0]["true_hypergrad_norm"]) if last else float("nan")
                secs = float(rows[-1]["solver_seconds"])
                print(f"| {eta[3:]} | {p} | {s['status']} | {s['epochs']} | {secs:.3g} | {ratio:.2e} | " +
                      " | ".join(fmt_reach(got[p][t]) for t in TOLS) +
                      (" | " + " ".join(firsts) if p == "adaptive" else " | ") + " |")
                if where[p][1]:
                    c = load(where[p][1])
                    if c:
                        ctab.append(f"| {eta[3:]} | {p} | {c[1]['epochs']} | {oracle_cols(c[1]['oracles'])} |")
        print()
        if ctab:
            print("Oracle counts through the epoch that reached 10⁻³ (and the final lower solve after it):\n")
            print("| η | preset | epochs | upper_grads | lower_grads | hess_vecs | cross_vecs | lower_values | lower_solves |")
            print("|--:|---|--:|--:|--:|--:|--:|--:|--:|")
            print("\n".join(ctab))
            print()
    print("First to a tolerance (in solver seconds): " +
          ", ".join(f"{p} {n}" for p, n in wins.items()) + f", ties {ties}.")
    if missing:
        print("Missing runs: " + ", ".join(missing))


if __name__ == "__main__":
    main()

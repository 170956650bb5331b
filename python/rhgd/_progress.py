"""The progress display of a run (Solver.run's progress=): a tqdm bar when
tqdm imports (Debian's python3-tqdm), else one line on stderr rewritten
in place."""

import sys
import time

_MODES = (True, "tqdm", "line")


def _epochs(solver):
    """The run's epoch limit, from the solver's effective settings."""
    _, _, rest = solver.settings.partition(";")
    for item in rest.split(","):
        k, _, v = item.partition("=")
        if k == "epochs":
            return int(v)
    return None


def open(mode, solver):
    """The display for progress=mode (False or None: none)."""
    if mode is False or mode is None:
        return None
    if mode not in _MODES:
        raise ValueError(f"rhgd: progress={mode!r}: want True, False, 'tqdm' or 'line'")
    total = _epochs(solver)
    if mode in (True, "tqdm"):
        try:
            import tqdm
        except ImportError:
            if mode == "tqdm":
                raise ImportError("rhgd: progress='tqdm' needs tqdm (Debian: python3-tqdm); progress='line' "
                                  "needs nothing") from None
        else:
            return _Bar(tqdm.tqdm(total=total, unit="epoch", leave=True, dynamic_ncols=True, file=sys.stderr))
    return _Line(total)


class _Bar:
    def __init__(self, bar):
        self.bar = bar

    def update(self, epoch, f, hg, elapsed):
        self.bar.set_postfix_str(f"f={f:.6g}, |ĝ|={hg:.3g}", refresh=False)
        self.bar.update(epoch + 1 - self.bar.n)

    def close(self):
        self.bar.close()


class _Line:
    """epoch k/K, f, ‖ĝ‖ and the time: on a terminal one line rewritten at
    most ten times a second, elsewhere (a log file) a line every five
    seconds; and the last epoch at the end."""

    def __init__(self, total):
        self.total, self.last, self.text = total, 0.0, None
        self.tty = sys.stderr.isatty()
        self.every = 0.1 if self.tty else 5.0

    def update(self, epoch, f, hg, elapsed):
        self.text = f"epoch {epoch + 1}" + (f"/{self.total}" if self.total else "") + \
            f"  f = {f:.6g}  |ĝ| = {hg:.3g}  {elapsed:.1f} s"
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            self._write()

    def _write(self):
        sys.stderr.write("\r" + self.text + "\033[K" if self.tty else self.text + "\n")
        sys.stderr.flush()

    def close(self):
        if self.text is not None:
            self._write()
            if self.tty:
                sys.stderr.write("\n")
            sys.stderr.flush()

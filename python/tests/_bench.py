"""bench/'s Python scripts as modules, for the tests that keep them alive."""

import importlib.util
import pathlib

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"


def load(name):
    """bench/<name>.py, imported as the module name."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

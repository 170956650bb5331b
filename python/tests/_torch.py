"""The PyTorch test files' common start: importing this module skips the
test module that imports it when PyTorch does not import (with the way to
install it), and puts python/examples, the example problems, on sys.path."""

import pathlib
import sys

import pytest

try:
    import torch
except ImportError as e:  # Debian: python3-torch (make python-deps installs it)
    pytest.skip(f"rhgd.torch needs PyTorch, which does not import here ({e}); install python3-torch",
                allow_module_level=True)

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

F64 = torch.float64

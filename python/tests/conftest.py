"""Fixtures shared by the test files."""

import pathlib
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def metric():
    """python/examples/torch_metric.py's problem at the tests' size (60
    samples), its start off the repeated spectrum (M = I is tested on its
    own): a dict of data, f, g, mx, my, lower, M0, W0. Needs torch (the
    test files that use it skip without)."""
    import torch
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    import torch_metric
    data = torch_metric.make_data(n=60)
    f, g, mx, my, lower = torch_metric.problem(data)
    M0 = torch.diag(torch.linspace(0.8, 1.2, 10, dtype=torch.float64))
    W0 = torch.zeros(10, 3, dtype=torch.float64)
    return dict(data=data, f=f, g=g, mx=mx, my=my, lower=lower, M0=M0, W0=W0)

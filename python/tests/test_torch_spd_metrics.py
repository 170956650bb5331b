"""rhgd.torch with an SPD lower level under each metric: the answer of
a bilevel problem does not depend on the metric, so every metric must
reach it. g(x, Y) = ½‖Y − B − xI‖², f = ½‖Y − B − 0.7 I‖² (Frobenius):
y*(x) = B + xI and x* = 0.7; the start y0 = B is y*(0) exactly, a solved
lower level the BB line search must not take for a failed step."""

import pytest

from _torch import F64, torch  # skips this module without PyTorch

import rhgd
import rhgd.torch as rt


@pytest.mark.parametrize("metric", ["affine-invariant", "log-euclidean", "bures-wasserstein"])
def test_spd_lower_level_each_metric(metric):
    n = 4
    gen = torch.Generator().manual_seed(0)
    b = torch.randn(n, n, dtype=F64, generator=gen)
    b = b @ b.T + n * torch.eye(n, dtype=F64)
    eye = torch.eye(n, dtype=F64)
    target = b + 0.7 * eye

    def g(x, y):
        return 0.5 * ((y - b - x[0] * eye) ** 2).sum()

    def f(x, y):
        return 0.5 * ((y - target) ** 2).sum()

    r = rt.minimize(f, g, rhgd.Euclidean(1), rhgd.SPD(n, metric=metric), torch.zeros(1, dtype=F64), b.clone(),
                    estimator="cg", preset="adaptive", epochs=300, grad_tol=1e-9)
    assert abs(float(r.x[0]) - 0.7) < 1e-6
    assert torch.allclose(torch.as_tensor(r.y), target, atol=1e-6)

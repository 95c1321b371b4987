"""In-place random fills and rounding take torch's keyword names (``normal_(mean=, std=)``,
``exponential_(lambd=)``, ``round_(decimals=)``), with the values of the positional forms."""
import numpy as np
import pytest

from minitorch_cs import torch


@pytest.mark.parametrize("kw, pos", [
    ("normal_", None), ("exponential_", None)])
def test_random_fills_accept_torch_keywords(kw, pos):
    args = {"normal_": ((0.5, 0.02), {"mean": 0.5, "std": 0.02}),
            "exponential_": ((2.0,), {"lambd": 2.0})}[kw]
    a = getattr(torch.zeros(50), kw)(*args[0], generator=torch.Generator().manual_seed(3))
    b = getattr(torch.zeros(50), kw)(**args[1], generator=torch.Generator().manual_seed(3))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_round_in_place_with_decimals_matches_round():
    x = torch.tensor([1.2345, -2.5551, 0.125, 1234.5678])
    for d in (0, 1, 2, -2):
        np.testing.assert_array_equal(x.clone().round_(decimals=d).numpy(),
                                      torch.round(x, decimals=d).numpy())


def test_normal_checks_std():
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        torch.zeros(2).normal_(mean=0.0, std=-1.0)

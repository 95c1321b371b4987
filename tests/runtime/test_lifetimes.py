"""What the backend keeps: optimizers weakly, only the scaler's own optimizers in its decision,
and (``max_checkpoints``) only the newest checkpoints ``cstorch.save`` wrote."""
from __future__ import annotations

import gc
import importlib
import weakref

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
from minitorch_cs import amp

_backend_mod = importlib.import_module("minitorch_cs.backend")


def _fresh(kind="CPU", **kw):
    _backend_mod._reset_for_tests()
    cstorch.backends.reset()
    return cstorch.backend(kind, **kw)


def test_a_discarded_optimizer_and_its_parameters_are_freed(tmp_path):
    b = _fresh(artifact_dir=tmp_path)
    keep = cstorch.optim.SGD([torch.zeros(3, requires_grad=True)], lr=0.1)
    p = torch.nn.Parameter(torch.zeros(1000, 100))
    opt = cstorch.optim.SGD([p], lr=0.1, momentum=0.9)
    ref_opt, ref_p = weakref.ref(opt), weakref.ref(p)
    assert b._impl.optimizer_registry == [keep, opt]
    del opt, p
    gc.collect()
    assert ref_opt() is None and ref_p() is None
    assert b._impl.optimizer_registry == [keep]


def test_nan_in_another_optimizer_does_not_skip_a_finite_step(tmp_path):
    _fresh(artifact_dir=tmp_path)
    p = torch.tensor(np.ones(3, np.float32), requires_grad=True)
    q = torch.tensor(np.ones(2, np.float32), requires_grad=True)
    opt_p = cstorch.optim.SGD([p], lr=0.5)
    opt_q = cstorch.optim.SGD([q], lr=0.5)
    scaler = amp.GradScaler("dynamic", init_scale=4.0)
    p.grad = torch.tensor(np.full(3, 4.0, np.float32))  # finite (scaled by 4)
    q.grad = torch.tensor(np.array([np.nan, 1.0], np.float32))
    scaler.step(opt_p)
    scaler.update()
    np.testing.assert_array_equal(p.detach().numpy(), np.full(3, 0.5, np.float32))
    assert int(scaler.get_num_skipped_steps()) == 0
    np.testing.assert_array_equal(q.detach().numpy(), np.ones(2, np.float32))  # not stepped


@pytest.mark.parametrize("kind", ["CPU", "CSX"])
def test_max_checkpoints_keeps_the_newest(tmp_path, kind):
    _fresh(kind, artifact_dir=tmp_path / "art", max_checkpoints=2)
    paths = [tmp_path / f"checkpoint_{i}.mdl" for i in range(4)]
    for i, path in enumerate(paths):
        cstorch.save({"step": i}, str(path))
    assert [p.exists() for p in paths] == [False, False, True, True]
    assert cstorch.load(str(paths[-1]))["step"] == 3


@pytest.mark.parametrize("bad, error", [(0, ValueError), (True, TypeError), ("2", TypeError)])
def test_max_checkpoints_is_validated(tmp_path, bad, error):
    with pytest.raises(error, match="max_checkpoints must be None or a positive int"):
        _fresh(artifact_dir=tmp_path, max_checkpoints=bad)

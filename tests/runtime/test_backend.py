"""Backend singleton, flags and device context (cstorch 2.10 `backend/__init__.py`, `backends.py`; measured on the real 2.10 CPU backend)."""
import pytest

import minitorch_cs as cstorch
from minitorch_cs import torch


def test_no_backend_raises_like_the_real_stack():
    # real: backend() with no backend raises (its docstring reads as if it returned None)
    with pytest.raises(RuntimeError, match="No active Cerebras backend found"):
        cstorch.backend()
    with pytest.raises(RuntimeError, match="No active Cerebras backend found"):
        cstorch.current_backend()
    assert cstorch.current_backend(raise_exception=False) is None


def test_backend_type_is_case_insensitive_and_singleton(tmp_path):
    b = cstorch.backend("cPu", artifact_dir=tmp_path)
    assert cstorch.backend() is b and cstorch.current_backend() is b
    assert b.is_cpu and not b.is_gpu and not b.is_csx and b.is_e2e_execution
    assert b.backend_type.name == "CPU"
    with pytest.raises(RuntimeError, match="Cannot instantiate multiple backends. A backend with "
                                           "type CPU has already been instantiated"):
        cstorch.backend("CPU")


def test_unknown_backend_type():
    with pytest.raises(ValueError, match=r"Expected one of \['CPU', 'GPU', 'CSX'\]. Got TPU"):
        cstorch.backend("TPU")


def test_backend_type_must_be_str_or_enum():
    with pytest.raises(TypeError, match="Expected backend_type to be of type BackendType"):
        cstorch.backend(5)


def test_kwargs_without_type():
    with pytest.raises(TypeError, match="Expected backend_type when constructing a backend"):
        cstorch.backend(None, artifact_dir="x")


def test_gpu_without_cuda():
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        cstorch.backend("GPU")
    assert cstorch.current_backend(raise_exception=False) is None


def test_cpu_mixed_precision_kwarg_removed():
    with pytest.raises(ValueError, match="cstorch.amp.autocast"):
        cstorch.backend("CPU", mixed_precision=True)


def test_torch_device_prints_cpu0_once_a_backend_exists(tmp_path):
    assert str(cstorch.current_torch_device()) == "cpu"
    b = cstorch.backend("CPU", artifact_dir=tmp_path)
    assert str(b.torch_device) == "cpu:0" and str(cstorch.current_torch_device()) == "cpu:0"
    assert str(b.device) == "cpu" and repr(b.device) == "device(type='cpu')"
    assert not cstorch.use_cs()


def test_artifact_dir_defaults_and_setter(tmp_path):
    b = cstorch.backend("CPU")
    assert str(b.artifact_dir) == "."
    b.artifact_dir = str(tmp_path)
    assert b.artifact_dir == tmp_path


def test_flags_defaults_reset_and_errors():
    dbg = cstorch.backends.csx.debug
    assert dbg.lazy_initialization is True and dbg.drop_data is False
    assert dbg.retrace_every_iteration is False and dbg.optimize_initialization is True
    dbg.drop_data = True
    assert dbg.drop_data is True
    dbg.drop_data = cstorch.backends.DEFAULT
    assert dbg.drop_data is False
    with pytest.raises(AttributeError, match="no flag 'nonexist'"):
        dbg.nonexist = 1
    with pytest.raises(ValueError, match="micro_batch_size"):
        cstorch.backends.csx.performance.micro_batch_size = -3
    with pytest.raises(ValueError, match="transfer_processes must be a positive integer, got 0"):
        cstorch.backends.csx.performance.transfer_processes = 0
    cstorch.backends.csx.performance.micro_batch_size = {"explore": {"min": 1}}
    cstorch.backends.reset()
    assert cstorch.backends.csx.performance.micro_batch_size == "auto"


def test_removed_names_point_to_the_replacement():
    with pytest.raises(AttributeError, match="SummaryWriter"):
        cstorch.summarize_scalar
    with pytest.raises(AttributeError):
        cstorch.manual_seed


def test_device_context_is_reentrant_and_seeds_each_random_op(tmp_path):
    b = cstorch.backend("CPU", artifact_dir=tmp_path)
    torch.manual_seed(3)
    with b.device:
        with b.device:
            a = torch.randn(1000)
        c = torch.randn(2)
    # one global draw per random op, whatever its size
    torch.manual_seed(3)
    from minitorch_cs.core.rng import draw_seed
    s1, s2 = draw_seed(), draw_seed()
    g1 = torch.Generator().manual_seed(s1)
    g2 = torch.Generator().manual_seed(s2)
    assert torch.equal(a, torch.randn(1000, generator=g1))
    assert torch.equal(c, torch.randn(2, generator=g2))
    assert not b.device.is_active

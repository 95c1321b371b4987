"""Where tensors live on the emulated CSX backend: the wafer's ``lazy:0`` device, as cstorch 2.10
reports it (``backend("CSX").torch_device``), and the host copies ``.cpu()``/``.to("cpu")``/
``backend.to_cpu`` make."""
import numpy as np
import pytest

import minitorch_cs as cstorch
from minitorch_cs import torch
from minitorch_cs.torch import nn

LAZY = torch.device("lazy", 0)


def _model():
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))


def test_csx_torch_device_is_lazy():
    b = cstorch.backend("CSX")
    assert b.torch_device == LAZY and str(b.torch_device) == "lazy:0"
    assert repr(b.torch_device) == "device(type='lazy', index=0)"


def test_compile_moves_parameters_and_buffers_keeping_the_objects():
    b = cstorch.backend("CSX")
    m = _model()
    w = m[0].weight
    assert w.device == torch.device("cpu")
    cstorch.compile(m, b)
    assert m[0].weight is w
    assert all(p.device == LAZY for p in m.parameters())
    assert all(t.device == LAZY for t in m.buffers())
    assert all(v.device == LAZY for v in m.state_dict().values())


@pytest.mark.parametrize("lazy_init", [True, False])
def test_tensors_made_under_the_device_are_lazy(lazy_init):
    cstorch.backends.csx.debug.lazy_initialization = lazy_init
    try:
        b = cstorch.backend("CSX")
        with b.device:
            m = _model()
            made = [torch.zeros(2), torch.randn(2, 3), torch.tensor([1, 2]), torch.arange(3),
                    torch.full((2,), 3.0)]
        assert all(p.device == LAZY for p in m.parameters())
        assert all(t.device == LAZY for t in made)
        # outside the device context: the host again, unless derived from a lazy tensor
        assert torch.zeros(2).device == torch.device("cpu")
        assert torch.zeros_like(made[0]).device == LAZY
        assert made[0].new_zeros(3).device == LAZY
        assert torch.zeros(2, device=b.torch_device).device == LAZY
    finally:
        cstorch.backends.csx.debug.lazy_initialization = True


def test_ops_propagate_and_host_copies_leave_the_device():
    b = cstorch.backend("CSX")
    m = _model()
    cstorch.compile(m, b)
    x = torch.randn(5, 3)
    y = m(x.to(b.torch_device))
    assert y.device == LAZY
    assert "device='lazy:0'" in repr(y)
    for host in (y.cpu(), y.to("cpu"), b.to_cpu({"y": [y]})["y"][0]):
        assert host.device == torch.device("cpu") and host is not y
        assert "device=" not in repr(host.detach())
        np.testing.assert_array_equal(host.detach().numpy(), y.detach().cpu().numpy())
    back = x.to(b.torch_device)
    assert back.device == LAZY and x.device == torch.device("cpu")
    assert x.cpu() is x  # a host tensor's .cpu() is itself, as in torch
    # the device copy is differentiable, as torch's
    y.cpu().sum().backward()
    assert m[0].weight.grad is not None and m[0].weight.grad.device == LAZY


def test_a_training_run_sees_lazy_batches_and_gradients_and_closures_get_host_tensors():
    b = cstorch.backend("CSX")
    m = _model()
    cm = cstorch.compile(m, b)
    opt = cstorch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    seen = []

    @cstorch.trace
    def step(x, y):
        loss = nn.functional.cross_entropy(cm(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        seen.append((x.device, y.device, loss.device, m[0].weight.grad.device))
        return loss

    got = []

    @cstorch.step_closure
    def log(loss):
        got.append(loss.device)

    g = torch.Generator().manual_seed(0)
    data = [(torch.randn(8, 3, generator=g), torch.randint(0, 2, (8,), generator=g))
            for _ in range(3)]
    losses = []
    for x, y in cstorch.utils.data.DataExecutor(cstorch.utils.data.DataLoader(lambda: data),
                                                num_steps=3):
        loss = step(x, y)
        log(loss)
        losses.append(loss.device)
    assert seen == [(LAZY, LAZY, LAZY, LAZY)]  # the body ran once (traced), then replayed
    assert losses == [LAZY] * 3
    assert got == [torch.device("cpu")] * 3
    assert opt.state[m[0].weight]["momentum_buffer"].device == LAZY


def test_host_tensors_do_not_mix_with_lazy_ones():
    """As cstorch's lazy backend: a host tensor with dimensions next to lazy ones is refused
    (compiled model fed a host batch, a mask made in the step without device=); 0-d host tensors
    mix; copy_ moves values across devices; internal constants follow their operands."""
    b = cstorch.backend("CSX")
    m = _model()
    cstorch.compile(m, b)
    with pytest.raises(RuntimeError, match=r"incompatible devices .*cpu.*lazy:0.*device=x.device"):
        m(torch.randn(5, 3))
    w = m[0].weight.detach()
    with pytest.raises(RuntimeError, match="incompatible devices in a call of add"):
        w + torch.ones(4, 3)
    assert (w + torch.tensor(2.0)).device == LAZY
    with torch.no_grad():
        m[0].weight.copy_(torch.ones(4, 3))
    assert m[0].weight.device == LAZY and m[0].weight.detach().cpu().sum().item() == 12.0
    assert nn.functional.dropout(w, 0.5).device == LAZY
    assert nn.functional.scaled_dot_product_attention(
        w[None], w[None], w[None], is_causal=True).device == LAZY


def test_optimizer_state_loads_onto_its_parameters_device(tmp_path):
    b = cstorch.backend("CSX")
    m = _model()
    cstorch.compile(m, b)
    opt = cstorch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    sd = {"state": {i: {"momentum_buffer": torch.zeros(p.shape)}
                    for i, p in enumerate(m.parameters())},
          "param_groups": opt.state_dict()["param_groups"]}
    opt.load_state_dict(sd)
    assert all(s["momentum_buffer"].device == LAZY for s in opt.state.values())


def test_numpy_of_a_lazy_tensor_asks_for_a_host_copy():
    b = cstorch.backend("CSX")
    m = _model()
    cstorch.compile(m, b)
    w = m[0].weight.detach()
    msg = ("can't convert lazy:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
           "to host memory first.")
    with pytest.raises(TypeError) as e:
        w.numpy()
    assert str(e.value) == msg
    with pytest.raises(TypeError):
        np.asarray(w)
    np.testing.assert_array_equal(w.numpy(force=True), w.cpu().numpy())
    assert w.tolist() == w.cpu().tolist()


def test_the_cpu_backend_keeps_everything_on_the_host():
    b = cstorch.backend("CPU")
    with b.device:
        m = _model()
    cstorch.compile(m, b)
    assert b.torch_device == torch.device("cpu", 0)
    assert all(p.device == torch.device("cpu") for p in m.parameters())


def test_checkpoints_of_lazy_tensors_load_on_the_host(tmp_path):
    b = cstorch.backend("CSX")
    m = _model()
    cstorch.compile(m, b)
    cstorch.save({"model": m.state_dict()}, tmp_path / "c.mdl")
    sd = cstorch.load(tmp_path / "c.mdl")["model"]
    assert all(v.device == torch.device("cpu") for v in sd.values())
    m.load_state_dict(sd)  # loading into the compiled model keeps it on the device
    assert all(p.device == LAZY for p in m.parameters())

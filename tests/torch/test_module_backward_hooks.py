"""Module backward hooks (``register_full_backward_hook``, ``register_full_backward_pre_hook``)
against torch: the order the hooks run in across nested modules, what they see (``grad_input``
with None for inputs that do not require grad, ``grad_output`` per output), replacing either,
modules of several inputs and outputs, removal."""
from __future__ import annotations

import pytest

from minitorch_cs import torch


def _scenarios(T):
    nn = T.nn

    def r(t):
        return None if t is None else [round(v, 5) for v in t.reshape(-1).tolist()]

    def seq():
        T.manual_seed(0)
        m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
        with T.no_grad():
            for p in m.parameters():
                p.copy_(T.linspace(-1, 1, p.numel()).reshape(p.shape))
        return m

    class Two(nn.Module):
        def forward(self, a, b, scale=2.0):
            return a * b * scale, a - b

    out = {}

    def nested():
        m, log = seq(), []
        for i, sub in enumerate(m):
            sub.register_full_backward_hook(
                lambda mod, gi, go, i=i: log.append(("full", i, [r(g) for g in gi], [r(g) for g in go])))
            sub.register_full_backward_pre_hook(
                lambda mod, go, i=i: log.append(("pre", i, [r(g) for g in go])))
        x = T.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
        m(x).sum().backward()
        return log, r(x.grad)

    def replaced():
        m = seq()
        m[0].register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
        m[2].register_full_backward_pre_hook(lambda mod, go: (go[0] * 3,))
        x = T.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
        m(x).sum().backward()
        return r(x.grad), r(m[0].weight.grad), r(m[2].bias.grad)

    def no_input_grad():
        m, log = seq(), []
        m.register_full_backward_hook(lambda mod, gi, go: log.append([g is None for g in gi]))
        m(T.tensor([[0.5, -1.0, 2.0]])).sum().backward()
        return log, r(m[0].weight.grad)

    def two_in_two_out():
        m, log = Two(), []
        m.register_full_backward_hook(
            lambda mod, gi, go: log.append(([r(g) for g in gi], [r(g) for g in go])))
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = T.tensor([3.0, -1.0])
        p, q = m(a, b, scale=0.5)
        (p.sum() + 2 * q.sum()).backward()
        return log, r(a.grad)

    def unused_output():
        m, log = Two(), []
        m.register_full_backward_pre_hook(lambda mod, go: log.append([r(g) for g in go]))
        a = T.tensor([1.0, 2.0], requires_grad=True)
        p, _ = m(a, T.tensor([3.0, -1.0], requires_grad=True))
        p.sum().backward()
        return log, r(a.grad)

    def removed():
        m, log = seq(), []
        h = m.register_full_backward_hook(lambda mod, gi, go: log.append(1))
        h.remove()
        m(T.tensor([[0.5, -1.0, 2.0]], requires_grad=True)).sum().backward()
        return log

    for name, f in (("nested", nested), ("replaced", replaced), ("no input grad", no_input_grad),
                    ("two in, two out", two_in_two_out), ("unused output", unused_output),
                    ("removed", removed)):
        try:
            out[name] = repr(f())
        except Exception as e:  # noqa: BLE001 (the error is the outcome)
            out[name] = f"{type(e).__name__}: {e}"
    return out


def test_backward_hooks_match_torch():
    real = pytest.importorskip("torch")
    want, got = _scenarios(real), _scenarios(torch)
    assert got == want


def test_backward_hooks_see_and_replace_gradients():
    lin = torch.nn.Linear(2, 1)
    seen = []
    lin.register_full_backward_pre_hook(lambda m, go: seen.append(go[0].tolist()))
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0,))
    x = torch.ones(1, 2, requires_grad=True)
    (lin(x) * 3).sum().backward()
    assert seen == [[[3.0]]] and x.grad.tolist() == [[0.0, 0.0]]


@pytest.mark.parametrize("name", ["CSX", "CPU"])
def test_backward_hooks_are_refused_on_the_wafer(name):
    """A compiled step cannot call back into Python during its backward: the emulated wafer
    refuses at trace time, naming the fix; the CPU backend runs the hook each step."""
    import minitorch_cs as cstorch
    backend = cstorch.backend(name)
    with backend.device:
        model = torch.nn.Linear(2, 1)
    calls = []
    model.register_full_backward_hook(lambda m, gi, go: calls.append(1))
    compiled = cstorch.compile(model, backend)

    @cstorch.trace
    def step(x):
        loss = compiled(x).sum()
        loss.backward()
        return loss

    loader = cstorch.utils.data.DataLoader(lambda: [torch.ones(3, 2)])

    def run():
        for x in cstorch.utils.data.DataExecutor(loader, num_steps=2):
            step(x)

    if name == "CPU":
        run()
        assert calls == [1, 1]
    else:
        with pytest.raises(RuntimeError, match="Linear has a backward hook"):
            run()

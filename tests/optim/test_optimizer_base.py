"""The Optimizer base class: param groups, state dicts, hooks, the preinitialize contract, and
user-defined subclasses."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.optim as optim
import minitorch_cs.torch as torch
from minitorch_cs.backend import current_backend_impl
from minitorch_cs.optim import lr_scheduler as LRS

from ._golden import grad_for


def _params():
    return [torch.tensor(np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32),
                         requires_grad=True),
            torch.tensor(np.array([0.5, -0.25], np.float32), requires_grad=True)]


def test_groups_defaults_and_tags(backend):
    a, b = _params()
    opt = optim.SGD([{"params": [a], "tags": ["x", "y"]}, {"params": b, "tags": "z", "lr": 0.5}],
                    lr=0.1, momentum=0.9)
    g0, g1 = opt.param_groups
    assert g0["tags"] == {"x", "y"} and g1["tags"] == {"z"}
    assert g0["lr"] == 0.1 and g1["lr"] == 0.5 and g1["params"] == [b]
    assert list(g0) == ["params", "tags", "lr", "momentum", "dampening", "weight_decay",
                        "nesterov", "maximize"]
    assert opt in current_backend_impl().optimizer_registry
    assert "Parameter Group 1" in repr(opt) and "lr: 0.5" in repr(opt)


def test_state_dict_format(backend):
    a, b = _params()
    opt = optim.Adagrad([{"params": [a]}, {"params": [b], "tags": ["t"]}], lr=0.1)
    sd = opt.state_dict()
    assert sorted(sd) == ["param_groups", "state"]
    assert sorted(sd["state"]) == [0, 1]
    assert sorted(sd["state"][0]) == ["step", "sum"]
    assert sd["state"][0]["sum"] is opt.state[a]["sum"]  # live tensors, like torch
    assert sd["param_groups"][0]["params"] == [0] and sd["param_groups"][1]["params"] == [1]
    assert sd["param_groups"][1]["tags"] == {"t"}
    assert list(sd["param_groups"][0])[-1] == "params"


def test_load_state_dict_uses_the_loaded_tensors(backend):
    """Observation #17: after load, the state tensors are the loaded objects; groups are copies."""
    a, b = _params()
    src = optim.SGD([a, b], lr=0.1, momentum=0.9)
    LRS.LinearLR(src, 0.1, 0.01, 10)
    sd = src.state_dict()
    c, d = _params()
    dst = optim.SGD([c, d], lr=0.3, momentum=0.9)
    dst.load_state_dict(sd)
    assert dst.state[c]["momentum_buffer"] is sd["state"][0]["momentum_buffer"]
    assert isinstance(dst.param_groups[0]["lr"], torch.Tensor)
    assert dst.param_groups[0]["lr"] is not sd["param_groups"][0]["lr"]
    assert dst.param_groups[0]["params"] == [c, d]


def test_load_state_dict_casts_floating_state_to_the_param_dtype(backend):
    p = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    opt = optim.Adagrad([p])
    opt.load_state_dict({"state": {0: {"sum": torch.ones(3), "step": torch.tensor(2.0)}},
                         "param_groups": copy.deepcopy(opt.state_dict()["param_groups"])})
    assert opt.state[p]["sum"].dtype is torch.float64
    assert opt.state[p]["step"].dtype is torch.float32  # "step" is left as is


def test_adam_loads_a_torch_style_step(backend):
    """A torch/HuggingFace state with ``step`` becomes cstorch's beta powers."""
    p = torch.zeros(2, requires_grad=True)
    opt = optim.AdamW([p], betas=(0.9, 0.99))
    sd = copy.deepcopy(opt.state_dict())
    for k in ("beta1_power", "beta2_power"):
        del sd["state"][0][k]
    sd["state"][0]["step"] = torch.tensor(3.0)
    opt.load_state_dict(sd)
    assert float(opt.state[p]["beta1_power"]) == pytest.approx(0.9 ** 3)
    assert float(opt.state[p]["beta2_power"]) == pytest.approx(0.99 ** 3)
    assert "step" not in opt.state[p]


def test_adam_weight_decay_is_l2(backend):
    """Observation #18."""
    p = torch.zeros(2, requires_grad=True)
    g = optim.Adam([p], weight_decay=0.1).param_groups[0]
    assert g["weight_decay"] == 0.0 and g["l2_regularization_rate"] == 0.1
    assert "beta1_power" not in optim.AdamW([p], correct_bias=False).state[p]
    optim.AdamW([p], weight_decay=-0.1)  # accepted
    d = optim.Adam([p]).defaults
    assert (d["eps"], d["lr"]) == (1e-6, 1e-3)
    assert optim.NAdam([p]).defaults["lr"] == 2e-3 and optim.NAdam([p]).defaults["eps"] == 1e-8


def test_zero_grad_semantics_and_hooks(backend):
    a, b = _params()
    opt = optim.SGD([a, b], lr=0.1)
    calls = []
    opt.register_zero_grad_pre_hook(lambda o, args, kw: calls.append(("pre", a.grad is None)))
    opt.register_zero_grad_post_hook(lambda o, args, kw: calls.append(("post", a.grad is None)))
    a.grad, b.grad = torch.ones(2, 3), torch.ones(2)
    opt.zero_grad(set_to_none=False)
    assert float(a.grad.abs().sum()) == 0 and a.grad is not None
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    assert calls == [("pre", False), ("post", False), ("pre", False), ("post", True)]
    # a pre hook may replace the arguments
    handle = opt.register_zero_grad_pre_hook(lambda o, args, kw: ((), {"set_to_none": False}))
    a.grad = torch.ones(2, 3)
    opt.zero_grad()
    assert a.grad is not None
    handle.remove()
    opt.zero_grad()
    assert a.grad is None


def test_step_hooks(backend):
    a, _ = _params()
    opt = optim.SGD([a], lr=0.1)
    seen = []
    h1 = opt.register_step_pre_hook(lambda o, args, kw: seen.append("pre"))
    opt.register_step_post_hook(lambda o, args, kw: seen.append("post"))
    a.grad = torch.ones(2, 3)
    opt.step()
    h1.remove()
    opt.step()
    assert seen == ["pre", "post", "post"]


def test_closure_runs_with_grad_enabled(backend):
    a, _ = _params()
    opt = optim.SGD([a], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert float(loss) == pytest.approx(float((np.linspace(-1, 1, 6) ** 2).sum()), rel=1e-6)


def test_visit_state_and_apply(backend):
    a, b = _params()
    opt = optim.Adam([a, b])
    seen = []
    opt.visit_state(lambda v: seen.append(v) or None)
    assert len(seen) == 8
    opt.visit_state(lambda v: v + 1)
    assert float(opt.state[a]["exp_avg"].sum()) == 6
    assert opt.apply(lambda o: o is opt)

    class Visitor:
        def apply(self, o):
            return "applied"

    assert opt.apply(Visitor()) == "applied"


def test_add_param_group_after_construction_is_preinitialized(backend):
    a, b = _params()
    opt = optim.Adagrad([a], lr=0.1)
    opt.state[a]["sum"].fill_(3.0)
    opt.add_param_group({"params": [b], "tags": ["late"]})
    assert opt.param_groups[1]["tags"] == {"late"}
    assert sorted(opt.state[b]) == ["step", "sum"]
    assert float(opt.state[a]["sum"][0, 0]) == 3.0  # earlier state untouched
    b.grad = torch.ones(2)
    opt.step()


def test_preinitialize_runs_inside_the_device_context(backend):
    seen = {}

    class Probe(optim.SGD):
        def preinitialize(self):
            seen["active"] = current_backend_impl().device.is_active
            super().preinitialize()

    Probe([torch.zeros(2, requires_grad=True)], lr=0.1)
    assert seen["active"]


class ScaledSignSGD(optim.Optimizer):
    """A user-defined cstorch optimizer (the documented contract): state in preinitialize,
    tensor-only updates in step."""

    def __init__(self, params, lr=0.01, decay=0.5):
        super().__init__(params, dict(lr=lr, decay=decay), enable_global_step=True)

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["avg"] = cstorch.zeros_like(p)

    def step(self, closure=None):
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    t = self.increment_global_step(p)
                    avg = self.state[p]["avg"]
                    avg.mul_(group["decay"]).add_(p.grad, alpha=1 - group["decay"])
                    p.sub_(avg.sign() * group["lr"] / torch.sqrt(t))


def test_user_subclass_works_like_a_builtin(backend):
    p = torch.tensor(np.array([1.0, -2.0, 3.0], np.float32), requires_grad=True)
    opt = ScaledSignSGD([p], lr=0.1)
    sched = LRS.StepLR(opt, 0.1, step_size=2, gamma=0.5)
    scaler = cstorch.amp.GradScaler("dynamic")
    ref = np.array([1.0, -2.0, 3.0])
    for k in range(4):
        p.grad = torch.tensor(grad_for(p.detach().numpy(), k).astype(np.float32) * 32768)
        scaler.step(opt)
        scaler.update()
        sched.step()
    assert int(opt.state[p]["step"]) == 4 and int(sched.last_epoch) == 4
    assert not np.allclose(p.detach().numpy(), ref)
    sd = opt.state_dict()
    assert sorted(sd["state"][0]) == ["avg", "step"]
    assert isinstance(sd["param_groups"][0]["lr"], torch.Tensor)
    assert optim.Optimizer in type(opt).__mro__
    # found by (case-insensitive) class name among Optimizer subclasses, as Model Zoo YAML does
    names = {c.__name__.lower() for c in _subclasses(optim.Optimizer)}
    assert {"scaledsignsgd", "sgd", "adamw", "muon"} <= names


def _subclasses(cls):
    out = set()
    for sub in cls.__subclasses__():
        out.add(sub)
        out |= _subclasses(sub)
    return out


ALL = [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)), ("Adam", dict(amsgrad=True)),
       ("AdamW", dict(weight_decay=0.1)), ("Adadelta", {}), ("Adagrad", dict(lr_decay=0.1)),
       ("Adamax", {}), ("ASGD", dict(t0=2)), ("Lamb", {}), ("Lion", {}), ("NAdam", {}),
       ("RAdam", {}), ("RMSprop", dict(momentum=0.5, centered=True)), ("Rprop", {}),
       ("Adafactor", dict(lr=0.01)), ("Muon", {})]


@pytest.mark.parametrize("name,kwargs", ALL, ids=[n for n, _ in ALL])
def test_state_dict_round_trip_continues_bit_for_bit(name, kwargs, backend):
    """Save mid-run (a deep copy, as a checkpoint would be), rebuild optimizer and scheduler the
    Trainer's way (build, then load), continue: identical to the uninterrupted run."""

    def build(params):
        opt = getattr(optim, name)(params, **kwargs)
        sched = LRS.SequentialLR(opt, [LRS.LinearLR(opt, 1e-3, 1e-2, 3),
                                       LRS.CosineDecayLR(opt, 1e-2, 1e-4, 5)], milestones=[3])
        return opt, sched

    def run(opt, sched, params, ks):
        for k in ks:
            for p in params:
                p.grad = torch.tensor(grad_for(p.detach().numpy(), k).astype(np.float32))
            opt.step()
            sched.step()

    p_full = [torch.tensor(np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32),
                           requires_grad=True)]
    opt, sched = build(p_full)
    run(opt, sched, p_full, range(8))

    p_a = [torch.tensor(np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32),
                        requires_grad=True)]
    opt_a, sched_a = build(p_a)
    run(opt_a, sched_a, p_a, range(4))
    ckpt = copy.deepcopy({"p": p_a[0].detach().numpy(), "opt": opt_a.state_dict(),
                          "sched": sched_a.state_dict()})

    p_b = [torch.tensor(ckpt["p"], requires_grad=True)]
    opt_b, sched_b = build(p_b)
    opt_b.load_state_dict(ckpt["opt"])
    sched_b.load_state_dict(ckpt["sched"])
    run(opt_b, sched_b, p_b, range(4, 8))
    np.testing.assert_array_equal(p_b[0].detach().numpy(), p_full[0].detach().numpy())
    for key, v in opt.state[p_full[0]].items():
        np.testing.assert_array_equal(opt_b.state[p_b[0]][key].numpy(), v.numpy())
    assert float(opt_b.param_groups[0]["lr"]) == float(opt.param_groups[0]["lr"])

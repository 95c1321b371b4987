"""One test per validation error: exception type and message, against the real stack's
(errors.json), plus the errors the goldens do not cover."""
from __future__ import annotations

import re

import pytest

import minitorch_cs.optim as optim
import minitorch_cs.torch as torch
from minitorch_cs import amp
from minitorch_cs.optim import lr_scheduler as LRS
from minitorch_cs.optim import weight_decay_scheduler as WDS

from ._golden import load, make_groups, unjson

RECORDS = load("errors.json")["constructor_errors"]


def _norm(msg: str) -> str:
    """Set reprs print in hash order; sort their items so messages compare stably."""
    return re.sub(r"\{([^{}]*)\}",
                  lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", msg)


class SGD:
    """Stands in for ``torch.optim.SGD``: an optimizer that is not a cstorch one."""

    def __init__(self):
        self.param_groups = [{"params": [torch.zeros(2, requires_grad=True)], "lr": 0.1}]


def _call(rec):
    kwargs = unjson(rec["kwargs"])
    if rec["family"] == "optimizer":
        params = [torch.zeros(3, 4, requires_grad=True), torch.zeros(4, requires_grad=True)]
        return getattr(optim, rec["class"])(params, **kwargs)
    module = LRS if rec["family"] == "lr_scheduler" else WDS
    opt = optim.SGD(make_groups(2), lr=0.1)
    special = kwargs.get("schedulers")
    if special == "[ConstantLR(opt, 0.1), ConstantLR(opt, 0.2)]":
        kwargs["schedulers"] = [LRS.ConstantLR(opt, 0.1), LRS.ConstantLR(opt, 0.2)]
    elif special == "[ConstantWD(opt, 0.1), ConstantWD(opt, 0.2)]":
        kwargs["schedulers"] = [WDS.ConstantWD(opt, 0.1), WDS.ConstantWD(opt, 0.2)]
    elif isinstance(special, str) and special.startswith("[ConstantLR(opt, 0.1), CyclicLR"):
        kwargs["schedulers"] = [LRS.ConstantLR(opt, 0.1),
                                LRS.CyclicLR(opt, base_lr=0.1, max_lr=1.0, step_size_up=4)]
    cls = getattr(module, rec["class"])
    if isinstance(kwargs.get("optimizer"), str):
        kwargs["optimizer"] = SGD()
        return cls(**kwargs)
    if rec["class"] in ("ChainedScheduler", "ChainedLR", "ChainedWD"):
        return cls(**kwargs)
    return cls(opt, **kwargs)


@pytest.mark.parametrize("rec", RECORDS, ids=[f"{r['class']}-{i}" for i, r in enumerate(RECORDS)])
def test_constructor_validation_matches_real(rec, backend):
    if rec.get("result") == "no exception":
        _call(rec)  # accepted by cstorch, so by us too
        return
    with pytest.raises(Exception) as info:
        _call(rec)
    assert type(info.value).__name__ == rec["exception"]
    assert _norm(str(info.value)) == _norm(rec["message"])


# ---- errors the goldens do not cover -----------------------------------------------------------
def test_optimizer_needs_a_backend():
    with pytest.raises(RuntimeError, match="No active Cerebras backend found"):
        optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1)


def test_param_validation(backend):
    p = torch.zeros(2, requires_grad=True)
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an "
                                        "iterable of Tensors or dicts, but got torch.FloatTensor"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors"):
        optim.SGD([1.0], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter "
                                         "group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    with pytest.raises(TypeError, match="optimizer parameters need to be organized in ordered "
                                        "collections"):
        optim.SGD([{"params": {p}}], lr=0.1)
    opt = optim.SGD([p], lr=0.1)
    with pytest.raises(TypeError, match="param_group must be a dict, but got list"):
        opt.add_param_group([torch.zeros(1, requires_grad=True)])


def test_increment_global_step_needs_it_enabled(backend):
    p = torch.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="No global step in the state. Please pass in "
                                           "`enable_global_step=True`"):
        optim.SGD([p], lr=0.1).increment_global_step(p)


def test_load_state_dict_shape_checks(backend):
    a, b = torch.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    sd = optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="loaded state dict has a different number of parameter "
                                         "groups"):
        optim.SGD([a, b], lr=0.1).load_state_dict(sd)
    with pytest.raises(ValueError, match="loaded state dict contains a parameter group that "
                                         "doesn't match the size of optimizer's group"):
        optim.SGD([{"params": [a, b]}, {"params": [torch.zeros(1, requires_grad=True)]}],
                  lr=0.1).load_state_dict(sd)


def test_zero_grad_hook_must_return_args_kwargs(backend):
    p = torch.zeros(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    opt.register_zero_grad_pre_hook(lambda o, a, k: 42)
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        opt.zero_grad()


def test_apply_needs_a_callable(backend):
    opt = optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1)
    with pytest.raises(TypeError, match="Expected a callable as the argument to apply"):
        opt.apply(3)


def test_muon_needs_matrices(backend):
    p = torch.zeros(4, requires_grad=True)
    opt = optim.Muon([p])
    p.grad = torch.ones(4)
    with pytest.raises(ValueError, match="G has 1 dimensions. Requires G has 2 or more "
                                         "dimensions"):
        opt.step()


def test_scheduler_validation(backend):
    opt = optim.SGD(make_groups(2), lr=0.1)
    other = optim.SGD(make_groups(1), lr=0.1)
    with pytest.raises(TypeError, match=r"Expected milestones to be a list of integers. Got: "
                                        r"\[<class 'float'>\]"):
        LRS.SequentialLR(opt, [LRS.ConstantLR(opt, 0.1), LRS.ConstantLR(opt, 0.2)], [2.0])
    with pytest.raises(ValueError, match="expects all schedulers to belong to the same "
                                         "optimizer"):
        LRS.SequentialLR(opt, [LRS.ConstantLR(opt, 0.1), LRS.ConstantLR(other, 0.2)], [2])
    with pytest.raises(ValueError, match="expects all schedulers to have  the same "
                                         "`param_group_key`"):
        LRS.SequentialLR(opt, [LRS.ConstantLR(opt, 0.1), WDS.ConstantWD(opt, 0.2)], [2])
    with pytest.raises(ValueError, match="expects all schedulers to have the same "
                                         "`param_group_tags`"):
        LRS.SequentialLR(opt, [LRS.ConstantLR(opt, 0.1, param_group_tags="g0"),
                               LRS.ConstantLR(opt, 0.2)], [2])
    with pytest.raises(ValueError, match="Chained Scheduler expects all schedulers to have the "
                                         "same `param_group_tags`"):
        LRS.ChainedScheduler([LRS.LinearLR(opt, 0.1, 0.0, 5),
                              LRS.StepLR(opt, 1.0, 2, 0.5, param_group_tags="g1")])
    with pytest.raises(ValueError, match="ScalePerParamScheduler expects the wrapped scheduler"):
        LRS.ScalePerParamLR(opt, LRS.LinearLR(opt, 0.1, 0.0, 5, param_group_tags="g0"))


def test_scheduler_needs_a_cstorch_optimizer(backend):
    with pytest.raises(TypeError, match="SGD is not an a cstorch.optim.Optimizer"):
        LRS.StepLR(SGD(), 0.1, 2, 0.5)


def test_amp_validation(backend):
    with pytest.raises(ValueError, match="Invalid half dtype: float32. Accepted values are: "
                                         '"float16", "bfloat16", "cbfloat16", torch.float16, '
                                         "torch.bfloat16."):
        amp.set_half_dtype("float32")
    with pytest.raises(ValueError, match="Expected a boolean value"):
        amp.enable_mixed_precision(1)
    with pytest.raises(ValueError, match="min_loss_scale too small"):
        amp.GradScaler("dynamic", min_loss_scale=2.0 ** -20)
    with pytest.raises(ValueError, match="loss scaling counter threshold must be set >= 0"):
        amp.GradScaler("dynamic", overflow_tolerance=-0.1)
    amp.GradScaler(min_loss_scale=2.0 ** -20, overflow_tolerance=-1)  # static: not validated
    with pytest.raises(ValueError, match="does not support providing a `new_scale`"):
        amp.GradScaler("dynamic").update(new_scale=2.0)
    with pytest.raises(ValueError, match="Mixed precision on CPU is only supported with "
                                         "bfloat16"):
        with amp.autocast():
            pass
    with pytest.raises(ValueError, match="Mixed precision on CPU is only supported with "
                                         "bfloat16"):
        with amp.autocast(torch.float16):
            pass


def test_autocast_and_scaler_need_a_backend():
    with pytest.raises(RuntimeError, match="No active Cerebras backend found"):
        with amp.autocast(torch.bfloat16):
            pass
    with pytest.raises(RuntimeError, match="No active Cerebras backend found"):
        amp.GradScaler()


def test_optimizer_step_validation(backend):
    p = torch.ones(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    scaler = amp.GradScaler()
    loss = (p * p).sum()
    with pytest.raises(ValueError, match="Expected the wrapped function to return a single loss "
                                         "tensor"):
        amp.optimizer_step(1.0, opt, scaler)
    with pytest.raises(TypeError, match="Expected optimizer 0 to be a `cstorch.optim.Optimizer`"):
        amp.optimizer_step(loss, [SGD()], scaler)
    with pytest.raises(TypeError, match="Expected optimizer to be a `cstorch.optim.Optimizer`"):
        amp.optimizer_step(loss, SGD(), scaler)
    with pytest.raises(TypeError, match="Expected grad_scaler to be a `cstorch.amp.GradScaler`"):
        amp.optimizer_step(loss, opt, object())
    for kw, msg in [(dict(max_gradient_norm=-1.0), "max_gradient_norm has to be a non-negative"),
                    (dict(max_gradient_value=-1.0), "max_gradient_value has to be a "
                                                    "non-negative"),
                    (dict(max_gradient_norm=1.0, max_gradient_value=1.0), "but not both")]:
        with pytest.raises(ValueError, match=msg):
            amp.optimizer_step((p * p).sum(), opt, scaler, **kw)
        opt.zero_grad()
        scaler.update()


def test_grad_scaler_call_order(backend):
    p = torch.ones(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    scaler = amp.GradScaler("dynamic")
    p.grad = torch.ones(2)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called since the last "
                                           "update\\(\\)."):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step\\(\\)."):
        scaler.unscale_(opt)
    scaler.update()
    scaler.step(opt)  # fine again after update()

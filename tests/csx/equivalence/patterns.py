"""The pattern corpus: small named training steps, each with its expected CSX outcome."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

import minitorch_cs as cstorch
from minitorch_cs import torch
from minitorch_cs.torch import nn
from minitorch_cs.torch.nn import functional as F

from . import causes as C  # noqa: F401  (the xfail vocabulary)
from .harness import Case, Documented, Equal, Refused, Setup, diff_records

PATTERNS: list = []


def pattern(expect=None):
    """Register ``fn(env) -> Setup`` as a case named after it (docstring: its one-line summary)."""
    def deco(fn):
        doc = (fn.__doc__ or "").strip().splitlines()
        PATTERNS.append(Case(fn.__name__, doc[0] if doc else "", fn, expect or Equal()))
        return fn
    return deco


class Tiny(nn.Module):
    def __init__(self, d_in=6, hidden=5, n_out=3):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def sgd(lr=0.1, **kw):
    return lambda params: cstorch.optim.SGD(params, lr=lr, **kw)


def train(c, x, y):
    """The canonical step: forward, loss, backward, optimizer step, zero_grad."""
    loss = F.cross_entropy(c.compiled(x), y)
    loss.backward()
    c.opt.step()
    c.opt.zero_grad()
    return loss


def standard(env, body=train, factory=Tiny, opt=None, sched=None, batches=None, **extra):
    """A model built in the device context, compiled, an optimizer (SGD lr 0.1 by default),
    optional schedulers, and a traced step ``body(c, x, y)``."""
    model = env.model(factory)
    compiled = env.compile(model)
    optimizer = (opt or sgd())(model.parameters())
    scheds = list(sched(optimizer)) if sched else []
    c = SimpleNamespace(env=env, model=model, compiled=compiled, opt=optimizer, scheds=scheds,
                        **extra)

    @cstorch.trace
    def step(x, y):
        return body(c, x, y)

    s = Setup(step, batches if batches is not None else env.batches(), {"m": model}, [optimizer],
              scheds)
    s.c = c
    return s


# ===== baselines and optimizers ==================================================================
@pattern()
def sgd_plain(env):
    """SGD without momentum: forward, cross-entropy, backward, step, zero_grad."""
    return standard(env)


@pattern()
def sgd_momentum(env):
    """SGD with momentum 0.9 (momentum buffer preinitialized to zeros)."""
    return standard(env, opt=sgd(momentum=0.9))


@pattern()
def sgd_nesterov_weight_decay(env):
    """SGD with Nesterov momentum and weight decay."""
    return standard(env, opt=sgd(momentum=0.9, nesterov=True, weight_decay=0.01))


@pattern()
def sgd_dampening_maximize(env):
    """SGD with dampening and maximize=True (ascends the loss)."""
    return standard(env, opt=sgd(lr=0.01, momentum=0.5, dampening=0.3, maximize=True))


def _opt_case(name, factory, doc):
    def build(env):
        return standard(env, opt=factory)
    PATTERNS.append(Case(name, doc, build, Equal()))


_O = cstorch.optim
for _name, _factory, _doc in [
    ("adam", lambda ps: _O.Adam(ps, lr=0.01, weight_decay=0.01), "cstorch Adam (L2 rate)."),
    ("adam_amsgrad", lambda ps: _O.Adam(ps, lr=0.01, amsgrad=True), "Adam with amsgrad."),
    ("adamw", lambda ps: _O.AdamW(ps, lr=0.01, weight_decay=0.05), "cstorch AdamW."),
    ("adamw_no_bias_correction", lambda ps: _O.AdamW(ps, lr=0.01, correct_bias=False),
     "AdamW(correct_bias=False): no beta powers in the state."),
    ("rmsprop_centered_momentum",
     lambda ps: _O.RMSprop(ps, lr=0.01, momentum=0.9, centered=True), "RMSprop centered+momentum."),
    ("adagrad", lambda ps: _O.Adagrad(ps, lr=0.1, lr_decay=0.01), "Adagrad with lr decay."),
    ("adadelta", lambda ps: _O.Adadelta(ps, lr=1.0), "Adadelta."),
    ("adamax", lambda ps: _O.Adamax(ps, lr=0.01), "Adamax."),
    ("nadam", lambda ps: _O.NAdam(ps, lr=0.01), "NAdam (mu_product state)."),
    ("radam", lambda ps: _O.RAdam(ps, lr=0.01), "RAdam (rectification switch as tensor ops)."),
    ("lamb", lambda ps: _O.Lamb(ps, lr=0.01, weight_decay=0.01), "Lamb (trust ratio)."),
    ("lion", lambda ps: _O.Lion(ps, lr=0.001, weight_decay=0.1), "Lion (sign update)."),
    ("rprop", lambda ps: _O.Rprop(ps, lr=0.01), "Rprop (sign-dependent step sizes)."),
    ("asgd", lambda ps: _O.ASGD(ps, lr=0.01, t0=2), "ASGD (averaging starts at t0=2)."),
    ("adafactor", lambda ps: _O.Adafactor(ps, lr=0.01), "Adafactor (factored second moments)."),
]:
    _opt_case(_name, _factory, _doc)


@pattern()
def param_groups_two_lrs(env):
    """Two param groups with their own lr and weight decay."""
    return standard(env, opt=lambda ps: cstorch.optim.SGD(_two_groups(ps), lr=0.1))


def _two_groups(params):
    ps = list(params)
    return [{"params": ps[:2], "lr": 0.05, "momentum": 0.5},
            {"params": ps[2:], "weight_decay": 0.1}]


@pattern()
def two_optimizers(env):
    """One optimizer per layer (SGD for fc1, Adam for fc2), both stepped in the step."""
    model = env.model(Tiny)
    compiled = env.compile(model)
    o1 = cstorch.optim.SGD(model.fc1.parameters(), lr=0.1, momentum=0.9)
    o2 = cstorch.optim.Adam(model.fc2.parameters(), lr=0.01)

    @cstorch.trace
    def step(x, y):
        loss = F.cross_entropy(compiled(x), y)
        loss.backward()
        o1.step()
        o2.step()
        o1.zero_grad()
        o2.zero_grad()
        return loss
    return Setup(step, env.batches(), {"m": model}, [o1, o2])


# ===== schedulers ================================================================================
LR = cstorch.optim.lr_scheduler
VALUE_READ_WORDS = (r"value|read", r"step.?closure")  # the rule, and the fix


def train_sched(c, x, y):
    loss = train(c, x, y)
    for s in c.scheds:
        s.step()
    return loss, c.opt.param_groups[0]["lr"]


@pattern()
def scheduler_linear_in_step(env):
    """LinearLR stepped inside the traced step (lr is a tensor the tape reads)."""
    return standard(env, train_sched, sched=lambda o: [LR.LinearLR(o, 0.1, 0.01, total_iters=4)])


@pattern()
def scheduler_sequential_in_step(env):
    """SequentialLR (linear warmup, then cosine decay) with SGD momentum."""
    return standard(env, train_sched, opt=sgd(momentum=0.9), sched=lambda o: [LR.SequentialLR(
        o, [LR.LinearLR(o, 0.01, 0.1, total_iters=2),
            LR.CosineDecayLR(o, 0.1, 0.01, total_iters=3)], milestones=[2])])


@pattern()
def scheduler_adamw_cosine_and_wd(env):
    """AdamW with a CosineDecayLR and a weight-decay scheduler, both stepped in the step."""
    WD = cstorch.optim.weight_decay_scheduler
    return standard(env, train_sched, opt=lambda ps: cstorch.optim.AdamW(
        ps, lr=0.01, weight_decay=0.1), sched=lambda o: [
        LR.CosineDecayLR(o, 0.01, 0.001, total_iters=5), WD.LinearWD(o, 0.1, 0.0, total_iters=5)])


@pattern()
def scheduler_stepped_outside_step(env):
    """StepLR stepped after each traced step, outside it (eager update of the lr tensor)."""
    s = standard(env, sched=lambda o: [LR.StepLR(o, 0.1, step_size=1, gamma=0.5)])

    def loop(env, setup):
        for x, y in env.executor(setup.batches):
            loss = env.call(setup.step, x, y)
            setup.schedulers[0].step()
            env.record(loss, setup.optimizers[0].param_groups[0]["lr"])
    s.loop = loop
    return s


@pattern(Refused((r"\blr\b|param.?group", r"python|float|constant|changed",
                  r"scheduler|tensor"), at_step=3))
def lr_float_assigned_between_steps(env):
    """param_groups[0]['lr'] = 0.05 (a Python float) assigned after step 2, outside the step."""
    s = standard(env)

    def loop(env, setup):
        for i, (x, y) in enumerate(env.executor(setup.batches), start=1):
            env.record(env.call(setup.step, x, y))
            if i == 2:
                setup.optimizers[0].param_groups[0]["lr"] = 0.05
    s.loop = loop
    return s


# ===== amp =======================================================================================
def _scaler_body(scaler):
    def body(c, x, y):
        loss = F.cross_entropy(c.compiled(x), y)
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.step(c.opt)
        scaler.update()
        c.opt.zero_grad()
        return {"loss": loss, "scaled": scaled}
    return body


def _scaler_case(env, **kw):
    holder = {}

    def body(c, x, y):
        return _scaler_body(holder["scaler"])(c, x, y)
    s = standard(env, body)
    scaler = holder["scaler"] = cstorch.amp.GradScaler(**kw)
    s.extra = lambda: {"state_dict_len": len(scaler.state_dict()),
                       "state_dict": scaler.state_dict(), "scale": scaler.get_scale(),
                       "skipped": scaler.get_num_skipped_steps()}
    return s


def _divided_twin(scale):
    def body(c, x, y):
        loss = F.cross_entropy(c.compiled(x), y)
        loss.backward()
        with torch.no_grad():
            for p in c.model.parameters():
                p.grad.mul_(torch.tensor(1.0 / scale, dtype=torch.float32))
        c.opt.step()
        c.opt.zero_grad()
        return {"loss": loss}
    return body


def _plain_twin(c, x, y):
    return {"loss": train(c, x, y)}


def _trajectory(rec):
    """Losses and final parameters of a record (what a scaler twin must reproduce)."""
    return {k: v for k, v in rec["values"].items()
            if k.startswith("param/") or (k.startswith("closure/") and k.endswith("/loss"))}


def _scaler_check(name, scale, dynamic):
    """SPEC 7.3: off CSX scale() is the identity and state_dict() is {}, yet unscale_() divides
    the gradients by the scale; on CSX scale() multiplies the loss, so the pair is exact."""

    def check(cpu, csx):
        c, x = cpu[name], csx[name]
        for kind, r in (("CPU", c), ("CSX", x)):
            assert r["outcome"]["status"] == "ok", f"{kind}: {r['outcome']}"
        d = diff_records(_trajectory(cpu[f"{name}_twin_plain"]), _trajectory(x))
        assert not d, f"CSX scaled run must equal the unscaled CPU run: {d}"
        d = diff_records(_trajectory(cpu[f"{name}_twin_divided"]), _trajectory(c))
        assert not d, f"CPU scaled run must equal a CPU run with gradients / {scale}: {d}"
        for i in range(5):
            lc, sc = c["values"][f"closure/{i}/0/loss"][2], c["values"][f"closure/{i}/0/scaled"][2]
            lx, sx = x["values"][f"closure/{i}/0/loss"][2], x["values"][f"closure/{i}/0/scaled"][2]
            assert np.array_equal(lc, sc), "CPU: scale(loss) must be the identity"
            assert np.array_equal(sx, lx * np.float32(scale)), "CSX: scale(loss) = loss * scale"
        assert c["values"]["extra/state_dict_len"][2] == 0, "CPU state_dict() must be {}"
        keys = {"loss_scale"} | ({"steps_since_rescale", "overflows_since_rescale",
                                  "num_skipped_steps"} if dynamic else set())
        assert x["values"]["extra/state_dict_len"][2] == len(keys)
        assert {k.split("/")[2] for k in x["values"] if k.startswith("extra/state_dict/")} == keys
    return check


def _register_scaler(name, scale, doc, dynamic, **kw):
    PATTERNS.append(Case(name, doc, lambda env: _scaler_case(env, **kw),
                         Documented("7.3", _scaler_check(name, scale, dynamic))))
    PATTERNS.append(Case(f"{name}_twin_plain", f"Twin of {name}: the same step without a scaler.",
                         lambda env: standard(env, _plain_twin)))
    PATTERNS.append(Case(f"{name}_twin_divided",
                         f"Twin of {name}: gradients divided by {scale} before the step.",
                         lambda env: standard(env, _divided_twin(scale))))


_register_scaler("gradscaler_static", 128.0, "GradScaler(loss_scale=128): scale, step, update.",
                 False, loss_scale=128.0)
_register_scaler("gradscaler_dynamic", 32768.0, "GradScaler('dynamic'): DLS with no overflow.",
                 True, loss_scale="dynamic")


def _overflow_check(cpu, csx):
    """A non-finite step is skipped on both backends: same counters, same parameters."""
    name = "gradscaler_dynamic_overflow"
    c, x = cpu[name], csx[name]
    for kind, r in (("CPU", c), ("CSX", x)):
        assert r["outcome"]["status"] == "ok", f"{kind}: {r['outcome']}"
        v = r["values"]
        assert v["extra/skipped"][2] == 1, f"{kind}: one step must be skipped"
        assert v["extra/scale"][2] == np.float32(16384.0), f"{kind}: the scale must halve"
        for k in v:  # step 3 (index 2) is skipped: parameters as after step 2
            if k.startswith("closure/2/0/params/"):
                prev = v[k.replace("closure/2/", "closure/1/")][2]
                assert np.array_equal(v[k][2], prev), f"{kind}: {k} changed in a skipped step"


@pattern(Documented("7.3", _overflow_check))
def gradscaler_dynamic_overflow(env):
    """Dynamic GradScaler with an inf in batch 3: that step is skipped, the scale halves."""
    holder = {}

    def body(c, x, y):
        out = _scaler_body(holder["scaler"])(c, x, y)
        out["params"] = [p.detach() for p in c.model.parameters()]
        return out
    batches = env.batches()
    batches[2][0][0, 0] = float("inf")
    s = standard(env, body, batches=batches)
    scaler = holder["scaler"] = cstorch.amp.GradScaler(loss_scale="dynamic")
    s.extra = lambda: {"scale": scaler.get_scale(), "skipped": scaler.get_num_skipped_steps()}
    return s


def _optimizer_step_check(cpu, csx):
    name = "amp_optimizer_step"
    d = diff_records(_trajectory(cpu["gradscaler_dynamic_twin_plain"]), _trajectory(csx[name]))
    assert not d, f"CSX amp.optimizer_step must equal the unscaled CPU run: {d}"
    d = diff_records(_trajectory(cpu["gradscaler_dynamic_twin_divided"]), _trajectory(cpu[name]))
    assert not d, f"CPU amp.optimizer_step must equal a CPU run with gradients / 32768: {d}"


@pattern(Documented("7.3", _optimizer_step_check))
def amp_optimizer_step(env):
    """cstorch.amp.optimizer_step(loss, optimizer, GradScaler('dynamic')) in the step."""
    holder = {}

    def body(c, x, y):
        loss = F.cross_entropy(c.compiled(x), y)
        cstorch.amp.optimizer_step(loss, c.opt, holder["scaler"])
        return {"loss": loss}
    s = standard(env, body)
    holder["scaler"] = cstorch.amp.GradScaler(loss_scale="dynamic")
    return s


def _autocast_check(cpu, csx):
    """cstorch's autocast does nothing on CSX (the wafer's compiler chooses the casts; amp/autocast
    module docstring) and computes matmuls in bfloat16 on CPU: the CSX run equals the CPU run of
    the same step without autocast (sgd_plain), and the CPU run really used bfloat16."""
    d = diff_records(cpu["sgd_plain"]["values"], csx["autocast_bfloat16"]["values"])
    assert not d, f"CSX autocast must equal the float32 CPU run: {d}"
    assert diff_records(cpu["sgd_plain"]["values"], cpu["autocast_bfloat16"]["values"]), \
        "CPU autocast(bfloat16) must change the values"


@pattern(Documented("7.3", _autocast_check))
def autocast_bfloat16(env):
    """Forward under cstorch.amp.autocast(dtype=bfloat16); same step and data as sgd_plain."""
    def body(c, x, y):
        with cstorch.amp.autocast(dtype=torch.bfloat16):
            out = c.compiled(x)
        loss = F.cross_entropy(out.float(), y)
        loss.backward()
        c.opt.step()
        c.opt.zero_grad()
        return loss
    return standard(env, body)


def _mixed_precision_check(cpu, csx):
    """With mixed precision on (set_half_dtype), the emulated wafer computes matmul/linear/conv
    in the half dtype (SPEC 7.3), exactly as the CPU backend does for the same step inside
    cstorch.amp.autocast(half dtype); the CPU backend itself ignores the setting."""
    d = diff_records(cpu["autocast_bfloat16_twin_of_mixed"]["values"],
                     csx["mixed_precision_bfloat16"]["values"])
    assert not d, f"CSX mixed precision must equal CPU under autocast(bfloat16): {d}"
    assert not diff_records(cpu["sgd_plain"]["values"], cpu["mixed_precision_bfloat16"]["values"])


@pattern(Documented("7.3", _mixed_precision_check))
def mixed_precision_bfloat16(env):
    """cstorch.amp.set_half_dtype('bfloat16') before the run: the wafer's mixed precision."""
    cstorch.amp.set_half_dtype("bfloat16")
    return standard(env)


def _autocast_twin_check(cpu, csx):
    """cstorch.amp.autocast is a no-op on CSX (without mixed precision the step is float32)."""
    assert not diff_records(cpu["sgd_plain"]["values"],
                            csx["autocast_bfloat16_twin_of_mixed"]["values"])


@pattern(Documented("7.3", _autocast_twin_check))
def autocast_bfloat16_twin_of_mixed(env):
    """The whole step body inside cstorch.amp.autocast(dtype=bfloat16) (the CPU twin of
    mixed_precision_bfloat16)."""
    def body(c, x, y):
        with cstorch.amp.autocast(dtype=torch.bfloat16):
            return train(c, x, y)
    return standard(env, body)


def _wafer_dtypes_check(cpu, csx):
    """int32 class labels and float16 inputs: eager torch (the CPU backend) refuses them with its
    errors; the emulated wafer compiles the step by the wafer compiler's rules (float16 inputs of
    the float32 Linear promoted, int32 labels read as class indices): its values equal the CPU
    run of the same step with the inputs widened to float32 and int64 labels (its twin)."""
    o = cpu["wafer_dtypes_int32_labels_half_inputs"]["outcome"]
    assert o["status"] == "raised" and o["type"] == "RuntimeError" and \
        "must have the same dtype" in o["message"], o
    d = diff_records(cpu["wafer_dtypes_twin"]["values"],
                     csx["wafer_dtypes_int32_labels_half_inputs"]["values"])
    assert not d, f"CSX with float16 inputs and int32 labels must equal the widened CPU run: {d}"


@pattern(Documented("5", _wafer_dtypes_check))
def wafer_dtypes_int32_labels_half_inputs(env):
    """The batch arrives as float16 inputs and int32 labels, as the wafer receives it."""
    def body(c, x, y):
        return train(c, x.half(), y.int())
    return standard(env, body)


@pattern()
def wafer_dtypes_twin(env):
    """The same step with the float16 inputs widened to float32 and int64 labels."""
    def body(c, x, y):
        return train(c, x.half().float(), y.long())
    return standard(env, body)


# ===== train/eval modes, dropout, batch norm, second traced functions ============================
class DropNet(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


def _checkpointed(use_reentrant):
    def body(c, x, y):
        from minitorch_cs.torch.utils.checkpoint import checkpoint
        # the reentrant form differentiates through its inputs only: one of them requires grad
        out = checkpoint(c.compiled, x.detach().requires_grad_(), use_reentrant=use_reentrant)
        loss = F.cross_entropy(out, y)
        loss.backward()
        c.opt.step()
        c.opt.zero_grad()
        return loss
    return body


@pattern()
def activation_checkpoint_reentrant(env):
    """torch.utils.checkpoint (use_reentrant=True) around a model with dropout: the backward
    recomputes the forward with the forward's RNG state."""
    return standard(env, _checkpointed(True), factory=DropNet)


@pattern()
def activation_checkpoint_non_reentrant(env):
    """torch.utils.checkpoint(use_reentrant=False) around a model with dropout."""
    return standard(env, _checkpointed(False), factory=DropNet)


def _input_gradient_penalty(c, x, y):
    """WGAN-GP style: the norm of d(model output)/d(input), recorded with create_graph=True,
    pushed toward 1 and added to the loss."""
    x = x.detach().requires_grad_()
    out = c.compiled(x)
    g, = torch.autograd.grad(out.sum(), x, create_graph=True)
    penalty = ((g.norm(dim=1) - 1) ** 2).mean()
    loss = F.cross_entropy(out, y) + 0.1 * penalty
    loss.backward()
    c.opt.step()
    c.opt.zero_grad()
    return loss


@pattern()
def gradient_penalty_input(env):
    """A gradient penalty on the input gradient (autograd.grad(create_graph=True)): the recorded
    backward is captured and replayed like the forward."""
    return standard(env, _input_gradient_penalty)


def _parameter_gradient_penalty(c, x, y):
    """Double backprop on the parameters: the squared norm of the loss gradient (recorded with
    create_graph=True) regularizes the loss."""
    out = c.compiled(x)
    loss = F.mse_loss(torch.tanh(out), F.one_hot(y, 3).float())
    params = list(c.model.parameters())
    grads = torch.autograd.grad(loss, params, create_graph=True)
    gp = sum((g * g).sum() for g in grads)
    (loss + 0.01 * gp).backward()
    c.opt.step()
    c.opt.zero_grad()
    return loss


@pattern()
def gradient_penalty_parameters(env):
    """A penalty on the parameter gradients (double backprop through linear, relu, tanh, mse)."""
    return standard(env, _parameter_gradient_penalty, opt=sgd(momentum=0.9))


def _hvp_backward_create_graph(c, x, y):
    """backward(create_graph=True): the .grad of each parameter is a graph tensor; a
    Hessian-vector product with the detached gradient is added to the step's gradient."""
    loss = (c.compiled(x) ** 2).mean()
    params = list(c.model.parameters())
    loss.backward(create_graph=True)
    hv = torch.autograd.grad(sum((p.grad * p.grad.detach()).sum() for p in params), params)
    with torch.no_grad():
        for p, h in zip(params, hv):
            p.grad = p.grad.detach() + 0.01 * h
    c.opt.step()
    c.opt.zero_grad(set_to_none=True)
    return loss


@pattern()
def hessian_vector_product_backward_create_graph(env):
    """backward(create_graph=True), then a Hessian-vector product through the recorded .grad."""
    return standard(env, _hvp_backward_create_graph)


def _penalty_through_cross_entropy(c, x, y):
    x = x.detach().requires_grad_()
    loss = F.cross_entropy(c.compiled(x), y)
    g, = torch.autograd.grad(loss, x, create_graph=True)
    (loss + (g * g).sum()).backward()
    c.opt.step()
    c.opt.zero_grad()
    return loss


@pattern(Refused((r"create_graph", r"internally", r"CPU backend|outside create_graph")))
def gradient_penalty_through_cross_entropy(env):
    """create_graph through cross_entropy reads the forward's log-probabilities, which this
    capture cannot name for replay yet: refused with the rule and the fix."""
    return standard(env, _penalty_through_cross_entropy)


class BNNet(nn.Module):
    def __init__(self, momentum=0.1):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.bn = nn.BatchNorm1d(8, momentum=momentum)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x))))


@pattern()
def dropout_train(env):
    """nn.Dropout(0.5) in train mode: a fresh mask from the global generator every step."""
    return standard(env, factory=DropNet)


@pattern()
def dropout_functional_in_step(env):
    """F.dropout(training=True) on the batch inside the step."""
    def body(c, x, y):
        return train(c, F.dropout(x, 0.3, training=True), y)
    return standard(env, body)


@pattern()
def model_eval_before_run(env):
    """compiled.eval() before the run: dropout off, batch norm uses running stats."""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = DropNet(), BNNet()

        def forward(self, x):
            return self.a(x) + self.b(x)
    s = standard(env, factory=Net)
    s.c.compiled.eval()
    return s


@pattern()
def batchnorm_train(env):
    """BatchNorm1d in train mode: batch statistics, running stats and num_batches_tracked."""
    return standard(env, factory=BNNet)


@pattern(Refused(VALUE_READ_WORDS))
def batchnorm_cumulative_average(env):
    """BatchNorm1d(momentum=None): torch's module reads float(num_batches_tracked) in Python."""
    return standard(env, factory=lambda: BNNet(momentum=None))


@pattern()
def batchnorm_eval_train_params(env):
    """BatchNorm1d in eval mode while its affine parameters still train."""
    s = standard(env, factory=BNNet)
    s.c.model.bn.eval()
    return s


@pattern(Refused((r"\btrain\b|\beval\b|training|mode", r"chang|toggl|switch|differ",
                  r"run|executor|trac"), at_step=2))
def train_eval_toggled_between_steps(env):
    """compiled.eval() after step 1 and compiled.train() after step 3 of one run (dropout model)."""
    s = standard(env, factory=DropNet)

    def loop(env, setup):
        for i, (x, y) in enumerate(env.executor(setup.batches), start=1):
            env.record(env.call(setup.step, x, y))
            if i == 1:
                s.c.compiled.eval()
            if i == 3:
                s.c.compiled.train()
    s.loop = loop
    return s


def _eval_step(c):
    @cstorch.trace
    @torch.no_grad()
    def eval_step(x, y):
        out = c.compiled(x)
        return {"loss": F.cross_entropy(out, y), "acc": (out.argmax(1) == y).float().mean()}
    return eval_step


@pattern()
def eval_step_same_run(env):
    """A second traced function (eval step under no_grad) called after the train step each step."""
    s = standard(env, factory=DropNet)
    ev = _eval_step(s.c)

    def loop(env, setup):
        for x, y in env.executor(setup.batches):
            env.record(train=env.call(setup.step, x, y), eval=env.call(ev, x, y))
    s.loop = loop
    return s


@pattern()
def eval_step_separate_run(env):
    """Train for one executor run, then compiled.eval() and a traced eval step in a second run."""
    s = standard(env, factory=DropNet)
    ev = _eval_step(s.c)

    def loop(env, setup):
        env.run(setup.step, setup.batches, 3)
        s.c.compiled.eval()
        env.run(ev, setup.batches[::-1], 3)
    s.loop = loop
    return s


@pattern()
def two_train_runs(env):
    """The same train step in two executor runs (the step is traced again for the second)."""
    s = standard(env, opt=sgd(momentum=0.9), factory=DropNet)

    def loop(env, setup):
        env.run(setup.step, setup.batches, 3)
        env.run(setup.step, setup.batches[2:], 3)
    s.loop = loop
    return s


@pattern()
def inference_mode_eval_run(env):
    """An eval-only run whose traced step runs under torch.inference_mode()."""
    s = standard(env)

    @cstorch.trace
    def step(x, y):
        with torch.inference_mode():
            return F.cross_entropy(s.c.compiled(x), y)
    s.step = step
    return s


# ===== no_grad updates, .data, in-place ops on parameters, views and the batch =================
def after_step(update):
    """A step body that runs ``update(c)`` after the optimizer step."""
    def body(c, x, y):
        loss = train(c, x, y)
        update(c)
        return loss
    return body


def _params(c):
    return list(c.model.parameters())


@pattern()
def nograd_clamp_params(env):
    """with no_grad: p.clamp_(-0.2, 0.2) on every parameter after the step."""
    def update(c):
        with torch.no_grad():
            for p in _params(c):
                p.clamp_(-0.2, 0.2)
    return standard(env, after_step(update), opt=sgd(lr=0.5))


@pattern()
def data_assign_clamp(env):
    """p.data = p.data.clamp(-0.2, 0.2): rebinding .data of every parameter in the step."""
    def update(c):
        for p in _params(c):
            p.data = p.data.clamp(-0.2, 0.2)
    return standard(env, after_step(update), opt=sgd(lr=0.5))


@pattern()
def data_assign_expression(env):
    """p.data = p.data * 0.9 + 0.01 (weight shrink written through .data)."""
    def update(c):
        for p in _params(c):
            p.data = p.data * 0.9 + 0.01
    return standard(env, after_step(update))


@pattern()
def data_inplace_mul(env):
    """p.data.mul_(0.99): an in-place op on .data (shares storage, not the version counter)."""
    def update(c):
        for p in _params(c):
            p.data.mul_(0.99)
    return standard(env, after_step(update))


@pattern()
def nograd_max_norm_rows(env):
    """with no_grad: w.div_(row norms clamped at 1): a max-norm constraint on fc1.weight."""
    def update(c):
        with torch.no_grad():
            w = c.model.fc1.weight
            w.div_(w.norm(dim=1, keepdim=True).clamp(min=0.5))
    return standard(env, after_step(update), opt=sgd(lr=0.5))


@pattern()
def nograd_inplace_on_param_views(env):
    """with no_grad: fc1.weight[0].zero_() and fc1.bias[:2].fill_(0.1) (views of parameters)."""
    def update(c):
        with torch.no_grad():
            c.model.fc1.weight[0].zero_()
            c.model.fc1.bias[:2].fill_(0.1)
    return standard(env, after_step(update))


@pattern()
def nograd_copy_into_param(env):
    """with no_grad: fc2.bias.copy_(fc2.bias * 0.5 + fc2.weight.mean(1))."""
    def update(c):
        with torch.no_grad():
            b = c.model.fc2.bias
            b.copy_(b * 0.5 + c.model.fc2.weight.mean(1))
    return standard(env, after_step(update))


@pattern()
def nograd_setitem_param(env):
    """with no_grad: fc1.weight[:, 0] = 0.0 and fc2.weight[fc2.weight < 0] = 0.0."""
    def update(c):
        with torch.no_grad():
            c.model.fc1.weight[:, 0] = 0.0
            w = c.model.fc2.weight
            w[w < 0] = 0.0
    return standard(env, after_step(update))


@pattern()
def inplace_on_batch(env):
    """x.mul_(2).add_(1); x += 0.5; x.clamp_(-2, 2) on the step's batch before the forward."""
    def body(c, x, y):
        x.mul_(2).add_(1)
        x += 0.5
        x.clamp_(-2, 2)
        return train(c, x, y)
    return standard(env, body)


@pattern()
def inplace_on_batch_views(env):
    """x[:, 0].zero_(), x[1].fill_(1.0), x[:, 2:4] *= 3 on the batch (views of a step input)."""
    def body(c, x, y):
        x[:, 0].zero_()
        x[1].fill_(1.0)
        x[:, 2:4] *= 3
        return train(c, x, y)
    return standard(env, body)


@pattern()
def inplace_on_labels(env):
    """y.add_(1).remainder_... on int labels: y += 1; y %= 3 written with in-place ops."""
    def body(c, x, y):
        y.add_(1)
        y.copy_(y % 3)
        return train(c, x, y)
    return standard(env, body)


@pattern()
def out_write_new_buffer(env):
    """torch.add(logits.detach(), 1.0, out=buf) into a buffer made in the step."""
    def body(c, x, y):
        out = c.compiled(x)
        buf = torch.empty(4, 3)
        torch.add(out.detach(), 1.0, out=buf)
        loss = F.cross_entropy(out, y) + 0.0 * buf.sum()
        loss.backward()
        c.opt.step()
        c.opt.zero_grad()
        return loss, buf
    return standard(env, body)


@pattern()
def out_resize_empty(env):
    """torch.mul(x, 2.0, out=torch.empty(0)): out= resizes an empty tensor, then feeds the model."""
    def body(c, x, y):
        buf = torch.empty(0)
        torch.mul(x, 2.0, out=buf)
        return train(c, buf, y)
    return standard(env, body)


@pattern()
def out_resize_nonempty(env):
    """out= into a wrong-shaped non-empty tensor (resized with torch's warning), then used."""
    def body(c, x, y):
        buf = torch.zeros(3)
        torch.clamp(x, -1.0, 1.0, out=buf)
        return train(c, buf, y)
    return standard(env, body)


class StatNet(Tiny):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(6))

    def forward(self, x):
        with torch.no_grad():
            torch.add(self.running * 0.9, x.mean(0) * 0.1, out=self.running)
        return super().forward(x - self.running)


@pattern()
def out_into_module_buffer(env):
    """torch.add(..., out=self.running) on a registered buffer inside forward."""
    return standard(env, factory=StatNet)


@pattern()
def cat_out_into_step_tensor(env):
    """torch.cat([a, b], out=buf) and torch.stack(..., out=buf2) on step tensors."""
    def body(c, x, y):
        buf = torch.empty(0)
        torch.cat([x[:, :3], x[:, 3:] * 2], dim=1, out=buf)
        st = torch.empty(2, 4)
        torch.stack([y.float(), y.float() + 1], out=st)
        loss = train(c, buf, y)
        return loss, st
    return standard(env, body)


@pattern()
def t_inplace_on_batch(env):
    """x.t_() twice on the batch (metadata in-place), then x feeds the model."""
    def body(c, x, y):
        x.t_()
        x.mul_(1.5)
        x.t_()
        return train(c, x, y)
    return standard(env, body)


@pattern()
def transpose_squeeze_unsqueeze_inplace(env):
    """z = x.unsqueeze(0).clone(); z.transpose_(0, 1); z.squeeze_(1); z.unsqueeze_(0) ..."""
    def body(c, x, y):
        z = x.unsqueeze(0).clone()
        z.transpose_(0, 1)
        z.squeeze_(1)
        z.unsqueeze_(0)
        z.squeeze_(0)
        return train(c, z, y)
    return standard(env, body)


@pattern()
def t_inplace_on_nonleaf(env):
    """h = compiled(x); h.t_(); loss uses h.t() (in-place metadata change of a non-leaf)."""
    def body(c, x, y):
        h = c.compiled(x)
        h.t_()
        loss = F.cross_entropy(h.t(), y)
        loss.backward()
        c.opt.step()
        c.opt.zero_grad()
        return loss
    return standard(env, body)


def nonleaf_inplace(op):
    """A step whose logits get ``op(h, aux)`` in place before an MSE loss against one-hot labels
    (``aux`` = tanh(h) computed first: it requires grad)."""
    def body(c, x, y):
        h = c.compiled(x) * 1.0
        aux = h.tanh()
        op(h, aux)
        loss = F.mse_loss(h, F.one_hot(y, 3).float()) + aux.sum() * 0.01
        loss.backward()
        c.opt.step()
        c.opt.zero_grad()
        return loss, h
    return body


for _name, _op, _doc in [
    ("inplace_exp_nonleaf", lambda h, a: h.exp_(), "h.exp_() (backward uses the output)."),
    ("inplace_sigmoid_nonleaf", lambda h, a: h.sigmoid_(), "h.sigmoid_() on logits."),
    ("inplace_sin_nonleaf", lambda h, a: h.sin_(),
     "h.sin_() on logits (backward needs the overwritten input)."),
    ("inplace_mul_nonleaf", lambda h, a: h.mul_(a),
     "h.mul_(tanh(h)): the gradient for tanh(h) needs the overwritten h."),
    ("inplace_div_nonleaf", lambda h, a: h.div_(a.abs() + 1),
     "h.div_(|tanh(h)| + 1): both operands require grad."),
    ("inplace_pow_nonleaf", lambda h, a: h.pow_(2), "h.pow_(2) (backward needs the base)."),
    ("inplace_relu_functional", lambda h, a: F.relu(h, inplace=True), "F.relu(h, inplace=True)."),
    ("inplace_add_nonleaf", lambda h, a: h.add_(a, alpha=0.5), "h.add_(tanh(h), alpha=0.5)."),
    ("inplace_addcmul_nonleaf", lambda h, a: h.addcmul_(a, a, value=0.5), "h.addcmul_(a, a)."),
    ("inplace_clamp_nonleaf", lambda h, a: h.clamp_(-0.3, 0.3), "h.clamp_(-0.3, 0.3)."),
    ("inplace_on_nonleaf_view", lambda h, a: h[:, 0].mul_(2.0),
     "h[:, 0].mul_(2.0): in-place on a view of a non-leaf that requires grad."),
    ("inplace_setitem_nonleaf", lambda h, a: h.__setitem__((slice(None), 1), 0.0),
     "h[:, 1] = 0.0 on logits that require grad."),
    ("inplace_masked_fill_nonleaf", lambda h, a: h.masked_fill_(a > 0.5, -1.0),
     "h.masked_fill_(tanh(h) > 0.5, -1.0)."),
]:
    PATTERNS.append(Case(_name, _doc, (lambda op: lambda env: standard(env, nonleaf_inplace(op)))(
        _op), Equal()))


# ===== gradients ================================================================================
def before_step(update):
    """A step body that runs ``update(c)`` between backward and the optimizer step."""
    def body(c, x, y):
        loss = F.cross_entropy(c.compiled(x), y)
        loss.backward()
        extra = update(c)
        c.opt.step()
        c.opt.zero_grad()
        return loss if extra is None else (loss, extra)
    return body


@pattern()
def clip_grad_norm(env):
    """torch.nn.utils.clip_grad_norm_(params, 0.1) between backward and step; returns the norm."""
    return standard(env, before_step(
        lambda c: torch.nn.utils.clip_grad_norm_(c.model.parameters(), 0.1)), opt=sgd(lr=0.5))


@pattern()
def clip_grad_value(env):
    """torch.nn.utils.clip_grad_value_(params, 0.05)."""
    return standard(env, before_step(
        lambda c: torch.nn.utils.clip_grad_value_(c.model.parameters(), 0.05)))


@pattern()
def grads_accumulate_across_steps(env):
    """Gradients never zeroed: each step's backward adds to the previous steps' .grad."""
    def body(c, x, y):
        loss = F.cross_entropy(c.compiled(x), y)
        loss.backward()
        c.opt.step()
        return loss
    return standard(env, body, opt=sgd(lr=0.05))


@pattern()
def zero_grad_first(env):
    """optimizer.zero_grad() at the start of the step (grads live between steps)."""
    def body(c, x, y):
        c.opt.zero_grad()
        loss = F.cross_entropy(c.compiled(x), y)
        loss.backward()
        c.opt.step()
        return loss
    return standard(env, body)


@pattern()
def zero_grad_set_to_none_false(env):
    """optimizer.zero_grad(set_to_none=False): grads are zero-filled tensors between steps."""
    def body(c, x, y):
        loss = F.cross_entropy(c.compiled(x), y)
        loss.backward()
        c.opt.step()
        c.opt.zero_grad(set_to_none=False)
        return loss
    return standard(env, body)


@pattern()
def retain_graph_second_backward(env):
    """loss.backward(retain_graph=True) then (0.5 * loss).backward() through the same graph."""
    def body(c, x, y):
        loss = F.cross_entropy(c.compiled(x), y)
        loss.backward(retain_graph=True)
        (0.5 * loss).backward()
        c.opt.step()
        c.opt.zero_grad()
        return loss
    return standard(env, body)


@pattern()
def microbatch_accumulation(env):
    """Two forward/backward passes (half batches, loss / 2) then one optimizer step."""
    def body(c, x, y):
        total = 0.0
        for xs, ys in zip(x.chunk(2), y.chunk(2)):
            loss = F.cross_entropy(c.compiled(xs), ys) / 2
            loss.backward()
            total = total + loss.detach()
        c.opt.step()
        c.opt.zero_grad()
        return total
    return standard(env, body)


@pattern()
def autograd_grad_manual_update(env):
    """grads = torch.autograd.grad(loss, params); with no_grad: p -= 0.1 * g (no optimizer.step)."""
    def body(c, x, y):
        loss = F.cross_entropy(c.compiled(x), y)
        grads = torch.autograd.grad(loss, list(c.model.parameters()))
        with torch.no_grad():
            for p, g in zip(c.model.parameters(), grads):
                p.sub_(0.1 * g)
        return loss, grads
    return standard(env, body)


class ScaledTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        ctx.k = 2.0
        return torch.tanh(x * ctx.k) * w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        t = torch.tanh(x * ctx.k)
        return g * w * (1 - t * t) * ctx.k, (g * t).sum(0)


class FnNet(Tiny):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(5))

    def forward(self, x):
        return self.fc2(ScaledTanh.apply(self.fc1(x), self.w))


@pattern()
def custom_autograd_function(env):
    """A custom torch.autograd.Function (save_for_backward, ctx attribute) in the forward."""
    return standard(env, factory=FnNet)


class HookNet(Tiny):
    def forward(self, x):
        h = F.relu(self.fc1(x))
        h.register_hook(lambda g: g * 0.5)
        return self.fc2(h)


@pattern()
def tensor_hook_in_step(env):
    """h.register_hook(lambda g: g * 0.5) on a hidden activation inside the forward."""
    return standard(env, factory=HookNet)


@pattern()
def param_hook_registered_before_run(env):
    """fc1.weight.register_hook(lambda g: g.clamp(-0.01, 0.01)) registered before the run."""
    s = standard(env)
    s.c.model.fc1.weight.register_hook(lambda g: g.clamp(-0.01, 0.01))
    return s


@pattern()
def retain_grad_nonleaf(env):
    """h.retain_grad() on the logits; the step returns h.grad."""
    def body(c, x, y):
        h = c.compiled(x)
        h.retain_grad()
        loss = F.cross_entropy(h, y)
        loss.backward()
        c.opt.step()
        c.opt.zero_grad()
        return loss, h.grad
    return standard(env, body)


class FrozenFirst(Tiny):
    def forward(self, x):
        with torch.no_grad():
            h = F.relu(self.fc1(x))
        return self.fc2(h)


@pattern()
def frozen_feature_extractor(env):
    """fc1 under torch.no_grad() in the forward; only fc2 gets gradients."""
    return standard(env, factory=FrozenFirst)


@pattern()
def requires_grad_false_param(env):
    """fc1.weight.requires_grad_(False) before the run (still in the optimizer, never updated)."""
    s = standard(env)
    s.c.model.fc1.weight.requires_grad_(False)
    return s


class ScaleNet(Tiny):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(1.5))
        self.shift = nn.Parameter(torch.tensor(0.0))

    def forward(self, x):
        return super().forward(x) * self.scale + self.shift


@pattern()
def zero_dim_parameters(env):
    """Two 0-d parameters (scale, shift): their gradients are 0-d sums."""
    return standard(env, factory=ScaleNet, opt=sgd(momentum=0.9))


@pattern()
def zero_dim_parameters_adamw(env):
    """0-d parameters trained with AdamW (0-d state tensors)."""
    return standard(env, factory=ScaleNet, opt=lambda ps: cstorch.optim.AdamW(ps, lr=0.01))


@pattern()
def closure_inside_trace(env):
    """A step closure called inside the traced step with the grads before zero_grad."""
    def body(c, x, y):
        loss = F.cross_entropy(c.compiled(x), y)
        loss.backward()
        c.env.record(grads=[p.grad for p in c.model.parameters()], loss=loss)
        c.opt.step()
        c.opt.zero_grad()
        return loss
    return standard(env, body)


@pattern()
def step_returns_dict_and_python_values(env):
    """The step returns {'loss', 'acc', 'n': 4, 'name': 'tiny'} (tensors and Python values)."""
    def body(c, x, y):
        out = c.compiled(x)
        loss = F.cross_entropy(out, y)
        loss.backward()
        c.opt.step()
        c.opt.zero_grad()
        return {"loss": loss, "acc": (out.argmax(1) == y).float().mean(), "n": 4, "name": "tiny"}
    return standard(env, body)


# ===== value reads and Python control flow on values: refused at trace time =====================
def _value_read(name, doc, read, words=VALUE_READ_WORDS):
    def build(env):
        def body(c, x, y):
            out = c.compiled(x)
            loss = F.cross_entropy(out, y)
            loss = read(loss, out, y)
            loss.backward()
            c.opt.step()
            c.opt.zero_grad()
            return loss
        return standard(env, body)
    PATTERNS.append(Case(name, doc, build, Refused(words)))


def _if_gt(loss, out, y):
    if loss > 1:
        return loss * 0.5
    return loss


for _name, _doc, _read in [
    ("item_in_step", "loss.item() used in Python math inside the step.",
     lambda loss, out, y: loss * (1.0 / (1.0 + loss.item()))),
    ("float_in_step", "float(loss) inside the step.", lambda loss, out, y: loss * float(loss)),
    ("if_loss_gt_1", "if loss > 1: loss = loss * 0.5 (Python branch on a value).", _if_gt),
    ("bool_any_in_step", "if (out > 3).any(): ... (bool of a tensor).",
     lambda loss, out, y: loss * 2 if (out > 3).any() else loss),
    ("tolist_in_step", "y.tolist() to build Python class weights.",
     lambda loss, out, y: loss * (1 + 0.1 * sum(y.tolist()))),
    ("numpy_in_step", "loss.detach().numpy() inside the step.",
     lambda loss, out, y: loss * float(np.tanh(loss.detach().numpy()))),
    ("int_argmax_in_step", "int(out.argmax()) used as a Python index.",
     lambda loss, out, y: loss + out.flatten()[int(out.argmax())]),
    ("format_in_step", "f'{loss:.3f}' formatted inside the step.",
     lambda loss, out, y: loss if f"{loss:.3f}" else loss),
    ("allclose_in_step", "torch.allclose(out, out2) steering Python control flow.",
     lambda loss, out, y: loss * 2 if torch.allclose(out, out * 1.0) else loss),
    ("equal_in_step", "torch.equal(y, y_sorted) steering Python control flow.",
     lambda loss, out, y: loss * 2 if torch.equal(y, y.sort().values) else loss),
]:
    _value_read(_name, _doc, _read)


# ===== host tensors mixed with the wafer's: refused as cstorch's lazy backend refuses them =======
_DEVICE_WORDS = (r"incompatible devices", r"host|cpu", r"lazy", r"device=")

for _name, _doc, _read in [
    ("host_arange_in_step", "out * torch.arange(3) made in the step without device= (a host "
     "tensor next to the wafer's).",
     lambda loss, out, y: loss + (out * torch.arange(3)).mean()),
    ("host_mask_in_step", "out.masked_fill(torch.ones(4, 3, dtype=torch.bool).triu(1), 0) with a "
     "host mask.",
     lambda loss, out, y: loss + out.masked_fill(torch.ones(4, 3, dtype=torch.bool).triu(1),
                                                 0.0).mean()),
    ("host_from_numpy_in_step", "out * torch.from_numpy(weights) (from_numpy is always on the "
     "host).",
     lambda loss, out, y: loss + (out * torch.from_numpy(np.ones(3, np.float32))).mean()),
]:
    _value_read(_name, _doc, _read, _DEVICE_WORDS)


# ===== data-dependent output shapes: refused at trace time ======================================
def _shape_words(op):
    return (op, r"shape|size", r"data|value|depend", r"\buse\b|instead|fixed|static")


for _name, _op, _doc, _read in [
    ("nonzero_in_step", "nonzero", "(y > 0).nonzero() selects rows of the logits.",
     lambda loss, out, y: loss + out[(y > 0).nonzero()[:, 0]].sum()),
    ("unique_in_step", "unique", "torch.unique(y) counts the classes present.",
     lambda loss, out, y: loss + out[:, torch.unique(y)].sum()),
    ("bincount_in_step", "bincount", "torch.bincount(y) weights the loss by class frequency.",
     lambda loss, out, y: loss * torch.bincount(y).float().sum()),
    ("masked_select_in_step", "masked_select", "torch.masked_select(out, out > 0).",
     lambda loss, out, y: loss + torch.masked_select(out, out > 0).sum()),
    ("repeat_interleave_counts_in_step", "repeat_interleave",
     "torch.repeat_interleave(y): one-argument form (output length = sum of counts).",
     lambda loss, out, y: loss + torch.repeat_interleave(y).float().sum()),
    ("bool_mask_getitem_in_step", r"index|mask", "out[out > 0] (boolean-mask indexing).",
     lambda loss, out, y: loss + out[out > 0].sum()),
]:
    _value_read(_name, _doc, _read, _shape_words(_op))


# ===== optimizer state and Python state =========================================================
class LazyStateSGD(cstorch.optim.Optimizer):
    """A torch-style momentum SGD written by a user: state created lazily in step()."""

    def __init__(self, params, lr=0.1, momentum=0.9):
        super().__init__(params, {"lr": lr, "momentum": momentum})

    def preinitialize(self):
        pass

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = torch.clone(p.grad).detach()
                else:
                    state["momentum_buffer"].mul_(group["momentum"]).add_(p.grad)
                p.add_(state["momentum_buffer"], alpha=-group["lr"])


@pattern(Refused((r"state", r"preinitialize")))
def optimizer_state_created_in_step(env):
    """A user Optimizer subclass creating its momentum buffers lazily in step()."""
    return standard(env, opt=lambda ps: LazyStateSGD(ps))


class ExternalBufSGD(cstorch.optim.Optimizer):
    """Momentum kept in ``self.bufs`` (outside ``self.state``), created in step()."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, {"lr": lr})
        self.bufs = {}

    def preinitialize(self):
        pass

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p not in self.bufs:
                    self.bufs[p] = torch.zeros_like(p)
                self.bufs[p].mul_(0.9).add_(p.grad)
                p.sub_(self.bufs[p] * group["lr"])


@pattern(Refused((r"ExternalBufSGD|\bbufs\b", r"python|attribute|outside|self\.state",
                  r"preinitialize|self\.state|tensor")))
def optimizer_state_outside_self_state(env):
    """Momentum buffers in optimizer.bufs (a Python dict), created in step()."""
    return standard(env, opt=lambda ps: ExternalBufSGD(ps))


class PreBufSGD(cstorch.optim.Optimizer):
    """Momentum in ``self.bufs`` (outside ``self.state``) but created before the first step."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, {"lr": lr})
        self.bufs = {p: cstorch.zeros_like(p) for g in self.param_groups for p in g["params"]}

    def preinitialize(self):
        pass

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                self.bufs[p].mul_(0.9).add_(p.grad)
                p.sub_(self.bufs[p] * group["lr"])


@pattern()
def optimizer_state_outside_preallocated(env):
    """Momentum tensors outside self.state, allocated before the run and updated in place."""
    s = standard(env, opt=lambda ps: PreBufSGD(ps))
    s.extra = lambda: {"bufs": list(s.optimizers[0].bufs.values())}
    return s


class ReboundSGD(cstorch.optim.Optimizer):
    """Momentum in ``self.state`` (preinitialized) but rebound to a new tensor every step."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, {"lr": lr})

    def preinitialize(self):
        for g in self.param_groups:
            for p in g["params"]:
                self.state[p]["buf"] = cstorch.zeros_like(p)

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["buf"] = self.state[p]["buf"] * 0.9 + p.grad
                p.sub_(self.state[p]["buf"] * group["lr"])


@pattern()
def optimizer_state_rebound_each_step(env):
    """state[p]['buf'] = state[p]['buf'] * 0.9 + grad: preinitialized state rebound each step."""
    return standard(env, opt=lambda ps: ReboundSGD(ps))


class CountingSGD(cstorch.optim.SGD):
    """SGD whose lr warms up with a Python counter ``self.n_updates`` incremented in step()."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, lr=lr)
        self.n_updates = 0

    def step(self, closure=None):
        self.n_updates += 1
        for g in self.param_groups:
            g["lr"] = 0.1 * min(1.0, self.n_updates / 3)
        return super().step(closure)


PY_STATE = r"python|attribute|counter"
PY_FIX = r"tensor|buffer|register_buffer|step.?closure|outside"


@pattern(Refused((r"n_updates|CountingSGD", PY_STATE, PY_FIX)))
def python_counter_on_optimizer(env):
    """optimizer.n_updates += 1 in step() drives a Python-float lr warmup."""
    return standard(env, opt=lambda ps: CountingSGD(ps))


class CountingNet(Tiny):
    def __init__(self, use=True):
        super().__init__()
        self.calls = 0
        self.use = use

    def forward(self, x):
        self.calls += 1
        out = super().forward(x)
        return out * (1.0 + 0.1 * self.calls) if self.use else out


@pattern(Refused((r"\bcalls\b|CountingNet", PY_STATE, PY_FIX)))
def python_counter_on_module(env):
    """self.calls += 1 in forward, used to scale the logits."""
    return standard(env, factory=CountingNet)


@pattern(Refused((r"\bcalls\b|CountingNet", PY_STATE, PY_FIX)))
def python_counter_on_module_unused(env):
    """self.calls += 1 in forward, never used in a tensor op."""
    return standard(env, factory=lambda: CountingNet(use=False))


def _side_effect_check(cpu, csx):
    """SPEC 5: Python side effects in the body happen once per run on CSX (every step on CPU);
    the tensors are unaffected."""
    name = "python_side_effect_once_per_run"
    c, x = cpu[name]["values"], csx[name]["values"]
    assert cpu[name]["outcome"]["status"] == csx[name]["outcome"]["status"] == "ok"
    assert c["extra/body_runs"][2] == 5 and x["extra/body_runs"][2] == 1, \
        (c["extra/body_runs"], x["extra/body_runs"])
    d = diff_records({k: v for k, v in c.items() if not k.startswith("extra/")},
                     {k: v for k, v in x.items() if not k.startswith("extra/")})
    assert not d, d


@pattern(Documented("5", _side_effect_check))
def python_side_effect_once_per_run(env):
    """The step appends to a Python list (a log) that no tensor op reads."""
    log = []

    def body(c, x, y):
        log.append("step")
        return train(c, x, y)
    s = standard(env, body)
    s.extra = lambda: {"body_runs": len(log)}
    return s


def _frozen_check(cpu, csx):
    """SPEC 5: Python control flow is frozen at capture: a local counter read by the step keeps
    its first-step value on CSX (equal to a CPU run where it is the constant 1)."""
    d = diff_records(cpu["python_local_counter_twin_constant"]["values"],
                     csx["python_local_counter_frozen"]["values"])
    assert not d, d


def _counter_body(constant):
    calls = [0]

    def body(c, x, y):
        calls[0] += 1
        out = c.compiled(x) * (1.0 + 0.1 * (1 if constant else calls[0]))
        loss = F.cross_entropy(out, y)
        loss.backward()
        c.opt.step()
        c.opt.zero_grad()
        return loss
    return body


@pattern(Documented("5", _frozen_check))
def python_local_counter_frozen(env):
    """A counter in a closure variable (no object the backend knows) scales the logits."""
    return standard(env, _counter_body(False))


@pattern()
def python_local_counter_twin_constant(env):
    """Twin of python_local_counter_frozen with the counter fixed at 1."""
    return standard(env, _counter_body(True))


# ===== random numbers in the step (the generators' state is device state) =======================
def noisy(make_noise):
    """A step training on ``x + make_noise(x)``; the noise is returned too."""
    def body(c, x, y):
        noise = make_noise(x)
        return train(c, x + noise, y), noise
    return body


@pattern()
def randn_like_noise(env):
    """x + 0.1 * torch.randn_like(x) from the global generator."""
    return standard(env, noisy(lambda x: 0.1 * torch.randn_like(x)))


@pattern()
def manual_seed_in_step(env):
    """torch.manual_seed(1234) at the start of the step, then dropout and rand: same every step."""
    def body(c, x, y):
        torch.manual_seed(1234)
        return noisy(lambda x: torch.rand(4, 6, device=x.device))(c, x, y)
    return standard(env, body, factory=DropNet)


@pattern()
def generator_created_in_step(env):
    """g = torch.Generator().manual_seed(7) in the step; torch.randn(..., generator=g)."""
    def make(x):
        g = torch.Generator().manual_seed(7)
        return torch.randn(x.shape, generator=g, device=x.device) * 0.1
    return standard(env, noisy(make))


@pattern()
def generator_created_before_run(env):
    """A torch.Generator made before the run advances every step (randn and bernoulli)."""
    g = torch.Generator().manual_seed(11)

    def make(x):
        return torch.randn(x.shape, generator=g, device=x.device) * torch.empty(
            x.shape, device=x.device).bernoulli_(0.5, generator=g)
    return standard(env, noisy(make))


@pattern()
def fork_rng_in_step(env):
    """with torch.fork_rng(): manual_seed(3); rand(...) - the global stream continues outside."""
    def make(x):
        with torch.fork_rng():
            torch.manual_seed(3)
            a = torch.rand(x.shape, device=x.device)
        return a + torch.rand(x.shape, device=x.device)
    return standard(env, noisy(make), factory=DropNet)


@pattern()
def rng_state_get_set_in_step(env):
    """s = torch.get_rng_state(); a = rand(); torch.set_rng_state(s); b = rand() (a == b)."""
    def make(x):
        s = torch.get_rng_state()
        a = torch.rand(x.shape, device=x.device)
        torch.set_rng_state(s)
        return a - torch.rand(x.shape, device=x.device) + torch.rand(x.shape, device=x.device)
    return standard(env, noisy(make))


@pattern()
def randperm_shuffle_in_step(env):
    """perm = torch.randperm(4); train on x[perm], y[perm]."""
    def body(c, x, y):
        perm = torch.randperm(4)
        return train(c, x[perm], y[perm]), perm
    return standard(env, body)


@pattern()
def inplace_random_fills_in_step(env):
    """n = torch.empty_like(x); n.normal_(); n.uniform_(-1, 1) ...; bernoulli_/exponential_."""
    def make(x):
        a = torch.empty_like(x).normal_(0, 0.1)
        b = torch.empty_like(x).uniform_(-0.1, 0.1)
        m = torch.empty_like(x).bernoulli_(0.8)
        e = torch.empty_like(x).exponential_(10.0)
        return (a + b + e) * m
    return standard(env, noisy(make))


# ===== buffers and modules ======================================================================
class CountBuf(Tiny):
    def __init__(self, inplace, dtype=torch.float32):
        super().__init__()
        self.inplace = inplace
        self.register_buffer("count", torch.zeros((), dtype=dtype))
        self.register_buffer("ema", torch.zeros(6))

    def forward(self, x):
        if self.inplace:
            self.count.add_(1)
            self.ema.mul_(0.9).add_(0.1 * x.mean(0))
        else:
            self.count = self.count + 1
            self.ema = 0.9 * self.ema + 0.1 * x.mean(0)
        return super().forward(x - self.ema) * (1 + 0.01 * self.count)


@pattern()
def buffer_rebound_in_forward(env):
    """self.count = self.count + 1 and self.ema = 0.9 * self.ema + ... on registered buffers."""
    return standard(env, factory=lambda: CountBuf(False))


@pattern()
def buffer_rebound_int64_counter(env):
    """An int64 registered buffer rebound in forward (self.count = self.count + 1)."""
    return standard(env, factory=lambda: CountBuf(False, torch.int64))


@pattern()
def buffer_inplace_in_forward(env):
    """self.count.add_(1) and self.ema.mul_(0.9).add_(...) on registered buffers."""
    return standard(env, factory=lambda: CountBuf(True))


class TiedNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(7, 4)
        self.out = nn.Linear(4, 7, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, tokens):
        return self.out(self.emb(tokens).mean(1))


def _tokens(n=5, seed=1):
    rng = np.random.default_rng(seed)
    return [(torch.from_numpy(rng.integers(0, 7, (4, 5))), torch.from_numpy(rng.integers(0, 7, 4)))
            for _ in range(n)]


@pattern()
def tied_embedding_weights(env):
    """Embedding and output projection share one weight (gradients from both uses add)."""
    return standard(env, factory=TiedNet, batches=_tokens(), opt=sgd(momentum=0.9))


class TwiceNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        return self.head(self.fc(torch.tanh(self.fc(x))))


@pattern()
def module_applied_twice(env):
    """The same Linear applied twice in one forward."""
    return standard(env, factory=TwiceNet)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(2 * 3 * 3, 3)

    def forward(self, x):
        return self.fc(self.pool(F.relu(self.conv(x))).flatten(1))


@pattern()
def conv_pool_model(env):
    """Conv2d + MaxPool2d + Linear on (4, 1, 6, 6) images."""
    return standard(env, factory=ConvNet, batches=env.batches(shape=(4, 1, 6, 6)),
                    opt=sgd(momentum=0.9))


class AttnNet(nn.Module):
    def __init__(self, d=6):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, 3)

    def forward(self, x):  # x: (B, T, d)
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        s = q @ k.transpose(-2, -1) / 6 ** 0.5
        mask = torch.triu(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool, device=x.device), 1)
        a = F.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
        return self.head((a @ v).mean(1))


@pattern()
def causal_attention_block(env):
    """LayerNorm, qkv chunk, causal masked_fill(-inf), softmax, matmuls (AdamW)."""
    return standard(env, factory=AttnNet, batches=env.batches(shape=(4, 5, 6)),
                    opt=lambda ps: cstorch.optim.AdamW(ps, lr=0.01))


# ===== ops in the step whose results replay must reproduce ======================================
def op_step(extra):
    """A train step whose loss adds ``extra(out, x, y)`` (a tensor expression) to the
    cross-entropy; the extra term is returned too."""
    def body(c, x, y):
        out = c.compiled(x)
        term = extra(out, x, y)
        loss = F.cross_entropy(out, y) + term
        loss.backward()
        c.opt.step()
        c.opt.zero_grad()
        return loss, term
    return body


def _conversions(out, x, y):
    m = x > 0
    parts = [m.float().mean(), m.to(torch.float32).sum() * 0.01, m.type(torch.float32).mean(),
             m.long().float().mean(), m.int().sum().float() * 0.01, m.double().mean().float(),
             (out > 0).type("torch.FloatTensor").mean(), y.to(torch.float64).mean().float(),
             (y.bool() & m[:, 0]).float().sum(), (out * m[:, :3].float()).sum() * 0.1]
    return sum(parts)


def _index_add(out, x, y):
    acc = torch.zeros(3, 3, device=out.device).index_add(0, y, out)  # repeated labels accumulate
    return acc.pow(2).sum() * 0.01


for _name, _doc, _extra in [
    ("list_indexing", "out[[0, 2, 1]] and out[:, [2, 0]] (advanced indexing with lists).",
     lambda out, x, y: out[[0, 2, 1]].sum() * 0.1 + out[:, [2, 0]].pow(2).mean()),
    ("diag_of_vector", "torch.diag(out.mean(0)) (a matrix built from a vector in the step).",
     lambda out, x, y: (torch.diag(out.mean(0)) @ out.t()).pow(2).mean() * 0.1),
    ("tensor_of_step_tensor", "t = torch.tensor(out.detach()) used as a (constant) target.",
     lambda out, x, y: (out - torch.tensor(out.detach()) * 0.5).pow(2).mean()),
    ("from_numpy_in_step", "torch.from_numpy(np.linspace(...)) made in the step weights the loss.",
     lambda out, x, y: (out * torch.from_numpy(np.linspace(0.5, 1.5, 3, dtype=np.float32))
                        .to(out.device)).mean()),
    ("isclose_in_step", "torch.isclose(out, out.round(), atol=0.3) as a float mask.",
     lambda out, x, y: (out * torch.isclose(out, out.round(), atol=0.3).float()).sum() * 0.1),
    ("shift_ops_in_step", "(y << 2) >> 1 and y >> 1 on int64 labels feed one_hot.",
     lambda out, x, y: (out * F.one_hot(((y << 2) >> 1) % 3, 3).float()).sum() * 0.1
     + (y >> 1).float().sum() * 0.01),
    ("index_select_in_step", "out.index_select(0, y) (labels as row indices).",
     lambda out, x, y: out.index_select(0, y).pow(2).mean()),
    ("index_add_in_step", "zeros(3, 3).index_add(0, y, out): repeated indices accumulate.",
     _index_add),
    ("index_copy_in_step", "zeros(4, 3).index_copy(0, x[:, 0].argsort(), out): a step-made "
     "permutation.",
     lambda out, x, y: torch.zeros(4, 3, device=out.device).index_copy(
         0, x[:, 0].argsort(), out).pow(2).mean()),
    ("index_fill_in_step", "out.index_fill(1, y[:2], 0.0) (labels as column indices).",
     lambda out, x, y: out.index_fill(1, y[:2], 0.0).pow(2).mean()),
    ("gather_scatter_in_step", "out.gather(1, y[:, None]) and zeros.scatter(1, y[:, None], out).",
     lambda out, x, y: out.gather(1, y[:, None]).sum() * 0.1
     + torch.zeros(4, 3, device=out.device).scatter(1, y[:, None], out).pow(2).mean()),
    ("one_hot_mse_in_step", "F.one_hot(y, 3).float() as an MSE target.",
     lambda out, x, y: F.mse_loss(out.softmax(1), F.one_hot(y, 3).float())),
    ("mask_dtype_conversions", "x > 0 converted with .float(), .to, .type(dtype), .type(str), "
     ".long(), .int(), .double(), .bool() and used in the loss.", _conversions),
    ("where_mask_in_step", "torch.where(out > 0, out, 0.1 * out) (leaky branch without Python).",
     lambda out, x, y: torch.where(out > 0, out, 0.1 * out).pow(2).mean()),
    ("argmax_accuracy_in_step", "(out.argmax(1) == y).float().mean() returned as a metric.",
     lambda out, x, y: 0.0 * out.sum() + (out.argmax(1) == y).float().mean()),
    ("topk_sort_cumsum_in_step", "out.topk(2), out.sort(descending=True), out.cumsum(1).",
     lambda out, x, y: out.topk(2, dim=1).values.sum() * 0.1
     + out.sort(dim=1, descending=True).values[:, 0].mean() * 0.1 + out.cumsum(1).pow(2).mean()),
    ("count_nonzero_in_step", "torch.count_nonzero(out > 0, dim=1): a static shape.",
     lambda out, x, y: (out.sum(1) * torch.count_nonzero(out > 0, dim=1).float()).mean() * 0.1),
    ("bool_mask_setitem_in_step", "o = out.clone(); o[o < 0] = 0.0 (mask assignment).",
     lambda out, x, y: _mask_set(out)),
    ("any_all_as_tensors", "(x > 2).any().float() and (x > -5).all() used as tensors.",
     lambda out, x, y: out.sum() * (x > 2).any().float() * 0.1
     + torch.where((x > -5).all(), out.mean(), out.mean() * 2)),
    ("einsum_and_bmm_in_step", "torch.einsum('bi,bj->ij', out, x) and bmm of step tensors.",
     lambda out, x, y: torch.einsum("bi,bj->ij", out, x).pow(2).mean() * 0.1
     + torch.bmm(out[:, None], out[:, :, None]).mean() * 0.1),
    ("clamp_with_tensor_bounds", "out.clamp(min=lo_tensor, max=hi_tensor) with step tensors.",
     lambda out, x, y: out.clamp(min=x[:, :3] - 1, max=x[:, 3:] + 1).pow(2).mean()),
    ("arange_and_full_in_step", "torch.arange / full / ones_like made in the step.",
     lambda out, x, y: (out * torch.arange(3, device=out.device).float()).mean()
     + (torch.full((4, 3), 0.5, device=out.device) * torch.ones_like(out) * out).mean()),
    ("nan_to_num_log_in_step", "torch.log(out) has NaNs for negative logits; nan_to_num them.",
     lambda out, x, y: torch.nan_to_num(torch.log(out), nan=0.0, neginf=-1.0).mean() * 0.1),
]:
    PATTERNS.append(Case(_name, _doc, (lambda e: lambda env: standard(env, op_step(e)))(_extra),
                         Equal()))


def _mask_set(out):
    o = out.clone()
    o[o < 0] = 0.0
    return o.pow(2).mean()


# ===== cases that fail today: name -> root cause (strict xfail; see causes.py) =================
XFAIL: dict = {}

for _case in PATTERNS:
    _case.xfail = XFAIL.get(_case.name)

"""Generated training steps: random compositions of the pieces a cstorch script is made of.

The pattern corpus names one construct per case; this module draws whole steps instead -- a
model (an MLP, a small CNN or an embedding model, with norms, activations, dropout, a residual
block), a loss (plus maybe an L2 penalty), an optimizer from cstorch's list with random options
(maybe two param groups), maybe a scheduler, gradient clipping, a no_grad update of the
parameters, micro-batches, where ``zero_grad`` runs and what the step returns -- so that
combinations nobody wrote down get run on both backends. Every construct drawn here runs on the
wafer, so every generated case expects ``Equal``: CSX gives the CPU backend's values bit for bit.

A program is a pure function of ``(seed, index)`` (:func:`spec`), printed as one line
(:func:`describe`) so a failure can be read and rebuilt. As a campaign::

    python -m tests.csx.equivalence.generated --seed 3 --count 200 [--start 0] [--minimize]

runs each program on the CPU and CSX backends in this process and prints every difference
(with ``--minimize``: the program with as many optional pieces switched off as keep it failing).
With ``--resume CPU|CSX`` it checks instead that each program, resumed from a checkpoint after
its third step in a fresh backend, ends bit for bit where five uninterrupted steps end
(:func:`resume_differences`). The suite runs the first programs of seed 0 with the rest of the
corpus (``runner.all_cases``) and the resume check on a few of them.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

import numpy as np

import minitorch_cs as cstorch
from minitorch_cs import torch
from minitorch_cs.torch import nn
from minitorch_cs.torch.nn import functional as F

from .harness import Case, Equal, Setup, diff_records, run_case

__all__ = ["spec", "describe", "build", "generated_cases", "SUITE_SEED", "SUITE_COUNT"]

SUITE_SEED, SUITE_COUNT = 0, 16
CLASSES = 3

_ACTS = {"relu": nn.ReLU, "gelu": nn.GELU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid,
         "leaky_relu": lambda: nn.LeakyReLU(0.1), "elu": nn.ELU, "silu": nn.SiLU,
         "softplus": nn.Softplus, "gelu_tanh": lambda: nn.GELU(approximate="tanh")}

_O = cstorch.optim
_OPTIMIZERS = {
    "sgd": lambda r: (dict(lr=r.choice([0.05, 0.1, 0.3]), momentum=r.choice([0.0, 0.9]),
                           weight_decay=r.choice([0.0, 0.01])), _O.SGD),
    "sgd_nesterov": lambda r: (dict(lr=0.1, momentum=0.9, nesterov=True), _O.SGD),
    "adam": lambda r: (dict(lr=0.01, weight_decay=r.choice([0.0, 0.01]),
                            amsgrad=r.random() < 0.3), _O.Adam),
    "adamw": lambda r: (dict(lr=0.01, weight_decay=r.choice([0.0, 0.05]),
                             correct_bias=r.random() < 0.8), _O.AdamW),
    "rmsprop": lambda r: (dict(lr=0.01, momentum=r.choice([0.0, 0.9]),
                               centered=r.random() < 0.5), _O.RMSprop),
    "adagrad": lambda r: (dict(lr=0.1, lr_decay=r.choice([0.0, 0.01])), _O.Adagrad),
    "adamax": lambda r: (dict(lr=0.01), _O.Adamax),
    "nadam": lambda r: (dict(lr=0.01), _O.NAdam),
    "radam": lambda r: (dict(lr=0.01), _O.RAdam),
    "lamb": lambda r: (dict(lr=0.01, weight_decay=r.choice([0.0, 0.01])), _O.Lamb),
    "lion": lambda r: (dict(lr=0.001, weight_decay=r.choice([0.0, 0.1])), _O.Lion),
    "adadelta": lambda r: (dict(lr=1.0), _O.Adadelta),
    "rprop": lambda r: (dict(lr=0.01), _O.Rprop),
}

_LR = cstorch.optim.lr_scheduler
_SCHEDULERS = {
    "linear": lambda o, lr: _LR.LinearLR(o, lr, lr / 10, total_iters=4),
    "step": lambda o, lr: _LR.StepLR(o, lr, step_size=2, gamma=0.5),
    "cosine": lambda o, lr: _LR.CosineDecayLR(o, lr, lr / 10, total_iters=5),
    "exponential": lambda o, lr: _LR.ExponentialLR(o, lr, total_iters=2, decay_rate=0.8),
}

# the optional pieces :func:`minimize` may switch off (key -> its "off" value)
OPTIONAL = {"norm": None, "dropout": 0.0, "residual": False, "penalty": False, "groups": False,
            "sched": None, "clip": None, "nograd_update": None, "micro": 1, "extra_out": False,
            "zero_grad": "after", "pool": None, "bias": True, "freeze": False, "hook": False,
            "retain": False, "input_inplace": False, "return_logits": False, "two_opt": False,
            "act_ckpt": None, "loop": "single"}


# ----- drawing a program ---------------------------------------------------------------------------
def spec(seed: int, index: int) -> dict:
    """The program ``index`` of ``seed``: a dict of plain values (see :func:`describe`)."""
    r = random.Random(f"minitorch_cs generated step {seed}:{index}")
    kind = r.choice(["mlp", "mlp", "conv", "embed"])
    s = {"kind": kind, "batch": r.choice([4, 6]), "data_seed": r.randrange(1000)}
    s["act"] = r.choice(sorted(_ACTS))
    s["bias"] = r.random() < 0.85
    s["dropout"] = r.choice([0.0, 0.0, 0.25])
    if kind == "mlp":
        s["width"] = r.choice([4, 5, 8])
        s["depth"] = r.choice([1, 2])
        s["norm"] = r.choice([None, None, "layer", "batch"])
        s["residual"] = r.random() < 0.3
        s["pool"] = None
    elif kind == "conv":
        s["channels"] = r.choice([2, 3])
        s["stride"], s["padding"] = r.choice([(1, 0), (1, 1), (2, 1)])
        s["norm"] = r.choice([None, "batch"])
        s["pool"] = r.choice([None, "max", "avg"])
        s["residual"] = False
    else:
        s["vocab"], s["dim"] = r.choice([7, 11]), r.choice([4, 6])
        s["norm"] = r.choice([None, "layer"])
        s["residual"] = r.random() < 0.3
        s["pool"] = None
    s["loss"] = r.choice(["cross_entropy", "cross_entropy_smooth", "cross_entropy_sum", "nll",
                          "mse_softmax", "bce_logits"])
    s["penalty"] = r.random() < 0.2
    s["opt"] = r.choice(sorted(_OPTIMIZERS))
    s["opt_seed"] = r.randrange(1000)
    s["groups"] = r.random() < 0.2
    s["sched"] = r.choice([None, None, None] + sorted(_SCHEDULERS)) \
        if s["opt"] not in ("adadelta", "rprop") else None
    s["clip"] = r.choice([None, None, "norm", "value"])
    s["nograd_update"] = r.choice([None, None, None, "clamp", "scale"])
    s["micro"] = r.choice([1, 1, 1, 2])
    s["zero_grad"] = r.choice(["after", "after", "before", "keep_zeros", "never"])
    s["extra_out"] = r.random() < 0.4
    s["freeze"] = r.random() < 0.15
    s["hook"] = r.random() < 0.2
    s["retain"] = r.random() < 0.15
    s["input_inplace"] = kind != "embed" and r.random() < 0.2
    s["return_logits"] = r.random() < 0.2
    s["two_opt"] = r.random() < 0.15
    # (the reentrant form needs an input that requires grad: not the embedding's tokens)
    s["act_ckpt"] = r.choice([None, None, None, None, "non_reentrant"] +
                             (["reentrant"] if kind != "embed" else []))
    s["loop"] = r.choice(["single", "single", "single", "sched_outside", "eval_after",
                          "two_runs", "resume"])
    return s


def describe(s: dict) -> str:
    """One line naming every choice of ``s`` (enough to rebuild it with :func:`build`)."""
    return " ".join(f"{k}={v}" for k, v in s.items())


# ----- building it -------------------------------------------------------------------------------
def _norm(kind, n, dims):
    if kind == "layer":
        return nn.LayerNorm(n)
    if kind == "batch":
        return nn.BatchNorm1d(n) if dims == 1 else nn.BatchNorm2d(n)
    return nn.Identity()


class _Residual(nn.Module):
    """x + act(norm(linear(x)))"""

    def __init__(self, n, s):
        super().__init__()
        self.fc = nn.Linear(n, n, bias=s["bias"])
        self.norm = _norm(s["norm"], n, 1)
        self.act = _ACTS[s["act"]]()

    def forward(self, x):
        return x + self.act(self.norm(self.fc(x)))


class _Embed(nn.Module):
    """Token embeddings, mean over positions, maybe a residual block, a linear head."""

    def __init__(self, s):
        super().__init__()
        self.emb = nn.Embedding(s["vocab"], s["dim"])
        self.body = _Residual(s["dim"], s) if s["residual"] else _norm(s["norm"], s["dim"], 1)
        self.drop = nn.Dropout(s["dropout"])
        self.head = nn.Linear(s["dim"], CLASSES, bias=s["bias"])

    def forward(self, tokens):
        return self.head(self.drop(self.body(self.emb(tokens).mean(dim=1))))


def _model(s):
    act = _ACTS[s["act"]]
    if s["kind"] == "embed":
        return _Embed(s)
    layers = []
    if s["kind"] == "conv":
        c, k = s["channels"], 3
        layers += [nn.Conv2d(1, c, k, stride=s["stride"], padding=s["padding"], bias=s["bias"]),
                   _norm(s["norm"], c, 2), act()]
        side = (6 + 2 * s["padding"] - k) // s["stride"] + 1
        if s["pool"] is not None:
            layers.append(nn.MaxPool2d(2) if s["pool"] == "max" else nn.AvgPool2d(2))
            side //= 2
        layers += [nn.Flatten(), nn.Dropout(s["dropout"]), nn.Linear(c * side * side, CLASSES)]
        return nn.Sequential(*layers)
    n_in, w = 6, s["width"]
    for i in range(s["depth"]):
        layers += [nn.Linear(n_in if i == 0 else w, w, bias=s["bias"]), _norm(s["norm"], w, 1),
                   act()]
        if s["dropout"]:
            layers.append(nn.Dropout(s["dropout"]))
    if s["residual"]:
        layers.append(_Residual(w, s))
    layers.append(nn.Linear(w, CLASSES, bias=s["bias"]))
    return nn.Sequential(*layers)


def _batches(s, n):
    rng = np.random.default_rng(s["data_seed"])
    b = s["batch"]
    out = []
    for _ in range(n):
        if s["kind"] == "conv":
            x = torch.from_numpy(rng.standard_normal((b, 1, 6, 6)).astype(np.float32))
        elif s["kind"] == "embed":
            x = torch.from_numpy(rng.integers(0, s["vocab"], (b, 5)).astype(np.int64))
        else:
            x = torch.from_numpy(rng.standard_normal((b, 6)).astype(np.float32))
        out.append((x, torch.from_numpy(rng.integers(0, CLASSES, b).astype(np.int64))))
    return out


def _loss(s, logits, y, model):
    kind = s["loss"]
    if kind == "cross_entropy":
        loss = F.cross_entropy(logits, y)
    elif kind == "cross_entropy_smooth":
        loss = F.cross_entropy(logits, y, label_smoothing=0.1)
    elif kind == "cross_entropy_sum":
        loss = F.cross_entropy(logits, y, reduction="sum")
    elif kind == "nll":
        loss = F.nll_loss(F.log_softmax(logits, dim=1), y)
    elif kind == "mse_softmax":
        loss = F.mse_loss(F.softmax(logits, dim=1), F.one_hot(y, CLASSES).float())
    else:
        loss = F.binary_cross_entropy_with_logits(logits, F.one_hot(y, CLASSES).float())
    if s["penalty"]:
        loss = loss + 1e-3 * sum((p * p).sum() for p in model.parameters())
    return loss


def _optimizers(s, model):
    """The program's optimizer(s): with ``two_opt``, the last parameter (the head's bias or
    weight) gets its own SGD with momentum."""
    params = list(model.parameters())
    if s["two_opt"] and len(params) > 1:
        return [_optimizer(s, params[:-1]), _O.SGD(params[-1:], lr=0.05, momentum=0.9)]
    return [_optimizer(s, params)]


def _optimizer(s, params):
    kw, cls = _OPTIMIZERS[s["opt"]](random.Random(s["opt_seed"]))
    if s["groups"] and len(params) > 1:
        half = len(params) // 2
        return cls([{"params": params[:half]},
                    {"params": params[half:], "lr": kw["lr"] / 2}], **kw)
    return cls(params, **kw)


def build(s: dict, env) -> Setup:
    """The program ``s`` as a case's setup under ``env``'s backend."""
    model = env.model(lambda: _model(s))
    if s["freeze"]:
        next(iter(model.parameters())).requires_grad_(False)
    compiled = env.compile(model)
    opts = _optimizers(s, model)
    opt = opts[0]
    scheds = [_SCHEDULERS[s["sched"]](opt, opt.param_groups[0]["lr"])] if s["sched"] else []
    inside = scheds if s["loop"] != "sched_outside" else []

    def run_model(x):
        if s["act_ckpt"] is None:
            return compiled(x)
        from minitorch_cs.torch.utils.checkpoint import checkpoint
        if x.is_floating_point():
            x = x.detach().requires_grad_()
        return checkpoint(compiled, x, use_reentrant=s["act_ckpt"] == "reentrant")

    def forward_backward(x, y, scale):
        logits = run_model(x)
        if s["hook"]:
            logits.register_hook(lambda g: g * 0.5)
        loss = _loss(s, logits, y, model)
        if s["retain"]:  # a first backward keeps the graph for a second, half as strong
            loss.backward(retain_graph=True)
            scale = scale * 0.5
        (loss * scale if scale != 1 else loss).backward()
        return logits, loss

    @cstorch.trace
    def step(x, y):
        if s["input_inplace"]:
            x.mul_(2.0)
        if s["zero_grad"] == "before":
            for o in opts:
                o.zero_grad()
        if s["micro"] == 1:
            logits, loss = forward_backward(x, y, 1)
        else:
            total = 0.0
            for xs, ys in zip(x.chunk(s["micro"]), y.chunk(s["micro"])):
                logits, part = forward_backward(xs, ys, 1.0 / s["micro"])
                total = total + part.detach() / s["micro"]
            loss = total
        out = {"loss": loss}
        if s["clip"] == "norm":
            out["norm"] = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        elif s["clip"] == "value":
            torch.nn.utils.clip_grad_value_(model.parameters(), 0.05)
        for o in opts:
            o.step()
        for sc in inside:
            sc.step()
        if s["nograd_update"] is not None:
            with torch.no_grad():
                for p in model.parameters():
                    if s["nograd_update"] == "clamp":
                        p.clamp_(-0.5, 0.5)
                    else:
                        p.mul_(0.99)
        for o in opts:
            if s["zero_grad"] == "after":
                o.zero_grad()
            elif s["zero_grad"] == "keep_zeros":
                o.zero_grad(set_to_none=False)
        if s["extra_out"]:
            out["accuracy"] = (logits.argmax(dim=1) == y[-logits.shape[0]:]).float().mean()
            out["logit_mean"] = logits.detach().mean()
        if s["return_logits"]:
            out["logits"] = logits
        if inside:
            out["lr"] = opt.param_groups[0]["lr"]
        return out

    setup = Setup(step, _batches(s, 5), {"m": model}, opts, scheds)
    if s["loop"] != "single":
        setup.loop = _LOOPS[s["loop"]](s, model, compiled, opts, scheds)
    return setup


# ----- the loops around the step -----------------------------------------------------------------
def _sched_outside(s, model, compiled, opts, scheds):
    """The schedulers step after each traced step, outside it."""
    def loop(env, setup):
        for x, y in env.executor(setup.batches):
            out = env.call(setup.step, x, y)
            for sc in scheds:
                sc.step()
            env.record(out, [o.param_groups[0]["lr"] for o in opts])
    return loop


def _eval_after(s, model, compiled, opts, scheds):
    """Three training steps, then compiled.eval() and a traced no_grad eval step in a second run."""
    @cstorch.trace
    @torch.no_grad()
    def evaluate(x, y):
        logits = compiled(x)
        return {"loss": F.cross_entropy(logits, y),
                "correct": (logits.argmax(dim=1) == y).sum()}

    def loop(env, setup):
        env.run(setup.step, setup.batches, 3)
        compiled.eval()
        env.run(evaluate, setup.batches[::-1], 2)
    return loop


def _two_runs(s, model, compiled, opts, scheds):
    """The same step in two executor runs."""
    def loop(env, setup):
        env.run(setup.step, setup.batches, 3)
        env.run(setup.step, setup.batches[1:], 2)
    return loop


def _resume(s, model, compiled, opts, scheds):
    """Three steps; a checkpoint of model, optimizers and schedulers saved with cstorch.save;
    the model's parameters zeroed and every state loaded back from the file with cstorch.load;
    two more steps in a second run."""
    def loop(env, setup):
        env.run(setup.step, setup.batches, 3)
        path = Path(env.artifact_dir) / "resume.mdl"
        _save(path, model, opts, scheds)
        with torch.no_grad():
            for p in model.parameters():
                p.zero_()
        _restore(path, model, opts, scheds)
        env.run(setup.step, setup.batches[2:], 2)
    return loop


def _save(path, model, opts, scheds, **extra) -> None:
    """A cstorch checkpoint of the model, optimizers and schedulers (and ``extra``) at ``path``
    (a previous case's file replaced)."""
    Path(path).unlink(missing_ok=True)
    cstorch.save({"model": model.state_dict(), "opts": [o.state_dict() for o in opts],
                  "scheds": [sc.state_dict() for sc in scheds], **extra}, str(path))


def _restore(path, model, opts, scheds) -> dict:
    """Every state of :func:`_save`'s checkpoint loaded back; returns the checkpoint."""
    state = cstorch.load(str(path))
    model.load_state_dict(state["model"])
    for o, sd in zip(opts, state["opts"]):
        o.load_state_dict(sd)
    for sc, sd in zip(scheds, state["scheds"]):
        sc.load_state_dict(sd)
    return state


_LOOPS = {"sched_outside": _sched_outside, "eval_after": _eval_after, "two_runs": _two_runs,
          "resume": _resume}


def case_for(seed: int, index: int, s: dict | None = None) -> Case:
    s = spec(seed, index) if s is None else s
    return Case(f"gen:{seed}:{index}", describe(s), lambda env, s=s: build(s, env), Equal(),
                group="generated")


def generated_cases(seed: int = SUITE_SEED, count: int = SUITE_COUNT, start: int = 0) -> list:
    return [case_for(seed, i) for i in range(start, start + count)]


# ----- campaigns ---------------------------------------------------------------------------------
def differences(case: Case, workdir: Path) -> list:
    """Why ``case`` fails on CSX against CPU (empty: it passes). Both run in this process."""
    cpu = run_case(case, "CPU", workdir / "cpu")
    csx = run_case(case, "CSX", workdir / "csx")
    if cpu["outcome"]["status"] != "ok":
        return [f"CPU raised {cpu['outcome']['type']}: {cpu['outcome']['message'][:200]}"]
    if csx["outcome"]["status"] != "ok":
        o = csx["outcome"]
        return [f"CSX raised {o['type']} at step {o['step']}: {o['message'][:300]} "
                f"[{' <- '.join(reversed(o.get('where', [])))}]"]
    return diff_records(cpu["values"], csx["values"])


def _run_steps(s, kind, workdir, batches, save=None, load=None) -> dict:
    """Run program ``s`` on ``batches`` (indices into its five) in a fresh ``kind`` backend; with
    ``load``, every state is first restored from that checkpoint; with ``save``, a checkpoint of
    model, optimizers, schedulers and the global generator is written after the run. Returns
    the final state (parameters, gradients, buffers, optimizer and scheduler state)."""
    from .harness import Env, _final_state, reset_runtime
    env = Env(kind, workdir)
    env.start()
    setup = build(s, env)
    model, opts, scheds = setup.modules["m"], setup.optimizers, setup.schedulers
    if load is not None:
        torch.set_rng_state(_restore(load, model, opts, scheds)["rng"])
    env.run(setup.step, [setup.batches[i] for i in batches], len(batches))
    if save is not None:
        _save(save, model, opts, scheds, rng=torch.get_rng_state())
    out: dict = {}
    _final_state(setup, out)
    reset_runtime()
    return out


def resume_differences(seed: int, index: int, kind: str, workdir: Path) -> list:
    """Program ``index`` of ``seed`` (in the default loop; gradients zeroed by the step, since a
    checkpoint holds no gradients) on backend ``kind``: five steps in one run against three
    steps, a checkpoint, a fresh backend restored from it and two more steps. Empty: the resumed
    run ends bit for bit where the uninterrupted one does."""
    s = dict(spec(seed, index), loop="single")
    if s["zero_grad"] == "never":
        s["zero_grad"] = "after"
    workdir = Path(workdir)
    full = _run_steps(s, kind, workdir / "full", range(5))
    path = workdir / "resume_check.mdl"
    _run_steps(s, kind, workdir / "first", range(3), save=path)
    resumed = _run_steps(s, kind, workdir / "resumed", range(3, 5), load=path)
    return diff_records(full, resumed)


def minimize(seed: int, index: int, workdir: Path) -> dict:
    """The program with every optional piece switched off that does not make it pass."""
    s = spec(seed, index)
    for key, off in OPTIONAL.items():
        if key in s and s[key] != off:
            trial = dict(s, **{key: off})
            if differences(case_for(seed, index, trial), workdir):
                s = trial
    return s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.csx.equivalence.generated",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--minimize", action="store_true")
    ap.add_argument("--resume", choices=["CPU", "CSX"], default=None,
                    help="instead: check that a run resumed from a checkpoint after step 3 "
                    "ends where an uninterrupted one does, on this backend")
    args = ap.parse_args(argv)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for i in range(args.start, args.start + args.count):
            d = resume_differences(args.seed, i, args.resume, work) if args.resume else \
                differences(case_for(args.seed, i), work)
            if d:
                bad += 1
                print(f"gen:{args.seed}:{i} {describe(spec(args.seed, i))}")
                for line in d:
                    print(f"    {line}")
                if args.minimize and not args.resume:
                    print(f"    minimized: {describe(minimize(args.seed, i, work))}")
                sys.stdout.flush()
    what = f"resume differently on {args.resume}" if args.resume else \
        "differ between CPU and CSX"
    print(f"{bad} of {args.count} generated steps {what}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

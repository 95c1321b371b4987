"""The catalogue: every named scenario, its inputs, tolerance, backends and required features.

A scenario is one run of a program in :mod:`.programs` (``family``) on fixed JSON ``inputs``.
Its golden trace is what minitorch_cs produces; ``tolerance`` says how far another
implementation's numbers may be from it (``|got - expected| <= atol + rtol * |expected|``;
integers, booleans, strings and the structure always compare exactly).

``requires`` lists the features an adapter must declare to run it: ``family:<family>``,
``backend:CPU`` or ``backend:CSX`` (the backend the program creates) and, for lazy-init values,
``rng:minitorch_cs`` (the values are draws of minitorch_cs's random stream, see CONFORMANCE.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Scenario", "catalogue", "by_name"]

EXACT = {"rtol": 0.0, "atol": 0.0}
#: float32 closed forms: torch's and numpy's float32 sin/cos/pow may differ by a few ulps of the
#: schedule's largest value (``atol_scale``: export sets atol = atol_scale * max |expected float|)
SCHEDULE_TOL = {"rtol": 1e-6, "atol_scale": 5e-7}
#: five float32 optimizer steps: operation order (fused vs unfused ops) differs between stacks
OPTIMIZER_TOL = {"rtol": 1e-5, "atol": 1e-6}
#: float32 forward/backward through matmul and cross-entropy (summation order differs)
TRAINING_TOL = {"rtol": 1e-5, "atol": 1e-6}


@dataclass(frozen=True)
class Scenario:
    name: str
    family: str
    inputs: dict
    description: str
    tolerance: dict = field(default_factory=lambda: dict(EXACT))
    backends: tuple = ("CPU",)
    extra_requires: tuple = ()
    quirks: tuple = ()
    note: str = ""
    #: adapter id -> how that implementation knowingly differs (reported, not failed)
    known_differences: dict = field(default_factory=dict)

    @property
    def requires(self) -> tuple:
        return (f"family:{self.family}",) + tuple(f"backend:{b}" for b in self.backends) + \
            tuple(self.extra_requires)

    @property
    def csx_only(self) -> bool:
        return "CPU" not in self.backends

    @property
    def file(self) -> str:
        return self.name + ".json"

    def manifest_entry(self) -> dict:
        entry = {"name": self.name, "file": self.file, "family": self.family,
                 "backends": list(self.backends), "csx_only": self.csx_only,
                 "requires": list(self.requires), "tolerance": dict(self.tolerance),
                 "quirks": list(self.quirks)}
        if self.note:
            entry["note"] = self.note
        if self.known_differences:
            entry["known_differences"] = dict(self.known_differences)
        return entry


def S(cls, **kw):
    return {"class": cls, "kwargs": kw}


# ---------------------------------------------------------------------------------------------
# schedulers
# ---------------------------------------------------------------------------------------------
LR_CASES = [
    S("ConstantLR", learning_rate=0.1),
    S("ConstantLR", learning_rate=0.5, total_iters=5),
    S("PolynomialLR", initial_learning_rate=1e-3, end_learning_rate=0.0, total_iters=4, power=2.0),
    S("PolynomialLR", initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=20, power=0.5,
      cycle=True),
    S("PolynomialLR", initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=10),
    S("LinearLR", initial_learning_rate=0.0, end_learning_rate=1e-3, total_iters=10),
    S("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=20, cycle=True),
    S("LinearLR", initial_learning_rate=0.01, end_learning_rate=0.001, total_iters=30),
    S("ExponentialLR", initial_learning_rate=1e-3, total_iters=10, decay_rate=0.5),
    S("ExponentialLR", initial_learning_rate=1e-3, total_iters=10, decay_rate=0.5, staircase=True),
    S("ExponentialLR", initial_learning_rate=0.1, total_iters=3, decay_rate=0.9),
    S("InverseExponentialTimeDecayLR", initial_learning_rate=1.0, step_exponent=1, total_iters=10,
      decay_rate=0.5),
    S("InverseExponentialTimeDecayLR", initial_learning_rate=1.0, step_exponent=1, total_iters=10,
      decay_rate=0.5, staircase=True),
    S("InverseExponentialTimeDecayLR", initial_learning_rate=0.1, step_exponent=2, total_iters=5,
      decay_rate=0.1),
    S("InverseSquareRootDecayLR"),
    S("InverseSquareRootDecayLR", initial_learning_rate=1.0, scale=1.0, warmup_steps=4),
    S("InverseSquareRootDecayLR", initial_learning_rate=0.5, scale=2.0, warmup_steps=10),
    S("CosineDecayLR", initial_learning_rate=1e-3, end_learning_rate=1e-4, total_iters=10),
    S("CosineDecayLR", initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=30),
    S("CosineDecayLR", initial_learning_rate=0.1, end_learning_rate=0.2, total_iters=10),
    S("CosineAnnealingLR", initial_learning_rate=1.0, T_max=10),
    S("CosineAnnealingLR", initial_learning_rate=0.1, T_max=7, eta_min=0.01),
    S("CosineAnnealingWarmRestarts", initial_learning_rate=1.0, T_0=10),
    S("CosineAnnealingWarmRestarts", initial_learning_rate=1.0, T_0=6, eta_min=0.05),
    S("StepLR", initial_learning_rate=1.0, step_size=3, gamma=0.1),
    S("StepLR", initial_learning_rate=0.1, step_size=5, gamma=0.5),
    S("MultiStepLR", initial_learning_rate=1.0, gamma=0.1, milestones=[2, 5]),
    S("MultiStepLR", initial_learning_rate=0.1, gamma=0.5, milestones=[3, 10, 20]),
    S("MultiStepLR", initial_learning_rate=0.1, gamma=0.5, milestones=[20, 3]),
    S("MultiplicativeLR", initial_learning_rate=0.2, coefficient=0.9),
    S("MultiplicativeLR", initial_learning_rate=1.0, coefficient=0.5),
    S("LambdaLR", initial_learning_rate=0.1),
    S("LambdaLR", initial_learning_rate=1.0),
    S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4, step_size_down=4),
    S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4, step_size_down=4, mode="triangular2"),
    S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4, step_size_down=4, mode="exp_range",
      gamma=0.9),
    S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=3, step_size_down=5),
    S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4, mode="triangular",
      scale_mode="iterations"),
    S("CyclicLR", base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range", gamma=0.95,
      scale_mode="cycle"),
    S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=10, pct_start=0.3),
    S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=10, pct_start=0.3,
      anneal_strategy="linear"),
    S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=20, pct_start=0.25,
      three_phase=True),
    S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=20, pct_start=0.25,
      three_phase=True, anneal_strategy="linear"),
    S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=20, final_div_factor=100.0,
      anneal_strategy="linear"),
    S("PiecewiseConstantLR", learning_rates=[1.0, 0.5, 0.1], milestones=[3, 6]),
    S("PiecewiseConstantLR", learning_rates=[1.0, 0.5, 0.1, 0.01], milestones=[3, 6]),
    # degenerate arguments the real constructors accept
    S("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=0),
    S("StepLR", initial_learning_rate=0.1, step_size=0, gamma=0.5),
    S("ExponentialLR", initial_learning_rate=0.1, total_iters=0, decay_rate=0.5),
    S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4, mode="bogus", gamma=0.9),
    S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=10,
      anneal_strategy="bogus"),
]

LR_COMPOSITIONS = [
    S("SequentialLR", schedulers=[
        S("LinearLR", initial_learning_rate=0.0, end_learning_rate=1e-3, total_iters=10),
        S("CosineDecayLR", initial_learning_rate=1e-3, end_learning_rate=1e-5, total_iters=20)],
      milestones=[10]),
    S("SequentialLR", schedulers=[
        S("ConstantLR", learning_rate=0.05, total_iters=5),
        S("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.02, total_iters=8),
        S("ExponentialLR", initial_learning_rate=0.02, total_iters=4, decay_rate=0.5)],
      milestones=[5, 13]),
    S("SequentialLR", schedulers=[
        S("StepLR", initial_learning_rate=1.0, step_size=2, gamma=0.5),
        S("CyclicLR", base_lr=0.1, max_lr=0.5, step_size_up=3)],
      milestones=[6]),
    S("ChainedScheduler", schedulers=[
        S("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=10),
        S("StepLR", initial_learning_rate=1.0, step_size=4, gamma=0.5)]),
    S("ChainedScheduler", schedulers=[
        S("ExponentialLR", initial_learning_rate=0.1, total_iters=5, decay_rate=0.5),
        S("MultiStepLR", initial_learning_rate=2.0, gamma=0.1, milestones=[3, 8])]),
    S("ChainedLR", schedulers=[
        S("ConstantLR", learning_rate=0.5),
        S("CosineDecayLR", initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=10)]),
    S("SequentialLR", schedulers=[
        S("SequentialLR", schedulers=[
            S("ConstantLR", learning_rate=0.2, total_iters=3),
            S("LinearLR", initial_learning_rate=0.2, end_learning_rate=0.1, total_iters=4)],
          milestones=[3]),
        S("CosineAnnealingLR", initial_learning_rate=0.1, T_max=6)],
      milestones=[7]),
]

WD_CASES = [
    S("ConstantWD", val=0.1),
    S("ConstantWD", val=0.05, total_iters=5),
    S("PolynomialWD", initial_val=0.1, end_val=0.0, total_iters=4, power=2.0),
    S("PolynomialWD", initial_val=0.1, end_val=0.01, total_iters=10, power=0.5),
    S("LinearWD", initial_val=0.0, end_val=0.1, total_iters=10),
    S("LinearWD", initial_val=0.1, end_val=0.01, total_iters=20, cycle=True),
    S("ExponentialWD", initial_val=0.1, total_iters=10, decay_rate=0.5),
    S("ExponentialWD", initial_val=0.1, total_iters=10, decay_rate=0.5, staircase=True),
    S("InverseExponentialTimeDecayWD", initial_val=1.0, step_exponent=1, total_iters=10,
      decay_rate=0.5),
    S("InverseExponentialTimeDecayWD", initial_val=0.1, step_exponent=2, total_iters=5,
      decay_rate=0.1, staircase=True),
    S("InverseSquareRootDecayWD"),
    S("InverseSquareRootDecayWD", initial_val=0.5, scale=2.0, warmup_steps=4),
    S("CosineDecayWD", initial_val=0.1, end_val=0.01, total_iters=10),
    S("CosineDecayWD", initial_val=0.2, end_val=0.0, total_iters=30),
    S("PiecewiseConstantWD", vals=[0.1, 0.05, 0.01], milestones=[3, 6]),
    S("PiecewiseConstantWD", vals=[0.3, 0.2], milestones=[10]),
    S("MultiStepWD", initial_val=0.1, gamma=0.1, milestones=[2, 5]),
    S("MultiStepWD", initial_val=0.2, gamma=0.5, milestones=[10, 20]),
    S("StepWD", initial_val=0.1, step_size=3, gamma=0.1),
    S("StepWD", initial_val=0.2, step_size=7, gamma=0.5),
    S("CosineAnnealingWD", initial_val=0.1, T_max=10),
    S("CosineAnnealingWD", initial_val=0.1, T_max=7, eta_min=0.01),
    S("LambdaWD", initial_val=0.1),
    S("LambdaWD", initial_val=1.0),
    S("CosineAnnealingWarmRestartsWD", initial_val=0.1, T_0=10),
    S("CosineAnnealingWarmRestartsWD", initial_val=1.0, T_0=6, eta_min=0.05),
    S("MultiplicativeWD", initial_val=0.2, coefficient=0.9),
    S("MultiplicativeWD", initial_val=0.1, coefficient=0.5),
    S("CyclicWD", base_val=0.01, max_val=0.1, step_size_up=4, step_size_down=4),
    S("CyclicWD", base_val=0.01, max_val=0.1, step_size_up=3, mode="triangular2"),
    S("CyclicWD", base_val=0.01, max_val=0.1, step_size_up=4, mode="exp_range", gamma=0.9),
    S("OneCycleWD", initial_val=0.01, max_val=0.1, total_steps=10, pct_start=0.3),
    S("OneCycleWD", initial_val=0.01, max_val=0.1, total_steps=20, pct_start=0.25,
      three_phase=True, anneal_strategy="linear"),
]

WD_COMPOSITIONS = [
    S("SequentialWD", schedulers=[
        S("LinearWD", initial_val=0.0, end_val=0.1, total_iters=10),
        S("CosineDecayWD", initial_val=0.1, end_val=0.001, total_iters=20)],
      milestones=[10]),
    S("SequentialWD", schedulers=[
        S("ConstantWD", val=0.05, total_iters=5),
        S("StepWD", initial_val=0.1, step_size=3, gamma=0.5)],
      milestones=[5]),
    S("ChainedWD", schedulers=[
        S("LinearWD", initial_val=0.1, end_val=0.01, total_iters=10),
        S("StepWD", initial_val=1.0, step_size=4, gamma=0.5)]),
    S("ChainedWD", schedulers=[
        S("ExponentialWD", initial_val=0.1, total_iters=5, decay_rate=0.5),
        S("MultiStepWD", initial_val=2.0, gamma=0.1, milestones=[3, 8])]),
]

SEED002 = S("SequentialLR", schedulers=[
    S("LinearLR", initial_learning_rate=0.01, end_learning_rate=0.001, total_iters=500),
    S("CosineDecayLR", initial_learning_rate=0.001, end_learning_rate=0.0001, total_iters=500)],
    milestones=[500])

#: quirks of the real stack that the goldens encode (ids explained in CONFORMANCE.md)
SCHED_QUIRKS = {
    "CosineAnnealingWarmRestarts": ("warm-restarts-square-wave",),
    "CosineAnnealingWarmRestartsWD": ("warm-restarts-square-wave",),
    "LambdaLR": ("lambda-squares-initial",), "LambdaWD": ("lambda-squares-initial",),
    "CosineAnnealingLR": ("unclamped-periodic",), "CosineAnnealingWD": ("unclamped-periodic",),
    "OneCycleLR": ("unclamped-periodic",), "CyclicLR": ("cyclic-mode-overrides-scale-mode",),
    "PiecewiseConstantLR": ("piecewise-extra-value-dropped",),
    "InverseSquareRootDecayLR": ("inverse-sqrt-warmup-max",),
}


def _sched_quirks(spec):
    q = list(SCHED_QUIRKS.get(spec["class"], ()))
    if spec["kwargs"].get("cycle"):
        q += ["cycle-no-effect"]
    if spec["class"] == "OneCycleLR" and spec["kwargs"].get("anneal_strategy") not in (None, "cos"):
        q += ["onecycle-linear-negative"]
    return ["float32-closed-form"] + q


def _scheduler_scenarios():
    out = []
    for key, prefix, cases, comps in (("lr", "lr", LR_CASES, LR_COMPOSITIONS),
                                      ("weight_decay", "wd", WD_CASES, WD_COMPOSITIONS)):
        counts = {}
        for spec in cases + comps:
            n = counts[spec["class"]] = counts.get(spec["class"], 0) + 1
            composite = spec in comps
            out.append(Scenario(
                f"scheduler/{prefix}/{spec['class']}-{n}", "scheduler",
                {"key": key, "spec": spec, "n_steps": 40},
                f"{spec['class']} {'composition ' if composite else ''}values for t = 0..40 "
                f"(value optimizer step t uses), one param group",
                SCHEDULE_TOL, quirks=tuple(_sched_quirks(spec))))
        inner = (S("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=10)
                 if key == "lr" else S("LinearWD", initial_val=0.1, end_val=0.01, total_iters=10))
        cls = "ScalePerParamLR" if key == "lr" else "ScalePerParamWD"
        for i, extras in enumerate(([{"adjust_learning_rate": 1.0}, {"adjust_learning_rate": 0.5}],
                                    [{"adjust_val": 2.0}, {}]), 1):
            out.append(Scenario(
                f"scheduler/{prefix}/{cls}-{i}", "scheduler",
                {"key": key, "spec": S(cls, scheduler=inner), "n_steps": 40,
                 "groups": [{"tags": ["g0"], "extra": extras[0]}, {"tags": ["g1"],
                                                                    "extra": extras[1]}]},
                f"{cls} over LinearLR/WD with per-group adjust factors {extras}", SCHEDULE_TOL,
                quirks=("float32-closed-form",)))
        lin = (dict(initial_learning_rate=0.5, end_learning_rate=0.0, total_iters=10)
               if key == "lr" else dict(initial_val=0.5, end_val=0.0, total_iters=10))
        lin_cls = "LinearLR" if key == "lr" else "LinearWD"
        for i, (tags, untagged) in enumerate(((["g1"], False), ("g0", False), ([None], False),
                                              ([None], True), (["g0", None], True)), 1):
            groups = [{"tags": ["g0"]}, {"tags": None if untagged else ["g1"]}]
            out.append(Scenario(
                f"scheduler/{prefix}/tags-{i}", "scheduler",
                {"key": key, "spec": S(lin_cls, param_group_tags=tags, **lin), "n_steps": 12,
                 "groups": groups},
                f"param_group_tags={tags!r} over groups tagged g0 and "
                f"{'untagged' if untagged else 'g1'}: only the targeted groups move",
                SCHEDULE_TOL, quirks=("float32-closed-form", "untagged-group-is-None")))
    out.append(Scenario(
        "scheduler/lr/seed002", "scheduler", {"key": "lr", "spec": SEED002, "n_steps": 1100},
        "the Model Zoo 2.10 \"Optimizer and Scheduler\" page: SequentialLR(LinearLR "
        "0.01->0.001 over 500, CosineDecayLR 0.001->0.0001 over 500), t = 0..1100",
        SCHEDULE_TOL, quirks=("float32-closed-form",)))
    out.append(Scenario(
        "scheduler/lr/seed002-resume", "scheduler",
        {"key": "lr", "spec": SEED002, "n_steps": 506, "resume": {"split": 498}},
        "that page's schedule saved at t=498 and restored into rebuilt optimizer + scheduler "
        "(optimizer.load_state_dict, then scheduler.load_state_dict)", SCHEDULE_TOL,
        quirks=("float32-closed-form", "scheduler-load-keeps-lr")))
    out.append(Scenario(
        "scheduler/lr/LinearLR-resume", "scheduler",
        {"key": "lr", "spec": S("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.01,
                                total_iters=10), "n_steps": 14, "resume": {"split": 4}},
        "LinearLR saved at t=4 and restored (Trainer order)", SCHEDULE_TOL,
        quirks=("float32-closed-form", "scheduler-load-keeps-lr")))
    out.append(Scenario(
        "scheduler/lr/LinearLR-resume-late-scheduler", "scheduler",
        {"key": "lr", "spec": S("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.01,
                                total_iters=10), "n_steps": 14,
         "resume": {"split": 4, "order": "load_optimizer_first"}},
        "LinearLR restored with the scheduler built after optimizer.load_state_dict: its "
        "constructor writes f(0) into the group and scheduler.load_state_dict does not write "
        "the value back, so step 4 runs with f(0)", SCHEDULE_TOL,
        quirks=("float32-closed-form", "scheduler-load-keeps-lr")))
    return out


# ---------------------------------------------------------------------------------------------
# optimizers
# ---------------------------------------------------------------------------------------------
def C(cls, **kw):
    return {"class": cls, "kwargs": kw}


OPTIMIZER_CASES = [
    C("SGD", lr=0.1),
    C("SGD", lr=0.1, momentum=0.9, weight_decay=0.01),
    C("SGD", lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1),
    C("SGD", lr=0.05, momentum=0.5, dampening=0.3, weight_decay=0.01, maximize=True),
    C("Adam", lr=0.01),
    C("Adam", lr=0.01, betas=[0.8, 0.99], eps=1e-8, weight_decay=0.1, amsgrad=True),
    C("AdamW", lr=0.01, weight_decay=0.1),
    C("AdamW", lr=0.01, weight_decay=0.1, correct_bias=False),
    C("AdamW", lr=0.01, betas=[0.8, 0.99], weight_decay=0.05, amsgrad=True),
    C("Adadelta"),
    C("Adadelta", lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True),
    C("Adagrad", lr=0.1),
    C("Adagrad", lr=0.1, lr_decay=0.1, weight_decay=0.1, initial_accumulator_value=0.5,
      maximize=True),
    C("Adamax", lr=0.01),
    C("Adamax", lr=0.02, betas=[0.8, 0.99], weight_decay=0.1, maximize=True),
    C("ASGD", lr=0.1),
    C("ASGD", lr=0.1, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1, maximize=True),
    C("Lamb", lr=0.01),
    C("Lamb", lr=0.01, betas=[0.8, 0.99], weight_decay=0.1),
    C("Lamb", lr=0.01, weight_decay=0.1, adam=True),
    C("Lion", lr=0.01),
    C("Lion", lr=0.01, betas=[0.8, 0.95], weight_decay=0.1),
    C("NAdam", lr=0.01),
    C("NAdam", lr=0.01, betas=[0.8, 0.99], weight_decay=0.1, momentum_decay=0.01),
    C("RAdam", lr=0.01),
    C("RAdam", lr=0.01, betas=[0.5, 0.6], weight_decay=0.1),
    C("RMSprop", lr=0.01),
    C("RMSprop", lr=0.01, alpha=0.9, weight_decay=0.1, momentum=0.5, centered=True),
    C("RMSprop", lr=0.01, centered=True),
    C("Rprop", lr=0.01),
    C("Rprop", lr=0.05, etas=[0.3, 1.5], step_sizes=[1e-3, 0.1]),
    C("Adafactor", lr=0.01),
    C("Adafactor", lr=0.01, eps=[1e-30, 1e-2], decay_rate=-0.5, weight_decay=0.1,
      scale_parameter=False),
    C("Muon"),
    C("Muon", lr=0.05, weight_decay=0.1, momentum=0.9, nesterov=False, ns_steps=3),
]

MUON_REAL = ("the real 2.10 Muon.step raises TypeError on the CPU backend (it passes `steps` "
             "twice to _zeropower_via_newtonschulz5), so no real trajectory exists; the golden "
             "is minitorch_cs's Muon (bf16 Newton-Schulz, tests/optim/test_muon.py)")

OPT_QUIRKS = {"SGD": ("sgd-momentum-buffer-starts-at-zero",),
              "AdamW": ("adamw-eps-before-bias-correction",),
              "Adam": ("adam-weight-decay-is-l2",)}


def _optimizer_scenarios():
    out = []
    counts = {}
    for case in OPTIMIZER_CASES:
        n = counts[case["class"]] = counts.get(case["class"], 0) + 1
        params = ["p1"] if case["class"] == "Muon" else ["p1", "p2"]
        wd = case["kwargs"].get("weight_decay")
        out.append(Scenario(
            f"optimizer/{case['class']}-{n}", "optimizer",
            {**case, "params": params, "n_steps": 5, "tags": True},
            f"{case['class']}({', '.join(f'{k}={v}' for k, v in case['kwargs'].items()) or ''}) "
            f"5 steps on {'+'.join(params)}, each in a tagged group"
            + (", with weight decay" if wd else ""),
            OPTIMIZER_TOL, quirks=OPT_QUIRKS.get(case["class"], ()),
            known_differences={"real-cpu": MUON_REAL} if case["class"] == "Muon" else {}))
    out.append(Scenario(
        "optimizer/SGD-untagged", "optimizer",
        {**C("SGD", lr=0.1, momentum=0.9, weight_decay=0.01), "params": ["p1", "p2"],
         "n_steps": 5, "tags": False},
        "SGD with momentum and weight decay over a plain parameter list (one untagged group)",
        OPTIMIZER_TOL, quirks=("sgd-momentum-buffer-starts-at-zero",)))
    out.append(Scenario(
        "optimizer/AdamW-untagged", "optimizer",
        {**C("AdamW", lr=0.01, weight_decay=0.1), "params": ["p1", "p2"], "n_steps": 5,
         "tags": False},
        "AdamW with weight decay over a plain parameter list", OPTIMIZER_TOL,
        quirks=("adamw-eps-before-bias-correction",)))
    out.append(Scenario(
        "optimizer/SGD-tagged-schedules", "optimizer",
        {**C("SGD", lr=0.1, momentum=0.9, weight_decay=0.05), "params": ["p1", "p2"],
         "n_steps": 8, "tags": True,
         "schedulers": [
             {"key": "lr", "spec": S("LinearLR", initial_learning_rate=0.2,
                                     end_learning_rate=0.02, total_iters=6,
                                     param_group_tags=["tag_p1"])},
             {"key": "lr", "spec": S("StepLR", initial_learning_rate=0.05, step_size=3,
                                     gamma=0.5, param_group_tags=["tag_p2"])},
             {"key": "weight_decay", "spec": S("CosineDecayWD", initial_val=0.05, end_val=0.0,
                                               total_iters=8)}]},
        "SGD with one LR scheduler per tag and a WD scheduler on every group: the scheduled "
        "values each step and the resulting trajectory", OPTIMIZER_TOL,
        quirks=("sgd-momentum-buffer-starts-at-zero", "float32-closed-form")))
    out.append(Scenario(
        "optimizer/AdamW-wd-schedule", "optimizer",
        {**C("AdamW", lr=0.01, weight_decay=0.1), "params": ["p1", "p2"], "n_steps": 6,
         "tags": True,
         "schedulers": [
             {"key": "lr", "spec": S("CosineDecayLR", initial_learning_rate=0.01,
                                     end_learning_rate=0.001, total_iters=6)},
             {"key": "weight_decay", "spec": S("LinearWD", initial_val=0.1, end_val=0.0,
                                               total_iters=4, param_group_tags=["tag_p1"])}]},
        "AdamW with an LR schedule and a weight-decay schedule on the tag_p1 group only",
        OPTIMIZER_TOL, quirks=("adamw-eps-before-bias-correction",)))
    out.append(Scenario(
        "optimizer/Adam-wd-schedule", "optimizer",
        {**C("Adam", lr=0.01, weight_decay=0.1), "params": ["p1", "p2"], "n_steps": 5,
         "tags": True,
         "schedulers": [{"key": "weight_decay", "spec": S("LinearWD", initial_val=0.5,
                                                         end_val=0.0, total_iters=4)}]},
        "Adam(weight_decay=0.1) with a WD scheduler: Adam's L2 rate is "
        "l2_regularization_rate, so the scheduled weight_decay is never read", OPTIMIZER_TOL,
        quirks=("adam-weight-decay-is-l2",)))
    return out


# ---------------------------------------------------------------------------------------------
# executor timelines
# ---------------------------------------------------------------------------------------------
def _executor_scenarios():
    out = []
    timelines = [
        ("checkpoint-every-3", {"n_batches": 3, "preloop": True,
                                "runs": [{"num_steps": 7, "checkpoint_steps": 3}]},
         "7 steps over a 3-batch loader (wraps), checkpoint_steps=3: checkpoint closures fire "
         "before the loop and at steps 3, 6 and the final step 7",
         ("checkpoint-final-step", "loader-wraps", "preloop-checkpoint-fires")),
        ("checkpoint-none", {"n_batches": 4, "preloop": True,
                             "runs": [{"num_steps": 4, "checkpoint_steps": None}]},
         "checkpoint_steps=None: only the pre-loop checkpoint closure fires",
         ("preloop-checkpoint-fires",)),
        ("checkpoint-zero", {"n_batches": 2, "runs": [{"num_steps": 3, "checkpoint_steps": 0}]},
         "checkpoint_steps=0: no checkpoint step", ()),
        ("checkpoint-equals-num-steps", {"n_batches": 3,
                                         "runs": [{"num_steps": 6, "checkpoint_steps": 6}]},
         "checkpoint_steps=num_steps: only the last step", ("checkpoint-final-step",)),
        ("checkpoint-larger-than-num-steps", {"n_batches": 3,
                                              "runs": [{"num_steps": 4,
                                                        "checkpoint_steps": 10}]},
         "checkpoint_steps > num_steps: clamped to the final step", ("checkpoint-final-step",)),
        ("schedule-object", {"n_batches": 5, "runs": [
            {"num_steps": 9, "checkpoint_steps": {"schedule": [[0, 4, 2, False],
                                                               [5, 9, 3, True]]}}]},
         "a Schedule of two 0-based ranges ([0,4) step 2; [5,9) step 3 plus its last step)",
         ()),
        ("several-runs", {"n_batches": 3, "preloop": True, "runs": [
            {"num_steps": 7, "checkpoint_steps": 3}, {"num_steps": 5, "checkpoint_steps": 2},
            {"num_steps": 4, "checkpoint_steps": None}, {"num_steps": 6, "checkpoint_steps": 6}]},
         "four executor runs in a row (the timeline of tests/runtime/test_reference_timeline)",
         ("checkpoint-final-step", "loader-wraps", "preloop-checkpoint-fires",
          "counters-after-loop")),
        ("num-steps-from-len", {"n_batches": 4, "runs": [{"num_steps": None,
                                                           "checkpoint_steps": 2}]},
         "num_steps=None takes len(loader)", ()),
    ]
    for name, inputs, desc, quirks in timelines:
        for backend in ("CPU", "CSX"):
            out.append(Scenario(
                f"executor/{name}{'' if backend == 'CPU' else '@CSX'}", "executor",
                {**inputs, "backend": backend, "program": "timeline"},
                desc + (" (emulated CSX backend: the same timeline)" if backend == "CSX" else ""),
                EXACT, backends=(backend,),
                quirks=tuple(quirks) + ("closure-snapshot", "closures-fifo-at-step-end")))
    for backend in ("CPU", "CSX"):
        out.append(Scenario(
            f"executor/closures{'' if backend == 'CPU' else '@CSX'}", "executor",
            {"program": "closures", "backend": backend},
            "step closures with nested and keyword tensor arguments (snapshotted), a closure "
            "queued from inside a closure (runs at the next drain; the last one at the next "
            "run's start), closure calls return None", EXACT, backends=(backend,),
            quirks=("closure-snapshot", "closure-queued-in-closure-runs-next-drain")))
    out.append(Scenario(
        "executor/checks", "executor",
        {"program": "checks", "compute_num_steps": [
            {"loader": "sized3", "kwargs": {"num_epochs": 3}},
            {"loader": "sized3", "kwargs": {"initial_step": 2, "max_steps": 9}},
            {"loader": "sized3", "kwargs": {"num_steps": 5, "num_epochs": 2}},
            {"loader": "sized3", "kwargs": {"num_steps": 4, "max_steps": 10, "initial_step": 8}},
            {"loader": "sized3", "kwargs": {"num_epochs": 2, "steps_per_epoch": 2}},
            {"loader": "sized3", "kwargs": {"num_epochs": 2, "steps_per_epoch": 5}},
            {"loader": "sized3", "kwargs": {"num_epochs": 2, "grad_accum_steps": 2}},
            {"loader": "sized3", "kwargs": {"num_steps": 2.0}},
            {"loader": "sized3", "kwargs": {}},
            {"loader": "sized3", "kwargs": {"max_steps": 3, "initial_step": 3}},
            {"loader": "unsized", "kwargs": {"num_steps": 6, "steps_per_epoch": 2}},
            {"loader": "unsized", "kwargs": {"num_epochs": 2}},
            {"loader": "unsized", "kwargs": {"max_steps": 7}},
        ]},
        "exception classes of invalid DataExecutor / DataLoader / Schedule / backend calls; "
        "compute_num_steps results and errors", EXACT,
        quirks=("compute-num-steps-float-valueerror", "unsized-ignores-steps-per-epoch")))
    return out


# ---------------------------------------------------------------------------------------------
# training: trace / replay
# ---------------------------------------------------------------------------------------------
TRAIN_BASE = {"dims": [4, 6, 3], "n_batches": 3, "batch": 5,
              "optimizer": C("SGD", lr=0.1, momentum=0.9),
              "schedulers": [{"key": "lr", "spec": S(
                  "LinearLR", initial_learning_rate=0.2, end_learning_rate=0.02,
                  total_iters=6)}]}


def _training_scenarios():
    out = []
    plans = [
        ("sgd-linear", {}, [{"num_steps": 8, "checkpoint_steps": 4}],
         "SGD(momentum) + LinearLR, one run of 8 steps over 3 batches, checkpoint every 4"),
        ("adamw-two-runs", {"optimizer": C("AdamW", lr=0.05, weight_decay=0.01),
                            "schedulers": [{"key": "lr", "spec": S(
                                "CosineDecayLR", initial_learning_rate=0.05,
                                end_learning_rate=0.005, total_iters=10)}],
                            "closure_inside": True},
         [{"num_steps": 5, "checkpoint_steps": 5}, {"num_steps": 4, "checkpoint_steps": 2}],
         "AdamW + CosineDecayLR over two executor runs, a step closure inside the traced body"),
    ]
    for name, over, runs, desc in plans:
        for backend in ("CPU", "CSX"):
            inputs = {**TRAIN_BASE, **over, "runs": runs, "backend": backend, "mode": "plain"}
            csx = backend == "CSX"
            out.append(Scenario(
                f"training/{name}{'@CSX' if csx else ''}", "training", inputs,
                desc + (": on CSX the body runs once per executor run and every later step "
                        "replays it; losses, lrs, closure values and weights equal the CPU "
                        "run's" if csx else ": the body runs every step"),
                TRAINING_TOL, backends=(backend,),
                quirks=("trace-once-replay",) if csx else ("cpu-trace-runs-every-step",)))
    csx_only = [
        ("frozen-branch", {"mode": "frozen_branch"}, [{"num_steps": 4}],
         "the body doubles its returned loss on its first run only: on CSX the branch is "
         "frozen, every step returns the doubled loss", ("trace-once-replay",)),
        ("read-inside-trace", {"mode": "read_inside"}, [{"num_steps": 2}],
         "loss.item() inside the traced body: RuntimeError on CSX (values exist only in step "
         "closures)", ()),
        ("retrace-changes", {"mode": "retrace_changes"}, [{"num_steps": 4}],
         "retrace_every_iteration: the body runs every step; an op added on its third run is "
         "a RuntimeError at step 3", ()),
    ]
    for name, over, runs, desc, quirks in csx_only:
        out.append(Scenario(
            f"training/{name}@CSX", "training",
            {**TRAIN_BASE, **over, "runs": runs, "backend": "CSX"}, desc, TRAINING_TOL,
            backends=("CSX",), quirks=quirks))
    return out


# ---------------------------------------------------------------------------------------------
# lazy init (CSX only)
# ---------------------------------------------------------------------------------------------
def _lazy_scenarios():
    out = []
    variants = [
        ("seed001-grouped", {"model": "seed001", "seed": 2024, "optimize_initialization": False},
         "the \"Efficient Weight Initialization\" page's Model + apply(init_weights), "
         "optimize_initialization off: init ops run "
         "grouped per weight on the global stream"),
        ("seed001-optimized", {"model": "seed001", "seed": 7, "optimize_initialization": True},
         "the \"Efficient Weight Initialization\" page's Model + apply(init_weights), "
         "optimize_initialization on: one seed draw per "
         "random op at record time, overwritten ops pruned"),
        ("seed001-no-apply", {"model": "seed001", "seed": 0, "optimize_initialization": False,
                              "apply_init": False},
         "the \"Efficient Weight Initialization\" page's Model alone (uniform_ then normal_), "
         "grouped order"),
        ("mlp-xavier", {"model": "mlp", "seed": 3, "optimize_initialization": True},
         "Sequential(Linear(6,5), ReLU, Linear(5,3)) + xavier_uniform_ via apply"),
    ]
    for name, inputs, desc in variants:
        out.append(Scenario(
            f"lazy_init/{name}/relations", "lazy_init", {**inputs, "observe": "relations"},
            desc + ": relations that hold for any random stream (grouped-order equality, "
            "allclose with eager, determinism, bounds)", EXACT, backends=("CSX",),
            quirks=("lazy-init-grouped-order",)))
        out.append(Scenario(
            f"lazy_init/{name}/values", "lazy_init", {**inputs, "observe": "values"},
            desc + ": the weights (draws of minitorch_cs's PCG64 stream)", EXACT,
            backends=("CSX",), extra_requires=("rng:minitorch_cs",),
            quirks=("lazy-init-grouped-order",)))
    out.append(Scenario(
        "lazy_init/skip-weight-init", "lazy_init",
        {"model": "mlp", "seed": 1, "skip_weight_init": True, "observe": "relations"},
        "skip_weight_init: every weight is zeros", EXACT, backends=("CSX",)))
    out.append(Scenario(
        "lazy_init/explicit-alias", "lazy_init", {"model": "alias"},
        "the \"Efficient Weight Initialization\" page: x @ fc1.weight.T in the forward fails "
        "to compile under lazy init; "
        "F.linear(x, fc1.weight, fc1.bias) compiles", EXACT, backends=("CSX",),
        quirks=("explicit-alias-compile-failure",)))
    return out


# ---------------------------------------------------------------------------------------------
# checkpoints
# ---------------------------------------------------------------------------------------------
REAL_FILES = [("simple", None), ("py_leaves", None), ("containers_seq", None),
              ("containers_map", ["tied.first", "tied.second"]), ("optim_sgd", None),
              ("tensors_int", None)]


def _checkpoint_scenarios():
    out = [
        Scenario("checkpoint/training-state", "checkpoint", {"case": "training_state"},
                 "model + SGD(momentum) + LinearLR + misc leaves saved after 2 steps, loaded "
                 "(deferred and cpu), restored into fresh objects and trained 2 more steps: "
                 "equal to 4 straight steps", TRAINING_TOL,
                 quirks=("tied-leaves-same-object",)),
        Scenario("checkpoint/errors", "checkpoint", {"case": "errors"},
                 "cstorch.save to an existing path raises FileExistsError and the old file "
                 "stays; saving a tensor that requires grad raises RuntimeError and writes no "
                 "file; loading a missing path raises FileNotFoundError", EXACT,
                 quirks=("save-refuses-overwrite", "save-requires-grad-error")),
        Scenario("checkpoint/layout", "checkpoint", {"case": "layout"},
                 "the HDF5 layout cstorch.save writes (format 0.5): root attributes, datasets "
                 "and their serializer types, per-leaf metadata, the spec skeleton", EXACT,
                 quirks=("interned-leaves-linked", "per-flattened-leaf-metadata")),
    ]
    for name, tied in REAL_FILES:
        inputs = {"case": "load_file", "file": f"{name}.mdl"}
        if tied:
            inputs["tied"] = tied
        out.append(Scenario(
            f"checkpoint/load-real-{name}", "checkpoint", inputs,
            f"load {name}.mdl, written by the real cstorch 2.10 (CPU) save, and describe the tree",
            EXACT))
    return out


# ---------------------------------------------------------------------------------------------
# cstorch.nn: losses and functional helpers (CPU)
# ---------------------------------------------------------------------------------------------
#: float32 losses and their gradients (reduction order differs between stacks)
NN_TOL = {"rtol": 1e-5, "atol": 1e-6}


def _nn_scenarios():
    x = {"float": [4, 5], "index": 1, "grad": True}
    t = {"float": [4, 5], "index": 2, "scale": 2.0}
    y = {"ints": [0, 2, 4, 1]}
    seg = {"float": [2, 3, 2, 3, 2], "index": 5, "scale": 2.0, "grad": True}
    lab = {"labels": [2, 2, 3, 2], "classes": 3}
    shape = {"list": [2, 3, 2, 3, 2]}
    positive = lambda n, i: {"float": [n], "index": i, "scale": 0.5, "shift": 1.5}  # noqa: E731
    losses = [
        ("CrossEntropyLoss-autogen", "CrossEntropyLoss", [], {"use_autogen": True,
                                                              "label_smoothing": 0.1}, [x, y],
         "torch's CrossEntropyLoss that also takes use_autogen (kept as autogen_enabled)"),
        ("HuberLoss", "HuberLoss", [], {}, [x, t], "cstorch's own Huber loss, delta 1"),
        ("HuberLoss-delta-0", "HuberLoss", [], {"delta": 0.0}, [x, t],
         "a non-positive delta fails an assert (AssertionError)"),
        ("HuberLoss-bogus-reduction", "HuberLoss", [], {"reduction": "avg"}, [x, t],
         "a reduction other than mean/sum returns the elementwise loss (no ValueError)"),
        ("SmoothL1Loss-sum", "SmoothL1Loss", ["sum", 0.3], {}, [x, t],
         "positional (reduction, beta), unlike torch's signature"),
        ("GaussianNLLLoss-homoscedastic", "GaussianNLLLoss", [], {}, [x, t, positive(4, 3)],
         "one variance per sample (var one dim short of input)"),
        ("GaussianNLLLoss-bad-var", "GaussianNLLLoss", [], {}, [x, t, positive(5, 3)],
         "a variance of the wrong shape: ValueError"),
        ("MultiMarginLoss-p2-weight-sum", "MultiMarginLoss", [],
         {"p": 2, "margin": 0.5, "weight": positive(5, 4), "reduction": "sum"}, [x, y],
         "cstorch's own multi-class hinge loss, squared, class weights, summed"),
        ("MultiMarginLoss-none", "MultiMarginLoss", [], {"reduction": "none"}, [x, y],
         "reduction 'none' fails an assert (AssertionError)"),
        ("DiceLoss", "DiceLoss", [3], {}, [seg, lab, shape],
         "per-sample, per-class Dice of a 3-D segmentation, background channel masked out"),
        ("DiceCELoss", "DiceCELoss", [3, False], {}, [seg, lab, shape],
         "0.5 cross entropy + 0.5 (1 - mean Dice · C/(C-1))"),
    ]
    out = [Scenario(f"cstorch_nn/{name}", "cstorch_nn",
                    {"kind": "loss", "class": cls, "args": args, "kwargs": kwargs,
                     "operands": ops}, desc, NN_TOL)
           for name, cls, args, kwargs, ops, desc in losses]
    functions = [
        ("one_hot", {"num_classes": 4}, [{"ints": [[0, 2], [1, 3]]}],
         "one-hot along a new last dim, dtype int32"),
        ("bias_add", {"dim": 1}, [x, {"float": [5], "index": 6, "grad": True}],
         "a 1-D bias added along dim 1; gradients for both"),
        ("matmul", {}, [{"float": [3, 4], "index": 9, "grad": True},
                        {"float": [4, 2], "index": 10, "grad": True}], "weight @ input"),
        ("conditional_arange", {}, [{"ints": [[0, 1, 1, 1, 0, 0, 1]]}, {"ints": 2},
                                    {"ints": 7}], "start + step · j at the j-th set position, -1 "
                                                  "elsewhere"),
        ("nth_order_statistic", {"k": 2, "dimension": 1}, [{"float": [3, 6], "index": 8}],
         "an int16 mask of the 2 largest entries of each row"),
        ("unbind", {}, [x], "the rows as a tuple of views; gradients flow back"),
        ("sparse_act_matmul", {}, [{"float": [2, 3, 4], "index": 11, "grad": True},
                                   {"ints": [[1, 0, 1], [0, 1, 1]]},
                                   {"float": [5, 4], "index": 12, "grad": True}],
         "input @ weight.T with rows dropped by the mask"),
    ]
    out += [Scenario(f"cstorch_nn/functional-{name}", "cstorch_nn",
                     {"kind": "function", "name": name, "kwargs": kwargs, "operands": ops},
                     desc, NN_TOL)
            for name, kwargs, ops, desc in functions]
    return out


def catalogue() -> list:
    """Every scenario, in a fixed order."""
    scenarios = (_scheduler_scenarios() + _optimizer_scenarios() + _executor_scenarios() +
                 _training_scenarios() + _lazy_scenarios() + _checkpoint_scenarios() +
                 _nn_scenarios())
    names = [s.name for s in scenarios]
    assert len(names) == len(set(names)), "scenario names must be unique"
    return scenarios


def by_name() -> dict:
    return {s.name: s for s in catalogue()}

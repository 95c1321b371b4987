"""A run's end drops the step closures still queued (the real backend's ``reset()`` does)."""
import importlib

import minitorch_cs as cstorch
import minitorch_cs.torch as torch

_backend_mod = importlib.import_module("minitorch_cs.backend")


def _loader():
    return cstorch.utils.data.DataLoader(lambda: [(torch.full((2,), float(i)),) for i in range(3)])


def test_closure_queued_during_last_drain_never_runs(cpu_backend):
    log = []
    inner = cstorch.step_closure(lambda it: log.append(("inner", it)))

    @cstorch.step_closure
    def outer():
        it = cstorch.current_executor().iteration
        log.append(("outer", it))
        inner(it)

    for _ in cstorch.utils.data.DataExecutor(_loader(), num_steps=2):
        outer()
    for _ in cstorch.utils.data.DataExecutor(_loader(), num_steps=1):
        pass
    # inner(1), queued while the last step's closures ran, is dropped when the run ends
    assert log == [("outer", 0), ("inner", 0), ("outer", 1)]


def test_closures_between_runs_still_run_at_next_start(cpu_backend):
    log = []
    rec = cstorch.step_closure(lambda: log.append(cstorch.current_executor().iteration))
    rec()
    for _ in cstorch.utils.data.DataExecutor(_loader(), num_steps=1):
        pass
    assert log == [-1]


def test_csx_repeating_closures_do_not_leak_into_the_next_run(tmp_path):
    b = cstorch.backend("CSX", artifact_dir=tmp_path)
    model = torch.nn.Linear(2, 1)
    compiled = cstorch.compile(model, b)
    seen = []

    @cstorch.trace
    def step(x):
        out = compiled(x).sum()
        cstorch.step_closure(lambda v: seen.append(cstorch.current_executor().iteration))(out)
        return out

    for run_steps in (2, 3):
        for (x,) in cstorch.utils.data.DataExecutor(_loader(), num_steps=run_steps):
            step(x)
    assert seen == [0, 1, 0, 1, 2]

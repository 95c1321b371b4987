"""DataExecutor, run context, closures and schedules (cstorch 2.10 `utils/step_closures.py`, `utils/data/`; measured on the real 2.10 CPU backend)."""
import tempfile

import pytest
from hypothesis import given, strategies as st

import minitorch_cs as cstorch
from minitorch_cs import torch
from minitorch_cs.utils.data import Schedule, compute_num_steps


# (a directory of this run's own: two test runs on one machine must not meet in a shared one)
_ARTIFACTS = tempfile.mkdtemp(prefix="minitorch_cs_test_artifacts_")


def _loader(n=3):
    return cstorch.utils.data.DataLoader(
        lambda k: [(torch.full((2,), float(i)),) for i in range(k)], n)


def test_dataloader_requires_callable():
    with pytest.raises(TypeError, match="Expected a callable"):
        cstorch.utils.data.DataLoader(5)


def test_executor_requires_cstorch_loader(cpu_backend):
    with pytest.raises(TypeError, match="not wrapped using a cstorch.utils.data.DataLoader"):
        cstorch.utils.data.DataExecutor([1, 2])


def test_executor_needs_a_backend():
    with pytest.raises(RuntimeError, match="No active Cerebras backend"):
        cstorch.utils.data.DataExecutor(_loader())


def test_num_steps_validation(cpu_backend):
    with pytest.raises(RuntimeError, match="Expected num_steps >= 1, but got 0"):
        cstorch.utils.data.DataExecutor(_loader(), num_steps=0)
    with pytest.raises(TypeError, match="activation_steps"):
        cstorch.utils.data.DataExecutor(_loader(), num_steps=2, activation_steps=1.5)
    with pytest.raises(RuntimeError, match="checkpoint_steps to be an integer >= 0"):
        cstorch.utils.data.DataExecutor(_loader(), num_steps=2, checkpoint_steps=-1)
    with pytest.raises(ValueError, match="checkpoint_steps must be None, integer, or a Schedule"):
        cstorch.utils.data.DataExecutor(_loader(), num_steps=2, checkpoint_steps="3")
    unsized = cstorch.utils.data.DataLoader(lambda: iter([(torch.zeros(1),)]))
    with pytest.raises(RuntimeError, match="Could not infer the number of steps"):
        cstorch.utils.data.DataExecutor(unsized)


def test_num_steps_defaults_to_len_and_empty_loader_runs_nothing(cpu_backend):
    assert len(cstorch.utils.data.DataExecutor(_loader(4))) == 4
    empty = cstorch.utils.data.DataExecutor(_loader(0))  # real
    assert len(empty) == 0 and list(empty) == []
    ex = cstorch.utils.data.DataExecutor(_loader(0), num_steps=2)
    with pytest.raises(RuntimeError, match="did not return any values"):
        list(ex)


def test_counters_and_wraparound(cpu_backend):
    ex = cstorch.utils.data.DataExecutor(_loader(3), num_steps=7)
    seen = []
    with pytest.raises(RuntimeError, match="must be iterated before"):
        ex.artifact_dir
    for (x,) in ex:
        seen.append((ex.iteration, ex.user_iteration, ex.on_final_iteration, x[0].item()))
        assert cstorch.current_executor() is ex
    assert seen == [(0, 1, False, 0.0), (1, 2, False, 1.0), (2, 3, False, 2.0),
                    (3, 4, False, 0.0), (4, 5, False, 1.0), (5, 6, False, 2.0), (6, 7, True, 0.0)]
    # real: after the loop
    assert (ex.iteration, ex.user_iteration, ex.on_final_iteration) == (7, 8, True)
    assert ex.artifact_dir == cpu_backend.artifact_dir / "executors" / "000001"
    assert (cpu_backend.artifact_dir / "executors" / "latest").resolve() == ex.artifact_dir.resolve()
    with pytest.raises(RuntimeError, match="data executor was not used"):
        cstorch.current_executor()


def test_batches_are_copies(cpu_backend):
    ex = cstorch.utils.data.DataExecutor(_loader(2), num_steps=4)
    vals = []
    for (x,) in ex:
        vals.append(x[0].item())
        x.add_(100)
    assert vals == [0.0, 1.0, 0.0, 1.0]


def test_step_closure_runs_immediately_without_backend():
    out = []
    cstorch.step_closure(lambda v: out.append(v))(1)
    assert out == [1]


def test_closures_fifo_snapshot_and_pre_loop(cpu_backend):
    log = []

    @cstorch.step_closure
    def rec(tag, t=None):
        log.append((tag, None if t is None else t.tolist()))

    rec("before")  # queued before the loop: runs at run start
    ex = cstorch.utils.data.DataExecutor(_loader(2), num_steps=2)
    for i, (x,) in enumerate(ex):
        assert log[0] == ("before", None)
        y = x.clone()
        rec("a", y)
        y.add_(10)  # must not leak into the queued closure
        rec("b", y)
        assert len(log) == 1 + 2 * i  # this step's closures run after the body
    assert log == [("before", None), ("a", [0.0, 0.0]), ("b", [10.0, 10.0]),
                   ("a", [1.0, 1.0]), ("b", [11.0, 11.0])]
    assert rec.is_step_closure


def test_trace_outside_executor_raises(cpu_backend):
    # real (the real stack then leaves the process broken; we do not)
    f = cstorch.trace(lambda x: x + 1)
    with pytest.raises(RuntimeError, match="data executor was not used"):
        f(torch.ones(1))
    ex = cstorch.utils.data.DataExecutor(_loader(2), num_steps=2)
    calls = [f(x)[0].item() for (x,) in ex]
    assert calls == [1.0, 2.0]


def test_checkpoint_closure_without_backend():
    with pytest.raises(RuntimeError, match="No active Cerebras backend"):
        cstorch.checkpoint_closure(lambda: None)()


def test_checkpoint_closure_outside_executor_fires_at_next_pre_initial_step(cpu_backend):
    # real
    fired = []
    ck = cstorch.checkpoint_closure(lambda s: fired.append(s))
    ck(-1)
    assert fired == []
    for _ in cstorch.utils.data.DataExecutor(_loader(2), num_steps=2):
        pass
    assert fired == [-1]


@given(num_steps=st.integers(1, 40), k=st.integers(0, 45))
def test_checkpoint_steps_schedule(num_steps, k):
    import importlib
    importlib.import_module("minitorch_cs.backend")._reset_for_tests()
    cstorch.backend("CPU", artifact_dir=_ARTIFACTS)
    fired = []
    ck = cstorch.checkpoint_closure(lambda s: fired.append(s))
    ex = cstorch.utils.data.DataExecutor(_loader(3), num_steps=num_steps, checkpoint_steps=k)
    for step, _ in enumerate(ex, 1):
        ck(step)
    expected = [] if k == 0 else sorted({s for s in range(k, num_steps + 1, k)} | {num_steps})
    assert fired == expected


def test_schedule_ranges_and_errors():
    s = Schedule([Schedule.Range(0, 10, 3, include_last=True), Schedule.Range(20, 25)])
    assert list(s) == [0, 3, 6, 9, 20, 21, 22, 23, 24]
    assert len(s) == 9 and s.start == 0 and s.final_step == 24
    r = Schedule.Range(1, 8, 3, include_last=True)
    assert list(r) == [1, 4, 7] and len(r) == 3 and r.final_step == 7
    r2 = Schedule.Range(0, 8, 3, include_last=True)
    assert list(r2) == [0, 3, 6, 7] and len(r2) == 4 and r2.match(7) and not r2.match(8)
    assert s.next_immediate_step(4) == 6 and s.next_immediate_step(10) == 20
    with pytest.raises(ValueError, match="exceeds the last interval step"):
        s.next_immediate_step(30)
    with pytest.raises(ValueError, match=r"start \(-1\) must an integer >= 0"):
        Schedule.Range(-1, 3)
    with pytest.raises(ValueError, match="must be an integer greater than start"):
        Schedule.Range(3, 3)
    with pytest.raises(ValueError, match="must be an integer greater than zero"):
        Schedule.Range(0, 3, 0)
    with pytest.raises(ValueError, match="non-overlapping"):
        Schedule([Schedule.Range(0, 5), Schedule.Range(3, 8)])


def test_compute_num_steps():
    loader = _loader(10)
    assert compute_num_steps(loader, num_epochs=2) == 20
    assert compute_num_steps(loader, num_steps=7, max_steps=5) == 5
    assert compute_num_steps(loader, initial_step=3, max_steps=10) == 7
    assert compute_num_steps(loader, num_epochs=1, grad_accum_steps=3) == 3
    assert compute_num_steps(loader, num_epochs=2, steps_per_epoch=4) == 8
    with pytest.raises(ValueError, match="Only one of `num_epochs` or `num_steps`"):
        compute_num_steps(loader, num_epochs=1, num_steps=1)
    with pytest.raises(ValueError, match="One of num_epochs, num_steps, or max_steps"):
        compute_num_steps(loader)
    with pytest.raises(RuntimeError, match="already exceeds max step"):
        compute_num_steps(loader, initial_step=10, max_steps=10)
    with pytest.raises(ValueError, match="must be an integer"):  # real
        compute_num_steps(loader, num_steps=2.0)
    with pytest.raises(ValueError, match="exceeds total steps in an epoch"):
        compute_num_steps(loader, num_epochs=1, steps_per_epoch=11)
    with pytest.raises(ValueError, match="greater than batches per epoch"):
        compute_num_steps(loader, num_epochs=1, grad_accum_steps=11)
    with pytest.raises(ValueError, match="`num_steps` must be greater than zero"):
        compute_num_steps(loader, num_steps=0)
    unsized = cstorch.utils.data.DataLoader(lambda: iter([]))
    assert compute_num_steps(unsized, num_steps=6, steps_per_epoch=2) == 6
    with pytest.raises(ValueError, match="unknown length"):
        compute_num_steps(unsized, num_epochs=1)

"""What ported scripts touch beyond the core: ``cerebras.appliance`` (logger, errors), the 2.10
backend flags (``*_memory_gi``), ``ClusterConfig`` validation, ``executor.profiler.rate_tracker``,
the cstorch DataLoader's worker state, and Model Zoo's data helpers. Values and messages are
the real 2.10 stack's (measured on cerebras-pytorch 2.10.0)."""
from __future__ import annotations

import json
import logging
import warnings

import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch

# -- cerebras.appliance ----------------------------------------------------------------------


def test_appliance_logger_levels_and_errors(caplog):
    from minitorch_cs import appliance
    from minitorch_cs.appliance import errors, log, logger
    assert appliance.__version__ == "2.10.0" and appliance.DEFAULT_COMPILE_DIR == "cached_compile"
    assert logger is logging.getLogger("cerebras") and log.wsc_logger.name == "cerebras.wsc"
    assert (log.VERBOSE, log.TRACE) == (15, 5)
    assert log.get_level_name("verbose") == 15 and log.get_level_name(5) == "TRACE"
    assert log.get_level_name(logging.INFO) == "INFO"
    child = logging.getLogger("cerebras.some.new.child")  # created after the import
    child.setLevel(log.TRACE)
    with caplog.at_level(log.TRACE, logger="cerebras"):
        child.verbose("v %d", 1)
        child.trace("t")
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [("VERBOSE", "v 1"),
                                                                        ("TRACE", "t")]
    assert caplog.records[0].filename == "test_runtime_mirror.py"  # the caller's line
    assert not hasattr(logging.getLogger("elsewhere"), "verbose")
    assert issubclass(errors.ApplianceVersionError, errors.ApplianceClientException)
    assert errors.ApplianceStallError is errors.ApplianceDeadlockError
    assert issubclass(errors.ApplianceHealthPollException, errors.ApplianceCorruptionError)
    e = errors.ClusterJobScheduleError("job-1", "no capacity")
    assert (e.job_id, e.message, str(e)) == ("job-1", "no capacity", "no capacity")
    assert errors.cerebras_support_msg("x").startswith("x\nWe have encountered an internal error")


def test_named_class_logger():
    from minitorch_cs.appliance.log import ClassLogger, named_class_logger

    @named_class_logger
    class A(ClassLogger):
        pass

    @named_class_logger("tools.thing")
    class B:
        pass

    assert A.logger.name == f"cerebras.{__name__}.A" and B.logger.name == "cerebras.tools.thing"
    B.logger.setLevel(logging.DEBUG)
    assert B._should_log_debug() and not B._should_log_trace()
    with pytest.raises(TypeError, match="`cls_or_namespace` must be a type, str, or None"):
        named_class_logger(3)


def test_appliance_cluster_config_is_cstorchs():
    from minitorch_cs.appliance.cluster_config import ClusterConfig
    assert ClusterConfig is cstorch.distributed.ClusterConfig

# -- flags ------------------------------------------------------------------------------------


MEMORY_FLAGS = ["compile_crd_memory_gi", "execute_crd_memory_gi", "wrk_memory_gi",
                "act_memory_gi", "cmd_memory_gi", "wgt_memory_gi", "chf_memory_gi"]


@pytest.fixture
def flags():
    yield cstorch.backends
    cstorch.backends.reset()


@pytest.mark.parametrize("name", MEMORY_FLAGS)
def test_memory_limit_flags(flags, name):
    dbg = flags.csx.debug
    assert getattr(dbg, name) is None
    setattr(dbg, name, 32)
    assert getattr(dbg, name) == 32
    setattr(dbg, name, None)
    assert getattr(dbg, name) is None
    with pytest.raises(TypeError, match=rf"^Expected one of int, NoneType for `{name}`. Got "
                                        r"<class 'float'>: 2.5$"):
        setattr(dbg, name, 2.5)
    setattr(dbg, name, 4)
    setattr(dbg, name, flags.DEFAULT)
    assert getattr(dbg, name) is None


def test_flag_types_defaults_and_messages(flags):
    dbg, perf = flags.csx.debug, flags.csx.performance
    assert dbg.check_constraints is False and perf.max_transfer_bytes == 268435456
    with pytest.raises(TypeError, match=r"^Expected bool for `drop_data`. Got <class 'str'>: x$"):
        dbg.drop_data = "x"
    with pytest.raises(TypeError, match=r"^Expected bool for `log_initialization`. Got <class "
                                        r"'int'>: 1$"):
        dbg.log_initialization = 1
    with pytest.raises(TypeError, match="Expected one of str, NoneType for "
                                        "`op_definition_module`"):
        dbg.op_definition_module = 3
    with pytest.raises(TypeError, match=r"^Expected int for `transfer_processes`"):
        perf.transfer_processes = "x"
    with pytest.raises(ValueError, match="max_transfer_bytes must be a positive integer less "
                                         "than 2147482624, got -1"):
        perf.max_transfer_bytes = -1
    with pytest.raises(ValueError, match=r"optimization_level must be an integer in range "
                                         r"\[0, 3\). Got 3"):
        flags.csx.precision.optimization_level = 3
    with pytest.raises(ValueError, match='Invalid value "-3" for "micro_batch_size"'):
        perf.micro_batch_size = -3
    with pytest.raises(AttributeError, match="debug is a nested flag and cannot be set directly"):
        flags.csx.debug = 1
    with pytest.raises(AttributeError, match="'_debug' has no flag 'nosuch'"):
        dbg.nosuch = 1
    assert dict(flags.csx)["debug"]["wrk_memory_gi"] is None

# -- ClusterConfig ----------------------------------------------------------------------------


def test_cluster_config_checks_mount_dirs_and_python_paths(tmp_path, monkeypatch):
    C = cstorch.distributed.ClusterConfig
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=rf"^Mount dir {tmp_path}/missing does not exist$"):
        C(mount_dirs=["missing"])
    with pytest.raises(ValueError, match=r"^/no/such/dir does not exist$"):
        C(python_paths=["/no/such/dir"])
    (tmp_path / "data").mkdir()
    c = C(mount_dirs=[str(tmp_path / "data"), "data", str(tmp_path / "data")],
          python_paths=["."])
    assert c.mount_dirs == [(str(tmp_path / "data"), str(tmp_path / "data")), ("data", "data")]
    assert c.mount_dirs[1].container_path == "data" and c.python_paths == [str(tmp_path)]
    with pytest.raises(ValueError, match="Mount dir /gone does not exist"):
        c.mount_dirs = ["/gone"]  # checked on assignment too
    c.mount_dirs = C.DEFAULT
    assert c.mount_dirs == []


@pytest.mark.parametrize("kwargs,error,msg", [
    (dict(num_csx=-1), ValueError, "num_csx must be a non-negative integer or None. Got -1"),
    (dict(num_csx=1.5), ValueError, "num_csx must be a non-negative integer or None. Got 1.5"),
    (dict(job_time_sec=0), ValueError, "job_time_sec must be a positive integer or None. Got 0"),
    (dict(job_labels=["a"]), ValueError, "'a' is an invalid label. Expecting the label key and "
                                         "the label value to be separated by a single equal "
                                         "sign(=) character."),
    (dict(job_priority="p9"), ValueError, "Invalid job priority value: p9 (should be one of "
                                          "['p1', 'p2', 'p3'])"),
    (dict(mgmt_address="foo"), ValueError, "mgmt_address 'foo' should be in the form of "
                                           "'<name>:<port>'"),
    (dict(mount_dirs="/tmp"), TypeError, 'can only concatenate str (not "list") to str'),
])
def test_cluster_config_validation_matches_the_real_messages(kwargs, error, msg):
    with pytest.raises(error) as e:
        cstorch.distributed.ClusterConfig(**kwargs)
    assert str(e.value) == msg


def test_cluster_config_values():
    C = cstorch.distributed.ClusterConfig
    assert C().job_priority == 3 and C(job_priority="p1").job_priority == 2
    assert C(job_priority="p3").job_priority == 4 and C(job_priority=4).job_priority == 4
    c = C(num_csx=0)  # accepted here; a CSX backend refuses it
    c.num_csx = None
    assert c.num_csx == 1

# -- profiler ---------------------------------------------------------------------------------


def _loader():
    return torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.arange(40.).reshape(20, 2)), batch_size=4)


def test_rate_tracker_counts_samples_before_the_step_closures(cpu_backend):
    ex = cstorch.utils.data.DataExecutor(cstorch.utils.data.DataLoader(_loader), num_steps=3)
    assert ex.profiler is None
    seen = []

    @cstorch.step_closure
    def closure(step):
        rt = ex.profiler.rate_tracker
        seen.append((step, rt.total_samples, type(rt).__name__, sorted(rt.compute())))
        assert rt.rate >= 0 and rt.global_rate >= 0 and rt.total_time >= 0
        assert rt.samples_per_sec == rt.global_rate and rt.flops_utilization is None

    body = []
    for i, _ in enumerate(ex):
        body.append(ex.profiler.rate_tracker.total_samples)
        closure(i)
    keys = ["flops_utilization", "global_rate", "rate", "samples_per_sec", "total_samples",
            "total_time"]
    assert body == [0.0, 4.0, 8.0]
    assert seen == [(0, 4.0, "RateTrackerActivity", keys), (1, 8.0, "RateTrackerActivity", keys),
                    (2, 12.0, "RateTrackerActivity", keys)]
    with pytest.raises(AttributeError, match="'Profiler' object has no attribute 'rate'"):
        ex.profiler.rate()
    perf = json.loads((ex.artifact_dir / "performance.json").read_text())
    assert sorted(perf) == keys and perf["total_samples"] == 12.0


def test_profiler_activities_and_errors(cpu_backend):
    from minitorch_cs.utils.profiler import Activity, Profiler, RateTrackerActivity

    class Steps(Activity):
        @classmethod
        def name(cls):
            return "steps"

        def __init__(self):
            self.n = 0

        def update(self, batch_size):
            self.n += 1

        def compute(self):
            return self.n

    ex = cstorch.utils.data.DataExecutor(cstorch.utils.data.DataLoader(_loader), num_steps=2,
                                         profiler_activities=[Steps])
    for _ in ex:
        pass
    assert ex.profiler.steps.n == 2 and not hasattr(ex.profiler, "rate_tracker")
    assert json.loads((ex.artifact_dir / "performance.json").read_text()) == 2
    with pytest.raises(TypeError, match="Expected activity to be a subclass of Activity"):
        Profiler("x", activities=[int])
    with pytest.raises(ValueError, match='Activity with name "steps" already exists.'):
        Profiler("x", activities=[Steps, Steps])
    with pytest.raises(RuntimeError, match="before it's computed"):
        RateTrackerActivity().rate


_UNFINISHED_RUN = """
import sys
import minitorch_cs as cstorch
from minitorch_cs import torch
cstorch.backend("CSX", artifact_dir=sys.argv[1])
data = [(torch.ones(2, 3), torch.zeros(2, dtype=torch.int64))] * 4
ex = cstorch.utils.data.DataExecutor(cstorch.utils.data.DataLoader(lambda: data), num_steps=4)
it = iter(ex)  # kept to the end of the script: the run is never finished
next(it), next(it)
"""


def test_run_left_unfinished_ends_at_exit(tmp_path):
    """A script that stops iterating an executor and exits while still holding its iterator: the
    run is ended at interpreter exit (performance.json written, nothing logged), not left to the
    final garbage collection (where the profiler logged "name 'open' is not defined")."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", _UNFINISHED_RUN, str(tmp_path)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=root))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    perf = json.loads((tmp_path / "executors" / "000001" / "performance.json").read_text())
    assert perf["total_samples"] == 2.0


def test_compile_only_runs_have_no_profiler(tmp_path):
    cstorch.backend("CSX", artifact_dir=tmp_path, compile_only=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ex = cstorch.utils.data.DataExecutor(cstorch.utils.data.DataLoader(_loader), num_steps=1)
    for _ in ex:
        pass
    assert ex.profiler is None


def test_rate_tracker_smoothing(monkeypatch):
    from minitorch_cs.utils import tracker
    now = [0]
    monkeypatch.setattr(tracker.time, "perf_counter_ns", lambda: now[0])
    rt = tracker.RateTracker()
    rt.add(10)
    now[0] = 2 * 10 ** 9
    assert rt.rate() == 5.0 and rt.global_rate() == 5.0
    rt.add(40)
    now[0] = 4 * 10 ** 9
    assert rt.rate() == pytest.approx(0.6 * 20 + 0.4 * 5) and rt.global_rate() == 12.5
    assert rt.total_count == 50 and rt.rate() == 0.0  # no time passed

# -- the cstorch DataLoader's worker state ----------------------------------------------------


class _Stateful:
    def __iter__(self):
        for i in range(100):
            yield torch.full((4, 2), float(i))

    def __len__(self):
        return 100

    def state_dict(self):
        w = cstorch.distributed.get_worker_state()
        return {"step": w.worker_step, "streamed": w.samples_streamed,
                "id": w.global_worker_id, "total": w.total_num_workers}

    def load_state_dict(self, sd, strict=True):
        self.loaded = (sd, strict)

    def aggregate_state_dict(self, worker_states):
        return {"w": worker_states}

    def deaggregate_state_dict(self, agg, strict=True):
        return agg["w"][0]


def test_worker_state_inside_state_dict_matches_the_real_cpu_backend(cpu_backend):
    loader = cstorch.utils.data.DataLoader(_Stateful)
    saved = []
    ck = cstorch.checkpoint_closure(lambda: saved.append(loader.state_dict()))
    ck()
    for _ in cstorch.utils.data.DataExecutor(loader, num_steps=5, checkpoint_steps=2):
        ck()
    w = lambda step, n: {"w": [{"step": step, "streamed": n, "id": 0, "total": 1}]}  # noqa: E731
    assert saved == [w(0, 0), w(2, 8), w(4, 16), w(5, 20)]  # the real stack's values
    with pytest.raises(RuntimeError, match="Unable to fetch CSX Worker state"):
        cstorch.distributed.get_worker_state()
    loader.load_state_dict(saved[-1])
    assert loader.dataloader.loaded == ({"step": 5, "streamed": 20, "id": 0, "total": 1}, True)

# -- Model Zoo helpers ------------------------------------------------------------------------


def test_model_zoo_input_utils():
    from minitorch_cs.modelzoo.common.input_utils import (
        bucketed_batch, get_streaming_batch_size, validate_streaming_and_micro_batch_size)
    assert get_streaming_batch_size(8) == 8
    with pytest.raises(TypeError):
        get_streaming_batch_size(8.0)
    got = [b.tolist() for b in bucketed_batch(iter(range(7)), 3)]
    assert got == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in bucketed_batch(iter(range(7)), 3, drop_last=True)] == [
        [0, 1, 2], [3, 4, 5]]
    samples = [[0] * n for n in (1, 5, 2, 6, 1, 7, 2)]
    out = [b for b in bucketed_batch(iter(samples), 2, buckets=[4], element_length_fn=len,
                                     collate_fn=lambda b: [len(s) for s in b], seed=0)]
    assert out[:2] == [[1, 2], [5, 6]] and sorted(out[2] + out[3]) == [1, 2, 7]
    with pytest.raises(ValueError, match="Bucket boundaries must be sorted"):
        list(bucketed_batch(iter(samples), 2, buckets=[4, 2], element_length_fn=len))
    with pytest.raises(ValueError, match="must supply a length function"):
        list(bucketed_batch(iter(samples), 2, buckets=[4]))
    with pytest.warns(UserWarning, match="Gradient accumulation will search"):
        validate_streaming_and_micro_batch_size(8, "auto", 1)
    validate_streaming_and_micro_batch_size(8, {"explore": {"min": 2}}, 1)
    with pytest.raises(ValueError, match=r"Expected batch_size \(1\) to be greater than or equal "
                                         r"to num_csx \(2\)"):
        validate_streaming_and_micro_batch_size(1, None, 2)
    with pytest.raises(ValueError, match=r"Expected micro_batch_size \(9\)"):
        validate_streaming_and_micro_batch_size(8, 9, 1)


def test_model_zoo_pytorch_utils():
    from minitorch_cs.modelzoo.common.pytorch_utils import (SampleGenerator, to_tensor,
                                                             visit_structure)
    data = (torch.zeros(2), torch.ones(2))
    gen = SampleGenerator(data, sample_count=3)
    assert len(gen) == 3 and [x is data for x in gen] == [True] * 3 and len(list(gen)) == 3
    assert to_tensor(3).dtype == torch.int32 and to_tensor([1.5])[0].dtype == torch.float32
    found = list(visit_structure({"a": [1, "x"], "b": 2}, lambda v: isinstance(v, int)))
    assert found == [(["a", "0"], 1), (["b"], 2)]
    with pytest.raises(ValueError, match="Unknown data structure: x"):
        list(visit_structure(["x"], lambda v: False, strict=True))


class _Fake(torch.utils.data.Dataset):
    def __init__(self, n):
        self.n = n
        self.sampler = cstorch.utils.data.DistributedSampler(self, batch_size=4, shuffle=False)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor(float(i))


def _restartable():
    from minitorch_cs.modelzoo.data.common.restartable_dataloader import RestartableDataLoader
    ds = _Fake(40)
    return RestartableDataLoader(ds, batch_sampler=ds.sampler)


def test_restartable_dataloader_saves_and_resumes_its_position(cpu_backend, caplog):
    loader = cstorch.utils.data.DataLoader(_restartable)
    saved = []
    ck = cstorch.checkpoint_closure(lambda: saved.append(loader.state_dict()))
    first = []
    for (x) in cstorch.utils.data.DataExecutor(loader, num_steps=3, checkpoint_steps=2):
        first.append(x.tolist())
        ck()
    assert saved == [{"samples_streamed": 8, "__version__": 1},
                     {"samples_streamed": 12, "__version__": 1}]
    assert "Dataset does not have the `state_dict()` method implemented" in caplog.text
    fresh = cstorch.utils.data.DataLoader(_restartable)
    fresh.load_state_dict(saved[-1])
    nxt = [x.tolist() for x in cstorch.utils.data.DataExecutor(fresh, num_steps=2)]
    assert first[0] == [0.0, 1.0, 2.0, 3.0] and nxt == [[12.0, 13.0, 14.0, 15.0],
                                                        [16.0, 17.0, 18.0, 19.0]]
    with pytest.raises(KeyError, match='missing key "samples_streamed"'):
        fresh.dataloader.load_state_dict({"__version__": 1, "dataset": {}}, strict=True)
    with pytest.raises(ValueError, match="Invalid state_dict version: 7"):
        fresh.dataloader.load_state_dict({"__version__": 7})


def test_restartable_dataloader_needs_a_map_dataset_and_a_cstorch_sampler():
    from minitorch_cs.modelzoo.data.common.restartable_dataloader import RestartableDataLoader
    with pytest.raises(ValueError, match="expects a"):
        RestartableDataLoader([1, 2, 3])
    with pytest.raises(ValueError, match="batch_sampler, but got"):
        RestartableDataLoader(_Fake(8), batch_size=2)

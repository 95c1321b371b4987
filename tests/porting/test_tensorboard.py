"""``SummaryWriter`` writes real TensorBoard event files (checked with an independent TFRecord
reader, and with the real stack's SummaryReader when the reference Python is set)."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.utils.tensorboard  # noqa: F401  (cstorch: import before use)
from minitorch_cs import torch
from minitorch_cs.torch.utils.tensorboard import SummaryWriter as TorchSummaryWriter
from minitorch_cs.utils.tensorboard import SummaryReader, SummaryWriter

from . import _events


def _loop(backend_type, tmp_path, writer, num_steps=5):
    """A cstorch loop whose step closure writes the loss at ``base_step + step``."""
    backend = cstorch.backend(backend_type, artifact_dir=str(tmp_path / "artifacts"))
    torch.manual_seed(0)
    with backend.device:
        model = torch.nn.Linear(3, 1)
    compiled = cstorch.compile(model, backend)
    opt = cstorch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 3)
    y = x.sum(1, keepdim=True)

    def input_fn():
        return [(x, y)]

    @cstorch.trace
    def step(inputs, targets):
        loss = torch.nn.functional.mse_loss(compiled(inputs), targets)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    @cstorch.step_closure
    def log(loss, i):
        writer.add_scalar("train/loss", loss, writer.base_step + i)

    losses = []

    @cstorch.step_closure
    def keep(loss):
        losses.append(loss.item())

    executor = cstorch.utils.data.DataExecutor(cstorch.utils.data.DataLoader(input_fn),
                                               num_steps=num_steps)
    for i, (inputs, targets) in enumerate(executor):
        loss = step(inputs, targets)
        log(loss, i)
        keep(loss)
    return losses


@pytest.mark.parametrize("backend_type", ["CPU", "CSX"])
def test_scalars_from_step_closures(backend_type, tmp_path):
    writer = SummaryWriter(log_dir=str(tmp_path / "tb"), base_step=100)
    assert writer.base_step == 100 and writer.log_dir == str(tmp_path / "tb")
    losses = _loop(backend_type, tmp_path, writer)
    writer.close()
    files = _events.event_files(tmp_path / "tb")
    assert len(files) == 1
    evs = _events.events(files[0])
    assert evs[0].file_version == "brain.Event:2"
    got = _events.scalars(files[0])["train/loss"]
    assert [s for s, _ in got] == [100, 101, 102, 103, 104]
    np.testing.assert_allclose([v for _, v in got], losses, rtol=1e-6)
    assert losses[-1] < losses[0]


def test_default_base_step_and_cs_events_dir(tmp_path):
    writer = SummaryWriter(log_dir=str(tmp_path))
    assert writer.base_step == 1
    assert writer.cs_events_dir.parent == tmp_path
    assert writer.cs_events_dir.name.startswith("events.out.csevents.")
    assert (writer.cs_events_dir / "__metadata__").read_text() == '{"__version__": 1.1}'
    writer.close()


def test_writing_inside_the_traced_step_is_refused_on_csx(tmp_path):
    """On the wafer values exist only in step closures: the writer cannot read a traced loss."""
    writer = SummaryWriter(log_dir=str(tmp_path / "tb"))
    backend = cstorch.backend("CSX", artifact_dir=str(tmp_path / "a"))
    with backend.device:
        model = torch.nn.Linear(2, 1)
    compiled = cstorch.compile(model, backend)

    @cstorch.trace
    def step(x):
        loss = compiled(x).sum()
        writer.add_scalar("loss", loss, 1)
        return loss

    executor = cstorch.utils.data.DataExecutor(
        cstorch.utils.data.DataLoader(lambda: [torch.ones(2, 2)]), num_steps=1)
    with pytest.raises(Exception, match="step_closure"):
        for x in executor:
            step(x)
    writer.close()


def test_reader_round_trip_scalars_and_tensors(tmp_path):
    writer = SummaryWriter(log_dir=str(tmp_path))
    for step in range(3):
        writer.add_scalar("loss", torch.tensor(1.0 / (step + 1)), step)
        writer.add_scalar("eval/acc", 0.5 + step / 10, step)
    weights = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    writer.add_tensor("weights/fc1", weights, 2)
    writer.close()
    reader = SummaryReader(str(tmp_path))
    assert reader.scalar_names() == {"loss", "eval/acc"}
    assert reader.scalar_groups() == {"loss", "eval"}
    assert [round(e.value, 6) for e in reader.read_scalar("loss")] == [1.0, 0.5, 0.333333]
    assert reader.read_scalar("eval/acc", step=2).value == pytest.approx(0.7)
    with pytest.raises(KeyError, match="at step 9"):
        reader.read_scalar("loss", step=9)
    with pytest.raises(RuntimeError, match="Could not find scalar nope"):
        reader.read_scalar("nope")
    assert reader.tensor_names() == {"weights/fc1"}
    desc = reader.read_tensor("weights/fc1", step=2)
    assert desc.step == 2 and desc.ns_since_epoch > 0
    np.testing.assert_array_equal(desc.tensor.numpy(), weights.numpy())
    assert set(reader.read_tensor("weights/fc1")) == {2}
    assert SummaryReader(str(tmp_path), filter="eval").scalar_names() == {"eval/acc"}
    (tmp_path / "empty").mkdir()
    with pytest.raises(RuntimeError, match="No event files found"):
        SummaryReader(str(tmp_path / "empty"))


def test_torch_writer_summary_kinds(tmp_path):
    w = TorchSummaryWriter(log_dir=str(tmp_path))
    assert w.get_logdir() == str(tmp_path)
    torch.manual_seed(0)
    w.add_scalar("s", torch.tensor(2.5), torch.tensor(3))
    w.add_histogram("h", torch.randn(100), 1)
    w.add_image("img", torch.rand(1, 4, 5), 1)
    w.add_text("note", "hello", 1)
    w.add_tensor("t", torch.tensor([[1, 2], [3, 4]], dtype=torch.int32), 4)
    w.add_scalars("group", {"a": torch.tensor(1.0), "b": 2.0}, 5)
    w.close()
    main = [f for f in _events.event_files(tmp_path) if f.parent == tmp_path][0]
    kinds = {}
    for e in _events.events(main):
        for v in e.summary.value:
            kinds[v.tag] = (e.step, v.WhichOneof("value"), v)
    assert kinds["s"][:2] == (3, "simple_value") and kinds["s"][2].simple_value == 2.5
    assert kinds["h"][1] == "histo" and kinds["h"][2].histo.num == 100
    assert kinds["img"][1] == "image" and (kinds["img"][2].image.height,
                                           kinds["img"][2].image.width) == (4, 5)
    assert kinds["note/text_summary"][1] == "tensor"
    t = kinds["t"][2].tensor
    assert kinds["t"][0] == 4 and [d.size for d in t.tensor_shape.dim] == [2, 2]
    assert np.frombuffer(t.tensor_content, dtype="<i4").tolist() == [1, 2, 3, 4]
    sub = {f.parent.name for f in _events.event_files(tmp_path)} - {tmp_path.name}
    assert sub == {"group_a", "group_b"}


def test_default_log_dir_is_runs_date_host_comment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = TorchSummaryWriter(comment="_lr0.1")
    w.close()
    (run,) = os.listdir(tmp_path / "runs")
    assert run.endswith("_lr0.1") and w.get_logdir() == os.path.join("runs", run)


def test_add_graph_is_not_available(tmp_path):
    w = TorchSummaryWriter(log_dir=str(tmp_path))
    with pytest.raises(NotImplementedError, match="torch.jit"):
        w.add_graph(torch.nn.Linear(1, 1), torch.ones(1, 1))
    w.close()


@pytest.mark.reference
def test_real_summary_reader_reads_our_files(reference_python, tmp_path):
    writer = SummaryWriter(log_dir=str(tmp_path))
    for step in range(3):
        writer.add_scalar("train/loss", torch.tensor(3.0 - step), step + 1)
    writer.close()
    code = ("import sys\nfrom cerebras.pytorch.utils.tensorboard import SummaryReader\n"
            "r = SummaryReader(sys.argv[1])\n"
            "print([(e.step, e.value) for e in r.read_scalar('train/loss')])\n")
    run = subprocess.run([reference_python, "-c", code, str(tmp_path)], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[(1, 3.0), (2, 2.0), (3, 1.0)]"


def test_two_writers_in_one_second_keep_separate_files(tmp_path):
    """torch's file names carry the pid and a counter; tensorboardX's alone would collide and
    the second writer would truncate the first one's file."""
    first, second = SummaryWriter(log_dir=str(tmp_path)), SummaryWriter(log_dir=str(tmp_path))
    first.add_scalar("a", 1.0, 1)
    second.add_scalar("b", 2.0, 1)
    first.close()
    second.close()
    files = _events.event_files(tmp_path)
    assert len(files) == 2
    assert all(f.name.split(".")[-2] == str(os.getpid()) for f in files)
    assert sorted(t for f in files for t in _events.scalars(f)) == ["a", "b"]

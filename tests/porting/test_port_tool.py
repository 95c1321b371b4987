"""The import rewriter: what it maps, what it leaves alone, and what it refuses (and why)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import minitorch_cs

from minitorch_cs.tools.port import PortError, map_module, port_source

REWRITES = [
    ("import torch", "import minitorch_cs.torch as torch"),
    ("import torch.nn as nn", "import minitorch_cs.torch.nn as nn"),
    ("import torch.nn.functional as F", "import minitorch_cs.torch.nn.functional as F"),
    ("import torch.utils.data",
     "import minitorch_cs.torch.utils.data; import minitorch_cs.torch as torch"),
    ("from torch import nn, optim as _", None),  # refused below (optim)
    ("from torch.utils.data import DataLoader, TensorDataset",
     "from minitorch_cs.torch.utils.data import DataLoader, TensorDataset"),
    ("from torch.utils.data.distributed import DistributedSampler",
     "from minitorch_cs.torch.utils.data.distributed import DistributedSampler"),
    ("from torch.utils.tensorboard import SummaryWriter",
     "from minitorch_cs.torch.utils.tensorboard import SummaryWriter"),
    ("import cerebras.pytorch as cstorch", "import minitorch_cs as cstorch"),
    ("import cerebras_pytorch as cstorch", "import minitorch_cs as cstorch"),
    ("from cerebras import pytorch as cstorch", "import minitorch_cs as cstorch"),
    ("import cerebras.pytorch.distributed as dist", "import minitorch_cs.distributed as dist"),
    ("from cerebras.pytorch.metrics import AccuracyMetric",
     "from minitorch_cs.metrics import AccuracyMetric"),
    ("from cerebras_pytorch.utils.data import DataExecutor",
     "from minitorch_cs.utils.data import DataExecutor"),
    ("import cerebras.pytorch.utils.tensorboard",
     "import minitorch_cs.utils.tensorboard; import minitorch_cs.tools.cerebras as cerebras"),
    ("from cerebras.modelzoo.config import ModelConfig, DataConfig",
     "from minitorch_cs.modelzoo.config import ModelConfig, DataConfig"),
    ("from torchvision import datasets, transforms",
     "from minitorch_cs.torchvision import datasets, transforms"),
    ("import torchvision.transforms as T", "import minitorch_cs.torchvision.transforms as T"),
    ("import numpy as np, torch", "import numpy as np; import minitorch_cs.torch as torch"),
    ("from torch import *", "from minitorch_cs.torch import *"),
]


@pytest.mark.parametrize("src,want", [r for r in REWRITES if r[1] is not None])
def test_rewrite(src, want):
    assert port_source(src + "\n") == want + "\n"


@pytest.mark.parametrize("src", ["import numpy as np", "from . import helpers",
                                 "from .models import Net", "import os.path",
                                 "import torchaudio_like_but_not"])
def test_unrelated_imports_are_left_alone(src):
    assert port_source(src + "\n") == src + "\n"


def test_only_import_lines_change_and_layout_is_kept():
    src = textwrap.dedent('''\
        """Docstring mentioning import torch."""
        import torch  # the tensor library
        x = "import torch"

        def f():
            import torch.nn.functional as F
            return F

        if True:
            from cerebras.pytorch import metrics
        ''')
    out = port_source(src)
    assert out.splitlines() == [
        '"""Docstring mentioning import torch."""',
        "import minitorch_cs.torch as torch  # the tensor library",
        'x = "import torch"',
        "",
        "def f():",
        "    import minitorch_cs.torch.nn.functional as F",
        "    return F",
        "",
        "if True:",
        "    from minitorch_cs import metrics",
    ]
    exec(compile(out, "<ported>", "exec"), {})


def test_multiline_from_import():
    src = "from cerebras.pytorch.metrics import (\n    AccuracyMetric,\n    MeanMetric,\n)\nx = 1\n"
    assert port_source(src) == ("from minitorch_cs.metrics import AccuracyMetric, MeanMetric\n"
                                "x = 1\n")


def test_cerebras_namespace_after_bare_import():
    ns = {}
    exec(port_source("import cerebras.pytorch\nimport cerebras.pytorch.utils.tensorboard\n"), ns)
    import minitorch_cs
    assert ns["cerebras"].pytorch is minitorch_cs
    assert ns["cerebras"].pytorch.utils.tensorboard.SummaryWriter.__name__ == "SummaryWriter"
    with pytest.raises(AttributeError, match="cerebras.appliance"):
        ns["cerebras"].appliance


REFUSALS = [
    ("import torch.optim as optim", "use cerebras.pytorch.optim"),
    ("from torch.optim import SGD", "use cerebras.pytorch.optim"),
    ("from torch import optim", "use cerebras.pytorch.optim"),
    ("import torch.distributed as dist", "one process"),
    ("from torch import fft", "'fft' is not provided by 'minitorch_cs.torch'"),
    ("from cerebras.pytorch.metrics import NoSuchMetric", "'NoSuchMetric' is not provided"),
    ("import torchvision.models as models", "only torchvision.datasets.MNIST and transforms"),
    ("import transformers", "needs the real PyTorch"),
    ("from transformers import AutoModelForCausalLM", "needs the real PyTorch"),
    ("import timm", "needs the real PyTorch"),
    ("import lightning.pytorch as pl", "needs the real PyTorch"),
    ("import cerebras.appliance", "'cerebras.appliance' has no minitorch_cs counterpart"),
    ("from cerebras import appliance", "'cerebras.appliance' has no minitorch_cs counterpart"),
    ("import importlib\nm = importlib.import_module('torch.nn')", "dynamic import of 'torch.nn'"),
    ("t = __import__('torch')", "dynamic import of 'torch'"),
]


@pytest.mark.parametrize("src,reason", REFUSALS)
def test_refusals_name_the_line_and_the_reason(src, reason):
    with pytest.raises(PortError) as e:
        port_source("x = 0\n" + src + "\n")
    msg = str(e.value)
    assert "line 2" in msg or "line 3" in msg
    assert reason in msg


def test_every_problem_is_listed_in_line_order_and_nothing_is_half_done():
    src = "import torch\nimport transformers\nimport torch.optim\nimport cerebras.appliance\n"
    with pytest.raises(PortError) as e:
        port_source(src)
    lines = [l.strip() for l in str(e.value).splitlines()[1:]]
    assert [l.split(":")[0] for l in lines] == ["line 2", "line 3", "line 4"]


def test_map_module():
    assert map_module("torch") == "minitorch_cs.torch"
    assert map_module("torchvision.datasets") == "minitorch_cs.torchvision.datasets"
    assert map_module("cerebras.pytorch.utils.nest") == "minitorch_cs.utils.nest"
    assert map_module("cerebras_pytorch") == "minitorch_cs"
    assert map_module("cerebras.modelzoo.trainer") == "minitorch_cs.modelzoo.trainer"
    assert map_module("torchaudio") is None and map_module("numpy") is None


def test_command_line(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\nprint(torch.ones(2).sum().item())\n")
    out = tmp_path / "ported.py"
    run = subprocess.run([sys.executable, "-m", "minitorch_cs.tools.port", str(script), "-o",
                          str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert out.read_text().startswith("import minitorch_cs.torch as torch\n")
    env = {**os.environ, "PYTHONPATH": str(Path(minitorch_cs.__file__).parents[1])}
    ran = subprocess.run([sys.executable, str(out)], capture_output=True, text=True, env=env)
    assert ran.stdout.strip() == "2.0"
    # printing to stdout without -o
    run = subprocess.run([sys.executable, "-m", "minitorch_cs.tools.port", str(script)],
                         capture_output=True, text=True)
    assert run.stdout == out.read_text()


def test_command_line_refusal_exits_2_and_writes_nothing(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\nimport torch.optim as optim\n")
    out = tmp_path / "ported.py"
    run = subprocess.run([sys.executable, "-m", "minitorch_cs.tools.port", str(script), "-o",
                          str(out)], capture_output=True, text=True)
    assert run.returncode == 2
    assert "line 2" in run.stderr and "cerebras.pytorch.optim" in run.stderr
    assert not out.exists()


def test_minitorch_cs_port_subcommand(tmp_path):
    from minitorch_cs.cli import main
    script = tmp_path / "train.py"
    script.write_text("import torch.nn.functional as F\n")
    out = tmp_path / "ported.py"
    assert main(["port", str(script), "-o", str(out)]) == 0
    assert out.read_text() == "import minitorch_cs.torch.nn.functional as F\n"
    script.write_text("import torch.optim\n")
    assert main(["port", str(script)]) == 2

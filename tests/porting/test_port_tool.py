"""The import rewriter: what it maps, what it leaves alone, what it refuses (and why), that it
is byte-for-byte outside the module paths it replaces, and that it writes files safely."""
from __future__ import annotations

import importlib
import os
import pkgutil
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import minitorch_cs
from minitorch_cs.tools import _index
from minitorch_cs.tools import port as port_mod
from minitorch_cs.tools.port import PortError, map_module, port_bytes, port_source

REPO = str(Path(minitorch_cs.__file__).parents[1])
ENV = {**os.environ, "PYTHONPATH": REPO}

REWRITES = [
    ("import torch", "import minitorch_cs.torch as torch"),
    ("import torch.nn as nn", "import minitorch_cs.torch.nn as nn"),
    ("import torch.nn.functional as F", "import minitorch_cs.torch.nn.functional as F"),
    ("import torch.utils.data", "import minitorch_cs.torch.utils.data, minitorch_cs.torch as torch"),
    ("from torch.utils.data import DataLoader, TensorDataset",
     "from minitorch_cs.torch.utils.data import DataLoader, TensorDataset"),
    ("from torch.utils.data.distributed import DistributedSampler",
     "from minitorch_cs.torch.utils.data.distributed import DistributedSampler"),
    ("from torch.utils.tensorboard import SummaryWriter",
     "from minitorch_cs.torch.utils.tensorboard import SummaryWriter"),
    ("import cerebras.pytorch as cstorch", "import minitorch_cs as cstorch"),
    ("import cerebras_pytorch as cstorch", "import minitorch_cs as cstorch"),
    ("import cerebras_pytorch", "import minitorch_cs as cerebras_pytorch"),
    ("from cerebras import pytorch as cstorch",
     "from minitorch_cs.tools.cerebras import pytorch as cstorch"),
    ("import cerebras.pytorch.distributed as dist", "import minitorch_cs.distributed as dist"),
    ("from cerebras.pytorch.metrics import AccuracyMetric",
     "from minitorch_cs.metrics import AccuracyMetric"),
    ("from cerebras_pytorch.utils.data import DataExecutor",
     "from minitorch_cs.utils.data import DataExecutor"),
    ("import cerebras.pytorch.utils.tensorboard",
     "import minitorch_cs.utils.tensorboard, minitorch_cs.tools.cerebras as cerebras"),
    ("import cerebras", "import minitorch_cs.tools.cerebras as cerebras"),
    ("from cerebras.modelzoo.config import ModelConfig, DataConfig",
     "from minitorch_cs.modelzoo.config import ModelConfig, DataConfig"),
    ("from cerebras.modelzoo.common.input_utils import get_streaming_batch_size",
     "from minitorch_cs.modelzoo.common.input_utils import get_streaming_batch_size"),
    ("from cerebras.appliance import logger", "from minitorch_cs.appliance import logger"),
    ("from cerebras.appliance.errors import ApplianceVersionError",
     "from minitorch_cs.appliance.errors import ApplianceVersionError"),
    ("import cerebras.appliance", "import minitorch_cs.appliance, minitorch_cs.tools.cerebras as "
                                  "cerebras"),
    ("import cerebras_appliance", "import minitorch_cs.appliance as cerebras_appliance"),
    ("from cerebras_appliance.errors import ApplianceNanError",
     "from minitorch_cs.appliance.errors import ApplianceNanError"),
    ("from cerebras import appliance", "from minitorch_cs.tools.cerebras import appliance"),
    ("from torchvision import datasets, transforms",
     "from minitorch_cs.torchvision import datasets, transforms"),
    ("import torchvision", "import minitorch_cs.torchvision as torchvision"),
    ("import torchvision.transforms as T", "import minitorch_cs.torchvision.transforms as T"),
    ("import numpy as np, torch", "import numpy as np, minitorch_cs.torch as torch"),
    ("from torch import *", "from minitorch_cs.torch import *"),
    ("from  torch . nn  import  Linear", "from  minitorch_cs.torch.nn  import  Linear"),
]


@pytest.mark.parametrize("src,want", REWRITES)
def test_rewrite(src, want):
    assert port_source(src + "\n") == want + "\n"


def _bound_by(src):
    """The names an import statement binds, read from its AST."""
    import ast
    node = ast.parse(src).body[0]
    if isinstance(node, ast.ImportFrom):
        return {a.asname or a.name for a in node.names}
    return {a.asname or a.name.split(".")[0] for a in node.names}


@pytest.mark.parametrize("src,want", [r for r in REWRITES if "*" not in r[0]])
def test_rewritten_imports_bind_the_same_names(src, want):
    ns = {}
    exec(compile(want + "\n", "<ported>", "exec"), ns)
    bound = {k for k in ns if not k.startswith("__")}
    # ``import a.b`` forms also bind ``minitorch_cs`` (the package of the target)
    assert _bound_by(src) <= bound and bound - _bound_by(src) <= {"minitorch_cs"}


@pytest.mark.parametrize("src", ["import numpy as np", "from . import helpers",
                                 "from .models import Net", "import os.path",
                                 "import torchaudio_like_but_not", "import yaml"])
def test_unrelated_imports_are_left_alone(src):
    assert port_source(src + "\n") == src + "\n"


def test_only_import_paths_change_and_layout_is_kept():
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


def test_multiline_parenthesized_import_keeps_comments_and_line_numbers():
    src = ("from cerebras.pytorch.metrics import (  # metrics we log\n"
           "    AccuracyMetric,  # top-1\n"
           "\n"
           "    MeanMetric,\n"
           ")\n"
           "x = 1  # line 6\n")
    out = port_source(src)
    assert out == src.replace("cerebras.pytorch.metrics", "minitorch_cs.metrics", 1)
    assert out.splitlines()[5] == "x = 1  # line 6"


def test_backslash_continued_import():
    src = "import numpy, \\\n    torch.nn as nn\nfrom torch \\\n    .utils import data\n"
    assert port_source(src) == ("import numpy, \\\n    minitorch_cs.torch.nn as nn\n"
                                "from minitorch_cs.torch.utils import data\n")


def test_cerebras_namespace_after_bare_import():
    ns = {}
    exec(port_source("import cerebras.pytorch\nimport cerebras.pytorch.utils.tensorboard\n"
                     "import cerebras.appliance\n"), ns)
    import minitorch_cs.appliance
    assert ns["cerebras"].pytorch is minitorch_cs
    assert ns["cerebras"].appliance is minitorch_cs.appliance
    assert ns["cerebras"].pytorch.utils.tensorboard.SummaryWriter.__name__ == "SummaryWriter"
    with pytest.raises(AttributeError, match="'cerebras.sdk' has no counterpart"):
        ns["cerebras"].sdk

# -- bytes: encodings, BOM, line endings -------------------------------------------------------


def _changed_lines(raw_in: bytes, raw_out: bytes):
    """Split both on any line ending (keeping it) and return the differing (in, out) pairs;
    the line count and every other line must be identical, byte for byte."""
    split = lambda b: re.findall(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", b)  # noqa: E731
    a, b = split(raw_in), split(raw_out)
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b) if x != y]


def test_utf8_bom_crlf_and_non_ascii_are_kept_byte_for_byte():
    raw = ("\ufeff# é è\r\nimport torch\r\nfrom torch.utils.data import (  # café\r\n"
           "    DataLoader,  # naïve\r\n)\r\nx = \"ß\"; import torch.nn as nn  # ü\r\n"
           "print(nn)\r\n").encode("utf-8")
    out = port_bytes(raw).output
    assert out.startswith(b"\xef\xbb\xbf")
    assert _changed_lines(raw, out) == [
        (b"import torch\r\n", b"import minitorch_cs.torch as torch\r\n"),
        ("from torch.utils.data import (  # café\r\n".encode(),
         "from minitorch_cs.torch.utils.data import (  # café\r\n".encode()),
        ("x = \"ß\"; import torch.nn as nn  # ü\r\n".encode(),
         "x = \"ß\"; import minitorch_cs.torch.nn as nn  # ü\r\n".encode()),
    ]
    ns = {}
    exec(compile(out, "<ported>", "exec"), ns)
    assert ns["nn"].__name__ == "minitorch_cs.torch.nn"


def test_latin1_declared_encoding_is_kept():
    raw = ("# -*- coding: latin-1 -*-\nimport torch\ns = 'café'  # é\n"
           "import torchvision\n").encode("latin-1")
    result = port_bytes(raw)
    assert result.encoding == "iso-8859-1"
    assert _changed_lines(raw, result.output) == [
        (b"import torch\n", b"import minitorch_cs.torch as torch\n"),
        (b"import torchvision\n", b"import minitorch_cs.torchvision as torchvision\n")]
    assert b"caf\xe9" in result.output
    ns = {}
    exec(compile(result.output, "<ported>", "exec"), ns)
    assert ns["s"] == "café"


def test_lone_cr_and_mixed_line_endings():
    raw = b"import torch\rx = 1\r\nimport torch.nn as nn\ny = 2"
    out = port_bytes(raw).output
    assert out == (b"import minitorch_cs.torch as torch\rx = 1\r\n"
                   b"import minitorch_cs.torch.nn as nn\ny = 2")


def test_file_without_imports_is_returned_unchanged():
    raw = b"\xef\xbb\xbfprint('hi')\r\n# no imports\r\n"
    result = port_bytes(raw)
    assert result.output == raw and result.rewritten == []

# -- dynamic imports ---------------------------------------------------------------------------


def test_find_spec_and_import_module_literals_are_rewritten_and_listed():
    src = ("import importlib\nimport importlib.util\n"
           "if importlib.util.find_spec(\"cerebras_pytorch\") is not None:\n"
           "    cs = importlib.import_module('cerebras_pytorch')\n"
           "elif importlib.util.find_spec('cerebras.pytorch'):\n"
           "    cs = importlib.import_module(\"cerebras.pytorch.utils.data\")\n"
           "nn = importlib.import_module('torch.nn')\n"
           "has_tv = importlib.util.find_spec('torchvision') is not None\n")
    result = port_bytes(src.encode())
    assert result.literals == [
        (3, '"cerebras_pytorch"', '"minitorch_cs"'), (4, "'cerebras_pytorch'", "'minitorch_cs'"),
        (5, "'cerebras.pytorch'", "'minitorch_cs'"),
        (6, '"cerebras.pytorch.utils.data"', '"minitorch_cs.utils.data"'),
        (7, "'torch.nn'", "'minitorch_cs.torch.nn'"),
        (8, "'torchvision'", "'minitorch_cs.torchvision'")]
    ns = {}
    exec(result.output, ns)
    assert ns["cs"].__name__ == "minitorch_cs" and ns["nn"].__name__ == "minitorch_cs.torch.nn"
    assert ns["has_tv"] is True


def test_find_spec_of_a_missing_counterpart_answers_absent():
    ns = {}
    exec(port_source("import importlib.util\nok = importlib.util.find_spec('torch.optim')\n"), ns)
    assert ns["ok"] is None


@pytest.mark.parametrize("src,reason", [
    ("t = __import__('torch')", "with __import__ cannot be mapped"),
    ("import importlib\nm = importlib.import_module('transformers')", "needs the real PyTorch"),
    ("import importlib\nm = importlib.import_module('torch.optim')", "use cerebras.pytorch.optim"),
    ("import importlib\nm = importlib.import_module('tor' 'ch')", "is not a plain literal"),
    ("import importlib\nm = importlib.import_module('cerebras.sdk')", "'cerebras.sdk' has no"),
])
def test_dynamic_imports_that_cannot_be_mapped_are_refused(src, reason):
    with pytest.raises(PortError) as e:
        port_source(src + "\n")
    assert reason in str(e.value)


def test_computed_module_names_are_noted():
    result = port_bytes(b"import importlib\nname = 'torch'\nm = importlib.import_module(name)\n")
    assert result.notes == ["line 3: import_module() with a computed module name is not "
                            "checked; if it names torch, cerebras or torchvision it will not be "
                            "ported"]

# -- refusals, warnings and notes ----------------------------------------------------------------


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
    ("import cerebras.sdk", "'cerebras.sdk' has no minitorch_cs counterpart: minitorch_cs mirrors "
                            "cerebras.pytorch"),
    ("from cerebras.sdk.client import SdkCompiler", "'cerebras.sdk.client' has no minitorch_cs"),
    ("from cerebras import sdk", "'cerebras.sdk' has no minitorch_cs counterpart"),
    ("import cerebras_tensorflow", "'cerebras_tensorflow' has no minitorch_cs counterpart"),
    ("from cerebras.appliance.appliance_manager import ApplianceManager",
     "module 'cerebras.appliance.appliance_manager' has no minitorch_cs counterpart"),
]


@pytest.mark.parametrize("src,reason", REFUSALS)
def test_refusals_name_the_line_and_the_reason(src, reason):
    with pytest.raises(PortError) as e:
        port_source("x = 0\n" + src + "\n")
    msg = str(e.value)
    assert msg.startswith("cannot port these lines:\n  line 2: ")
    assert reason in msg


def test_every_problem_is_listed_in_line_order_and_nothing_is_half_done():
    src = "import torch\nimport transformers\nimport torch.optim\nimport cerebras.sdk\n"
    with pytest.raises(PortError) as e:
        port_source(src)
    assert [p.split(":")[0] for p in e.value.problems] == ["line 2", "line 3", "line 4"]


def test_imports_inside_functions_are_warnings_and_the_file_is_written():
    src = textwrap.dedent('''\
        import torch

        def convert():
            import transformers
            from torch.optim import AdamW
            return transformers, AdamW

        x = torch.ones(2)
        ''')
    result = port_bytes(src.encode())
    assert result.warnings == [
        "line 4: 'transformers' needs the real PyTorch (its code runs on torch's own tensors and "
        "C++ kernels); minitorch_cs cannot run it (inside a function: it fails only if that runs)",
        "line 5: 'torch.optim' has no minitorch_cs counterpart: optimizers on the wafer are "
        "cstorch's: use cerebras.pytorch.optim (cstorch.optim.SGD, AdamW, lr_scheduler, ...) "
        "(inside a function: it fails only if that runs)"]
    out = result.output.decode()
    assert "    import transformers\n" in out  # left as written
    assert "    from minitorch_cs.torch.optim import AdamW\n" in out  # never the real torch
    ns = {}
    exec(out, ns)
    with pytest.raises(ModuleNotFoundError):
        ns["convert"]()


def test_imports_guarded_by_except_importerror_are_notes():
    src = textwrap.dedent('''\
        try:
            import transformers
        except ImportError:
            transformers = None
        try:
            from torch.optim import AdamW
        except (ModuleNotFoundError, RuntimeError):
            AdamW = None
        try:
            import cerebras.sdk as sdk
        except Exception:
            sdk = None
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            import timm
        import torch
        ''')
    result = port_bytes(src.encode())
    assert result.warnings == []
    assert [n.split(":")[0] for n in result.notes] == ["line 2", "line 6", "line 10", "line 15"]
    assert "left unchanged: if it is installed, it loads the real PyTorch" in result.notes[0]
    assert "rewritten, so the guard's fallback runs" in result.notes[1]
    assert "never run" in result.notes[3]
    ns = {}
    exec(result.output, ns)
    assert ns["AdamW"] is None and ns["sdk"] is None
    assert ns["torch"].__name__ == "minitorch_cs.torch"


def test_an_unrelated_try_does_not_guard():
    with pytest.raises(PortError, match="line 2: 'transformers'"):
        port_source("try:\n    import transformers\nexcept KeyError:\n    pass\n")


LEGACY = [
    ("cstorch.utils.CSConfig(num_csx=1)", "'cstorch.utils.CSConfig' is cerebras_pytorch 2.0 API; "
     "minitorch_cs follows cerebras.pytorch 2.10, which removed it: pass a "
     "cstorch.distributed.ClusterConfig(...) to cstorch.backend(\"CSX\", cluster_config=...)"),
    ("cstorch.amp.use_bfloat16(True)", "call cstorch.amp.set_half_dtype(\"bfloat16\")"),
    ("opt = cstorch.optim.configure_optimizer('adamw', params)", "construct the optimizer class "
                                                                "directly"),
    ("cstorch.optim.configure_lr_scheduler(opt, {})", "construct the scheduler directly"),
    ("cstorch.manual_seed(1)", "'cstorch.manual_seed' is cerebras_pytorch 2.0 API; minitorch_cs "
                               "follows cerebras.pytorch 2.10, which removed it: call "
                               "torch.manual_seed(seed)"),
    ("cstorch.summarize_scalar('loss', 1.0)", "SummaryWriter(...).add_scalar"),
    ("b = cstorch.backend('CSX', use_cs_grad_accum=True)", "cstorch.backend(use_cs_grad_accum=...) "
     "is cerebras_pytorch 2.0 API"),
    ("b = cstorch.backend('CPU', mixed_precision=True)", "use cstorch.amp.autocast()"),
    ("e = cstorch.utils.data.DataExecutor(dl, num_steps=1, cs_config=c)",
     "cstorch.utils.data.DataExecutor(cs_config=...) is cerebras_pytorch 2.0 API"),
]


@pytest.mark.parametrize("use,message", LEGACY)
def test_2_0_only_names_say_the_api_is_2_10s_and_what_replaced_it(use, message):
    with pytest.raises(PortError) as e:
        port_source(f"import cerebras_pytorch as cstorch\n\ndef main():\n    {use}\n")
    assert e.value.problems[0].startswith("line 4: ") and message in e.value.problems[0]


@pytest.mark.parametrize("src,message", [
    ("from cerebras_pytorch.amp import use_bfloat16", "'cstorch.amp.use_bfloat16' is "
                                                      "cerebras_pytorch 2.0 API"),
    ("from cerebras.pytorch.utils import CSConfig", "'cstorch.utils.CSConfig' is cerebras_pytorch"),
    ("import cerebras_pytorch.saver.pt_h5_saver", "cstorch.save / cstorch.load"),
    ("from cerebras import pytorch as cs\ncs.manual_seed(0)", "call torch.manual_seed(seed)"),
    ("from cerebras.pytorch import amp\namp.use_bfloat16(True)", "set_half_dtype"),
])
def test_2_0_only_imports(src, message):
    with pytest.raises(PortError) as e:
        port_source(src + "\n")
    assert message in str(e.value)


def test_transformers_for_checkpoint_conversion_says_so():
    src = textwrap.dedent('''\
        import cerebras.pytorch as cstorch
        from transformers import GPT2LMHeadModel, GPT2Config

        hf = GPT2LMHeadModel.from_pretrained("gpt2")
        state = {k.replace("transformer.", "model."): v for k, v in hf.state_dict().items()}
        cfg = GPT2Config.from_pretrained("gpt2").to_dict()
        cstorch.save({"model": state, "config": cfg}, "gpt2.mdl")
        ''')
    with pytest.raises(PortError) as e:
        port_source(src)
    assert e.value.problems == [
        "line 2: 'transformers' is imported only to convert a checkpoint (from_pretrained / "
        "state_dict / save_pretrained), which needs the real PyTorch: run the conversion once "
        "with the real stack and load the converted checkpoint here with cstorch.load"]
    training = src.replace("cfg = ", "out = hf(None)\ncfg = ")
    with pytest.raises(PortError) as e:
        port_source(training)
    assert "needs the real PyTorch (its code runs on torch's own tensors" in e.value.problems[0]


def test_attributes_minitorch_cs_lacks_are_warnings():
    src = ("import torch\nimport cerebras.pytorch as cstorch\n"
           "torch.backends.cudnn.benchmark = True\nx = torch.fft.rfft\n"
           "y = cstorch.sparse.configure\nz = torch.nn.Linear(2, 2).weight\n"
           "print(torch.__name__, torch.nn.functional.relu)\n")
    result = port_bytes(src.encode())
    assert [w.split(":")[0] for w in result.warnings] == ["line 3", "line 4", "line 5"]
    assert result.warnings[0] == ("line 3: 'torch.backends' is not provided by minitorch_cs "
                                  "('minitorch_cs.torch' has no 'backends'); this line raises "
                                  "AttributeError when it runs")
    assert "'cstorch.sparse'" not in result.warnings[2] and "'cerebras.pytorch.sparse'" in \
        result.warnings[2]

# -- the static name index ---------------------------------------------------------------------


def test_names_are_checked_without_importing_the_target(tmp_path):
    """With tensorboardX missing, the import still ports (a warning names the missing package),
    and porting never imports the module it checks."""
    code = textwrap.dedent('''\
        import sys
        sys.modules["tensorboardX"] = None  # as if it were not installed
        from minitorch_cs.tools.port import port_bytes
        r = port_bytes(b"from torch.utils.tensorboard import SummaryWriter\\n")
        print(r.output.decode().strip())
        print(r.warnings)
        print("minitorch_cs.torch.utils.tensorboard" in sys.modules)
        ''')
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "from minitorch_cs.torch.utils.tensorboard import SummaryWriter"
    assert "needs the package 'tensorboardX', which is not installed: pip install tensorboardX" \
        in lines[1]
    assert lines[2] == "False"


def test_static_index_knows_every_name_the_modules_bind():
    """Every name a module of the package has at run time is in the static index (which the
    tool uses instead of importing), and every name its ``__getattr__`` answers exists."""
    missing = {}
    for info in pkgutil.walk_packages(minitorch_cs.__path__, "minitorch_cs."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            continue
        runtime = {k for k in vars(module) if not k.startswith("__")}
        lost = {k for k in runtime - _index.names(info.name)
                if not _index.module_exists(f"{info.name}.{k}")}
        if lost:
            missing[info.name] = sorted(lost)
        for name in _index.getattr_names(info.name):
            getattr(module, name)
    assert missing == {}


def test_map_module():
    assert map_module("torch") == "minitorch_cs.torch"
    assert map_module("torchvision.datasets") == "minitorch_cs.torchvision.datasets"
    assert map_module("cerebras.pytorch.utils.nest") == "minitorch_cs.utils.nest"
    assert map_module("cerebras_pytorch") == "minitorch_cs"
    assert map_module("cerebras.modelzoo.trainer") == "minitorch_cs.modelzoo.trainer"
    assert map_module("cerebras.appliance.errors") == "minitorch_cs.appliance.errors"
    assert map_module("cerebras_appliance") == "minitorch_cs.appliance"
    assert map_module("cerebras") == "minitorch_cs.tools.cerebras"
    assert map_module("cerebras.sdk") is None
    assert map_module("torchaudio") is None and map_module("numpy") is None

# -- the command line ----------------------------------------------------------------------------


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "minitorch_cs.tools.port", *map(str, args)],
                          capture_output=True, text=True, env=ENV, cwd=cwd)


@pytest.mark.slow
def test_command_line(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\nprint(torch.ones(2).sum().item())\n")
    out = tmp_path / "ported.py"
    run = cli(script, "-o", out)
    assert run.returncode == 0, run.stderr
    assert out.read_text().startswith("import minitorch_cs.torch as torch\n")
    assert run.stderr.strip() == f"{script} -> {out}: 1 import(s) rewritten"
    ran = subprocess.run([sys.executable, str(out)], capture_output=True, text=True, env=ENV)
    assert ran.stdout.strip() == "2.0"
    run = cli(script)  # to stdout, nothing on stderr
    assert run.stdout == out.read_text() and run.stderr == ""
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp left


def test_command_line_lists_literal_rewrites_warnings_and_notes(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text("import importlib.util\nok = importlib.util.find_spec('cerebras_pytorch')\n"
                      "def f():\n    import timm\n")
    run = cli(script, "-o", tmp_path / "out.py")
    assert run.returncode == 0
    assert "line 2: module string 'cerebras_pytorch' -> 'minitorch_cs'" in run.stderr
    assert "warnings:\n  line 4: 'timm' needs the real PyTorch" in run.stderr


def test_command_line_refusal_exits_2_and_writes_nothing(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\nimport torch.optim as optim\n")
    out = tmp_path / "ported.py"
    run = cli(script, "-o", out)
    assert run.returncode == 2
    assert run.stderr.startswith(f"{script}: cannot port these lines (nothing was written):\n"
                                 "  line 2: 'torch.optim'")
    assert not out.exists()


@pytest.mark.parametrize("make,message", [
    (lambda d: d / "missing.py", "missing.py: no such file"),
    (lambda d: d, "is a directory, not a script"),
])
def test_bad_input_paths_give_one_line_and_exit_2(tmp_path, make, message):
    run = cli(make(tmp_path))
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and message in run.stderr
    assert "Traceback" not in run.stderr


def test_bom_latin1_and_crlf_files_through_the_command_line(tmp_path):
    for name, raw in [("bom.py", b"\xef\xbb\xbfimport torch\r\nprint('\xc3\xa9')\r\n"),
                      ("latin.py", b"# -*- coding: latin-1 -*-\nimport torch\nprint('\xe9')\n")]:
        (tmp_path / name).write_bytes(raw)
        run = cli(tmp_path / name, "-o", tmp_path / f"out_{name}")
        assert run.returncode == 0, run.stderr
        out = (tmp_path / f"out_{name}").read_bytes()
        assert out == raw.replace(b"import torch", b"import minitorch_cs.torch as torch")
        ran = subprocess.run([sys.executable, str(tmp_path / f"out_{name}")],
                             capture_output=True, env=ENV)
        assert ran.returncode == 0 and ran.stdout.decode().strip() == "é"


def test_invalid_python_and_undecodable_files(tmp_path):
    (tmp_path / "bad.py").write_text("import torch\ndef (:\n")
    run = cli(tmp_path / "bad.py")
    assert run.returncode == 2 and "not valid Python" in run.stderr
    (tmp_path / "enc.py").write_bytes(b"x = '\xff\xfe'\n")
    run = cli(tmp_path / "enc.py")
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "Traceback" not in run.stderr

# -- writing (issue 18) ---------------------------------------------------------------------------


def test_refuses_to_overwrite_the_input(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\n")
    for target in (script, tmp_path / "." / "train.py", "train.py"):
        run = cli(script, "-o", target, "--force", cwd=tmp_path)
        assert run.returncode == 2 and "is the input script; refusing to overwrite it" in \
            run.stderr
    os.link(script, tmp_path / "hard.py")
    run = cli(script, "-o", tmp_path / "hard.py", "--force")
    assert run.returncode == 2 and "is the input script" in run.stderr
    assert script.read_text() == "import torch\n"


def test_existing_output_needs_force(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\n")
    out = tmp_path / "out.py"
    out.write_text("keep me\n")
    os.chmod(out, 0o640)
    run = cli(script, "-o", out)
    assert run.returncode == 2 and "exists; use --force to replace it" in run.stderr
    assert out.read_text() == "keep me\n"
    run = cli(script, "-o", out, "--force")
    assert run.returncode == 0 and out.read_text() == "import minitorch_cs.torch as torch\n"
    assert os.stat(out).st_mode & 0o777 == 0o640  # the replaced file's mode is kept


def test_never_writes_through_a_symlink(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\n")
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("precious\n")
    link = tmp_path / "out.py"
    link.symlink_to(elsewhere)
    for extra in ((), ("--force",)):
        run = cli(script, "-o", link, *extra)
        assert run.returncode == 2 and "is a symbolic link; refusing to write through it" in \
            run.stderr
    assert elsewhere.read_text() == "precious\n" and link.is_symlink()
    dangling = tmp_path / "dangling.py"
    dangling.symlink_to(tmp_path / "nowhere.py")
    assert cli(script, "-o", dangling).returncode == 2
    assert not (tmp_path / "nowhere.py").exists()


def test_a_failed_write_leaves_the_existing_output_intact(tmp_path, monkeypatch, capsys):
    script = tmp_path / "train.py"
    script.write_text("import torch\n")
    out = tmp_path / "out.py"
    out.write_text("previous version\n")
    temp_dirs = []

    def failing_replace(src, dst):
        temp_dirs.append(Path(src).parent)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(port_mod.os, "replace", failing_replace)
    assert port_mod.main([str(script), "-o", str(out), "--force"]) == 2
    assert "cannot write: No space left on device (nothing was changed)" in \
        capsys.readouterr().err
    assert out.read_text() == "previous version\n"
    assert temp_dirs == [tmp_path]  # the temporary file was next to the output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.py", "train.py"]


def test_output_directory_must_exist(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\n")
    run = cli(script, "-o", tmp_path / "no" / "such" / "dir.py")
    assert run.returncode == 2 and "its directory does not exist" in run.stderr


def test_minitorch_cs_port_subcommand(tmp_path):
    from minitorch_cs.cli import main
    script = tmp_path / "train.py"
    script.write_text("import torch.nn.functional as F\n")
    out = tmp_path / "ported.py"
    assert main(["port", str(script), "-o", str(out)]) == 0
    assert out.read_text() == "import minitorch_cs.torch.nn.functional as F\n"
    script.write_text("import torch.optim\n")
    assert main(["port", str(script)]) == 2

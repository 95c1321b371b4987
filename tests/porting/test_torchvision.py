"""``minitorch_cs.torchvision``: MNIST on torchvision's layout (reading, the missing-files error,
download), the transforms, the export command, and sameness with torchvision itself."""
from __future__ import annotations

import gzip
import hashlib
import importlib.util
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minitorch_cs
from minitorch_cs import torch
from minitorch_cs.datasets import mnist as mnist_data
from minitorch_cs.datasets import read_idx, write_idx
from minitorch_cs.torchvision import datasets, transforms

HERE = Path(__file__).parent
REPO = str(Path(minitorch_cs.__file__).parents[1])
ENV = {**os.environ, "PYTHONPATH": REPO}


def _digits(n, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8), \
        (np.arange(n) % 10).astype(np.uint8)


def _layout(root, n_train=12, n_test=6, gz_only=False):
    raw = Path(root) / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for prefix, n, seed in (("train", n_train, 1), ("t10k", n_test, 2)):
        images, labels = _digits(n, seed)
        for kind, arr in (("images-idx3-ubyte", images), ("labels-idx1-ubyte", labels)):
            write_idx(raw / f"{prefix}-{kind}{'.gz' if gz_only else ''}", arr)
    return raw


def test_reads_torchvision_layout(tmp_path):
    _layout(tmp_path)
    train, test = datasets.MNIST(tmp_path), datasets.MNIST(str(tmp_path), train=False)
    assert (len(train), len(test)) == (12, 6)
    images, labels = _digits(12, 1)
    img, target = train[3]
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.shape == (28, 28)
    np.testing.assert_array_equal(img, images[3])
    assert target == 3 and type(target) is int
    assert train.data.dtype == torch.uint8 and tuple(train.data.shape) == (12, 28, 28)
    assert train.targets.dtype == torch.int64 and train.targets.tolist() == labels.tolist()
    assert train.raw_folder == os.path.join(str(tmp_path), "MNIST", "raw")
    assert train.class_to_idx["3 - three"] == 3
    img[:] = 0  # samples are copies: the dataset is unchanged
    assert train[3][0].sum() == images[3].sum()


def test_missing_files_error_is_torchvisions(tmp_path):
    with pytest.raises(RuntimeError, match="^Dataset not found. You can use download=True to "
                                           "download it"):
        datasets.MNIST(tmp_path)


def test_gz_files_alone_are_not_read_without_download(tmp_path):
    _layout(tmp_path, gz_only=True)  # as torchvision: it checks the uncompressed files
    with pytest.raises(RuntimeError, match="Dataset not found"):
        datasets.MNIST(tmp_path)


def test_root_expands_user(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    _layout(tmp_path)
    assert datasets.MNIST("~").root == str(tmp_path)


def test_download_uses_the_download_helper(tmp_path, monkeypatch):
    """download=True fetches the four .gz files (md5-checked) and gunzips them into raw/."""
    src = _layout(tmp_path / "src", gz_only=True)
    payloads = {p.name: p.read_bytes() for p in src.iterdir()}
    for name, payload in payloads.items():
        monkeypatch.setitem(mnist_data.MNIST_MD5, name, hashlib.md5(payload).hexdigest())
    served = []

    def fake_urlopen(url, timeout=None):
        name = url.rsplit("/", 1)[1]
        served.append(url)
        return io.BytesIO(payloads[name])

    monkeypatch.setattr(mnist_data.urllib.request, "urlopen", fake_urlopen)
    monkeypatch.setattr(datasets.MNIST, "mirrors", ["https://mirror.invalid/mnist/"])
    ds = datasets.MNIST(tmp_path / "root", train=False, download=True)
    assert len(ds) == 6 and len(served) == 4
    assert all(u.startswith("https://mirror.invalid/mnist/") for u in served)
    raw = tmp_path / "root" / "MNIST" / "raw"
    assert sorted(p.name for p in raw.iterdir()) == sorted(
        [n for n in payloads] + [n[:-3] for n in payloads])
    np.testing.assert_array_equal(read_idx(raw / "t10k-images-idx3-ubyte"), _digits(6, 2)[0])
    datasets.MNIST(tmp_path / "root", download=True)  # present: nothing fetched again
    assert len(served) == 4


def test_to_tensor():
    img = np.arange(6, dtype=np.uint8).reshape(2, 3) * 50
    t = transforms.ToTensor()(img)
    assert tuple(t.shape) == (1, 2, 3) and t.dtype == torch.float32
    np.testing.assert_allclose(t.numpy()[0], img / 255.0, rtol=1e-6)
    hwc = np.random.default_rng(0).integers(0, 256, (4, 5, 3), dtype=np.uint8)
    np.testing.assert_allclose(transforms.ToTensor()(hwc).numpy(),
                               hwc.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    f = transforms.ToTensor()(np.full((2, 2), 3.5, dtype=np.float64))
    assert f.dtype == torch.float64 and float(f.sum()) == 14.0  # not scaled
    with pytest.raises(TypeError, match="pic should be PIL Image or ndarray"):
        transforms.ToTensor()(torch.ones(2, 2))
    with pytest.raises(ValueError, match="pic should be 2/3 dimensional. Got 1 dimensions."):
        transforms.ToTensor()(np.zeros(3, dtype=np.uint8))
    assert repr(transforms.ToTensor()) == "ToTensor()"


def test_normalize():
    x = torch.tensor([[[0.5, 1.0]], [[0.0, 0.25]]])
    out = transforms.Normalize((0.5, 0.0), (0.5, 0.25))(x)
    np.testing.assert_allclose(out.numpy(), [[[0.0, 1.0]], [[0.0, 1.0]]])
    assert x[0, 0, 1].item() == 1.0  # not in place by default
    same = transforms.Normalize((0.5, 0.0), (0.5, 0.25), inplace=True)(x)
    assert same is x
    np.testing.assert_allclose(x.numpy(), out.numpy())
    assert repr(transforms.Normalize((0.1307,), (0.3081,))) == \
        "Normalize(mean=(0.1307,), std=(0.3081,))"
    with pytest.raises(TypeError, match="img should be Tensor Image"):
        transforms.Normalize((0.5,), (0.5,))(np.zeros((1, 2, 2)))
    with pytest.raises(ValueError, match="std evaluated to zero"):
        transforms.Normalize((0.5,), (0.0,))(torch.ones(1, 2, 2))


def test_lambda_and_compose():
    to_int = transforms.Lambda(lambda y: torch.as_tensor(y, dtype=torch.int32))
    assert to_int(7).dtype == torch.int32 and to_int(7).item() == 7
    with pytest.raises(TypeError, match="Argument lambd should be callable, got 'int'"):
        transforms.Lambda(3)
    c = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,)),
                            transforms.Lambda(lambda x: x.half())])
    assert repr(c) == ("Compose(\n    ToTensor()\n    Normalize(mean=(0.1307,), std=(0.3081,))\n"
                       "    Lambda()\n)")
    out = c(np.zeros((28, 28), dtype=np.uint8))
    assert out.dtype == torch.float16 and tuple(out.shape) == (1, 28, 28)


def test_dataloader_over_mnist_with_the_docs_transforms(tmp_path):
    _layout(tmp_path)
    ds = datasets.MNIST(
        tmp_path, train=True,
        transform=transforms.Compose([transforms.ToTensor(),
                                      transforms.Normalize((0.1307,), (0.3081,)),
                                      transforms.Lambda(lambda x: torch.as_tensor(
                                          x, dtype=torch.float16))]),
        target_transform=transforms.Lambda(lambda x: torch.as_tensor(x, dtype=torch.int32)))
    xb, yb = next(iter(torch.utils.data.DataLoader(ds, batch_size=4, shuffle=False)))
    assert tuple(xb.shape) == (4, 1, 28, 28) and xb.dtype == torch.float16
    assert yb.dtype == torch.int32 and yb.tolist() == [0, 1, 2, 3]


def test_export_command_from_idx_files(tmp_path):
    src = tmp_path / "idx"
    src.mkdir()
    for prefix, n, seed in (("train", 12, 1), ("t10k", 6, 2)):
        images, labels = _digits(n, seed)
        write_idx(src / f"{prefix}-images-idx3-ubyte.gz", images)
        write_idx(src / f"{prefix}-labels-idx1-ubyte.gz", labels)
    run = subprocess.run([sys.executable, "-m", "minitorch_cs.torchvision.export",
                          str(tmp_path / "root"), "--source", str(src)],
                         capture_output=True, text=True, env=ENV)
    assert run.returncode == 0, run.stderr
    assert "wrote 12 train and 6 test digits" in run.stdout
    ds = datasets.MNIST(tmp_path / "root", train=False)
    np.testing.assert_array_equal(ds.data.numpy(), _digits(6, 2)[0])


def test_export_command_error(tmp_path):
    run = subprocess.run([sys.executable, "-m", "minitorch_cs.torchvision.export",
                          str(tmp_path / "root"), "--source", str(tmp_path / "nothing")],
                         capture_output=True, text=True, env=ENV)
    assert run.returncode == 1 and run.stderr.startswith("error: ")


def test_export_command_bundled_digits(tmp_path):
    run = subprocess.run([sys.executable, "-m", "minitorch_cs.torchvision.export",
                          str(tmp_path)], capture_output=True, text=True, env=ENV)
    assert run.returncode == 0, run.stderr
    train, test = datasets.MNIST(tmp_path), datasets.MNIST(tmp_path, train=False)
    assert (len(train), len(test)) == (4000, 1000)
    assert sorted(set(test.targets.tolist())) == list(range(10))


#: torchvision 0.19 (with torch 2.4) printed these for _torchvision_probe.py
TORCHVISION_SAYS = """\
(1, 28, 28) torch.float32 int 948.501 [-0.05509, 0.74678, 0.81043, 2.70693]
Dataset MNIST
    Number of datapoints: 5
    Root location: ROOT
    Split: Test
    StandardTransform
Transform: Compose(
               ToTensor()
               Normalize(mean=(0.1307,), std=(0.3081,))
           )
torch.uint8 torch.int64 (5, 28, 28) ['0 - zero', '1 - one'] ROOT/MNIST/raw 5
TypeError Argument lambd should be callable, got 'int'
ValueError std evaluated to zero after conversion to torch.float32, leading to division by zero.
ValueError Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = torch.Size([2, 2])
TypeError Input tensor should be a float tensor. Got torch.int64.
ValueError pic should be 2/3 dimensional. Got 4 dimensions.
RuntimeError Dataset not found. You can use download=True to download it
(3, 2, 3) torch.int32
"""


def test_same_output_as_torchvision(tmp_path):
    run = subprocess.run([sys.executable, str(HERE / "_torchvision_probe.py"), str(tmp_path),
                          "ours", REPO], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == TORCHVISION_SAYS


@pytest.mark.reference
def test_torchvision_itself_agrees(reference_python, tmp_path):
    has_tv = subprocess.run([reference_python, "-c", "import torchvision"], capture_output=True)
    if has_tv.returncode:
        pytest.skip("torchvision is not installed next to the reference cstorch")
    run = subprocess.run([reference_python, str(HERE / "_torchvision_probe.py"), str(tmp_path),
                          "real"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == TORCHVISION_SAYS

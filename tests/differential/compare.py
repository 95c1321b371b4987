"""Snapshots of tensors from either library, and their comparison with root-cause categories.

A snapshot keeps what torch defines for a result: dtype, shape, strides (for dims longer than
1; torch leaves the stride of a size-1 dim unspecified), ``requires_grad`` and the values (as
float64, int64 or bool arrays). Values are compared with a tolerance that follows the dtype's
precision and the magnitude of the step's inputs (a difference of one rounding in an input can
cancel to a large relative error in ``a - b``); NaN and ±inf must sit at the same places.
"""
from __future__ import annotations

import builtins
from dataclasses import dataclass, field

import numpy as np

# Categories. SILENT ones are wrong results without an error: the tester's hard target is zero.
CATEGORIES = {
    "error-type": "both raise, with different exception classes",
    "raise-ours": "we raise where torch returns a result",
    "raise-torch": "torch raises where we return a result",
    "missing-API": "a name torch has is missing here (AttributeError)",
    "dtype": "result dtype differs",
    "shape": "result shape differs",
    "stride": "result strides / contiguity differ",
    "requires_grad": "result requires_grad (or being a leaf) differs",
    "node-name": "the result's graph node has another name (grad_fn=<...> when printed)",
    "value": "values differ beyond the dtype's tolerance",
    "nan-pattern": "NaN/inf at different places",
    "inplace-final": "a tensor's final value (after in-place ops through views) differs",
    "grad": "a leaf's gradient differs in value",
    "grad-nan": "a leaf's gradient has NaN/inf at different places",
    "grad-none": "a leaf's .grad is None on one side only",
    "grad-meta": "a leaf's gradient differs in dtype or shape",
    "backward-error": "backward raises on one side only, or with another class",
    "warning": "numpy's floating-point warning reaches the user (torch is silent)",
}
SILENT = {"value", "nan-pattern", "inplace-final", "grad", "grad-nan"}

# relative precision per dtype (a few units in the last place)
RTOL = {"float64": 1e-9, "float32": 1e-5, "float16": 4e-3, "bfloat16": 3e-2}


@dataclass
class Snap:
    """What a tensor (or a Python scalar result) looked like at one point of a program."""

    kind: str  # "tensor" or "scalar"
    value: np.ndarray
    dtype: str = ""
    shape: tuple = ()
    strides: tuple = ()
    requires_grad: bool = False
    is_leaf: bool = True
    contiguous: bool = True
    node: str = ""  # grad_fn.name(), "" without one

    def scale(self) -> float:
        v = self.value
        if v.dtype.kind != "f" or v.size == 0:
            return 0.0 if v.size == 0 else float(np.max(np.abs(v.astype(np.float64))))
        fin = v[np.isfinite(v)]
        return float(np.max(np.abs(fin))) if fin.size else 0.0


def dtype_name(t) -> str:
    return str(t.dtype).replace("torch.", "")


def snap(x) -> Snap:
    """Snapshot of a tensor of either library, or of a Python number/bool result."""
    if hasattr(x, "detach") and hasattr(x, "dtype") and hasattr(x, "stride"):
        d = x.detach()
        dt = dtype_name(x)
        if dt in ("float16", "bfloat16", "float32", "float64"):
            arr = d.to(_float64_of(x)).numpy() if dt != "float64" else d.numpy()
            arr = np.array(arr, dtype=np.float64)
        elif dt == "bool":
            arr = np.array(d.numpy(), dtype=bool)
        else:
            arr = np.array(d.numpy(), dtype=np.int64)
        shape = tuple(x.shape)
        return Snap("tensor", arr, dt, shape, tuple(x.stride()), builtins.bool(x.requires_grad),
                    _is_leaf(x), builtins.bool(x.is_contiguous()), _node_name(x))
    if isinstance(x, (bool, np.bool_)):
        return Snap("scalar", np.asarray(builtins.bool(x)), "py:bool")
    if isinstance(x, (int, np.integer)):
        return Snap("scalar", np.asarray(int(x), dtype=np.int64), "py:int")
    if isinstance(x, (float, np.floating)):
        return Snap("scalar", np.asarray(float(x)), "py:float")
    if isinstance(x, (tuple, list)) and all(isinstance(v, int) for v in x):  # a Size
        return Snap("scalar", np.asarray(list(x), dtype=np.int64), "py:ints", (len(x),))
    return Snap("scalar", np.asarray(0), f"py:{type(x).__name__}")


def _is_leaf(x) -> bool:
    """``x.is_leaf``; torch refuses to say for an output of split/unbind whose base was changed
    in place (any use of it raises), which counts as not a leaf here."""
    try:
        return builtins.bool(x.is_leaf)
    except RuntimeError:
        return False


def _node_name(x) -> str:
    """The name of the node that made ``x`` ("" for none, or where torch refuses the question)."""
    try:
        fn = x.grad_fn
    except RuntimeError:
        return ""
    return fn.name() if fn is not None else ""


def has_graph(x) -> bool:
    """``x.requires_grad and x.grad_fn is not None``, False where torch refuses the question."""
    try:
        return builtins.bool(x.requires_grad and x.grad_fn is not None)
    except RuntimeError:
        return False


def _float64_of(x):
    """The float64 dtype object of ``x``'s own library."""
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        import torch
        return torch.float64
    from minitorch_cs import torch as mt
    return mt.float64


@dataclass
class Mismatch:
    category: str
    where: str  # "step 3", "grad of x1", "final value of v4"
    op: str  # the root-cause label: row name and form
    detail: str
    dtype: str = ""
    noise: bool = False  # cleared by replaying the step on identical inputs
    documented: str = ""  # the SPEC.md entry that documents it ("" = undocumented)
    extra: dict = field(default_factory=dict)

    def key(self) -> str:
        return f"{self.category}: {self.op}"


def _close(a: np.ndarray, b: np.ndarray, rtol: float, scale: float):
    """(nan/inf pattern equal, finite values equal within tolerance, worst index)."""
    fa, fb = np.isfinite(a), np.isfinite(b)
    pattern = np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(fa, fb) and \
        np.array_equal(np.where(fa, 0, np.sign(np.nan_to_num(a, nan=0.0))),
                       np.where(fb, 0, np.sign(np.nan_to_num(b, nan=0.0))))
    if not pattern:
        bad = (np.isnan(a) != np.isnan(b)) | (fa != fb) | (~fa & ~fb & (np.sign(a) != np.sign(b))
                                                          & ~np.isnan(a))
        return False, True, _first(bad)
    both = fa & fb
    tol = rtol * (np.abs(a) + scale) + 1e-300
    with np.errstate(invalid="ignore", over="ignore"):
        bad = both & (np.abs(np.where(both, a, 0) - np.where(both, b, 0)) > tol)
    return True, not bad.any(), _first(bad)


def _first(mask):
    if np.ndim(mask) == 0:
        return () if mask else None
    idx = np.argwhere(mask)
    return tuple(int(i) for i in idx[0]) if idx.size else None


def compare_snaps(want: Snap, got: Snap, scale: float = 0.0, grad: bool = False,
                  rtol: float | None = None, check_meta: bool = True):
    """The first difference between torch's ``want`` and our ``got``: (category, detail) or None."""
    pre = "grad-" if grad else ""
    if want.kind != got.kind or (want.kind == "scalar" and want.dtype != got.dtype):
        return (pre + "meta" if grad else "dtype",
                f"got a {got.dtype or got.kind}, torch gives a {want.dtype or want.kind}")
    if want.dtype != got.dtype:
        return (pre + "meta" if grad else "dtype", f"got dtype {got.dtype}, torch gives {want.dtype}")
    if want.value.shape != got.value.shape:
        return (pre + "meta" if grad else "shape",
                f"got shape {got.value.shape}, torch gives {want.value.shape}")
    if check_meta and not grad and want.kind == "tensor":
        if want.requires_grad != got.requires_grad:
            return ("requires_grad", f"got requires_grad={got.requires_grad}, torch gives "
                                     f"{want.requires_grad}")
        if want.requires_grad and want.is_leaf != got.is_leaf:
            return ("requires_grad", f"got is_leaf={got.is_leaf}, torch gives {want.is_leaf}")
        if want.node != got.node:
            return ("node-name", f"got grad_fn {got.node or None}, torch gives {want.node or None}")
        if want.value.size and want.contiguous != got.contiguous:
            return ("stride", f"got is_contiguous()={got.contiguous} (strides {got.strides}), "
                              f"torch gives {want.contiguous} (strides {want.strides})")
        ws = tuple(s for s, n in zip(want.strides, want.shape) if n > 1)
        gs = tuple(s for s, n in zip(got.strides, got.shape) if n > 1)
        if want.value.size and ws != gs:
            return ("stride", f"got strides {got.strides}, torch gives {want.strides}")
    a, b = want.value, got.value
    if a.size == 0:
        return None
    if a.dtype.kind != "f":
        if not np.array_equal(a, b):
            i = _first(a != b)
            return (pre + "value" if not grad else "grad",
                    f"at {i}: got {b[i]!r}, torch gives {a[i]!r}")
        return None
    if rtol is None:
        rtol = RTOL.get(want.dtype, RTOL["float64"] if want.dtype == "py:float" else 1e-9)
    pattern_ok, close, i = _close(a, b, rtol, scale)
    if not pattern_ok:
        return ("grad-nan" if grad else "nan-pattern", f"at {i}: got {b[i]!r}, torch gives {a[i]!r}")
    if not close:
        return ("grad" if grad else "value",
                f"at {i}: got {b[i]!r}, torch gives {a[i]!r} (rtol {rtol:.2g}, scale {scale:.3g})")
    # exact zeros of opposite signs: a rule (relu(-0.0) is -0.0), not rounding
    with np.errstate(invalid="ignore"):
        zeros = (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))
    if zeros.any():
        i = _first(zeros)
        return ("grad-zero-sign" if grad else "zero-sign", f"at {i}: got {b[i]!r}, torch gives {a[i]!r}")
    return None


def exc_class(e: BaseException) -> str:
    """The builtin exception class torch's (or our) exception is, e.g. ``RuntimeError`` for
    torch's ``LinAlgError``/``OutOfMemoryError`` subclasses."""
    for c in type(e).__mro__:
        if c.__module__ == "builtins":
            return c.__name__
    return type(e).__name__

"""Generated indexing keys against PyTorch: reads (``x[key]``), writes (``x[key] = v``) and
``index_put_`` with out-of-range or non-broadcasting index tensors, masks of the wrong shape or
values that do not fit the selection raise torch's error type and message (the dimension torch names is the offending index tensor's position among the key's
index tensors, not the array's axis numpy names)."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as ours


def _key(rng, shape):
    """A random key for a tensor of ``shape``: slices, None, an Ellipsis, ints and index
    tensors (long, sometimes out of range or of shapes that do not broadcast; bool masks)."""
    parts, dim = [], 0
    ellipsis = rng.random() < 0.15
    while dim < len(shape):
        r = rng.random()
        if ellipsis and r < 0.1:
            parts.append(("...",))
            ellipsis = False
            dim = len(shape) - max(0, len(shape) - dim - 1)  # at most the rest
            continue
        if r < 0.1:
            parts.append(("none",))
            continue
        if r < 0.3:
            parts.append(("slice",))
        elif r < 0.4 and shape[dim]:
            parts.append(("int", int(rng.integers(-shape[dim], shape[dim]))))
        elif r < 0.5:  # a mask over one or two dims, sometimes of the wrong size
            two = dim + 1 < len(shape) and rng.random() < 0.3
            dims = [shape[dim], shape[dim + 1]] if two else [shape[dim]]
            if rng.random() < 0.15:
                j = int(rng.integers(len(dims)))
                dims[j] = max(0, dims[j] + int(rng.choice([-1, 1])))
            parts.append(("bool", (rng.random(dims) < 0.5).tolist()))
            dim += len(dims) - 1
        else:
            n = int(rng.choice([1, 2, 3]))
            hi = shape[dim] + (3 if rng.random() < 0.4 or not shape[dim] else 0)
            lo = -shape[dim] - (3 if rng.random() < 0.2 else 0)
            parts.append(("long", tuple(int(v) for v in rng.integers(lo, hi, n))))
        dim += 1
    return parts


def _build(T, parts):
    out = []
    for p in parts:
        if p[0] == "...":
            out.append(Ellipsis)
        elif p[0] == "none":
            out.append(None)
        elif p[0] == "slice":
            out.append(slice(None))
        elif p[0] == "int":
            out.append(p[1])
        elif p[0] == "bool":
            out.append(T.tensor(p[1], dtype=T.bool).reshape(np.shape(p[1])))
        else:
            out.append(T.tensor(list(p[1])))
    return tuple(out)


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001  (the error is what is compared)
        return type(e).__name__, str(e).split("\n")[0]
    return "ok", tuple(r.shape) if r is not None else None


def _forms(T, parts, shape, vshape):
    x = T.arange(float(np.prod(shape))).reshape(shape)
    key = _build(T, parts)
    tensors = tuple(k for k in key if isinstance(k, T.Tensor))
    v = T.ones(vshape)

    def write():
        y = x.clone()
        y[key] = v
        return y

    def put():
        return x.clone().index_put_(tensors, v)
    return {"read": lambda: x[key], "write": write, "index_put_": put}


@pytest.mark.parametrize("seed", range(4))
def test_index_errors_match_torch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    diffs, errors = [], 0
    for _ in range(250):
        shape = tuple(int(v) for v in rng.integers(0 if rng.random() < 0.1 else 1, 5,
                                                    int(rng.integers(1, 4))))
        parts = _key(rng, shape)
        vshape = () if rng.random() < 0.6 else \
            tuple(int(v) for v in rng.integers(1, 4, int(rng.integers(1, 3))))
        want, got = _forms(torch, parts, shape, vshape), _forms(ours, parts, shape, vshape)
        for form in want:
            if form == "index_put_" and not any(p[0] in ("long", "bool") for p in parts):
                continue
            w, g = _outcome(want[form]), _outcome(got[form])
            errors += w[0] != "ok"
            if w != g:
                diffs.append((shape, parts, form, w, g))
    assert errors > 50  # (the draws reach the errors they are about)
    assert not diffs, diffs[:5]


_ZERO_DIM_KEYS = ["slice", "int", "np_int", "list", "bool_list", "mask_1d", "int_0d", "tuple_int",
                  "index_2d", "ellipsis", "none", "bool", "bool_0d", "none_ellipsis"]


def _zero_dim_key(T, name):
    return {"slice": slice(None, 1), "int": 0, "np_int": np.int64(0), "list": [0],
            "bool_list": [True], "mask_1d": T.tensor([True]), "int_0d": T.tensor(0),
            "tuple_int": (0,), "index_2d": T.tensor([[0]]), "ellipsis": Ellipsis, "none": None,
            "bool": True, "bool_0d": T.tensor(True), "none_ellipsis": (None, Ellipsis)}[name]


@pytest.mark.parametrize("name", _ZERO_DIM_KEYS)
def test_indexing_a_zero_dim_tensor_as_torch(name):
    """A 0-d tensor takes None, ``...`` and bool masks; a lone slice, a lone int and every
    other key are torch's IndexErrors, reading and writing alike."""
    torch = pytest.importorskip("torch")
    res = []
    for T in (ours, torch):
        out = []
        for write in (False, True):
            s = T.tensor(2.0)
            try:
                if write:
                    s[_zero_dim_key(T, name)] = 5.0
                    out.append(("ok", s.tolist()))
                else:
                    out.append(("ok", tuple(s[_zero_dim_key(T, name)].shape)))
            except Exception as e:  # noqa: BLE001 -- the exception is what is compared
                out.append((type(e).__name__, str(e)))
        res.append(out)
    assert res[0] == res[1]


def test_zero_dim_index_messages_without_torch():
    s = ours.tensor(2.0)
    with pytest.raises(IndexError, match=r"^slice\(\) cannot be applied to a 0-dim tensor\.$"):
        s[:1]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        s[0] = 1.0
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 0"):
        s[[0]]

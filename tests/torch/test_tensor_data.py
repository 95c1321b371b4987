"""What ``torch.tensor``/``torch.as_tensor`` make of their data, swept against torch: the dtype
a nested sequence infers (the promotion of its elements', numpy scalars and tensors keeping
theirs), and the elements each dtype takes (an integer dtype refuses numpy's float32 scalars,
float tensors and None; a floating one refuses None; a str is never data) -- no element is
silently read as NaN, True or a truncated value torch refuses."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch
from tests.torch._sweeps import Outcomes, assert_same_as_torch

_DATA = {
    "int 300": [300], "int -1": [-1], "2**63": [2 ** 63], "-2**63-1": [-2 ** 63 - 1],
    "inf": [float("inf")], "nan": [float("nan")], "1.7": [1.7], "-1.7": [-1.7], "True": [True],
    "mixed": [1, 2.5, True], "bool and int": [True, 2], "np.float16": [np.float16(1.5)],
    "np.float64": [np.float64(1.5)], "np.float32": [np.float32(1.5)], "np.int32": [np.int32(3)],
    "np.bool_": [np.bool_(True)], "np.float16 and int": [np.float16(1.5), 2],
    "np.int32 and int": [np.int32(1), 2], "np.int8 and np.int16": [np.int8(1), np.int16(2)],
    "float and np.float64": [1.5, np.float64(2.0)], "nested np.float16": [[np.float16(1)], [2]],
    "int8 array": np.array([1, 2], dtype=np.int8), "bool array": np.array([True]),
    "range": range(3), "ragged": [[1], [1, 2]], "empty": [], "empty rows": [[], []],
    "int": 5, "float": 5.5, "numpy 0-d float32": np.float32(2.5), "tuple": (1, 2),
    "str element": ["a"], "str": "ab", "None": None, "None element": [None, 1],
    "0-d array element": [np.array(2.5)], "array and list": [np.array([1, 2]), [3, 4]],
    "1e40": [1e40], "65520": [65520.0], "object": [object()], "set": {1, 2},
}


def _outcomes(T):
    dtypes = [None, "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "bool"]
    sources = dict(_DATA, **{"float tensors": [T.tensor(1.5), T.tensor(2.0)],
                             "int tensors": [T.tensor(1), T.tensor(2)],
                             "float16 tensor and float": [T.tensor(1.0).half(), 2.5]})
    out = Outcomes(show=lambda r: f"{str(r.dtype).split('.')[-1]} {tuple(r.shape)} {r.tolist()}")
    for name, data in sources.items():
        for dn in dtypes:
            for fn in ("tensor", "as_tensor"):
                kw = {} if dn is None else {"dtype": getattr(T, dn)}
                out.run(f"{fn}({name}, dtype={dn})",
                        lambda make=getattr(T, fn), data=data, kw=kw: make(data, **kw))
    return out


def test_tensor_data_matches_torch():
    """738 calls against torch 2.13: the same dtype, shape and values, or the same error."""
    assert_same_as_torch(_outcomes, torch)


def test_inferred_dtypes():
    """The promotion of the elements' dtypes (torch's rule), not a category ladder."""
    assert torch.tensor([np.float16(1.5), 2]).dtype is torch.float16
    assert torch.tensor([1.5, np.float64(2.0)]).dtype is torch.float64
    assert torch.tensor([np.int8(1), np.int16(2)]).dtype is torch.int16
    assert torch.tensor([np.int32(1), 2]).dtype is torch.int64
    assert torch.tensor([torch.tensor(1, dtype=torch.int8), 2]).dtype is torch.int64
    assert torch.tensor(range(3)).tolist() == [0, 1, 2]
    assert torch.tensor([np.array([1, 2], dtype=np.int32), [3, 4]]).dtype is torch.int64


@pytest.mark.parametrize("data, dtype, kind, message", [
    ([None, 1.0], torch.float32, TypeError, "must be real number, not NoneType"),
    ([None], torch.int64, TypeError, "'NoneType' object cannot be interpreted as an integer"),
    (["a"], torch.bool, ValueError, "too many dimensions 'str'"),
    ([np.float32(1.5)], torch.int32, TypeError,
     "'numpy.float32' object cannot be interpreted as an integer"),
    ([torch.tensor(1.5)], torch.int64, TypeError,
     "only integer tensors of a single element can be converted to an index"),
    ([2 ** 63], None, ValueError, "Overflow when unpacking long long"),
    ([object()], None, RuntimeError, "Could not infer dtype of object"),
    ([np.array(2.5)], None, TypeError, "len() of unsized object"),
])
def test_elements_a_dtype_refuses(data, dtype, kind, message):
    with pytest.raises(kind) as e:
        torch.tensor(data, dtype=dtype)
    assert str(e.value) == message

"""Golden values for ``cerebras.pytorch.nn.functional`` (cstorch 2.10), from the REAL stack.

Run with the real cerebras-pytorch 2.10 interpreter (CPU backend, so ``cstorch.use_cs()`` is
False)::

    /tmp/cs/bin/python tests/data/real_cstorch/make_nn_functional_goldens.py OUT.json

``tests/data/real_cstorch/nn_functional.json`` is this script's output. Every case is
``(name, function, args, kwargs)``. Inputs are written as JSON specs built from fixed numpy
arrays (no RNG), so the test rebuilds exactly the same inputs from the file:

* ``{"tensor": {"values", "shape", "dtype", "requires_grad"}}``: ``torch.tensor`` of the numpy
  array (dtype names are numpy's: ``float32``, ``int64``, ...);
* ``{"zeros": {"shape", "dtype"}}``: ``torch.zeros`` (for an input too big to list);
* ``{"dtype": name}``: ``torch.<name>``; anything else is passed as is.

Each case records either ``error`` (exception type and message) or ``result`` (tensors as
dtype, shape, values, ``requires_grad``, whether the output is the first argument itself and
whether it starts at the first argument's memory), plus ``logs`` (records of level WARNING and
above sent to the ``cerebras`` logger). When an output requires grad, ``loss = sum_i
(out_i * cot_i).sum()`` is backpropagated with the fixed cotangents written next to it and
``grads`` holds ``.grad`` of every argument built with ``requires_grad`` (``None`` when it
received none). Floats are the float32/float16 values widened to Python floats (exact); NaN and
Infinity use Python's JSON extension. ``signatures`` gives each function's parameters (name,
kind, default) and ``constants`` the boundary-type values.
"""

import inspect
import json
import logging
import platform
import sys
import tempfile
import warnings

import numpy as np
import torch

import cerebras.pytorch as cstorch
import cerebras.pytorch.nn.functional as F


# --------------------------------------------------------------------------
# input specs
# --------------------------------------------------------------------------
def T(values, dtype="float32", rg=False):
    """A tensor spec from a numpy array (or anything np.asarray takes)."""
    a = np.asarray(values).astype(dtype)
    return {"tensor": {"values": a.tolist(), "shape": list(a.shape), "dtype": dtype,
                       "requires_grad": rg}}


def Z(shape, dtype="float32"):
    return {"zeros": {"shape": list(shape), "dtype": dtype}}


def DT(name):
    return {"dtype": name}


def ar(*shape, scale=0.5, offset=-1.0):
    """Deterministic floats: arange * scale + offset (exact in float16/float32)."""
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n, dtype=np.float64) * scale + offset).reshape(shape)


def build(spec):
    if isinstance(spec, dict) and "tensor" in spec:
        s = spec["tensor"]
        t = torch.tensor(np.array(s["values"], dtype=s["dtype"]).reshape(s["shape"]))
        return t.requires_grad_() if s["requires_grad"] else t
    if isinstance(spec, dict) and "zeros" in spec:
        s = spec["zeros"]
        return torch.zeros(s["shape"], dtype=getattr(torch, s["dtype"]))
    if isinstance(spec, dict) and "dtype" in spec:
        return getattr(torch, spec["dtype"])
    return spec


# --------------------------------------------------------------------------
# the cases
# --------------------------------------------------------------------------
MASK7 = [0, 1, 1, 1, 0, 0, 1]
W32 = ar(3, 2)                       # (Ho=3, Hi=2)
SM_VALUES = ar(2, 2, 3)              # (M=2, b=2, N=3)
SM_INDICES = np.array([[0, 3], [1, 2]])
SM_WEIGHT = ar(2, 4, 3, scale=0.25)  # (K=2, B=4, N=3)
SAM_X = ar(2, 3)                     # (M=2, N=3)
SAM_W = ar(4, 3, scale=0.25)         # (K=4, N=3)


def cases():
    c = []

    def add(name, fn, *args, **kwargs):
        c.append({"name": name, "fn": fn, "args": list(args), "kwargs": kwargs})

    # one_hot
    add("one_hot/basic", "one_hot", T([0, 2, 1], "int64"), 3)
    add("one_hot/2d", "one_hot", T([[0, 1], [2, 0]], "int64"), 3)
    add("one_hot/0d", "one_hot", T(1, "int64"), 3)
    add("one_hot/empty", "one_hot", Z((0,), "int64"), 3)
    add("one_hot/num_classes_0d_tensor", "one_hot", T([0, 1], "int64"), T(3, "int64"))
    add("one_hot/num_classes_minus1", "one_hot", T([0, 2, 1], "int64"), -1)
    add("one_hot/num_classes_minus2", "one_hot", T([0, 1], "int64"), -2)
    add("one_hot/num_classes_float", "one_hot", T([0, 1], "int64"), 3.0)
    add("one_hot/num_classes_bool", "one_hot", T([0, 1], "int64"), True)
    add("one_hot/num_classes_0", "one_hot", T([0, 1], "int64"), 0)
    add("one_hot/int32_index", "one_hot", T([0, 1], "int32"), 3)
    add("one_hot/float_index", "one_hot", T([0.0, 1.0]), 3)
    add("one_hot/index_too_big", "one_hot", T([0, 2, 1], "int64"), 2)
    add("one_hot/negative_index", "one_hot", T([-1, 0], "int64"), 3)
    add("one_hot/list_input", "one_hot", [0, 1], 3)

    # scope markers
    for b in ("BEGIN_FORWARD", "BEGIN_BACKWARD", "END_FORWARD", "END_BACKWARD"):
        add(f"scope_boundary/{b}", "scope_boundary", T(ar(2, 3), rg=True), b, "scope")
    add("scope_boundary/int_tensor", "scope_boundary", T([1, 2], "int64"), "anything", "s")
    add("scope_boundary/python_float", "scope_boundary", 3.0, "bad", 1)
    for fn in ("enter_scope", "exit_scope"):
        add(f"{fn}/float_requires_grad", fn, T(ar(2, 3), rg=True), "scope")
        add(f"{fn}/float_no_grad", fn, T(ar(3)), "scope")
        add(f"{fn}/int_tensor", fn, T([1, 2, 3], "int64"), "scope")
        add(f"{fn}/python_float", fn, 3.0, "scope")

    # bias_add
    add("bias_add/2d_dim0", "bias_add", T(ar(3, 4), rg=True), T([1.0, -2.0, 0.5], rg=True), 0)
    add("bias_add/3d_dim1", "bias_add", T(ar(2, 3, 4), rg=True), T([1.0, -2.0, 0.5], rg=True),
        1)
    add("bias_add/3d_dim2", "bias_add", T(ar(2, 3, 4), rg=True),
        T([0.25, 1.0, -2.0, 0.5], rg=True), 2)
    add("bias_add/kwargs", "bias_add", input_value=T(ar(2, 3), rg=True),
        bias=T([1.0, 2.0, 3.0], rg=True), dim=1)
    add("bias_add/int32_input_float_bias", "bias_add", T([[1, 2, 3], [4, 5, 6]], "int32"),
        T([0.5, 1.5, -1.0], rg=True), 1)
    add("bias_add/int32_int64", "bias_add", T([[1, 2, 3], [4, 5, 6]], "int32"),
        T([1, 2, 3], "int64"), 1)
    add("bias_add/float64_float32", "bias_add", T(ar(2, 3), "float64", rg=True),
        T([1.0, 2.0, 3.0], rg=True), 1)
    add("bias_add/bool", "bias_add", T([[True, False, True], [False, False, True]], "bool"),
        T([True, False, False], "bool"), 1)
    add("bias_add/bias_2d", "bias_add", T(ar(2, 3)), T(ar(3, 1)), 1)
    add("bias_add/input_1d", "bias_add", T(ar(3)), T(ar(3)), 0)
    add("bias_add/dim_negative", "bias_add", T(ar(2, 3, 4)), T(ar(4)), -1)
    add("bias_add/dim_equals_ndim", "bias_add", T(ar(2, 3, 4)), T(ar(4)), 3)
    add("bias_add/size_mismatch", "bias_add", T(ar(2, 3, 4)), T(ar(5)), 2)
    add("bias_add/dim_float", "bias_add", T(ar(2, 3, 4)), T(ar(3)), 1.0)

    # matmul
    add("matmul/basic", "matmul", T(W32, rg=True), T(ar(2, 4, scale=0.25), rg=True))
    add("matmul/weight_transposed", "matmul", T(W32, rg=True), T(ar(2, 4), rg=True),
        T(W32.T, rg=True))
    add("matmul/weight_transposed_kw", "matmul", T(W32, rg=True), T(ar(2, 4), rg=True),
        weight_transposed=T(ar(2, 3), rg=True))
    add("matmul/int64", "matmul", T([[1, 2], [3, 4], [5, 6]], "int64"),
        T([[1, 0, -1], [2, 1, 0]], "int64"))
    add("matmul/weight_3d", "matmul", T(ar(1, 3, 2)), T(ar(2, 4)))
    add("matmul/input_1d", "matmul", T(W32), T(ar(2)))
    add("matmul/inner_mismatch", "matmul", T(W32), T(ar(3, 4)))
    add("matmul/weight_transposed_bad", "matmul", T(W32), T(ar(2, 4)), T(W32))
    add("matmul/float64_float32", "matmul", T(W32, "float64"), T(ar(2, 4)))
    add("matmul/int64_float32", "matmul", T([[1, 2]], "int64"), T(ar(2, 4)))

    # ranged_matmul
    x_bsh = ar(2, 5, 2, scale=0.25)
    add("ranged_matmul/basic", "ranged_matmul", T(W32, rg=True), T(x_bsh, rg=True),
        T([1, 2], "int64"))
    add("ranged_matmul/weight_transposed", "ranged_matmul", T(W32, rg=True), T(x_bsh, rg=True),
        T([5, 0], "int64"), T(W32.T, rg=True))
    add("ranged_matmul/num_cols_other_length", "ranged_matmul", T(W32), T(x_bsh),
        T([1, 2, 3], "int64"))
    add("ranged_matmul/int64", "ranged_matmul", T([[1, 2], [3, 4], [5, 6]], "int64"),
        T(np.arange(20).reshape(2, 5, 2), "int64"), T([1, 2], "int64"))
    add("ranged_matmul/weight_3d", "ranged_matmul", T(ar(1, 3, 2)), T(x_bsh), T([1, 2], "int64"))
    add("ranged_matmul/input_2d", "ranged_matmul", T(W32), T(ar(5, 2)), T([1, 2], "int64"))
    add("ranged_matmul/inner_mismatch", "ranged_matmul", T(W32), T(ar(2, 5, 3)),
        T([1, 2], "int64"))
    add("ranged_matmul/num_cols_0d", "ranged_matmul", T(W32), T(x_bsh), T(1, "int64"))
    add("ranged_matmul/num_cols_int", "ranged_matmul", T(W32), T(x_bsh), 1)
    add("ranged_matmul/weight_transposed_bad", "ranged_matmul", T(W32), T(x_bsh),
        T([1, 2], "int64"), T(W32))
    add("ranged_matmul/float64_weight", "ranged_matmul", T(W32, "float64"), T(x_bsh),
        T([1, 2], "int64"))

    # conditional_arange
    add("conditional_arange/doc_example_1", "conditional_arange", T(MASK7, "int64"),
        T(0, "int64"), T(1, "int64"))
    add("conditional_arange/doc_example_2", "conditional_arange", T(MASK7, "int64"),
        T(2, "int64"), T(7, "int64"))
    add("conditional_arange/bool_mask", "conditional_arange", T(MASK7, "bool"), T(0, "int64"),
        T(1, "int64"))
    add("conditional_arange/float_mask", "conditional_arange", T([0.0, 2.5, -1.0, 0.0]),
        T(1, "int64"), T(1, "int64"))
    add("conditional_arange/2d", "conditional_arange", T([[1, 0, 1], [0, 1, 1]], "int64"),
        T(1, "int64"), T(-3, "int64"))
    add("conditional_arange/float_start_step_grad", "conditional_arange", T(MASK7, "int64"),
        T(0.5, rg=True), T(2.0, rg=True))
    add("conditional_arange/float64_start", "conditional_arange", T(MASK7, "int64"),
        T(0.5, "float64"), T(2, "int64"))
    add("conditional_arange/int32_start_step", "conditional_arange", T(MASK7, "int64"),
        T(1, "int32"), T(2, "int32"))
    add("conditional_arange/dtype_int16", "conditional_arange", T(MASK7, "int64"),
        T(1, "int64"), T(2, "int64"), DT("int16"))
    add("conditional_arange/dtype_float32_kw", "conditional_arange", T(MASK7, "int64"),
        T(1, "int64"), T(2, "int64"), dtype=DT("float32"))
    add("conditional_arange/step_zero", "conditional_arange", T(MASK7, "int64"), T(1, "int64"),
        T(0, "int64"))
    add("conditional_arange/0d_mask", "conditional_arange", T(1, "int64"), T(1, "int64"),
        T(1, "int64"))
    add("conditional_arange/start_1d", "conditional_arange", T(MASK7, "int64"), T([1], "int64"),
        T(1, "int64"))
    add("conditional_arange/step_1d", "conditional_arange", T(MASK7, "int64"), T(1, "int64"),
        T([1], "int64"))
    add("conditional_arange/start_python_int", "conditional_arange", T(MASK7, "int64"), 1,
        T(1, "int64"))

    # nth_order_statistic
    doc = [0.0, 2, 3, 5, 4, 1, 6]
    m23 = [[3.0, 1, 2], [0, 5, 4]]
    add("nth_order_statistic/doc_example", "nth_order_statistic", T(doc), 3, 0)
    add("nth_order_statistic/2d_dim1", "nth_order_statistic", T(m23), 2, 1)
    add("nth_order_statistic/2d_dim0", "nth_order_statistic", T(m23), 1, 0)
    add("nth_order_statistic/negative_dim", "nth_order_statistic", T(m23), 1, -1)
    add("nth_order_statistic/kwargs", "nth_order_statistic", input=T(m23), k=2, dimension=1)
    add("nth_order_statistic/k0", "nth_order_statistic", T(doc), 0, 0)
    add("nth_order_statistic/k_all", "nth_order_statistic", T(doc), 7, 0)
    add("nth_order_statistic/k_0d_tensor", "nth_order_statistic", T(doc), T(2, "int64"), 0)
    add("nth_order_statistic/int64", "nth_order_statistic", T([3, 1, 2], "int64"), 2, 0)
    add("nth_order_statistic/uint8", "nth_order_statistic", T([1, 3, 2], "uint8"), 1, 0)
    add("nth_order_statistic/float16", "nth_order_statistic", T([1.0, 3, 2], "float16"), 1, 0)
    add("nth_order_statistic/float64", "nth_order_statistic", T([1.0, -3, 2], "float64"), 2, 0)
    add("nth_order_statistic/0d", "nth_order_statistic", T(3.0), 1, 0)
    add("nth_order_statistic/requires_grad_input", "nth_order_statistic", T(doc, rg=True), 2, 0)
    add("nth_order_statistic/nan_above_inf_k1", "nth_order_statistic",
        T([1.0, np.inf, 2.0, np.nan]), 1, 0)
    add("nth_order_statistic/nan_and_inf_k2", "nth_order_statistic",
        T([1.0, np.inf, 2.0, np.nan]), 2, 0)
    add("nth_order_statistic/minus_inf", "nth_order_statistic", T([-np.inf, 1.0, 2.0]), 2, 0)
    add("nth_order_statistic/k_too_big", "nth_order_statistic", T(doc), 8, 0)
    add("nth_order_statistic/k_negative", "nth_order_statistic", T(doc), -1, 0)
    add("nth_order_statistic/dim_out_of_range", "nth_order_statistic", T(doc), 1, 1)
    add("nth_order_statistic/bool_input", "nth_order_statistic", T([True, False], "bool"), 1, 0)
    add("nth_order_statistic/k_float", "nth_order_statistic", T(doc), 2.0, 0)
    add("nth_order_statistic/k_bool", "nth_order_statistic", T(doc), True, 0)
    add("nth_order_statistic/list_input", "nth_order_statistic", [1.0, 3.0, 2.0], 1, 0)

    # unbind
    add("unbind/2d", "unbind", T(ar(2, 3), rg=True))
    add("unbind/3d", "unbind", T(ar(3, 2, 2), rg=True))
    add("unbind/1d", "unbind", T(ar(3), rg=True))
    add("unbind/int64", "unbind", T([[1, 2], [3, 4]], "int64"))
    add("unbind/empty", "unbind", Z((0, 3)))
    add("unbind/0d", "unbind", T(3.0))
    add("unbind/list_input", "unbind", [1, 2])

    # sparse_matmul
    add("sparse_matmul/basic", "sparse_matmul", T(SM_VALUES, rg=True), T(SM_INDICES, "int64"),
        T(SM_WEIGHT, rg=True))
    add("sparse_matmul/batched", "sparse_matmul",
        T(np.stack([SM_VALUES, -SM_VALUES, 2 * SM_VALUES]), rg=True),
        T(np.stack([SM_INDICES, SM_INDICES[::-1], [[3, 0], [2, 1]]]), "int64"),
        T(SM_WEIGHT, rg=True))
    add("sparse_matmul/indices_broadcast_over_M", "sparse_matmul", T(SM_VALUES, rg=True),
        T([0, 1], "int64"), T(SM_WEIGHT, rg=True))
    add("sparse_matmul/weight_N_1", "sparse_matmul", T(SM_VALUES, rg=True),
        T(SM_INDICES, "int64"), T(ar(2, 4, 1), rg=True))
    add("sparse_matmul/duplicate_indices", "sparse_matmul", T(SM_VALUES, rg=True),
        T([[1, 1], [1, 2]], "int64"), T(SM_WEIGHT, rg=True))
    add("sparse_matmul/int64", "sparse_matmul", T(np.arange(12).reshape(2, 2, 3), "int64"),
        T(SM_INDICES, "int64"), T(np.arange(24).reshape(2, 4, 3) % 5, "int64"))
    add("sparse_matmul/index_limit", "sparse_matmul", T(ar(1, 1, 1)), T([[0]], "int64"),
        Z((1, 2 ** 16, 1)))
    add("sparse_matmul/int32_indices", "sparse_matmul", T(SM_VALUES), T(SM_INDICES, "int32"),
        T(SM_WEIGHT))
    add("sparse_matmul/float_indices", "sparse_matmul", T(SM_VALUES), T(SM_INDICES, "float32"),
        T(SM_WEIGHT))
    add("sparse_matmul/index_out_of_range", "sparse_matmul", T(SM_VALUES),
        T([[0, 4], [1, 2]], "int64"), T(SM_WEIGHT))
    add("sparse_matmul/negative_index", "sparse_matmul", T(SM_VALUES),
        T([[0, 1], [-1, 2]], "int64"), T(SM_WEIGHT))
    add("sparse_matmul/N_mismatch", "sparse_matmul", T(SM_VALUES), T(SM_INDICES, "int64"),
        T(ar(2, 4, 2)))
    add("sparse_matmul/weight_2d", "sparse_matmul", T(SM_VALUES), T(SM_INDICES, "int64"),
        T(ar(4, 3)))
    add("sparse_matmul/weight_1d", "sparse_matmul", T(SM_VALUES), T(SM_INDICES, "int64"),
        T(ar(4)))
    add("sparse_matmul/values_1d", "sparse_matmul", T(ar(3)), T(SM_INDICES, "int64"),
        T(SM_WEIGHT))
    add("sparse_matmul/float64_values", "sparse_matmul", T(SM_VALUES, "float64"),
        T(SM_INDICES, "int64"), T(SM_WEIGHT))
    add("sparse_matmul/float64_weight", "sparse_matmul", T(SM_VALUES), T(SM_INDICES, "int64"),
        T(SM_WEIGHT, "float64"))

    # sparse_act_matmul
    add("sparse_act_matmul/int_mask", "sparse_act_matmul", T(SAM_X, rg=True), T([1, 0], "int64"),
        T(SAM_W, rg=True))
    add("sparse_act_matmul/bool_mask", "sparse_act_matmul", T(SAM_X, rg=True),
        T([True, False], "bool"), T(SAM_W, rg=True))
    add("sparse_act_matmul/float_mask_grad", "sparse_act_matmul", T(SAM_X, rg=True),
        T([0.5, 2.0], rg=True), T(SAM_W, rg=True))
    add("sparse_act_matmul/dense_capacity", "sparse_act_matmul", T(SAM_X), T([1, 0], "int64"),
        T(SAM_W), dense_capacity=1)
    add("sparse_act_matmul/batched", "sparse_act_matmul", T(ar(3, 2, 3), rg=True),
        T([[1, 0], [0, 0], [1, 1]], "int64"), T(SAM_W, rg=True))
    add("sparse_act_matmul/input_N_1", "sparse_act_matmul", T(ar(2, 1), rg=True),
        T([1, 1], "int64"), T(SAM_W, rg=True))
    add("sparse_act_matmul/int64", "sparse_act_matmul", T(np.arange(6).reshape(2, 3), "int64"),
        T([0, 1], "int64"), T(np.arange(12).reshape(4, 3), "int64"))
    add("sparse_act_matmul/empty", "sparse_act_matmul", Z((0, 3)), Z((0,)), T(SAM_W))
    add("sparse_act_matmul/mask_shape", "sparse_act_matmul", T(SAM_X), T([1, 0, 1], "int64"),
        T(SAM_W))
    add("sparse_act_matmul/N_mismatch", "sparse_act_matmul", T(SAM_X), T([1, 0], "int64"),
        T(ar(4, 2)))
    add("sparse_act_matmul/input_1d", "sparse_act_matmul", T(ar(3)), T(1, "int64"), T(SAM_W))
    add("sparse_act_matmul/float64_input", "sparse_act_matmul", T(SAM_X, "float64"),
        T([1, 0], "int64"), T(SAM_W))
    add("sparse_act_matmul/int64_input_float_weight", "sparse_act_matmul",
        T(np.arange(6).reshape(2, 3), "int64"), T([1, 0], "int64"), T(SAM_W))
    return c


# --------------------------------------------------------------------------
# running a case
# --------------------------------------------------------------------------
def cotangent(n):
    """The fixed weights of the loss: small exact values, none of them zero."""
    i = np.arange(n)
    return ((i * 37) % 11 - 5.5) / 4


def encode(x, arg0):
    if isinstance(x, torch.Tensor):
        rec = {"dtype": str(x.dtype), "shape": list(x.shape), "values": x.detach().tolist(),
               "requires_grad": bool(x.requires_grad), "is_arg0": x is arg0}
        if isinstance(arg0, torch.Tensor) and x.numel() and arg0.numel():
            rec["starts_at_arg0_memory"] = x.data_ptr() == arg0.data_ptr()
        return {"tensor": rec}
    if isinstance(x, tuple):
        return {"tuple": [encode(v, arg0) for v in x]}
    return {"value": x, "is_arg0": x is arg0}


class Records(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.seen = []

    def emit(self, record):
        self.seen.append([record.levelname, record.getMessage()])


def run_case(case, records):
    fn = getattr(F, case["fn"])
    args = [build(a) for a in case["args"]]
    kwargs = {k: build(v) for k, v in case["kwargs"].items()}
    records.seen = []
    out = {}
    try:
        result = fn(*args, **kwargs)
    except Exception as e:
        out["error"] = {"type": type(e).__name__, "message": str(e)}
        out["logs"] = records.seen
        return out
    arg0 = args[0] if args else next(iter(kwargs.values()))
    out["result"] = encode(result, arg0)
    out["logs"] = records.seen
    outputs = [result] if isinstance(result, torch.Tensor) else (
        list(result) if isinstance(result, tuple) else [])
    differentiable = [o for o in outputs if isinstance(o, torch.Tensor) and o.requires_grad]
    if differentiable:
        cots, loss = [], 0
        for o in outputs:
            if o.requires_grad:
                ct = torch.tensor(cotangent(o.numel()).reshape(tuple(o.shape))).to(o.dtype)
                cots.append(ct.tolist())
                loss = loss + (o * ct).sum()
            else:
                cots.append(None)
        loss.backward()
        out["cotangents"] = cots
        inputs = list(enumerate(args)) + list(kwargs.items())
        out["grads"] = {str(k): (None if a.grad is None else encode(a.grad, None))
                        for k, a in inputs if isinstance(a, torch.Tensor) and a.requires_grad}
    return out


FUNCTIONS = ["one_hot", "scope_boundary", "enter_scope", "exit_scope", "bias_add", "matmul",
             "ranged_matmul", "conditional_arange", "nth_order_statistic", "unbind",
             "sparse_matmul", "sparse_act_matmul"]
CONSTANTS = ["BEGIN_FORWARD", "BEGIN_BACKWARD", "END_FORWARD", "END_BACKWARD"]


def signature(fn):
    """[name, kind, default] per parameter (annotations left out); default None if required."""
    return [[p.name, p.kind.name, None if p.default is p.empty else repr(p.default)]
            for p in inspect.signature(fn).parameters.values()]


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else "nn_functional.json"
    warnings.simplefilter("ignore")
    cstorch.backend("CPU", artifact_dir=tempfile.mkdtemp(prefix="nn_functional_goldens_"))
    assert not cstorch.use_cs()
    records = Records()
    logger = logging.getLogger("cerebras")
    logger.addHandler(records)
    logger.propagate = False  # keep the one_hot(-1) message out of stderr
    results = []
    for case in cases():
        results.append({**case, **run_case(case, records)})
    doc = {
        "generator": "tests/data/real_cstorch/make_nn_functional_goldens.py",
        "versions": {"cerebras.pytorch": cstorch.__version__, "torch": torch.__version__,
                     "numpy": np.__version__, "python": platform.python_version()},
        "signatures": {name: signature(getattr(F, name)) for name in FUNCTIONS},
        "constants": {name: getattr(F, name) for name in CONSTANTS},
        "cases": results,
    }
    with open(out_path, "w") as f:
        f.write(json.dumps(doc, indent=1, allow_nan=True) + "\n")
    print(f"wrote {len(results)} cases to {out_path}")


if __name__ == "__main__":
    main()

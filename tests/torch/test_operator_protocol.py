"""Python's operator protocol on tensors, as torch binds it: a binary special method whose
operand the op does not take returns NotImplemented, so Python tries the other operand's
reflected method, then raises its own error; in-place operators write in place; NumPy ufuncs on
tensors give tensors.

The sweep runs every binary operator, in its forward, reflected and in-place forms, over
operands of every kind (a tensor of another dtype or shape, Python and NumPy numbers, arrays,
sequences, None, strings, objects with and without reflected methods) on float, integer and bool
tensors, through both libraries."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch_cs.torch as mt
from tests.torch._sweeps import assert_same_as_torch, describe, outcomes

BINARY = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
          "pow": "**", "matmul": "@", "and": "&", "or": "|", "xor": "^", "lshift": "<<",
          "rshift": ">>"}
COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _reflecting_class():
    """A class answering every operator, forward and reflected, with its name."""
    ns = {}
    for name in BINARY:
        ns[f"__{name}__"] = (lambda n: lambda self, o: n)(name)
        ns[f"__r{name}__"] = (lambda n: lambda self, o: "r" + n)(name)
    for name in COMPARE:
        ns[f"__{name}__"] = (lambda n: lambda self, o: n)(name)
    return type("Reflecting", (), ns)


Reflecting = _reflecting_class()


class Plain:
    pass


def _others(T):
    return {
        "reflecting": lambda: Reflecting(), "plain": lambda: Plain(), "str": lambda: "a",
        "none": lambda: None, "list": lambda: [1, 2], "tuple": lambda: (1, 2),
        "array_f32": lambda: np.array([1.0, 2.0], np.float32),
        "array_i64": lambda: np.array([1, 2]), "array_0d": lambda: np.array(3.0),
        "np_f64": lambda: np.float64(2), "np_i32": lambda: np.int32(3),
        "np_bool": lambda: np.bool_(True), "bool": lambda: True, "int": lambda: 2,
        "float": lambda: 2.5, "t_f64_0d": lambda: T.tensor(2.0, dtype=T.float64),
        "t_i64": lambda: T.tensor([1, 3]), "t_bool": lambda: T.tensor([True, False]),
        "t_wide": lambda: T.ones(3),
    }


def _mine(T, kind):
    return {"f32": lambda: T.tensor([1.5, -2.0]),
            "i32": lambda: T.tensor([3, -4], dtype=T.int32),
            "bool": lambda: T.tensor([True, False])}[kind]()


def _show(r):
    if isinstance(r, tuple):  # (in-place forms: whether the tensor was written in place)
        same, value = r
        return ("same object " if same else "new object ") + _show(value)
    if hasattr(r, "shape") and hasattr(r, "tolist"):
        return type(r).__name__ + " " + describe(r)
    return repr(r)


def _calls(T):
    calls = {}
    for kind in ("f32", "i32", "bool"):
        for name, sym in {**BINARY, **COMPARE}.items():
            for oname, other in _others(T).items():
                def fwd(kind=kind, sym=sym, other=other):
                    return eval(f"t {sym} o", {"t": _mine(T, kind), "o": other()})

                def rev(kind=kind, sym=sym, other=other):
                    return eval(f"o {sym} t", {"t": _mine(T, kind), "o": other()})
                calls[f"{kind} {name} {oname}"] = fwd
                calls[f"{kind} r{name} {oname}"] = rev
                if name in BINARY:
                    def inplace(kind=kind, sym=sym, other=other):
                        scope = {"t": _mine(T, kind), "o": other()}
                        before = scope["t"]
                        exec(f"t {sym}= o", scope)
                        return (scope["t"] is before, scope["t"])
                    calls[f"{kind} i{name} {oname}"] = inplace
    return calls


def _ufunc_calls(T):
    t = lambda: T.tensor([0.5, 2.0])  # noqa: E731
    return {
        "sin": lambda: np.sin(t()), "greater": lambda: np.greater(t(), 1.0),
        "add number": lambda: np.add(t(), 1), "add two": lambda: np.add(t(), t()),
        "sqrt 0-d": lambda: np.sqrt(T.tensor(4.0)), "maximum": lambda: np.maximum(t(), 1.0),
        "array times": lambda: np.array([2.0, 3.0], np.float32) * t(),
        "array over": lambda: np.array([2.0, 3.0]) / t(),
        "asarray": lambda: np.asarray(t()),
    }


def test_operators_match_torch_over_every_operand_kind():
    assert_same_as_torch(lambda T: outcomes(_calls(T), show=_show), mt)


def test_numpy_ufuncs_on_tensors_match_torch():
    assert_same_as_torch(lambda T: outcomes(_ufunc_calls(T), show=_show), mt)


# ----- torch-free pins ---------------------------------------------------------------------------
def test_an_operand_the_op_does_not_take_reaches_the_other_reflected_method():
    t = mt.ones(2)
    assert t + Reflecting() == "radd"
    assert t < Reflecting() == "gt"  # (Python's reflection of < is >)
    assert (t == "a") is False and (t != "a") is True
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Tensor' and 'list'"):
        t + [1, 2]
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for -: 'list' and 'Tensor'"):
        [1, 2] - t
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        t * "ab"  # (str's repetition asks the tensor for an index)
    with pytest.raises(TypeError, match=r"'<' not supported between instances of 'Tensor' and 'str'"):
        t < "a"


def test_a_complex_number_keeps_its_own_refusal():
    with pytest.raises(TypeError, match="no complex dtypes"):
        mt.ones(2) + 1j


def test_in_place_operators_write_in_place():
    i = mt.tensor([3, 6], dtype=mt.int32)
    alias = i
    i **= 2
    i //= 4
    i %= 5
    i <<= 1
    i >>= 1
    i &= 6
    i |= 1
    i ^= 2
    assert i is alias and i.dtype is mt.int32
    assert i.tolist() == [((((9 // 4) % 5) << 1 >> 1) & 6 | 1) ^ 2,
                          ((((36 // 4) % 5) << 1 >> 1) & 6 | 1) ^ 2]
    b = mt.tensor([True, False])
    b &= True
    assert b.dtype is mt.bool and b.tolist() == [True, False]
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        i <<= 1.5
    with pytest.raises(NotImplementedError, match="\"lshift_cpu\" not implemented for 'Float'"):
        f = mt.ones(2)
        f <<= 1


def test_an_in_place_operator_nobody_takes_rebinds_to_the_forward_result():
    t = mt.ones(2)
    alias = t
    t += np.array([1.0, 2.0], np.float32)  # (numpy's add computes it; the result is a tensor)
    assert t is not alias and alias.tolist() == [1.0, 1.0]
    assert isinstance(t, mt.Tensor) and t.tolist() == [2.0, 3.0]


def test_numpy_ufuncs_give_tensors():
    t = mt.tensor([0.5, 2.0])
    assert isinstance(np.sin(t), mt.Tensor)
    assert np.greater(t, 1.0).dtype is mt.uint8  # (torch's wrapper: a bool result is uint8)
    assert (t == np.array([0.5, 1.0])).tolist() == [True, False]


# ----- bitwise shifts (the functions behind << and >>) -------------------------------------------
SHIFT_DTYPES = ("bool", "uint8", "int8", "int32", "int64", "float32")


def _shift_calls(T):
    vals = {"bool": [True, False, True], "uint8": [1, 200, 7], "int8": [-8, 3, 127],
            "int32": [-8, 3, 1 << 20], "int64": [-8, 1, 3], "float32": [1.0, 2.0, 3.0]}
    counts = [1, 9, 70]
    calls = {}
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        fn = getattr(T, name)
        for da, db in itertools.product(SHIFT_DTYPES, SHIFT_DTYPES):
            a = lambda da=da: T.tensor(vals[da], dtype=getattr(T, da))  # noqa: E731
            b = lambda db=db: T.tensor(counts if db != "bool" else [True, False, True],
                                       dtype=getattr(T, db))  # noqa: E731
            calls[f"{name} {da} {db}"] = lambda fn=fn, a=a, b=b: fn(a(), b())
            calls[f"{name}_ {da} {db}"] = \
                lambda name=name, a=a, b=b: getattr(a(), name + "_")(b())
        for da in SHIFT_DTYPES:
            a = lambda da=da: T.tensor(vals[da], dtype=getattr(T, da))  # noqa: E731
            for n in (2, -1, 64, 2.5, True):
                calls[f"{name} {da} number {n}"] = lambda fn=fn, a=a, n=n: fn(a(), n)
                calls[f"{name} number {n} {da}"] = lambda fn=fn, a=a, n=n: fn(n, a())
                calls[f"{name} method {da} {n}"] = \
                    lambda name=name, a=a, n=n: getattr(a(), name)(n)
            for do in ("int16", "int64", "float32", "bool"):
                calls[f"{name} {da} out {do}"] = lambda fn=fn, a=a, do=do: fn(
                    a(), 1, out=T.empty(3, dtype=getattr(T, do)))
        calls[f"{name} wide"] = lambda fn=fn: fn(T.ones(2, dtype=T.float32), T.ones(3))
        calls[f"{name} no args"] = lambda fn=fn: fn()
        calls[f"{name} one arg"] = lambda fn=fn: fn(T.ones(2, dtype=T.int32))
        calls[f"{name} numbers"] = lambda fn=fn: fn(2, 3)
        calls[f"{name} list"] = lambda fn=fn: fn(T.ones(2, dtype=T.int32), [1])
        calls[f"{name} method no args"] = lambda name=name: getattr(T.ones(2), name)()
    return calls


def test_bitwise_shifts_match_torch():
    assert_same_as_torch(lambda T: outcomes(_shift_calls(T)), mt)


def test_bitwise_shifts_pinned():
    x = mt.tensor([-8, 3], dtype=mt.int8)
    assert mt.bitwise_right_shift(x, 9).tolist() == [-1, 0]  # (past the width: the sign)
    assert mt.bitwise_left_shift(x, -1).tolist() == [0, 0]
    assert mt.bitwise_left_shift(2, mt.tensor([1, 2], dtype=mt.int32)).dtype is mt.int32
    with pytest.raises(NotImplementedError, match="\"rshift_cpu\" not implemented for 'Bool'"):
        mt.bitwise_right_shift(mt.tensor([True]), mt.tensor([True]))
    with pytest.raises(TypeError, match=r"received an invalid combination of arguments - got "
                                        r"\(int, int\)"):
        mt.bitwise_left_shift(2, 3)

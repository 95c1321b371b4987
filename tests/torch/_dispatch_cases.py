"""The tables behind ``test_dispatch_coverage``: a recording dispatch mode, the small input tensors,
the generic argument tuples, the explicit example calls, the allow-list of callables that compute
no tensor value (each with its reason), and the known gaps.

Every public callable of ``minitorch_cs.torch``, of ``minitorch_cs.torch.nn.functional`` and every
public member of ``Tensor`` is, in the test, either

* exercised and shown to **dispatch**: under a :class:`Recorder` it produced at least one event of
  the dispatch protocol; every tensor it returned is an input or the output of an op the mode saw
  (by tensor or by array identity: what graph capture can name); a Python value it returned from
  tensor inputs (bool, number, str, list, ndarray) was announced by an ``on_read`` event; and, run
  again on inputs holding other values (:func:`perturb`) with no read announced, it ran the same
  ops, every value an op received that the mode cannot trace to a tensor (a raw ndarray, a tensor
  no op made) was the same -- a constant -- and nothing but an op refused the other values;
* or listed in :data:`ALLOWED` with the kind of non-computation and a one-line reason (probed
  where a probe can run: the probe must see no event and return no tensor it was not given).
"""
from __future__ import annotations

import inspect
import io
import types
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import minitorch_cs.torch as torch
import minitorch_cs.torch.nn.functional as F
from minitorch_cs.torch import _dispatch
from minitorch_cs.torch._tensor import Tensor

# ----- the recording mode -------------------------------------------------------------------------


class Recorder(_dispatch.Mode, _dispatch.EngineObserver):
    """Records every event of the dispatch protocol and what each one produced.

    ``known`` starts as the call's input tensors; every tensor an op returns (or an in-place op
    writes, or a ``.data``/``.grad`` assignment installs) joins it, and ``arrays`` holds the
    arrays the autograd engine produced: strong references, so ids stay unique while the check
    runs. ``foreign`` lists, in order, ``(where, values)`` for each value an op received that the
    mode cannot trace to a known tensor: a raw ndarray in its arguments or attributes, or a tensor
    that is neither an input nor made by an op of this call. A constant is the same whatever the
    inputs hold; anything else was computed from tensor values outside dispatch.
    """

    def __init__(self, known=()):
        self.events: list = []
        self.made: list = []
        self.arrays: list = []
        self.foreign: list = []
        self.op_raised = False
        self._ids = set()
        self._array_ids = set()
        self._know(*known)

    def _know(self, *tensors):
        for t in tensors:
            if t is not None:
                self.made.append(t)
                self._ids.add(id(t))
                self._array_ids.add(id(t._data))

    def knows(self, t) -> bool:
        return id(t) in self._ids or id(t._data) in self._array_ids

    def _scan(self, v, where):
        if isinstance(v, np.ndarray):
            self.foreign.append((where, np.array(v, copy=True)))
        elif isinstance(v, Tensor):
            if not self.knows(v):
                self.foreign.append((where, np.array(v._data, copy=True)))
        elif isinstance(v, (tuple, list)):
            for x in v:
                self._scan(x, where)

    # ops
    def dispatch(self, op, args, attrs, target):
        for i, a in enumerate(args):
            self._scan(a, f"{op.name} argument {i}")
        for k, v in attrs.items():
            self._scan(v, f"{op.name} attribute {k}=")
        try:
            res = _dispatch.redispatch(self, op, args, attrs, target)
        except Exception:
            self.op_raised = True  # the op itself refused its inputs (a traced error)
            raise
        self.events.append(("op", op.name))
        self._know(*tensors_in(res))
        self._know(target)
        return res

    # events that are not ops
    def on_read(self, tensor, what):
        self.events.append(("read", what))

    def on_set_data(self, tensor, source):
        self.events.append(("set_data", None))
        self._know(tensor, source)

    def on_become(self, tensor, result):
        self.events.append(("become", None))
        self._know(tensor, result)

    def on_set_grad(self, tensor, value):
        self.events.append(("set_grad", None))
        self._know(value)

    def on_read_grad(self, tensor):
        self.events.append(("read_grad", None))
        self._know(tensor._grad)

    def on_zero_grad(self, tensor, set_to_none):
        self.events.append(("zero_grad", set_to_none))

    # the autograd engine
    def engine(self):
        return self

    def fn(self, func, inputs, kwargs, output):
        self.events.append(("engine.fn", getattr(func, "__name__", "?")))
        self.arrays.append(output)
        self._array_ids.add(id(output))

    def bwd(self, node, grads, in_grads):
        self.events.append(("engine.bwd", node.name()))
        for g in in_grads:
            if g is not None:
                self.arrays.append(g)
                self._array_ids.add(id(g))

    def accumulate(self, var, g, created):
        self.events.append(("engine.accumulate", created))
        self._know(var._grad)

    # summaries
    def ops(self):
        return [name for kind, name in self.events if kind == "op"]

    def reads(self):
        return [what for kind, what in self.events if kind == "read"]


def tensors_in(v) -> list:
    """Every Tensor in ``v`` (nested tuples, lists, dicts and their values)."""
    out: list = []
    _collect(v, out, lambda x: isinstance(x, Tensor))
    return out


PY_VALUES = (bool, int, float, complex, str, bytes, np.ndarray, np.generic)


def python_values_in(v) -> list:
    """The Python values (numbers, strings, arrays) in ``v``, tensors excluded."""
    out: list = []
    _collect(v, out, lambda x: isinstance(x, PY_VALUES))
    return out


def _collect(v, out, want):
    if want(v):
        out.append(v)
        return
    if isinstance(v, Tensor):
        return
    if isinstance(v, (tuple, list)):
        for x in v:
            _collect(x, out, want)
    elif isinstance(v, dict):
        for x in v.values():
            _collect(x, out, want)


# ----- inputs -------------------------------------------------------------------------------------
# Small tensors with values valid for every domain used (logs, square roots, asin/acos, erfinv and
# binary cross entropy want values in (0, 1)). Each call makes fresh ones: in-place ops mutate them.
def f23():
    return torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])


def f23b():
    return torch.tensor([[0.6, 0.3, 0.8], [0.2, 0.9, 0.4]])


def f23c():
    return torch.tensor([[0.5, 0.7, 0.2], [0.3, 0.1, 0.9]])


def i23():
    return torch.tensor([[1, 2, 3], [4, 5, 6]])


def i23b():
    return torch.tensor([[3, 1, 2], [2, 3, 1]])


def b23():
    return torch.tensor([[True, False, True], [False, True, False]])


def b23b():
    return torch.tensor([[True, True, False], [False, True, True]])


def sq(k=0):
    return torch.tensor([[0.2, 0.1, 0.4], [0.3, 0.7, 0.5], [0.9, 0.6, 0.8]]) + 0.05 * k


def v3(k=0):
    return torch.tensor([0.1, 0.5, 0.9]) + 0.05 * k


def iv3():
    return torch.tensor([0, 2, 1])


def f234(k=0):
    return torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) / 24 + 0.01 * (k + 1)


def s0():
    return torch.tensor(0.5)


def i0():
    return torch.tensor(2)


def leaf():
    """A float leaf that requires grad."""
    return f23().requires_grad_()


def img(c=2, h=4, w=4):
    return (torch.arange(c * h * w, dtype=torch.float32).reshape(1, c, h, w) / (c * h * w))


def vol(c=2, d=3, h=4, w=4):
    return torch.arange(c * d * h * w, dtype=torch.float32).reshape(1, c, d, h, w) / (c * d * h * w)


def perturb(args) -> None:
    """Give the tensors in ``args`` other values in place, keeping shapes, dtypes, value domains
    and multisets of integer and bool values (so indices stay in range and masks select as many
    elements): floats ``x -> 0.8 x + 0.0713`` (no input value is its fixed point), integers and
    bools reversed in memory order."""
    for t in tensors_in(args):
        a = t._data
        if not a.flags.writeable or a.size < 1:
            continue
        if a.dtype.kind == "f":
            a[...] = a * 0.8 + 0.0713
        elif a.dtype.kind in "iub":
            a[...] = a.reshape(-1)[::-1].reshape(a.shape).copy()


# The generic argument tuples, tried in order: the first that runs without raising is checked.
CANDIDATES: list[Callable[[], tuple]] = [
    lambda: (f23(),),
    lambda: (f23(), f23b()),
    lambda: (f23(), f23b(), f23c()),
    lambda: (f23(), 1),
    lambda: (f23(), 0),
    lambda: (f23(), -1),
    lambda: (f23(), 2),
    lambda: (f23(), 0.5),
    lambda: (f23(), (2, 3)),
    lambda: (f23(), 0, 1),
    lambda: (f23(), 0, 0, 1),
    lambda: (f23(), f23b(), 0.5),
    lambda: (f23(), (2, 3), 1.5),
    lambda: (b23(), f23(), f23b()),
    lambda: (f23(), b23(), f23b()),
    lambda: (i23(),),
    lambda: (i23(), i23b()),
    lambda: (i23(), 1),
    lambda: (b23(),),
    lambda: (b23(), b23b()),
    lambda: (sq(),),
    lambda: (sq(), sq(1)),
    lambda: (sq(), sq(1), sq(2)),
    lambda: (sq(), v3()),
    lambda: (v3(),),
    lambda: (v3(), v3(1)),
    lambda: (iv3(),),
    lambda: (f234(),),
    lambda: (f234(), 2),
    lambda: (s0(),),
    lambda: (i0(),),
]


# ----- explicit examples --------------------------------------------------------------------------
@dataclass(frozen=True)
class Example:
    """One call: ``args()`` makes fresh inputs; ``run(*args)`` makes the call (None: call the
    callable under test with ``args``). ``reads``: the call hands tensor values to Python or to a
    file without returning them (an ``on_read`` must happen). ``label`` names a variant.
    ``other()`` makes the same inputs holding other values (default: ``args()`` then
    :func:`perturb`), for inputs whose values must stay valid (a generator state)."""

    args: Callable[[], tuple]
    run: Callable[..., Any] | None = None
    reads: bool = False
    label: str = ""
    other: Callable[[], tuple] | None = None


def ex(args, run=None, reads=False, label="", other=None):
    return Example(args, run, reads, label, other)


def _rng_state(seed):
    return torch.Generator().manual_seed(seed).get_state()


def _autocast_matmul(a, b):
    with torch.autocast("cpu"):  # a dispatch mode: its casts are ops
        return torch.matmul(a, b)


def _fork_rng():
    with torch.fork_rng():
        return torch.rand(2)


def _graph(x):
    """A non-leaf in a graph (made before the call under test)."""
    return x * 1.0


def _set(obj, name, value):
    setattr(obj, name, value)


def _with_grad(t, g):
    t.grad = g
    return t


_LEAF_WITH_GRAD = lambda: (_with_grad(leaf(), f23b()),)  # noqa: E731


def _save(t):
    torch.save(t, io.BytesIO())


def _saved_bytes():
    buf = io.BytesIO()
    torch.save(f23(), buf)
    buf.seek(0)
    return (buf,)


def _t_idx():
    return torch.tensor([[0, 1, 0], [1, 0, 1]])


def _mask():
    return b23()


def _mean_rgrad():
    return torch.tensor([0.1, 0.2, 0.3], requires_grad=True)


EXAMPLES: dict[str, list[Example]] = {
    # ---- creation (no tensor input: the explicit call of each constructor) ----
    "torch.tensor": [ex(lambda: ([[1.0, 2.0]],), label="list"),
                     ex(lambda: (f23(),), label="tensor"),
                     ex(lambda: ([s0(), s0()],), label="list of tensors")],
    "torch.as_tensor": [ex(lambda: ([1, 2],), label="list"),
                        ex(lambda: (f23(), torch.float64), label="tensor cast")],
    "torch.asarray": [ex(lambda: ([1, 2],), label="list"),
                      ex(lambda: (f23(), torch.float64), label="tensor cast")],
    "torch.scalar_tensor": [ex(lambda: (1.5,))],
    "torch.tril_indices": [ex(lambda: (3, 4, 1))],
    "torch.triu_indices": [ex(lambda: (3, 4, -1))],
    "torch.zeros": [ex(lambda: (2, 3)), ex(lambda: (i0(), 3), label="size tensor")],
    "torch.ones": [ex(lambda: (2, 3))],
    "torch.empty": [ex(lambda: (2, 3))],
    "torch.empty_strided": [ex(lambda: ((2, 3), (3, 1)))],
    "torch.full": [ex(lambda: ((2, 3), 1.5)), ex(lambda: ((2, 3), s0()), label="tensor fill")],
    "torch.zeros_like": [ex(lambda: (f23(),))],
    "torch.ones_like": [ex(lambda: (f23(),))],
    "torch.empty_like": [ex(lambda: (f23(),))],
    "torch.full_like": [ex(lambda: (f23(), 2.0))],
    "torch.arange": [ex(lambda: (5,)), ex(lambda: (s0(), 3.0), label="tensor bound")],
    "torch.linspace": [ex(lambda: (0.0, 1.0, 5))],
    "torch.logspace": [ex(lambda: (0.0, 1.0, 5))],
    "torch.eye": [ex(lambda: (3,))],
    "torch.rand": [ex(lambda: (2, 3))],
    "torch.randn": [ex(lambda: (2, 3))],
    "torch.randint": [ex(lambda: (0, 5, (2, 3)))],
    "torch.randperm": [ex(lambda: (4,))],
    "torch.rand_like": [ex(lambda: (f23(),))],
    "torch.randn_like": [ex(lambda: (f23(),))],
    "torch.randint_like": [ex(lambda: (f23(), 5))],
    "torch.normal": [ex(lambda: (0.0, 1.0, (2, 3)), label="floats"),
                     ex(lambda: (f23(), f23b()), label="tensors")],
    "torch.Tensor": [ex(lambda: ([1.0, 2.0],), label="list"),
                     ex(lambda: (2, 3), label="sizes"),
                     ex(lambda: (f23(),), label="tensor")],
    "torch.FloatTensor": [ex(lambda: ([1.0, 2.0],))],
    "torch.DoubleTensor": [ex(lambda: ([1.0, 2.0],))],
    "torch.LongTensor": [ex(lambda: ([1, 2],))],
    "torch.IntTensor": [ex(lambda: ([1, 2],))],
    "torch.BoolTensor": [ex(lambda: ([True, False],))],
    "torch.ByteTensor": [ex(lambda: ([1, 2],))],
    # ---- random state ----
    "torch.manual_seed": [ex(lambda: (3,))],
    "torch.seed": [ex(lambda: ())],
    "torch.get_rng_state": [ex(lambda: ())],
    "torch.set_rng_state": [ex(lambda: (_rng_state(0),), other=lambda: (_rng_state(1),))],
    "torch.fork_rng": [ex(lambda: (), run=_fork_rng)],
    "torch.Generator": [ex(lambda: ())],
    "torch.autocast": [ex(lambda: (f23(), sq()), run=_autocast_matmul)],
    # ---- lists of tensors ----
    "torch.cat": [ex(lambda: ([f23(), f23b()],)),
                  ex(lambda: ([f23(), i23()], 1), label="promoting")],
    "torch.concat": [ex(lambda: ([f23(), f23b()],))],
    "torch.concatenate": [ex(lambda: ([f23(), f23b()],))],
    "torch.stack": [ex(lambda: ([f23(), f23b()],))],
    "torch.hstack": [ex(lambda: ([f23(), f23b()],))],
    "torch.vstack": [ex(lambda: ([v3(), v3(1)],))],
    "torch.column_stack": [ex(lambda: ([v3(), v3(1)],))],
    "torch.row_stack": [ex(lambda: ([v3(), v3(1)],))],
    "torch.dstack": [ex(lambda: ([f23(), f23b()],))],
    "torch.atleast_1d": [ex(lambda: (torch.tensor(2.0),))],
    "torch.atleast_2d": [ex(lambda: (v3(),))],
    "torch.meshgrid": [ex(lambda: (v3(), v3(1)))],
    "torch.einsum": [ex(lambda: ("ij,jk->ik", f23(), sq()))],
    "torch.baddbmm": [ex(lambda: (f23(), f23b().reshape(1, 2, 3), sq().reshape(1, 3, 3)))],
    "torch.addmv": [ex(lambda: (v3()[:2], f23(), v3(1)))],
    "torch.put": [ex(lambda: (f23(), torch.tensor([0, -1]), v3()[:2]))],
    "torch.index_put": [ex(lambda: (f23(), (torch.tensor([1, 0]),), v3()))],
    "torch.addr": [ex(lambda: (f23(), v3()[:2], v3(1)))],
    "torch.addbmm": [ex(lambda: (f23(), f23b().reshape(1, 2, 3), sq().reshape(1, 3, 3)))],
    "torch.bmm": [ex(lambda: (f234(), f234().transpose(1, 2)))],
    # ---- indexing functions ----
    "torch.where": [ex(lambda: (b23(), f23(), f23b()), label="select"),
                    ex(lambda: (b23(),), label="nonzero")],
    "torch.gather": [ex(lambda: (f23(), 1, _t_idx()))],
    "torch.scatter": [ex(lambda: (f23(), 1, _t_idx(), f23b()))],
    "torch.scatter_add": [ex(lambda: (f23(), 1, _t_idx(), f23b()))],
    "torch.scatter_reduce": [ex(lambda: (f23(), 1, _t_idx(), f23b(), "prod"))],
    "torch.index_select": [ex(lambda: (f23(), 1, iv3()))],
    "torch.index_add": [ex(lambda: (f23(), 1, iv3(), f23b()))],
    "torch.index_copy": [ex(lambda: (f23(), 1, iv3(), f23b()))],
    "torch.index_fill": [ex(lambda: (f23(), 1, iv3(), 0.5), label="number"),
                         ex(lambda: (f23(), 1, iv3(), s0()), label="tensor value")],
    "torch.masked_fill": [ex(lambda: (f23(), _mask(), 0.0))],
    "torch.masked_select": [ex(lambda: (f23(), _mask()))],
    "torch.bincount": [ex(lambda: (iv3(),)), ex(lambda: (iv3(), v3()), label="weights")],
    "torch.diag": [ex(lambda: (sq(),), label="matrix"), ex(lambda: (v3(),), label="vector")],
    "torch.unflatten": [ex(lambda: (f23(), 1, (3, 1)))],
    "torch.repeat_interleave": [ex(lambda: (f23(), 2), label="repeats"),
                                ex(lambda: (iv3(),), label="counts")],
    "torch.narrow": [ex(lambda: (f23(), 1, 0, 2)), ex(lambda: (f23(), 1, i0() - 1, 1),
                                                       label="tensor start")],
    "torch.nan_to_num": [ex(lambda: (f23(),)), ex(lambda: (f23(), s0()), label="tensor nan")],
    "torch.clamp": [ex(lambda: (f23(), 0.2, 0.4), label="numbers"),
                    ex(lambda: (f23(), _mean_rgrad()), label="tensor min requiring grad")],
    "torch.min": [ex(lambda: (f23(),), label="all"), ex(lambda: (f23(), 1), label="dim"),
                  ex(lambda: (f23(), f23b()), label="binary")],
    "torch.round": [ex(lambda: (f23(),)), ex(lambda: (f23(),), run=lambda t: torch.round(
        t, decimals=1), label="decimals")],
    "torch.pow": [ex(lambda: (f23(), 2.0)), ex(lambda: (2.0, s0()), label="scalar base")],
    "torch.is_nonzero": [ex(lambda: (s0(),))],
    "torch.median": [ex(lambda: (f23(),)), ex(lambda: (f23(), 1), label="dim")],
    # ---- out= (the result copied, or the out tensor rebound to a resized one) ----
    "torch.add": [ex(lambda: (f23(), f23b())),
                  ex(lambda: (f23(), f23b(), torch.zeros(2, 3)),
                     run=lambda a, b, o: torch.add(a, b, out=o), label="out"),
                  ex(lambda: (f23(), f23b(), torch.zeros(1)),
                     run=lambda a, b, o: torch.add(a, b, out=o), label="out resized")],
    "torch.max": [ex(lambda: (f23(),), label="all"), ex(lambda: (f23(), 1), label="dim"),
                  ex(lambda: (f23(), f23b()), label="binary"),
                  ex(lambda: (f23(), torch.zeros(2), torch.zeros(2, dtype=torch.int64)),
                     run=lambda t, v, i: torch.max(t, 1, out=(v, i)), label="dim out")],
    # ---- serialization ----
    "torch.save": [ex(lambda: (f23(),), run=_save, reads=True)],
    # ---- nn.functional ----
    "F.binary_cross_entropy": [ex(lambda: (f23(), f23b()),
                                  other=lambda: (f23() * 0.5, f23b()))],
    "F.cosine_embedding_loss": [ex(lambda: (f23(), f23b(), torch.tensor([1.0, -1.0])))],
    "F.conv1d": [ex(lambda: (f234(), torch.ones(2, 3, 2)))],
    "F.conv2d": [ex(lambda: (img(), torch.ones(3, 2, 2, 2), torch.zeros(3)))],
    "F.conv_transpose1d": [ex(lambda: (f234(), torch.ones(3, 2, 2)))],
    "F.conv_transpose2d": [ex(lambda: (img(), torch.ones(2, 3, 2, 2), torch.zeros(3)))],
    "F.pixel_shuffle": [ex(lambda: (torch.ones(1, 4, 2, 3), 2))],
    "F.pixel_unshuffle": [ex(lambda: (torch.ones(1, 1, 4, 6), 2))],
    "F.multi_head_attention_forward": [ex(lambda: (
        torch.ones(3, 1, 4), torch.ones(3, 1, 4), torch.ones(3, 1, 4), 4, 2,
        torch.ones(12, 4), torch.zeros(12), None, None, False, 0.0, torch.ones(4, 4),
        torch.zeros(4)))],
    "F.max_pool1d": [ex(lambda: (f234(), 2)),
                     ex(lambda: (f234(),), run=lambda x: F.max_pool1d(x, 2, return_indices=True),
                        label="indices")],
    "F.max_pool2d": [ex(lambda: (img(), 2)),
                     ex(lambda: (img(),), run=lambda x: F.max_pool2d(x, 2, return_indices=True),
                        label="indices")],
    "F.avg_pool1d": [ex(lambda: (f234(), 2))],
    "F.conv3d": [ex(lambda: (vol(), torch.ones(3, 2, 2, 2, 2), torch.zeros(3)))],
    "F.max_pool3d": [ex(lambda: (vol(), 2)),
                     ex(lambda: (vol(),), run=lambda x: F.max_pool3d(x, 2, return_indices=True),
                        label="indices")],
    "F.avg_pool3d": [ex(lambda: (vol(), 2))],
    "F.adaptive_avg_pool3d": [ex(lambda: (vol(), (2, 3, 1)))],
    "F.adaptive_max_pool3d": [ex(lambda: (vol(), 2)),
                              ex(lambda: (vol(),), label="indices",
                                 run=lambda x: F.adaptive_max_pool3d(x, 2, return_indices=True))],
    "F.adaptive_avg_pool1d": [ex(lambda: (f234(), 2))],
    "F.layer_norm": [ex(lambda: (f23(), (3,), v3(), v3(1)))],
    "F.group_norm": [ex(lambda: (f234(), 3))],
    "F.batch_norm": [ex(lambda: (f234(), v3(), v3(1)), label="eval"),
                     ex(lambda: (f234(), v3(), v3(1)),
                        run=lambda x, m, v: F.batch_norm(x, m, v, training=True), label="train")],
    "F.embedding": [ex(lambda: (iv3(), f23().reshape(3, 2))),
                    ex(lambda: (iv3(), f23().reshape(3, 2)),
                       run=lambda i, w: F.embedding(i, w, scale_grad_by_freq=True),
                       label="scale_grad_by_freq")],
    "F.embedding_bag": [
        ex(lambda: (torch.tensor([[0, 2], [1, 1]]), f23().reshape(3, 2))),
        ex(lambda: (iv3(), f23().reshape(3, 2), torch.tensor([0, 1]), v3()),
           run=lambda i, w, o, p: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=p),
           other=lambda: (torch.tensor([2, 0, 1]), f23b().reshape(3, 2), torch.tensor([0, 2]),
                          v3(1)), label="offsets, per-sample weights"),
        ex(lambda: (iv3(), f23().reshape(3, 2), torch.tensor([0, 1])),
           run=lambda i, w, o: F.embedding_bag(i, w, o, mode="max"),
           other=lambda: (torch.tensor([2, 0, 1]), f23b().reshape(3, 2), torch.tensor([0, 2])),
           label="max")],
    "F.one_hot": [ex(lambda: (iv3(),))],
    "F.pad": [ex(lambda: (f23(), (1, 1)))],
    "F.cross_entropy": [ex(lambda: (f23(), f23b()), label="probabilities"),
                        ex(lambda: (f23(), torch.tensor([0, 2])), label="class indices"),
                        ex(lambda: (f23(), f23b(), v3()), label="probabilities, weight")],
    "F.nll_loss": [ex(lambda: (f23(), torch.tensor([0, 2])))],
    "F.bilinear": [ex(lambda: (f23(), f23b(), torch.ones(4, 3, 3)))],
    "F.glu": [ex(lambda: (f234(),))],
    "F.interpolate": [ex(lambda: (f234(),), run=lambda x: F.interpolate(x, size=8))],
    "F.unfold": [ex(lambda: (img(), 2))],
    "F.fold": [ex(lambda: (torch.ones(1, 4, 4), (3, 3), 2))],
    "F.affine_grid": [ex(lambda: (torch.tensor([[[1.0, 0.2, 0.1], [0.0, 0.9, -0.3]]]),),
                         run=lambda t: F.affine_grid(t, (1, 1, 2, 3), align_corners=False))],
    "F.grid_sample": [ex(lambda: (img(), f23().reshape(1, 1, 3, 2)),
                         run=lambda x, g: F.grid_sample(x, g, align_corners=False))],
    "F.scaled_dot_product_attention": [
        ex(lambda: (f23(), f23b(), f23c())),
        ex(lambda: (f23(), f23b(), f23c()), run=lambda q, k, v: F.scaled_dot_product_attention(
            q, k, v, is_causal=True), label="causal")],
    "F.relu": [ex(lambda: (f23(),)), ex(lambda: (f23(),), run=lambda t: F.relu(t, inplace=True),
                                         label="inplace")],
    "F.hardtanh": [ex(lambda: (f23(),)), ex(lambda: (f23(),),
                                             run=lambda t: F.hardtanh(t, inplace=True),
                                             label="inplace")],
    "F.dropout": [ex(lambda: (f23(),)), ex(lambda: (f23(),),
                                            run=lambda t: F.dropout(t, inplace=True),
                                            label="inplace")],
    # ---- Tensor: autograd state and properties ----
    "Tensor.backward": [ex(lambda: (_graph(leaf()).sum(),))],
    "Tensor.grad": [ex(_LEAF_WITH_GRAD, run=lambda t: t.grad, label="get"),
                    ex(lambda: (leaf(), f23b()), run=lambda t, g: _set(t, "grad", g),
                       label="set"),
                    ex(_LEAF_WITH_GRAD, run=lambda t: t.__delattr__("grad"), label="del")],
    "Tensor.data": [ex(lambda: (f23(),), run=lambda t: t.data, label="get"),
                    ex(lambda: (f23(), f23b()), run=lambda t, s: _set(t, "data", s),
                       label="set")],
    # ---- Tensor: conversions, indexing and in-place ops ----
    "Tensor.__init__": [ex(lambda: (f23(),), run=lambda src: _reinit(src))],
    "Tensor.to": [ex(lambda: (f23(), torch.float64)),
                  ex(lambda: (f23(), torch.float32), run=lambda t, d: t.to(d, copy=True),
                     label="copy"),
                  ex(lambda: (f23(), i23()), label="like other")],
    "Tensor.type": [ex(lambda: (f23(), torch.float64), label="dtype"),
                    ex(lambda: (f23(), "torch.DoubleTensor"), label="legacy name")],
    "Tensor.type_as": [ex(lambda: (f23(), i23()))],
    "Tensor.contiguous": [ex(lambda: (f23(),), run=lambda t: t.t().contiguous(),
                             label="non-contiguous")],
    "Tensor.new_tensor": [ex(lambda: (f23(), [1.0, 2.0]), label="list"),
                          ex(lambda: (f23(), f23b()), label="tensor")],
    "Tensor.new_full": [ex(lambda: (f23(), (2, 3), 1.5))],
    "Tensor.__getitem__": [
        ex(lambda: (f23(), 0), label="int"),
        ex(lambda: (f23(), (slice(None), slice(0, 2))), label="slices"),
        ex(lambda: (f23(), torch.tensor([1, 0])), label="index tensor"),
        ex(lambda: (f23(), [1, 0]), label="list"),
        ex(lambda: (f23(), _mask()), label="mask"),
        ex(lambda: (f23(), (0, iv3())), label="int and index tensor"),
    ],
    "Tensor.__setitem__": [
        ex(lambda: (f23(), 0, 1.0), label="int"),
        ex(lambda: (f23(), _mask(), 0.0), label="mask"),
        ex(lambda: (f23(), (slice(None), iv3()), f23b()), label="index tensor"),
        ex(lambda: (f23(), 0, [1.0, 2.0, 3.0]), label="list value"),
        ex(lambda: (_graph(leaf()), 0, s0()), label="in a graph"),
    ],
    "Tensor.__iter__": [ex(lambda: (f23(),))],
    "Tensor.__contains__": [ex(lambda: (f23(), 0.5), label="number"),
                            ex(lambda: (f23(), s0()), label="tensor")],
    "Tensor.__format__": [ex(lambda: (s0(), ".2f"), label="0-d"),
                          ex(lambda: (f23(), ""), label="n-d")],
    "Tensor.__repr__": [ex(lambda: (f23(),))],
    "Tensor.__str__": [ex(lambda: (f23(),))],
    "Tensor.__deepcopy__": [ex(lambda: (f23(), {})),
                            ex(lambda: (_with_grad(leaf(), f23b()), {}), label="with grad")],
    "Tensor.__reduce_ex__": [ex(lambda: (f23(), 2))],
    "Tensor.__getstate__": [ex(lambda: (f23(),))],
    "Tensor.__array__": [ex(lambda: (f23(),)), ex(lambda: (f23(), np.float64), label="dtype")],
    "Tensor.__rpow__": [ex(lambda: (f23(), 2.0))],
    "Tensor.numpy": [ex(lambda: (f23(),))],
    "Tensor.where": [ex(lambda: (f23(), b23(), f23b()))],
    "Tensor.gather": [ex(lambda: (f23(), 1, _t_idx()))],
    "Tensor.scatter": [ex(lambda: (f23(), 1, _t_idx(), f23b()))],
    "Tensor.scatter_": [ex(lambda: (f23(), 1, _t_idx(), f23b()))],
    "Tensor.scatter_add": [ex(lambda: (f23(), 1, _t_idx(), f23b()))],
    "Tensor.scatter_add_": [ex(lambda: (f23(), 1, _t_idx(), f23b()))],
    "Tensor.scatter_reduce": [ex(lambda: (f23(), 1, _t_idx(), f23b(), "amax"))],
    "Tensor.scatter_reduce_": [ex(lambda: (f23(), 1, _t_idx(), f23b(), "mean"))],
    "Tensor.index_select": [ex(lambda: (f23(), 1, iv3()))],
    "Tensor.index_add": [ex(lambda: (f23(), 1, iv3(), f23b()))],
    "Tensor.index_add_": [ex(lambda: (f23(), 1, iv3(), f23b()))],
    "Tensor.index_copy": [ex(lambda: (f23(), 1, iv3(), f23b()))],
    "Tensor.index_copy_": [ex(lambda: (f23(), 1, iv3(), f23b()))],
    "Tensor.index_fill": [ex(lambda: (f23(), 1, iv3(), 0.5))],
    "Tensor.index_fill_": [ex(lambda: (f23(), 1, iv3(), 0.5)),
                           ex(lambda: (f23(), 1, iv3(), s0()), label="tensor value")],
    "Tensor.index_put_": [ex(lambda: (f23(), (torch.tensor([1, 0]),), v3()))],
    "Tensor.float": [ex(lambda: (i23(),), label="cast")],
    "Tensor.masked_fill": [ex(lambda: (f23(), _mask(), 0.0))],
    "Tensor.masked_fill_": [ex(lambda: (f23(), _mask(), 0.0))],
    "Tensor.masked_select": [ex(lambda: (f23(), _mask()))],
    "Tensor.bincount": [ex(lambda: (iv3(),))],
    "Tensor.diag": [ex(lambda: (sq(),), label="matrix"), ex(lambda: (v3(),), label="vector")],
    "Tensor.unflatten": [ex(lambda: (f23(), 1, (3, 1)))],
    "Tensor.bernoulli_": [ex(lambda: (f23(),)), ex(lambda: (f23(), f23b()), label="p tensor")],
    "Tensor.copy_": [ex(lambda: (f23(), f23b()))],
    "Tensor.mul_": [ex(lambda: (f23(), f23b())),
                    ex(lambda: (_graph(leaf()),), run=lambda y: y[0].mul_(2.0),
                       label="view in a graph")],
    "Tensor.bmm": [ex(lambda: (f234(), f234().transpose(1, 2)))],
    "Tensor.baddbmm": [ex(lambda: (f23(), f23b().reshape(1, 2, 3), sq().reshape(1, 3, 3)))],
    "Tensor.addbmm": [ex(lambda: (f23(), f23b().reshape(1, 2, 3), sq().reshape(1, 3, 3)))],
    "Tensor.baddbmm_": [ex(lambda: (f23().reshape(1, 2, 3), f23b().reshape(1, 2, 3),
                                    sq().reshape(1, 3, 3)))],
    "Tensor.addbmm_": [ex(lambda: (f23(), f23b().reshape(1, 2, 3), sq().reshape(1, 3, 3)))],
    "Tensor.float_power_": [ex(lambda: (f23().double(), 2.0))],
    "Tensor.addmv": [ex(lambda: (v3()[:2], f23(), v3(1)))],
    "Tensor.put": [ex(lambda: (f23(), torch.tensor([0, -1]), v3()[:2]))],
    "Tensor.put_": [ex(lambda: (f23(), torch.tensor([0, -1]), v3()[:2]))],
    "Tensor.index_put": [ex(lambda: (f23(), (torch.tensor([1, 0]),), v3()))],
    "Tensor.addmv_": [ex(lambda: (v3()[:2], f23(), v3(1)))],
    "Tensor.addr": [ex(lambda: (f23(), v3()[:2], v3(1)))],
    "Tensor.addr_": [ex(lambda: (f23(), v3()[:2], v3(1)))],
    "Tensor.max": [ex(lambda: (f23(),), label="all"), ex(lambda: (f23(), 1), label="dim")],
    "Tensor.min": [ex(lambda: (f23(),), label="all"), ex(lambda: (f23(), 1), label="dim")],
}


def _reinit(src):
    """``Tensor.__init__`` run as the legacy constructor ``torch.Tensor(src)`` does."""
    t = Tensor.__new__(Tensor)
    t.__init__(src)
    return t


# ----- what computes no tensor value --------------------------------------------------------------
@dataclass(frozen=True)
class Allowed:
    """A callable that computes no tensor value. ``kind``: "metadata" (shape, dtype, device,
    flags, hooks, grad-mode or global settings), "identity" (returns its input object: nothing is
    computed), "external" (brings outside data in as a new leaf: no tensor input is read),
    "unsupported" (raises NotImplementedError), "object" (Python's object protocol, not tensor
    specific). ``probe`` (an :class:`Example`), when given, runs under the recorder: it must see
    no op and no read and return no tensor it did not get (for "identity": return its input;
    for "unsupported": raise NotImplementedError)."""

    kind: str
    reason: str
    probe: Example | None = None


def meta(reason, args=None, run=None):
    return Allowed("metadata", reason, None if args is None else Example(args, run))


def ident(reason, args, run=None):
    return Allowed("identity", reason, Example(args, run))


def obj(reason):
    return Allowed("object", reason)


ALLOWED: dict[str, Allowed] = {
    # ---- torch: types, dtype and device objects, grad-mode and global settings ----
    "torch.Size": meta("a tuple of ints (shape arithmetic only)", lambda: ((2, 3),)),
    "torch.device": meta("a device descriptor", lambda: ("cpu",)),
    "torch.dtype": meta("the dtype class (dtype objects are module constants)"),
    "torch.memory_format": meta("the memory-format class (its objects are module constants)",
                                lambda: ("channels_last",)),
    "torch.finfo": meta("limits of a floating dtype", lambda: (torch.float32,)),
    "torch.iinfo": meta("limits of an integer dtype", lambda: (torch.int32,)),
    "torch.promote_types": meta("dtype promotion table", lambda: (torch.float32, torch.int64)),
    "torch.result_type": meta("dtype promotion of operands' dtypes (values are not read)",
                              lambda: (f23(), 2.0)),
    "torch.broadcast_shapes": meta("shape arithmetic on tuples", lambda: ((2, 1), (1, 3))),
    "torch.get_default_dtype": meta("global default dtype", lambda: ()),
    "torch.set_default_dtype": meta("global default dtype (probed with the current one)",
                                    lambda: (torch.get_default_dtype(),)),
    "torch.is_tensor": meta("isinstance check", lambda: (f23(),)),
    "torch.is_storage": meta("always False (no storages)", lambda: (f23(),)),
    "torch.is_floating_point": meta("reads the dtype", lambda: (f23(),)),
    "torch.real": ident("the real part of a real tensor is the tensor itself", lambda: (f23(),)),
    "torch.imag": meta("only complex tensors have an imaginary part: always raises"),
    "Tensor.real": ident("the real part of a real tensor is the tensor itself", lambda: (f23(),)),
    "Tensor.imag": meta("only complex tensors have an imaginary part: always raises"),
    "torch.numel": meta("product of the shape", lambda: (f23(),)),
    "torch.is_grad_enabled": meta("grad-mode flag", lambda: ()),
    "torch.is_inference_mode_enabled": meta("grad-mode flag", lambda: ()),
    "torch.no_grad": meta("grad-mode context manager", lambda: (), lambda: _enter(torch.no_grad())),
    "torch.enable_grad": meta("grad-mode context manager", lambda: (),
                              lambda: _enter(torch.enable_grad())),
    "torch.inference_mode": meta("grad-mode context manager", lambda: (),
                                 lambda: _enter(torch.inference_mode())),
    "torch.set_grad_enabled": meta("grad-mode switch (probed with the current mode)", lambda: (),
                                   lambda: _enter(torch.set_grad_enabled(
                                       torch.is_grad_enabled()))),
    "torch.is_autocast_enabled": meta("whether an autocast mode is on the stack", lambda: ()),
    "torch.get_autocast_dtype": meta("the active autocast mode's dtype", lambda: ()),
    "torch.is_anomaly_enabled": meta("anomaly-mode flag", lambda: ()),
    "torch.is_anomaly_check_nan_enabled": meta("anomaly-mode flag", lambda: ()),
    "torch.set_anomaly_enabled": meta("anomaly-mode flag (probed with the current value)",
                                      lambda: (torch.is_anomaly_enabled(),)),
    "torch.get_float32_matmul_precision": meta("stored setting, no numeric effect", lambda: ()),
    "torch.set_float32_matmul_precision": meta("stored setting, no numeric effect",
                                               lambda: (torch.get_float32_matmul_precision(),)),
    "torch.set_printoptions": meta("print settings (probed with the default profile)", lambda: (),
                                   lambda: torch.set_printoptions(profile="default")),
    "torch.get_num_threads": meta("always 1", lambda: ()),
    "torch.set_num_threads": meta("no effect (numpy threads)", lambda: (1,)),
    "torch.use_deterministic_algorithms": meta("no effect (every kernel is deterministic)",
                                               lambda: (True,)),
    "torch.initial_seed": meta("the Python int the last manual_seed/seed op stored",
                               lambda: ()),
    "torch.compile": meta("identity on the model: no graph compiler", lambda: (len,)),
    "torch.from_numpy": Allowed("external", "wraps the caller's ndarray without a copy (shares "
                                "its memory); no tensor value is read or computed",
                                Example(lambda: (np.ones(3, np.float32),))),
    "torch.load": Allowed("external", "builds new leaves from a file's bytes; no tensor value is "
                          "read or computed", Example(_saved_bytes)),
    "Tensor.positive": ident("returns its input (torch's positive is the identity)",
                             lambda: (f23(),)),
    "torch.positive": ident("returns its input (torch's positive is the identity)",
                            lambda: (f23(),)),
    # ---- nn.functional ----
    "F.alpha_dropout": ident("identity outside training (its only supported use)",
                             lambda: (f23(),)),
    # ---- Tensor: shape, dtype, device, flags ----
    "Tensor.shape": meta("the shape", lambda: (f23(),)),
    "Tensor.size": meta("the shape", lambda: (f23(),)),
    "Tensor.dim": meta("number of dimensions", lambda: (f23(),)),
    "Tensor.ndim": meta("number of dimensions", lambda: (f23(),)),
    "Tensor.numel": meta("number of elements", lambda: (f23(),)),
    "Tensor.nelement": meta("number of elements", lambda: (f23(),)),
    "Tensor.__len__": meta("the first dimension", lambda: (f23(),)),
    "Tensor.stride": meta("the strides", lambda: (f23(),)),
    "Tensor.is_contiguous": meta("a layout flag", lambda: (f23(),)),
    "Tensor.element_size": meta("bytes per element of the dtype", lambda: (f23(),)),
    "Tensor.itemsize": meta("bytes per element of the dtype", lambda: (f23(),)),
    "Tensor.nbytes": meta("bytes of the elements (shape and dtype)", lambda: (f23(),)),
    "Tensor.ndimension": meta("number of dimensions", lambda: (f23(),)),
    "Tensor.storage_offset": meta("the offset into the storage (layout)", lambda: (f23(),)),
    "Tensor.data_ptr": meta("the storage address", lambda: (f23(),)),
    "Tensor.dtype": meta("the dtype", lambda: (f23(),)),
    "Tensor.is_floating_point": meta("reads the dtype", lambda: (f23(),)),
    "Tensor.device": meta("the device", lambda: (f23(),)),
    "Tensor.is_meta": meta("a device flag", lambda: (f23(),)),
    "Tensor.is_cuda": meta("always False", lambda: (f23(),)),
    "Tensor.cuda": meta("raises: no CUDA on this machine"),
    # ---- Tensor: autograd flags and hooks ----
    "Tensor.requires_grad": meta("an autograd flag", lambda: (f23(),)),
    "Tensor.requires_grad_": meta("sets an autograd flag on a leaf", lambda: (f23(),)),
    "Tensor.is_leaf": meta("an autograd flag", lambda: (f23(),)),
    "Tensor.is_inference": meta("an autograd flag", lambda: (f23(),)),
    "Tensor.grad_fn": meta("the graph node", lambda: (_graph(leaf()),)),
    "Tensor.retains_grad": meta("an autograd flag", lambda: (f23(),)),
    "Tensor.retain_grad": meta("registers a hook (its gradient copy dispatches during backward)",
                               lambda: (_graph(leaf()),)),
    "Tensor.register_hook": meta("stores a hook", lambda: (leaf(), lambda g: None)),
    "Tensor.register_post_accumulate_grad_hook": meta("stores a hook",
                                                      lambda: (leaf(), lambda t: None)),
    "Tensor.detach_": meta("cuts the tensor from the graph (autograd state only)",
                           lambda: (_graph(leaf()),)),
    # ---- Tensor: identity conversions (every tensor lives in host memory) ----
    "Tensor.cpu": ident("every tensor is in host memory: returns self", lambda: (f23(),)),
    "Tensor.pin_memory": ident("no pinned memory: returns self", lambda: (f23(),)),
    "Tensor.share_memory_": ident("one process: returns self", lambda: (f23(),)),
    "Tensor.__pos__": ident("+t is t", lambda: (f23(),)),
    # ---- Tensor: Python's object protocol ----
    "Tensor.__new__": obj("allocates an empty object (the values come from __init__)"),
    "Tensor.__setstate__": obj("pickle hook; a no-op (state travels in __reduce_ex__)"),
    "Tensor.__reduce__": obj("object's default: raises TypeError for a slotted class (pickle and "
                             "copy use __reduce_ex__)"),
    "Tensor.__hash__": obj("identity hash"),
    "Tensor.__sizeof__": obj("size of the Python object header"),
    "Tensor.__class__": obj("the type"),
    "Tensor.__dict__": obj("the attribute dictionary (Parameter flags, lazy-init marks)"),
    "Tensor.__weakref__": obj("weak reference slot"),
    "Tensor.__dir__": obj("attribute names"),
    "Tensor.__getattribute__": obj("attribute lookup"),
    "Tensor.__setattr__": obj("attribute assignment (tensor properties have their own entries)"),
    "Tensor.__delattr__": obj("attribute deletion (del t.grad has its own entry)"),
    "Tensor.__init_subclass__": obj("class creation hook"),
    "Tensor.__subclasshook__": obj("isinstance hook"),
}


def _enter(cm):
    with cm:
        pass
    return None


# ----- known gaps: computed outside the dispatch point today ------------------------------------
# Each entry: the case id, what is computed outside dispatch, and where (package function, file).
XFAIL: dict[str, str] = {}


# ----- enumeration --------------------------------------------------------------------------------
def torch_callables() -> list[str]:
    """Public callables of the ``minitorch_cs.torch`` namespace (submodules and non-callable
    objects -- dtypes, constants, ``cuda``, ``default_generator`` -- excluded)."""
    out = []
    for n in dir(torch):
        if n.startswith("_"):
            continue
        v = getattr(torch, n)
        if isinstance(v, types.ModuleType) or not callable(v):
            continue
        out.append(f"torch.{n}")
    return out


def functional_callables() -> list[str]:
    """``nn.functional``'s ``__all__`` and every public function or class defined in it (names it
    merely imports, such as ``np`` or ``apply``, are not part of it)."""
    names = set(F.__all__)
    for n in dir(F):
        v = getattr(F, n)
        if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == F.__name__:
            names.add(n)
    return [f"F.{n}" for n in sorted(names)]


_MEMBER_KINDS = (property, types.MemberDescriptorType, types.GetSetDescriptorType, classmethod,
                 staticmethod)


def tensor_members() -> list[str]:
    """Every public member of ``Tensor``: methods, properties, slots and dunders (class data such
    as ``__slots__``, ``__doc__`` or ``__array_priority__`` excluded)."""
    out = []
    for n in dir(Tensor):
        if n.startswith("_") and not (n.startswith("__") and n.endswith("__")):
            continue
        v = inspect.getattr_static(Tensor, n)
        if callable(v) or isinstance(v, _MEMBER_KINDS):
            out.append(f"Tensor.{n}")
    return out


def all_callables() -> list[str]:
    return torch_callables() + functional_callables() + tensor_members()


def resolve(qualname: str):
    """``(owner, name, is_attribute)`` for a qualified name: attributes (properties, slots) are
    read from the first argument instead of called."""
    owner, name = qualname.split(".", 1)
    if owner == "torch":
        return getattr(torch, name), False
    if owner == "F":
        return getattr(F, name), False
    v = inspect.getattr_static(Tensor, name)
    return name, isinstance(v, (property, types.MemberDescriptorType, types.GetSetDescriptorType))


def invoke(qualname: str, args: tuple):
    """Call ``qualname`` with ``args`` (a Tensor member is looked up on ``args[0]``)."""
    target, is_attr = resolve(qualname)
    if qualname.startswith("Tensor."):
        if is_attr:
            if len(args) != 1:
                raise TypeError("an attribute takes only its tensor")
            return getattr(args[0], target)
        return getattr(args[0], target)(*args[1:])
    return target(*args)

"""``torch.nn.parameter``: ``Parameter`` (a tensor a Module registers as trainable) and ``Buffer``."""
from __future__ import annotations

from .._tensor import Tensor

__all__ = ["Parameter", "Buffer", "is_lazy"]


class Parameter(Tensor):
    """A Tensor that a :class:`Module` registers as a parameter when assigned as an attribute.

    ``Parameter(data=None, requires_grad=True)`` shares storage (and the version counter) with
    ``data``, like torch's ``_make_subclass``; it is a leaf even when ``data`` is not, and
    ``requires_grad`` defaults to True even inside ``no_grad``. Math on a Parameter returns a plain
    Tensor.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> p = torch.nn.Parameter(torch.zeros(2))
        >>> p
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        if getattr(type(data), "_is_lazy", False):
            # a lazily initialized tensor (emulated CSX device): the Parameter shares its recipe
            return data._lazy_make_parameter(cls, requires_grad)
        self = object.__new__(cls)
        Tensor._init(self, data._data)
        self._vc = data._vc
        self._meta = data._meta
        if data._lazydev:
            self._lazydev = True
        if requires_grad:
            self.requires_grad = True
        return self

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happens in __new__ (Tensor.__init__ must not run again)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        cls = type(self)
        while getattr(cls, "_is_lazy", False):  # a lazily initialized parameter: its plain class
            cls = cls.__bases__[0]
        result = cls(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.detach().clone(), self._rg))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class _BufferMeta(type):
    # ``isinstance(t, Buffer)`` is true for tensors made by ``Buffer(...)`` (torch's _BufferMeta).
    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a buffer when assigned to a Module (``Buffer(data, *, persistent=True)``).

    Like torch's: the result is a plain (detached) Tensor carrying ``persistent`` and a flag that
    makes ``isinstance(t, Buffer)`` true; ``module.x = Buffer(t)`` registers ``x`` as a buffer.
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def is_lazy(param) -> bool:
    """True for uninitialized (lazy) parameters; minitorch_cs has none."""
    return False

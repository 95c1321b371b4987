"""Named tuples returned by reductions, like ``torch.return_types`` (same names and repr)."""
from collections import namedtuple


def _return_type(name):
    cls = namedtuple(name, ["values", "indices"])

    def __repr__(self):
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    cls.__repr__ = __repr__
    cls.__module__ = "minitorch_cs.torch.return_types"
    return cls


max = _return_type("max")
min = _return_type("min")
sort = _return_type("sort")
topk = _return_type("topk")
median = _return_type("median")
kthvalue = _return_type("kthvalue")
mode = _return_type("mode")
nanmedian = _return_type("nanmedian")
cummax = _return_type("cummax")
cummin = _return_type("cummin")


class aminmax(namedtuple("aminmax", ["min", "max"])):
    """``torch.return_types.aminmax(min, max)``."""

    __slots__ = ()

    def __repr__(self):
        return f"torch.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})"


aminmax.__module__ = "minitorch_cs.torch.return_types"


def MinMax(pair, name="max"):
    return (max if name == "max" else min)(*pair)


def Sorted(pair):
    return sort(*pair)


def TopK(pair):
    return topk(*pair)

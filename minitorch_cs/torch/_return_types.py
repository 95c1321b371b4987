"""Named tuples returned by reductions, like ``torch.return_types``."""
from collections import namedtuple

_MinMax = namedtuple("max", ["values", "indices"])
_Sorted = namedtuple("sort", ["values", "indices"])
_TopK = namedtuple("topk", ["values", "indices"])


def MinMax(pair):
    return _MinMax(*pair)


def Sorted(pair):
    return _Sorted(*pair)


def TopK(pair):
    return _TopK(*pair)

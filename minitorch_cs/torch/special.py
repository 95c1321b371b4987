"""``torch.special``: the special functions torch 2.13 also offers under their SciPy names.

Each is the op of the same meaning in the main namespace (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ``psi`` is ``digamma``, ...): the same values, dtypes, gradients and
graph nodes, as in torch, where they are aliases of one ATen kernel. An argument of the wrong
type is torch's TypeError naming the ATen op (``special_expit(): argument 'input' (position 1)
must be Tensor, not float``). The Bessel, Chebyshev/Hermite/Laguerre/Legendre polynomial,
``erfcx``, ``entr``, ``i0``/``i1``, ``ndtr``/``ndtri``/``log_ndtr``, ``gammainc``,
``multigammaln``, ``xlog1py``, ``zeta`` and ``airy_ai`` functions are not provided.

Example:
    >>> import minitorch_cs.torch as torch
    >>> torch.special.expit(torch.tensor([0.0, 2.0]))
    tensor([0.5000, 0.8808])
"""
from __future__ import annotations

from . import _functions as _T
from ._dispatch import apply
from ._functions._common import _check_tensor, _t
from ._ops import elementwise as E
from ._tensor import Tensor

__all__ = ["digamma", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "log1p",
           "log_softmax", "logit", "logsumexp", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy"]


def _input(name, input):
    _check_tensor(input, "special_" + name)


def _unary(name, target):
    def fn(input, *, out=None):
        _input(name, input)
        return target(input, out=out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{name}(input, *, out=None) -> Tensor\n\n``torch.{target.__name__}`` under "
                  "torch.special's name.")
    return fn


digamma = _unary("digamma", _T.digamma)
psi = _unary("psi", _T.digamma)
erf = _unary("erf", _T.erf)
erfc = _unary("erfc", _T.erfc)
erfinv = _unary("erfinv", _T.erfinv)
exp2 = _unary("exp2", _T.exp2)
expit = _unary("expit", _T.sigmoid)
expm1 = _unary("expm1", _T.expm1)
gammaln = _unary("gammaln", _T.lgamma)
log1p = _unary("log1p", _T.log1p)
sinc = _unary("sinc", _T.sinc)


def round(input, *, decimals=0, out=None):
    """round(input, *, decimals=0, out=None) -> Tensor

    ``torch.round(input, decimals=decimals)`` (torch's ``round.decimals`` overload: node
    ``RoundBackward1``; no integer or bool kernel)."""
    _input("round", input)
    return _T.round(input, decimals=decimals, out=out)


def logit(input, eps=None, *, out=None):
    """logit(input, eps=None, *, out=None) -> Tensor

    ``torch.logit``: ``log(p / (1 - p))``, ``p`` clamped to ``[eps, 1 - eps]`` when given."""
    _input("logit", input)
    return _T.logit(input, eps, out=out)


def xlogy(input, other, *, out=None):
    """xlogy(input, other, *, out=None) -> Tensor

    ``torch.xlogy``: ``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN);
    either argument may be a number."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("special_xlogy() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one "
                        "of:")
    return _T.xlogy(input, other, out=out)


def xlog1py(input, other, *, out=None):
    """xlog1py(input, other, *, out=None) -> Tensor

    ``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN); either argument
    may be a number; integer and bool operands give the default float dtype. Gradients:
    ``input`` gets ``log1p(other)`` (0 where ``input`` is 0 and ``other <= -1``), ``other``
    ``input / (other + 1)``."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("special_xlog1py() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one "
                        "of:")
    return apply(E.Xlog1py, _t(input), _t(other))


def logsumexp(input, dim, keepdim=False, *, out=None):
    """logsumexp(input, dim, keepdim=False, *, out=None) -> Tensor

    ``torch.logsumexp``."""
    _input("logsumexp", input)
    return _T.logsumexp(input, dim, keepdim, out=out)


def softmax(input, dim, *, dtype=None):
    """softmax(input, dim, *, dtype=None) -> Tensor

    ``torch.softmax`` (``dim`` required)."""
    _input("softmax", input)
    return _T.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """log_softmax(input, dim, *, dtype=None) -> Tensor

    ``torch.log_softmax`` (``dim`` required)."""
    _input("log_softmax", input)
    return _T.log_softmax(input, dim, dtype=dtype)


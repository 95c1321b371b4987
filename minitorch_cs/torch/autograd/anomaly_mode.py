"""Autograd anomaly mode, mirroring ``torch/autograd/anomaly_mode.py``.

The switch itself lives in ``_autograd`` (``Anomaly``, ``set_anomaly_enabled``), next to the
engine that reads it; these are torch's two context managers around it.
"""
from __future__ import annotations

import warnings

from .._autograd import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled

__all__ = ["detect_anomaly", "set_detect_anomaly"]


class detect_anomaly:
    """Context manager that enables anomaly detection for the autograd engine.

    Inside it, every recorded node keeps the stack of the forward call that made it. A backward
    rule that raises first warns ``Error detected in XBackward0. Traceback of forward call that
    caused the error: ...``; with ``check_nan`` (default), a rule that returns NaN in any input
    gradient raises ``RuntimeError("Function 'XBackward0' returned nan values in its 0th
    output.")``. Constructing it warns that the mode slows programs down (torch's UserWarning).
    Like torch's, it is not a decorator.

    Args:
        check_nan: raise when a backward rule returns NaN.

    Example:
        >>> import warnings
        >>> import minitorch_cs.torch as torch
        >>> x = torch.tensor([0.0, 1.0], requires_grad=True)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     with torch.autograd.detect_anomaly():
        ...         (x.sqrt() * 0).sum().backward()
        Traceback (most recent call last):
        ...
        RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan=True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and "
                      "should only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Set anomaly detection on or off; takes effect at construction, and as a context manager
    restores the previous setting on exit (see :class:`detect_anomaly`).

    Args:
        mode: ``True`` to enable anomaly detection, ``False`` to disable it.
        check_nan: raise when a backward rule returns NaN.

    Raises:
        TypeError: ``mode`` or ``check_nan`` is not a bool (torch's message).
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)

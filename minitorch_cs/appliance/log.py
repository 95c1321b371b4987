"""``cerebras.appliance.log``: the ``cerebras`` logger and the VERBOSE and TRACE levels.

The package logger is ``logging.getLogger("cerebras")`` (``logger``); servers of the wafer-scale
cluster log under ``cerebras.wsc`` (``wsc_logger``). Two levels are added between the standard
ones: ``VERBOSE`` (15, between INFO and DEBUG) and ``TRACE`` (5, below DEBUG). Every logger named
``cerebras`` or ``cerebras.<anything>`` — created before or after this module is imported — gets
``.verbose(msg)`` and ``.trace(msg)`` methods, and its records carry the level names "VERBOSE" and
"TRACE", as in the real stack. Other loggers are untouched: the names are not registered with
``logging.addLevelName``.
"""
from __future__ import annotations

import logging
from types import MethodType
from typing import ClassVar, Protocol

__all__ = ["ROOTNAME", "WSC_ROOTNAME", "CRITICAL", "FATAL", "ERROR", "WARNING", "INFO", "VERBOSE",
           "DEBUG", "TRACE", "NOTSET", "logger", "wsc_logger", "get_level_name",
           "named_class_logger", "ClassLogger"]

ROOTNAME = "cerebras"
WSC_ROOTNAME = f"{ROOTNAME}.wsc"

CRITICAL = logging.CRITICAL
FATAL = logging.FATAL
ERROR = logging.ERROR
WARNING = logging.WARNING
INFO = logging.INFO
VERBOSE = logging.INFO - 5
DEBUG = logging.DEBUG
TRACE = logging.DEBUG - 5
NOTSET = logging.NOTSET

_CUSTOM = {VERBOSE: ("VERBOSE", "verbose"), TRACE: ("TRACE", "trace")}


def _in_package(name: str) -> bool:
    return name == ROOTNAME or name.startswith(ROOTNAME + ".")


def _make_record(self, *args, **kwargs):
    record = logging.Logger.makeRecord(self, *args, **kwargs)
    if record.levelno in _CUSTOM:
        record.levelname = _CUSTOM[record.levelno][0]
    return record


def _level_method(levelno):
    def log_at_level(self, msg, *args, **kwargs):
        # one more frame than Logger.info: report the caller's file and line
        kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1
        self.log(levelno, msg, *args, **kwargs)
    return log_at_level


def _extend(name, alogger):
    if _in_package(name) and isinstance(alogger, logging.Logger) and not getattr(
            alogger, "_mcs_levels", False):
        alogger.makeRecord = MethodType(_make_record, alogger)
        for levelno, (_, method) in _CUSTOM.items():
            setattr(alogger, method, MethodType(_level_method(levelno), alogger))
        alogger._mcs_levels = True


def _install():
    manager = logging.Logger.manager
    if getattr(manager, "_mcs_cerebras_levels", False):
        return
    original = manager.getLogger

    def getLogger(self, name):
        alogger = original(name)
        _extend(name, alogger)
        return alogger

    with logging._lock if hasattr(logging, "_lock") else _null():
        for name, alogger in list(manager.loggerDict.items()):
            _extend(name, alogger)
        manager.getLogger = MethodType(getLogger, manager)
        manager._mcs_cerebras_levels = True


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_install()

logger = logging.getLogger(ROOTNAME)
wsc_logger = logging.getLogger(WSC_ROOTNAME)


def get_level_name(level):
    """The name of a numeric level or the number of a level name, knowing VERBOSE and TRACE
    (``logging.getLevelName`` otherwise)."""
    if isinstance(level, str):
        level = level.upper()
    for num, (name, _) in _CUSTOM.items():
        if level == name:
            return num
        if level == num:
            return name
    return logging.getLevelName(level)


class ClassLogger(Protocol):
    """What :func:`named_class_logger` gives a class (for type annotations): a ``logger`` and
    ``_should_log_info/verbose/debug/trace()`` classmethods."""

    logger: ClassVar[logging.Logger]

    @classmethod
    def _should_log_info(cls) -> bool: ...

    @classmethod
    def _should_log_verbose(cls) -> bool: ...

    @classmethod
    def _should_log_debug(cls) -> bool: ...

    @classmethod
    def _should_log_trace(cls) -> bool: ...


def named_class_logger(cls_or_namespace=None):
    """Class decorator giving the class a ``logger`` (``cerebras.<module>.<Class>``, or
    ``cerebras.<namespace>`` when a name is given) and ``_should_log_<level>()`` classmethods.

    Usable bare (``@named_class_logger``) or with a namespace (``@named_class_logger("x")``).

    Raises:
        TypeError: the argument is neither a class, a str nor None.
    """
    def decorate(cls, name=None):
        if name:
            qual = name if name.startswith(ROOTNAME + ".") else f"{ROOTNAME}.{name}"
        else:
            qual = f"{ROOTNAME}.{cls.__module__}.{cls.__name__}"
        cls.logger = logging.getLogger(qual)
        for label, lvl in (("info", INFO), ("verbose", VERBOSE), ("debug", DEBUG),
                           ("trace", TRACE)):
            setattr(cls, f"_should_log_{label}",
                    classmethod(lambda c, _lvl=lvl: c.logger.isEnabledFor(_lvl)))
        return cls

    if isinstance(cls_or_namespace, type):
        return decorate(cls_or_namespace)
    if cls_or_namespace is None or isinstance(cls_or_namespace, str):
        return lambda cls: decorate(cls, cls_or_namespace)
    raise TypeError(f"`cls_or_namespace` must be a type, str, or None. Got "
                    f"`{type(cls_or_namespace)}`.")

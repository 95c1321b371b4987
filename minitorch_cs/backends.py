"""``cstorch.backends``: global flags, set by dotted attribute (``backends.csx.debug.drop_data``).

Assigning ``backends.DEFAULT`` to a group (or to ``backends`` itself via ``reset()``) restores its
defaults. Unknown names raise ``AttributeError`` so typos never pass silently.
"""
from __future__ import annotations

__all__ = ["csx", "DEFAULT", "reset"]


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT = _Default()


class _FlagGroup:
    """A group of flags with defaults and optional validators; children are nested groups."""

    def __init__(self, name, defaults, validators=None, children=None):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_defaults", dict(defaults))
        object.__setattr__(self, "_validators", validators or {})
        object.__setattr__(self, "_children", children or {})
        object.__setattr__(self, "_values", dict(defaults))

    def __getattr__(self, key):
        children = object.__getattribute__(self, "_children")
        if key in children:
            return children[key]
        values = object.__getattribute__(self, "_values")
        if key in values:
            return values[key]
        raise AttributeError(f"'{self._name}' has no flag '{key}'")

    def __setattr__(self, key, value):
        if key in self._children:
            if value is DEFAULT:
                self._children[key].reset()
                return
            raise AttributeError(f"cannot assign to flag group '{self._name}.{key}'")
        if key not in self._values:
            raise AttributeError(f"'{self._name}' has no flag '{key}'; known flags: "
                                 f"{', '.join(sorted(self._values))}")
        if value is DEFAULT:
            value = self._defaults[key]
        elif key in self._validators:
            self._validators[key](value)
        self._values[key] = value

    def reset(self):
        self._values.clear()
        self._values.update(self._defaults)
        for c in self._children.values():
            c.reset()

    def __repr__(self) -> str:
        return f"{self._name}({', '.join(f'{k}={v!r}' for k, v in self._values.items())})"


def _positive_int(name):
    def check(v):
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    return check


def _micro_batch(v):
    if v in ("auto", "explore", None):
        return
    if isinstance(v, dict) and set(v) == {"explore"}:
        return
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        return
    raise ValueError(f"micro_batch_size must be 'auto', 'explore', {{'explore': {{...}}}}, None or a "
                     f"positive integer, got {v!r}")


def _bool(name):
    def check(v):
        if not isinstance(v, bool):
            raise TypeError(f"{name} must be a bool, got {type(v).__name__}")
    return check


_debug_bools = ["drop_data", "lazy_initialization", "skip_weight_init", "optimize_initialization",
                "log_initialization", "retrace_every_iteration", "implicit_cast_cb16_to_fp32",
                "save_gpv", "skip_connectivity_check"]

csx = _FlagGroup("csx", {}, children={
    "precision": _FlagGroup("csx.precision", {"optimization_level": 1}),
    "performance": _FlagGroup(
        "csx.performance",
        {"micro_batch_size": "auto", "transfer_processes": 5, "max_transfer_bytes": None,
         "compress_weights": False, "use_speculative_optimizers": True},
        {"micro_batch_size": _micro_batch,
         "transfer_processes": _positive_int("transfer_processes")}),
    "cluster": _FlagGroup("csx.cluster", {"auto_taint": False}),
    "storage": _FlagGroup("csx.storage", {}, children={
        "s3": _FlagGroup("csx.storage.s3", {"profile": None})}),
    "debug": _FlagGroup(
        "csx.debug",
        {"ini": None, "debug_args": None, "drop_data": False, "lazy_initialization": True,
         "skip_weight_init": False, "optimize_initialization": True, "log_initialization": True,
         "retrace_every_iteration": False, "implicit_cast_cb16_to_fp32": False, "save_gpv": False,
         "check_constraints": None, "op_definition_module": None, "skip_connectivity_check": False,
         "fabric_type_blacklist": None},
        {k: _bool(k) for k in _debug_bools}),
})


def reset() -> None:
    """Restore every flag to its default."""
    csx.reset()

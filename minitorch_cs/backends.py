"""``cstorch.backends``: global flags, set by dotted attribute (``backends.csx.debug.drop_data``).

The flags, defaults and checks are the real 2.10 ones (measured on cerebras-pytorch 2.10): every
flag has a type, and assigning a value of another type raises
``TypeError("Expected bool for `drop_data`. Got <class 'str'>: x")`` (``one of int, NoneType``
for optional ones; ``bool`` is accepted where ``int`` is, as Python's ``isinstance`` does); a
few flags also check the value (``ValueError``). Assigning ``backends.DEFAULT`` restores a flag's
default, ``reset()`` restores all of them; an unknown name raises
``AttributeError("'_debug' has no flag 'x'")`` and assigning to a group raises
``AttributeError("debug is a nested flag and cannot be set directly")``.

On the emulated CSX backend the memory limits (``debug.*_memory_gi``), ``ini``/``debug_args``
and the performance flags are recorded only: nothing here runs on a cluster.
"""
from __future__ import annotations

__all__ = ["csx", "DEFAULT", "reset"]

_MAX_MESSAGE_LENGTH = 2147482624   # the appliance client's gRPC message limit
_MAX_TRANSFER_BYTES = 268435456     # its default transfer chunk


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT = _Default()


class _Type:
    """A flag's type: a predicate and the real stack's spelling of it in error messages."""

    def __init__(self, text, check):
        self.text, self.check = text, check


_BOOL = _Type("bool", lambda v: isinstance(v, bool))
_INT = _Type("int", lambda v: isinstance(v, int))
_OPT_INT = _Type("one of int, NoneType", lambda v: v is None or isinstance(v, int))
_OPT_STR = _Type("one of str, NoneType", lambda v: v is None or isinstance(v, str))
_ANY = _Type("any", lambda v: True)
_MBS = _Type('one of NoneType, int, "explore", "auto", str to dictionary of str to int pairs '
             'pairs',
             lambda v: v is None or v in ("explore", "auto") or isinstance(v, int) or (
                 isinstance(v, dict) and all(isinstance(k, str) and isinstance(d, dict)
                                             for k, d in v.items())))
_FABRIC = _Type('one of list of one of "cs2", "cs3", NoneType',
                lambda v: v is None or (isinstance(v, list) and all(x in ("cs2", "cs3")
                                                                    for x in v)))


def _mbs_value(v):
    if v in ("auto", "explore", None):
        return
    if isinstance(v, dict) and set(v) == {"explore"}:
        return
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        return
    raise ValueError(
        f'Invalid value "{v}" for "micro_batch_size". Expected one of:\n\t"auto": Automatically '
        'choose an optimal micro batch size.\n\t"explore": Search for an optimal micro batch '
        'size and return.\n\t{"explore": {"min": Optional[<positive_int>], "max": '
        'Optional[<positive_int>]}}: Search for an optimal micro batch size within the min and '
        'max bounds and return.\n\t<positive_int>: Use this micro batch size.\n\tNone: Disable '
        'micro batch tiling.')


def _transfer_processes(v):
    if v <= 0:
        raise ValueError(f"transfer_processes must be a positive integer, got {v}")


def _max_transfer_bytes(v):
    if v > _MAX_MESSAGE_LENGTH or v < 0:
        raise ValueError(f"max_transfer_bytes must be a positive integer less than "
                         f"{_MAX_MESSAGE_LENGTH}, got {v}")


def _pol(v):
    if v not in range(0, 3):
        raise ValueError(f"optimization_level must be an integer in range [0, 3). Got {v}")


class _FlagGroup:
    """A group of typed flags (name -> (default, type, value check)) and nested groups."""

    def __init__(self, name, specs, children=None):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_specs", dict(specs))
        object.__setattr__(self, "_children", children or {})
        object.__setattr__(self, "_values", {k: s[0] for k, s in specs.items()})

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
            raise AttributeError(f"{key} is a nested flag and cannot be set directly")
        if key not in self._specs:
            raise AttributeError(f"'{self._name}' has no flag '{key}'")
        default, typ, check = self._specs[key]
        if value is DEFAULT:
            value = default
        else:
            if not typ.check(value):
                raise TypeError(f"Expected {typ.text} for `{key}`. Got {type(value)}: {value}")
            if check is not None:
                check(value)
        self._values[key] = value

    def __iter__(self):
        """``dict(group)``: flag name -> value (nested groups as dicts)."""
        for k in self._specs:
            yield k, self._values[k]
        for k, c in self._children.items():
            yield k, dict(c)

    def asdict(self) -> dict:
        return dict(self)

    def reset(self):
        self._values.clear()
        self._values.update({k: s[0] for k, s in self._specs.items()})
        for c in self._children.values():
            c.reset()

    def __repr__(self) -> str:
        items = [f"{k}={v!r}" for k, v in self._values.items()]
        items += [f"{k}={c!r}" for k, c in self._children.items()]
        return f"{self._name.rsplit('.', 1)[-1].lstrip('_')}({', '.join(items)})"


def _flag(default, typ=_BOOL, check=None):
    return (default, typ, check)


_MEMORY_LIMITS = ["compile_crd_memory_gi", "execute_crd_memory_gi", "wrk_memory_gi",
                  "act_memory_gi", "cmd_memory_gi", "wgt_memory_gi", "chf_memory_gi"]

csx = _FlagGroup("_csx", {}, children={
    "precision": _FlagGroup("_precision", {"optimization_level": _flag(1, _INT, _pol)}),
    "performance": _FlagGroup("_performance", {
        "micro_batch_size": _flag("auto", _MBS, _mbs_value),
        "transfer_processes": _flag(5, _INT, _transfer_processes),
        "max_transfer_bytes": _flag(_MAX_TRANSFER_BYTES, _INT, _max_transfer_bytes),
        "compress_weights": _flag(False),
        "use_speculative_optimizers": _flag(True),
    }),
    "cluster": _FlagGroup("_cluster", {"auto_taint": _flag(False)}),
    "storage": _FlagGroup("_storage", {}, children={
        "s3": _FlagGroup("_s3", {"profile": _flag(None, _OPT_STR)})}),
    "debug": _FlagGroup("_debug", {
        # ``ini``/``debug_args`` hold the cluster's debug settings (INI/DebugArgs objects in the
        # real stack); here they record whatever is assigned (a dict, from the command line)
        "ini": _flag(None, _ANY),
        "debug_args": _flag(None, _ANY),
        "drop_data": _flag(False),
        "lazy_initialization": _flag(True),
        "skip_weight_init": _flag(False),
        "optimize_initialization": _flag(True),
        "log_initialization": _flag(True),
        "retrace_every_iteration": _flag(False),
        "implicit_cast_cb16_to_fp32": _flag(False),
        "save_gpv": _flag(False),
        "check_constraints": _flag(False),
        "op_definition_module": _flag(None, _OPT_STR),
        "skip_connectivity_check": _flag(False),
        "fabric_type_blacklist": _flag(None, _FABRIC),
        # memory limits (GiB) of the cluster's coordinator/worker/activation/command/weight/chief
        # servers; None leaves the cluster's default
        **{name: _flag(None, _OPT_INT) for name in _MEMORY_LIMITS},
    }),
})


def reset() -> None:
    """Restore every flag to its default."""
    csx.reset()

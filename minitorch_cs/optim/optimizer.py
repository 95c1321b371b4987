"""``cstorch.optim.Optimizer``: the base class every cstorch optimizer derives from.

Mirrors ``cerebras/pytorch/optim/optimizer.py``, which subclasses ``torch.optim.Optimizer``; the
torch bookkeeping it inherits (param groups, ``state`` keyed by parameter, ``add_param_group``,
index-keyed ``state_dict``/``load_state_dict``, step hooks, ``zero_grad``) is written here too.

The cstorch contract on top of it: all optimizer state is created up front in ``preinitialize()``
(so the first traced step already sees the whole graph), and ``step()`` only updates that state
in place with tensor ops, never branching in Python on tensor values.
"""
from __future__ import annotations

import copy
import itertools
import weakref
from abc import ABC, abstractmethod
from collections import OrderedDict, defaultdict

from .. import torch
from ..torch import _dispatch
from ..backend import current_backend_impl
from ._functional import scalar

__all__ = ["Optimizer", "RemovableHandle"]


class _Required:
    """Sentinel for a hyper-parameter every group must specify (torch's ``required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


class RemovableHandle:
    """Removes a hook from the ordered dict it was registered in."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)

    def remove(self) -> None:
        hooks = self.hooks_dict_ref()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _typename(obj) -> str:
    if isinstance(obj, torch.Tensor):
        return obj.type()
    return type(obj).__module__ + "." + type(obj).__qualname__


def _hooked_step(step):
    """Wrap a class's ``step`` so the instance's step pre/post hooks run around it."""

    def step_with_hooks(self, *args, **kwargs):
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{hook} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        out = step(self, *args, **kwargs)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    step_with_hooks.__name__ = step.__name__
    step_with_hooks.__qualname__ = getattr(step, "__qualname__", step.__name__)
    step_with_hooks.__doc__ = step.__doc__
    step_with_hooks.__wrapped__ = step
    step_with_hooks._hooked = True
    return step_with_hooks


class Optimizer(ABC):
    """Base class of cstorch optimizers.

    Args:
        params: an iterable of tensors, or of dicts defining parameter groups (each with a
            ``"params"`` entry, optional hyper-parameter overrides and optional ``"tags"``).
        defaults: default hyper-parameter values for groups that do not set them.
        enable_global_step: keep a float32 ``state[p]["step"]`` counter per parameter
            (advance it with :meth:`increment_global_step`).

    Raises:
        RuntimeError: no cstorch backend exists yet.

    Subclasses implement :meth:`preinitialize` (create *all* state, with
    ``cstorch.zeros_like``/``full_like``) and :meth:`step` (update it in place).
    """

    # Host-side bookkeeping a traced step may change: the step counter torch's schedulers use
    # only to warn about call order. The wafer runs the step body once, so on the emulated wafer
    # it counts the first step only, as on the real one.
    _capture_host_state = ("_step_count",)

    def __init__(self, params, defaults, enable_global_step: bool = False):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_zero_grad_pre_hooks = OrderedDict()
        self._optimizer_zero_grad_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()

        if isinstance(params, torch.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        self._initialized = False
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

        self.enable_global_step = enable_global_step
        self.backend = current_backend_impl()
        with self.backend.device:
            self.preinitialize()
            if enable_global_step:
                for group in self.param_groups:
                    for p in group["params"]:
                        self.state[p]["step"] = scalar(0.0, p)

        self._schedulers_registry = weakref.WeakKeyDictionary()
        self.backend.register_optimizer(self)
        for group in self.param_groups:
            _normalize_tags(group)
        self._initialized = True

    # -- the cstorch contract --------------------------------------------------------------------
    @abstractmethod
    def preinitialize(self):
        """Create every state tensor up front (``self.state[p][name] = cstorch.zeros_like(p)``)."""

    @abstractmethod
    def step(self, closure=None):
        """Update the parameters and the preinitialized state in place; create no new state."""

    def increment_global_step(self, p):
        """Add 1.0 to ``state[p]["step"]`` and return it (a float32 tensor).

        Raises:
            RuntimeError: the optimizer was built without ``enable_global_step=True``.
        """
        if "step" not in self.state[p]:
            raise RuntimeError("No global step in the state. Please pass in "
                               "`enable_global_step=True` to initialize the global step")
        self.state[p]["step"] += 1.0
        return self.state[p]["step"]

    # -- hooks ---------------------------------------------------------------------------------
    def _patch_step_function(self) -> None:
        cls = type(self)
        if not getattr(cls.step, "_hooked", False):
            cls.step = _hooked_step(cls.step)

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None | (args, kwargs)`` before every ``step``."""
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after every ``step``."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_zero_grad_pre_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None | (args, kwargs)`` before ``zero_grad``."""
        return _add_hook(self._optimizer_zero_grad_pre_hooks, hook)

    def register_zero_grad_post_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after ``zero_grad``."""
        # Differs from cstorch: the real method stores the hook among the *pre* hooks, so it
        # runs before zero_grad; here it runs after, as documented (SPEC, optim).
        return _add_hook(self._optimizer_zero_grad_post_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, state_dict) -> None | state_dict`` before ``load_state_dict``."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook)

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer)`` after ``load_state_dict``."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook)

    # -- param groups --------------------------------------------------------------------------
    def add_param_group(self, param_group: dict) -> None:
        """Append a parameter group (defaults fill the hyper-parameters it does not set).

        After construction the new parameters' state is preinitialized too, so ``step`` works.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, torch.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. Please "
                            "use a list instead.")
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, torch.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(set(ids)) != len(ids):
            import warnings
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see github.com/pytorch/pytorch/"
                          "issues/40967 for more information", stacklevel=3)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if seen & set(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)
        if getattr(self, "_initialized", False):
            # Differs from cstorch: the real optimizer preinitializes only at construction, so a
            # group added later has no state and its first step fails (SPEC, optim).
            _normalize_tags(param_group)
            kept = {p: dict(self.state[p]) for g in self.param_groups[:-1] for p in g["params"]
                    if p in self.state}
            with self.backend.device:
                self.preinitialize()
                if self.enable_global_step:
                    for p in param_group["params"]:
                        self.state[p]["step"] = scalar(0.0, p)
            for p, st in kept.items():
                self.state[p].clear()
                self.state[p].update(st)

    # -- state dicts ---------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}``.

        Parameters are numbered in group order; the state tensors are the live ones (like torch).
        """
        mapping = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                if id(p) not in mapping:
                    mapping[id(p)] = len(mapping)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, torch.Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a :meth:`state_dict` (hyper-parameters, including tensor lrs, and state).

        Floating state tensors are cast to their parameter's dtype (``"step"`` is kept as is);
        tensors that already match are used as they are, not copied.

        Raises:
            ValueError: the group count or a group's size differs from this optimizer's.
        """
        with self.backend.device:
            self._load_state_dict(state_dict)

    def _load_state_dict(self, state_dict):
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(itertools.chain.from_iterable(g["params"] for g in saved_groups),
                          itertools.chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast_state(param, v)
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            new_groups.append(saved)
        self.state = state
        self.param_groups = new_groups
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # -- gradients -----------------------------------------------------------------------------
    def zero_grad(self, *args, **kwargs) -> None:
        """Reset the gradients (``set_to_none=True``: ``p.grad = None``; else fill with 0).

        Zero-grad pre hooks run first (and may replace ``args``/``kwargs``), post hooks last.
        """
        for hook in list(self._optimizer_zero_grad_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{hook} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        self._zero_grad(*args, **kwargs)
        for hook in list(self._optimizer_zero_grad_post_hooks.values()):
            hook(self, args, kwargs)

    def _zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                _dispatch.zero_grad(p, set_to_none)

    # -- helpers -------------------------------------------------------------------------------
    def visit_state(self, fn) -> None:
        """Call ``fn`` on every state value; a non-None result replaces the value."""
        for state in self.state.values():
            for key, val in state.items():
                new_val = fn(val)
                if new_val is not None:
                    state[key] = new_val

    def apply(self, f):
        """``f(self)``; an object with a callable ``apply`` method gets ``f.apply(self)``."""
        if not callable(f):
            f_apply = getattr(f, "apply", None)
            if f_apply is not None and callable(f_apply):
                return f_apply(self)
            raise TypeError(f"Expected a callable as the argument to apply. Got: {type(f)}")
        return f(self)

    def _params(self):
        return [p for g in self.param_groups for p in g["params"]]

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_zero_grad_pre_hooks", "_optimizer_zero_grad_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_schedulers_registry", weakref.WeakKeyDictionary())
        self.__dict__.setdefault("enable_global_step", False)
        self.__dict__.setdefault("_initialized", True)
        if "backend" not in self.__dict__:
            self.backend = current_backend_impl()

    def __repr__(self) -> str:
        out = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            out += "\n" f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    val = group[key]
                    if isinstance(val, torch.Tensor) and val.ndim == 0:
                        val = val.item()
                    out += f"    {key}: {val}\n"
        return out + ")"


def _normalize_tags(group) -> None:
    """A group's ``tags`` become a set (a single tag becomes a one-element set)."""
    tags = group.get("tags", None)
    if tags:
        if isinstance(tags, (list, tuple)):
            group["tags"] = set(tags)
        elif not isinstance(tags, set):
            group["tags"] = {tags}


def _cast_state(param, value, key=None):
    """Loaded state follows its parameter's device and, when floating, its dtype (torch's rule;
    ``step`` is left alone)."""
    if isinstance(value, torch.Tensor):
        if key == "step":
            return value
        if not param.is_floating_point():
            return value.to(device=param.device)
        return value.to(dtype=param.dtype, device=param.device)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v) for v in value)
    return value


def _add_hook(store, hook) -> RemovableHandle:
    """Register ``hook`` in the ordered dict ``store``; the handle removes it."""
    handle = RemovableHandle(store)
    store[handle.id] = hook
    return handle

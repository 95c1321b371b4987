"""``torch.nn.modules.module``: ``Module``, the base of every layer, and the global module hooks.

A Module registers what is assigned to it: a :class:`Parameter` goes to ``_parameters``, a Module
to ``_modules``, a :class:`Buffer` (or a name already registered as a buffer) to ``_buffers``;
everything else is a plain attribute. Every registration runs the global registration hooks first
(``register_module_parameter_registration_hook`` and friends), which may replace the value: that
is where a device context sees every parameter as it is created.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any, Callable, Iterator

from ... import _dispatch
from ..._autograd import no_grad
from ..._tensor import Tensor
from ...utils.hooks import RemovableHandle
from ..parameter import Buffer, Parameter
from ._backward_hooks import wrap_inputs as _bw_inputs, wrap_outputs as _bw_outputs
from ._module_to import _parse_to

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_buffer_registration_hook", "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s_: str, num_spaces: int) -> str:
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line if line.strip() else "" for line in s]
    return first + "\n" + "\n".join(s)


def _typename(obj) -> str:
    """``torch.typename``: ``torch.FloatTensor`` for tensors, ``module.QualName`` otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


class _WrappedHook:
    """A load-state-dict pre-hook, optionally bound (weakly) to its module."""

    def __init__(self, hook: Callable, module: "Module | None" = None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if module is not None:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)


# ----- global hooks (torch keeps them in module-level ordered dicts, keyed by handle id) ----------
_global_buffer_registration_hooks: dict[int, Callable] = OrderedDict()
_global_module_registration_hooks: dict[int, Callable] = OrderedDict()
_global_parameter_registration_hooks: dict[int, Callable] = OrderedDict()
_global_forward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks_always_called: dict[int, bool] = OrderedDict()
_global_forward_hooks_with_kwargs: dict[int, bool] = OrderedDict()


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(module, name, buffer)`` at every buffer registration; a non-None return replaces it."""
    handle = RemovableHandle(_global_buffer_registration_hooks)
    _global_buffer_registration_hooks[handle.id] = hook
    return handle


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(module, name, submodule)`` at every submodule registration."""
    handle = RemovableHandle(_global_module_registration_hooks)
    _global_module_registration_hooks[handle.id] = hook
    return handle


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(module, name, param)`` at every parameter registration.

    A non-None return value replaces the parameter. Device contexts use this to see (and move)
    every parameter as a model is built.
    """
    handle = RemovableHandle(_global_parameter_registration_hooks)
    _global_parameter_registration_hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """A forward pre-hook ``hook(module, args)`` for every module; runs before per-module hooks."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """A forward hook ``hook(module, args, output)`` for every module; runs before per-module hooks."""
    handle = RemovableHandle(_global_forward_hooks, extra_dict=[_global_forward_hooks_always_called,
                                                                _global_forward_hooks_with_kwargs])
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _forward_unimplemented(self, *input: Any) -> None:
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" '
                              "function")


class Module:
    """Base class for all neural network modules (``torch.nn.Module``).

    Subclasses call ``super().__init__()`` first, assign parameters and submodules as attributes,
    and define ``forward``; calling the module runs ``forward`` between its hooks.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> class Net(torch.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = torch.nn.Linear(2, 1)
        ...     def forward(self, x):
        ...         return self.fc(x)
        >>> [name for name, _ in Net().named_parameters()]
        ['fc.weight', 'fc.bias']
    """

    training: bool
    _parameters: dict
    _buffers: dict
    _modules: dict
    call_super_init: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        # object.__setattr__ skips our routing for the bookkeeping dicts themselves
        set_ = super().__setattr__
        set_("training", True)
        set_("_parameters", {})
        set_("_buffers", {})
        set_("_non_persistent_buffers_set", set())
        set_("_backward_pre_hooks", OrderedDict())
        set_("_backward_hooks", OrderedDict())
        set_("_forward_hooks", OrderedDict())
        set_("_forward_hooks_with_kwargs", OrderedDict())
        set_("_forward_hooks_always_called", OrderedDict())
        set_("_forward_pre_hooks", OrderedDict())
        set_("_forward_pre_hooks_with_kwargs", OrderedDict())
        set_("_state_dict_hooks", OrderedDict())
        set_("_state_dict_pre_hooks", OrderedDict())
        set_("_load_state_dict_pre_hooks", OrderedDict())
        set_("_load_state_dict_post_hooks", OrderedDict())
        set_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any] = _forward_unimplemented

    # ----- registration ------------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state that is not a parameter (``persistent=False`` keeps it out of
        ``state_dict``)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or ``None``, which keeps the name but is skipped everywhere)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters "
                             f"must be created explicitly. To express '{name}' as a function of "
                             "another Tensor, compute the value in the forward() method.")
        for hook in _global_parameter_registration_hooks.values():
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name: str, module: "Module | None") -> None:
        """Add a child module, reachable as an attribute named ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name: str, module: "Module | None") -> None:
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> "Module":
        """The submodule at dotted path ``target`` (``""`` is self); AttributeError if absent."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Replace (or, unless ``strict``, add) the submodule at dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target``; AttributeError if absent or not a Parameter."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``; AttributeError if absent or not a buffer."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self) -> Any:
        """Override (with :meth:`set_extra_state`) to store extra state in ``state_dict``."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called.")

    def set_extra_state(self, state: Any) -> None:
        """Restore the extra state saved by :meth:`get_extra_state`."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called.")

    # ----- attribute routing -------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(self.__dict__, self._parameters, self._buffers,
                        self._non_persistent_buffers_set)
            for hook in _global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            for hook in _global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            if getattr(self.register_buffer, "__func__", None) is Module.register_buffer or \
                    "persistent" in inspect.signature(self.register_buffer).parameters:
                self.register_buffer(name, value, persistent)
            else:
                if not persistent:
                    raise RuntimeError("Registering a non-persistent buffer on a Module subclass "
                                       "that implements register_buffer() without the persistent "
                                       "argument is not allowed.")
                self.register_buffer(name, value)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ----- calling -----------------------------------------------------------------------------
    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        backward_hooked = self.__dict__.get("_backward_hooks") or \
            self.__dict__.get("_backward_pre_hooks")
        if not (self._forward_hooks or self._forward_pre_hooks or _global_forward_hooks
                or _global_forward_pre_hooks or backward_hooked):
            return forward_call(*args, **kwargs)

        result = None
        called_always = set()
        try:
            for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                  *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    out = hook(self, args, kwargs)
                    if out is not None:
                        if isinstance(out, tuple) and len(out) == 2:
                            args, kwargs = out
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {out}.")
                else:
                    out = hook(self, args)
                    if out is not None:
                        args = out if isinstance(out, tuple) else (out,)
            if backward_hooked:
                args, bw_state = _bw_inputs(self, args)
            result = forward_call(*args, **kwargs)
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or \
                        hook_id in _global_forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs or \
                        hook_id in _global_forward_hooks_with_kwargs:
                    out = hook(self, args, kwargs, result)
                else:
                    out = hook(self, args, result)
                if out is not None:
                    result = out
            if backward_hooked:
                result = _bw_outputs(bw_state, result)
            return result
        except Exception:
            # always_call hooks still run when forward (or an earlier hook) raised
            for hooks, flags in ((_global_forward_hooks, _global_forward_hooks_always_called),
                                 (self._forward_hooks, self._forward_hooks_always_called)):
                for hook_id, hook in hooks.items():
                    if hook_id in flags and hook_id not in called_always:
                        try:
                            if hook_id in self._forward_hooks_with_kwargs:
                                out = hook(self, args, kwargs, result)
                            else:
                                out = hook(self, args, result)
                            if out is not None:
                                result = out
                        except Exception as e:
                            warnings.warn("module forward hook with ``always_call=True`` raised an "
                                          "exception that was silenced as another error was raised "
                                          f"in forward: {e}", stacklevel=2)
            raise

    __call__ = _wrapped_call_impl = _call_impl

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Run ``hook(module, args)`` (or ``hook(module, args, kwargs)``) before ``forward``.

        A non-None return replaces the inputs (a single value is wrapped in a tuple; a
        ``with_kwargs`` hook returns ``(args, kwargs)``). ``prepend`` runs it before existing
        hooks; global hooks always run first.
        """
        handle = self._add_hook(self._forward_pre_hooks, hook, prepend,
                                self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False, always_call: bool = False
                              ) -> RemovableHandle:
        """Run ``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``) after
        ``forward``; a non-None return replaces the output."""
        handle = self._add_hook(self._forward_hooks, hook, prepend,
                                [self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` once the gradients of the module's tensor
        inputs are computed; a returned tuple replaces ``grad_input`` (see _backward_hooks)."""
        return self._add_hook(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` when the gradients of the module's outputs arrive; a
        returned tuple replaces ``grad_output``."""
        return self._add_hook(self._backward_pre_hooks, hook, prepend)

    def _add_hook(self, hooks, hook, prepend, extra=None):
        """Register ``hook`` in the ordered dict ``hooks`` (first when ``prepend``); its handle
        also removes the hook's entries in the ``extra`` flag dicts."""
        handle = RemovableHandle(hooks, extra_dict=extra)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        # Differs from torch: the deprecated non-full hook (fired on the last op's node) is not
        # provided; the full hook is its replacement (SPEC "nn.Module").
        raise NotImplementedError("Module.register_backward_hook (deprecated in torch) is not "
                                  "supported; use register_full_backward_hook")

    # ----- traversal ---------------------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of this module (and of its submodules when ``recurse``), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs in registration order; tied parameters appear once
        (under their first name) unless ``remove_duplicate=False``."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers of this module (and of its submodules when ``recurse``)."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` pairs, like :meth:`named_parameters`."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self) -> Iterator["Module"]:
        """The immediate submodules."""
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        """``(name, submodule)`` for the immediate submodules, each module once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True) -> Iterator["Module"]:
        """Every module in the tree, self first (depth-first, registration order)."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True):
        """``(dotted name, module)`` for every module in the tree, self first as ``prefix``."""
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                sub = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, sub, remove_duplicate)

    # ----- modes and gradients -----------------------------------------------------------------
    def train(self, mode: bool = True) -> "Module":
        """Set training mode (affects Dropout, BatchNorm, ...) recursively; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        """``train(False)``; returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Set ``requires_grad`` on every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's gradient: to None (default) or to zeros."""
        for p in self.parameters():
            _dispatch.zero_grad(p, set_to_none)

    # ----- conversion --------------------------------------------------------------------------
    def _apply(self, fn, recurse=True):
        """Replace every parameter's data (keeping the Parameter object), grad and buffer by
        ``fn`` of it."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            # torch's "set_data" path: the Parameter object survives, so optimizers keep working
            param.data = param_applied
            if param.grad is not None:
                with no_grad():
                    grad_applied = fn(param.grad)
                param.grad.data = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """Call ``fn`` on every submodule (children first) and then on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> "Module":
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``,
        ``to(device, dtype)``, ``to(tensor)``. Only floating tensors change dtype; with
        ``memory_format=`` the 4-D and 5-D ones are laid out in it (torch's rule)."""
        dev, dt, non_blocking, fmt = _parse_to(*args, **kwargs)
        if dt is not None and not dt.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                            f"desired dtype={dt}")

        def convert(t):
            try:
                if fmt is not None and t.dim() in (4, 5):
                    return t.to(device=dev, dtype=dt if t.is_floating_point() else None,
                                memory_format=fmt)
                return t.to(device=dev, dtype=dt if t.is_floating_point() else None)
            except NotImplementedError as e:
                if str(e).startswith("Cannot copy out of meta tensor; no data!"):
                    raise NotImplementedError(
                        "Cannot copy out of meta tensor; no data! Please use "
                        "torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving "
                        "module from meta to a different device.") from None
                raise
        return self._apply(convert)

    def to_empty(self, *, device, recurse: bool = True) -> "Module":
        """Move parameters and buffers to ``device`` without copying their values."""
        from ..._creation import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def cpu(self) -> "Module":
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> "Module":
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type) -> "Module":
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> "Module":
        """Cast floating parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> "Module":
        """Cast floating parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> "Module":
        """Cast floating parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> "Module":
        """Cast floating parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def share_memory(self) -> "Module":
        return self._apply(lambda t: t.share_memory_())

    def compile(self, *args, **kwargs) -> None:
        """``torch.compile`` is an identity here."""

    # ----- state dict --------------------------------------------------------------------------
    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before this module's ``state_dict``."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after; must return None."""
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook):
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that "
                               "was previously registered via register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of every parameter and persistent buffer by dotted name.

        Values are detached tensors sharing storage with the module's (``keep_vars=True`` keeps
        the Parameters themselves). Differs from torch: no ``_metadata`` version table is attached
        (SPEC "nn.Module").
        """
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead.", FutureWarning,
                          stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
        local_metadata: dict = {}
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if result is not None:
                    destination = result
            elif result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before this module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after loading; it may edit the key lists."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items())
                       if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  "torch.Tensor or Tensor-like object from checkpoint but received "
                                  f"{type(input_param)}")
                continue
            if param.ndim == 0 and input_param.ndim == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{input_param.shape} from checkpoint, the shape in current model "
                                  f"is {param.shape}.")
                continue
            if param.is_meta and not input_param.is_meta and not assign:
                warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a "
                              "meta parameter in the current model, which is a no-op. (Did you "
                              "mean to pass `assign=True` to assign items in the state dictionary "
                              "to their corresponding key in the module instead of copying them "
                              "in place?)", stacklevel=2)
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if not isinstance(input_param, Parameter):
                                input_param = Parameter(input_param,
                                                        requires_grad=param.requires_grad)
                            else:
                                input_param.requires_grad_(param.requires_grad)
                        setattr(self, name, input_param)
                    elif not param.is_meta:
                        param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in '
                                  f"the model are {param.size()} and whose dimensions in the "
                                  f"checkpoint are {input_param.size()}, an exception occurred : "
                                  f"{ex.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy parameters and buffers from ``state_dict`` into this module and its descendants.

        With ``strict`` (default) any missing or unexpected key raises RuntimeError listing them;
        a shape mismatch always raises. ``assign=True`` installs the given tensors instead of
        copying into the existing ones (keeping each Parameter's ``requires_grad``).

        Returns:
            ``_IncompatibleKeys(missing_keys, unexpected_keys)``.

        Raises:
            TypeError: ``state_dict`` is not a mapping.
            RuntimeError: "Error(s) in loading state_dict for <Class>:" followed by the reasons.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError("Hooks registered with "
                                         "``register_load_state_dict_post_hook`` are not expected "
                                         "to return new values, if incompatible_keys need to be "
                                         "modified, it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ----- repr --------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return self.__class__.__name__

    def extra_repr(self) -> str:
        """Extra text inside this module's repr parentheses (override in layers)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

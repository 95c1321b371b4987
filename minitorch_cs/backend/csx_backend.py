"""The emulated CSX backend: the wafer's execution model, reproduced on the CPU.

* ``@trace`` bodies run once per executor run (the first step), under graph capture; later steps
  replay the captured graph on their batch (``core.capture``). Python side effects in the body
  happen once; control flow is frozen at capture time.
* Values cannot be read inside the traced body; step closures receive real values every step
  (closures queued while tracing repeat each step).
* What the wafer rejects is rejected here with the fix in the message.
"""
from __future__ import annotations

import contextlib
import sys

import numpy as np

from .. import backends as _flags
from ..core.capture import TapeRef, WaferRuleError
from ..core.device import Device
from ..distributed.cluster_config import ClusterConfig
from ..torch import _dispatch
from ..torch._autograd import versioned
from ..torch._tensor import Tensor
from ..core.nest import visit_torch_tensors
from .closures import RepeatStepClosure, snapshot
from .base_backend import NO_EXECUTOR, BaseBackendImpl

__all__ = ["CsxBackendImpl", "LazyDevice", "DeviceConfig"]


class DeviceConfig:
    """``backend.device.config``: the debug flags, written through to ``cstorch.backends``."""

    _FIELDS = ("drop_data", "lazy_initialization", "skip_weight_init", "optimize_initialization",
               "log_initialization")

    def __getattr__(self, name):
        if name == "enabled":
            return not _flags.csx.debug.drop_data
        if name in DeviceConfig._FIELDS:
            return getattr(_flags.csx.debug, name)
        raise AttributeError(f"device config has no field '{name}'")

    def __setattr__(self, name, value):
        if name == "enabled":
            _flags.csx.debug.drop_data = not value
        elif name in DeviceConfig._FIELDS:
            setattr(_flags.csx.debug, name, value)
        else:
            raise AttributeError(f"device config has no field '{name}'")

    def __repr__(self) -> str:
        return "DeviceConfig(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in
                                            ("enabled",) + DeviceConfig._FIELDS) + ")"


class LazyDevice(Device):
    """The CSX device (``str()`` is ``"CSX"``, torch device ``lazy:0``).

    Entering it (outermost entry) either starts lazy initialization (the default,
    ``config.lazy_initialization``) or installs module registration hooks that move every weight
    to the file-backed device store as soon as its module is built (efficient initialization).
    """

    type = "lazy"

    def __init__(self, artifact_dir=None):
        super().__init__(artifact_dir)
        self.config = DeviceConfig()
        self._store = None
        self._lazy = None
        self._hooks = []
        self._registered = []
        self._moved = []

    @property
    def store(self):
        if self._store is None:
            from ..core.device_store import DeviceStore
            self._store = DeviceStore(self.artifact_dir)
        return self._store

    def _enter(self):
        super()._enter()
        from ..torch import _creation
        _creation._default_device.append(self.torch_device)  # tensors made here are on lazy:0
        if _flags.csx.debug.lazy_initialization:
            from ..core import lazy_init
            self._lazy = lazy_init.enter_context(_flags.csx.debug.optimize_initialization)
            return
        from ..torch.nn.modules import module as M

        def on_tensor(module, name, t):
            # Tensors moved at an earlier registration belong to modules whose init has run by
            # now: drop their pages. Tensors registered before ``t`` go to the store now (their
            # module may still be initializing them, through the memory map).
            for prev in self._moved:
                self.store.release(prev)
            for prev in self._registered:
                self.store.move(prev)
            self._moved = self._registered
            self._registered = [] if t is None else [t]

        self._hooks = [M.register_module_parameter_registration_hook(on_tensor),
                       M.register_module_buffer_registration_hook(on_tensor)]

    def _exit(self):
        if self._lazy is not None:
            from ..core import lazy_init
            lazy_init.exit_context(self._lazy)
            self._lazy = None
        for h in self._hooks:
            h.remove()
        self._hooks = []
        for t in self._moved + self._registered:
            self.store.move(t)
            self.store.release(t)
        self._registered, self._moved = [], []
        from ..torch import _creation
        _creation._default_device.pop()
        super()._exit()

    def __str__(self) -> str:
        return "CSX"

    def __repr__(self) -> str:
        return "device(type='CSX')"


class CsxBackendImpl(BaseBackendImpl):
    def __init__(self, backend_type, artifact_dir=None, compile_dir=None, compile_only=False,
                 validate_only=False, cluster_config=None, max_checkpoints=None, **kwargs):
        if kwargs:
            raise TypeError(f"CSX backend got unexpected keyword arguments: {sorted(kwargs)}; the "
                            "2.10 CSX backend takes artifact_dir, compile_dir, compile_only, "
                            "validate_only and cluster_config (other knobs are cstorch.backends "
                            "flags)")
        if cluster_config is None:
            cluster_config = ClusterConfig()
        elif not isinstance(cluster_config, ClusterConfig):
            raise TypeError(f"Expected cluster_config to be a cstorch.distributed.ClusterConfig, "
                            f"got {type(cluster_config).__name__}")
        cluster_config.validate()
        super().__init__(backend_type, LazyDevice(),
                         artifact_dir if artifact_dir is not None else "./cerebras_logs",
                         max_checkpoints)
        self.compile_dir = compile_dir
        self.compile_only = bool(compile_only)
        self.validate_only = bool(validate_only)
        self._cluster_config = cluster_config
        if self.compile_only or self.validate_only:
            _flags.csx.debug.drop_data = True
        self._tapes = {}  # traced function -> its compiled form for the current run
        self._capture = None
        self.body_runs = 0
        self.replays = 0

    @property
    def is_e2e_execution(self) -> bool:
        return not (self.compile_only or self.validate_only)

    @property
    def cluster_config(self):
        return self._cluster_config

    # -- compile and run lifecycle ---------------------------------------------------------------
    def setup_model(self, model):
        """Weights are needed now: run the recorded (lazy) initialization, grouped per weight."""
        from ..core import lazy_init
        lazy_init.materialize_all()
        _to_lazy_device(model)
        return model

    def on_run_start(self):
        from ..core import lazy_init
        lazy_init.materialize_all()  # e.g. optimizer state created lazily in preinitialize
        self._tapes = {}
        self._state_keys = {id(o): _state_signature(o) for o in self.optimizer_registry}
        super().on_run_start()

    def on_run_end(self):
        super().on_run_end()
        self._tapes = {}
        # As cstorch's CSX backend: the run's closures end with it (the repeating ones queued
        # while tracing belong to this run's graph and must not fire in the next run).
        self.step_closures = []

    def run_step_closures(self):
        """As cstorch's CSX backend: nothing runs in compile/validate-only runs (there are no
        values), and closures run only on activation steps (the executor's
        ``activation_steps``); repeating closures stay queued either way."""
        if not self.is_e2e_execution:
            self.step_closures = []
            return
        ctx = self.run_context
        if ctx is not None and self.executors and not ctx.is_pre_initial_step and \
                not ctx.is_activation_step:
            queue, self.step_closures = self.step_closures, []
            self.step_closures = [c for c in queue if c[3]] + self.step_closures
            return
        super().run_step_closures()

    def add_step_closure(self, closure, args, kwargs, repeat=False):
        cap = self._capture
        args, kwargs = snapshot(args, kwargs)
        if cap is not None:
            if not self.is_e2e_execution:
                return  # compile/validate only: nothing runs, so no closure receives values
            for _, t in visit_torch_tensors([args, kwargs]):
                cap.tape.live.append((t, cap.ref_tensor(t)))
        self.step_closures.append((closure, args, kwargs, repeat))

    def on_batch_start(self, batch):
        """The batch is copied to the wafer, as on every backend (in-place changes never reach
        the loader); its tensors report ``lazy:0`` in the step. A tuple or list of plain tensors,
        outside any dispatch mode, is copied directly: the same fresh tensors
        ``t.detach().clone()`` makes, without two dispatches per tensor."""
        if type(batch) in (tuple, list) and not _dispatch.modes() and \
                all(type(t) is Tensor and not t._meta for t in batch):
            self._is_tracing = True
            self._step_model = None
            out = []
            for t in batch:
                c = Tensor._wrap(np.array(t._data, copy=True, order="K"))
                c._lazydev = True
                out.append(c)
            return type(batch)(out)
        batch = super().on_batch_start(batch)
        for _, t in visit_torch_tensors(batch):
            t._lazydev = True
        return batch

    # -- traced steps ----------------------------------------------------------------------------
    def run_traced(self, step_fn, args, kwargs):
        if not self.executors:
            raise RuntimeError(NO_EXECUTOR)
        retrace = _flags.csx.debug.retrace_every_iteration
        first = self._tapes.get(step_fn)
        if first is None or retrace:
            out, tape = self._capture_step(step_fn, args, kwargs)
            if first is not None and first.tape.signature != tape.signature:
                raise RuntimeError(
                    "retrace_every_iteration: the traced step recorded a different sequence of "
                    f"ops on step {self.run_context.user_iteration} than on the first step "
                    f"({_first_difference(first.tape.signature, tape.signature)}). The wafer "
                    "compiles one graph per run, so the step body must run the same ops every "
                    "step: move data-dependent Python control flow out of the traced function.")
            return out
        return self._replay_step(first, args, kwargs)

    def _capture_step(self, step_fn, args, kwargs):
        from ..core.capture import CaptureMode
        cap = CaptureMode()
        # the step is compiled for the wafer: its compiler's dtype rules, not eager torch's
        cap.wafer_dtypes = True
        for _, t in visit_torch_tensors([args, kwargs]):
            cap.add_input(t)
        leaves = _watched_leaves(self)
        cap.note_grads(leaves)
        before = _state_snapshot(self)
        saved = None if self.is_e2e_execution else _save_device_state(self, leaves)
        self._capture = cap
        try:
            with cap, _mixed_precision(), RepeatStepClosure():
                out = step_fn(*args, **kwargs)
        finally:
            self._capture = None
        self.body_runs += 1
        tape = cap.tape
        for _, t in visit_torch_tensors(out):
            tape.live.append((t, cap.ref_tensor(t)))
        created = {id(wr()): site for wr, site, _ in cap.created if wr() is not None}
        carry = _check_state(self, cap, before, created)
        for x, y in carry:
            tape.live.append((y, cap.ref_tensor(y)))
            if x is not None:
                tape.live.append((x, cap.ref_tensor(y)))
        cap.finish()
        del created
        for t, slot in _check_alive(self, cap, out):
            tape.live.append((t, ("s", slot)))
        if saved is not None:
            _restore_device_state(saved)  # compile/validate only: no step ran on data
        else:
            for x, y in carry:  # the next replay reads x: it must hold the step's value now
                if x is not None:
                    x._data = y._data
        traced = _Traced(tape, out, [(m, m.training) for m in _modules(self)])
        traced.hyper = [(type(opt).__name__, i, g, k, v)
                        for opt in self.optimizer_registry
                        for i, g in enumerate(opt.param_groups) for k, v in g.items()
                        if k != "params" and isinstance(v, (int, float)) and
                        not isinstance(v, bool)]
        self._tapes[step_fn] = traced
        return out, tape

    def _replay_step(self, traced, args, kwargs):
        tape = traced.tape
        if not kwargs and all(type(a) is Tensor for a in args):
            arrays = [a._data for a in args]  # the common case: positional tensors
        else:
            arrays = [t._data for _, t in visit_torch_tensors([args, kwargs])]
        if any(a.shape != sh or a.dtype != dt for a, (sh, dt) in zip(arrays, tape.input_meta)) \
                or len(arrays) != len(tape.input_meta):
            sig = [(tuple(a.shape), _dtype_name(a)) for a in arrays]
            raise RuntimeError(
                f"The traced step was compiled for inputs {tape.input_sig} but step "
                f"{self.run_context.user_iteration} received {sig}. The wafer compiles one graph "
                "per run: every batch must have the same shapes and dtypes (use drop_last=True "
                "in the dataloader).")
        self._check_replayable(traced)
        tape.replay(arrays)
        self.replays += 1
        return traced.outputs

    def _check_replayable(self, traced):
        """What the compiled graph assumed about state made outside the step still holds."""
        tape = traced.tape
        for t, shape, dtype in tape.externals:
            d = t._data
            if d.shape != shape or d.dtype != dtype:
                raise WaferRuleError(
                    f"A tensor the traced step reads (shape {list(shape)}, {dtype}) has shape "
                    f"{list(t._data.shape)} and dtype {t._data.dtype} on step "
                    f"{self.run_context.user_iteration}. The wafer compiles one graph per run "
                    "for fixed shapes and dtypes: keep state tensors' shapes fixed across steps "
                    "(an in-place view op such as t_() on a parameter changes it every step).")
        for p, shape in tape.grads_read:
            if p._grad is None or p._grad._data.shape != shape:
                raise WaferRuleError(
                    "The traced step reads the .grad of a parameter before computing it, and "
                    f"that gradient is {'unset' if p._grad is None else 'of another shape'} on "
                    f"step {self.run_context.user_iteration} although it was set on the first "
                    "step. The wafer compiles the first step's graph: keep gradients in the same "
                    "state at the start of every step (zero them inside the traced step).")
        for p, was_none in tape.grad_presence:
            if (p._grad is None) != was_none:
                raise WaferRuleError(
                    "The traced step looked at a parameter's .grad (e.g. `if p.grad is None`) "
                    f"while it was {'unset' if was_none else 'set'} on the first step, but it is "
                    f"{'set' if was_none else 'unset'} on step "
                    f"{self.run_context.user_iteration}. The wafer compiles the first step's "
                    "graph, so Python decisions on .grad are frozen: clear gradients with "
                    "optimizer.zero_grad() / model.zero_grad() (which the graph replays), or keep "
                    "them in the same state at the start of every step.")
        for name, i, group, key, value in traced.hyper:
            now = group.get(key)
            if now is not value and now != value:
                raise WaferRuleError(
                    f"{name}.param_groups[{i}][{key!r}] changed from {value!r} to {now!r} "
                    f"between steps of one executor run (step {self.run_context.user_iteration}). "
                    "The wafer compiled the step with the Python value it had on the first step, "
                    "as a constant. Change hyper-parameters between runs, or drive them with a "
                    "cstorch scheduler (cstorch.optim.lr_scheduler), whose values the graph "
                    "computes every step.")
        for m, was in traced.training:  # the compiled models' modules when the step was traced
            if m.training != was:
                raise WaferRuleError(
                    f"{type(m).__name__}.{'train' if m.training else 'eval'}() was called between "
                    f"steps of one executor run (step {self.run_context.user_iteration}). The "
                    "wafer compiles the traced step once per run with the mode it had then. Switch "
                    "train()/eval() before the run starts, and use a separate DataExecutor run "
                    "(or a separate traced function) for evaluation.")

    def _check_capture_optimizers(self):
        for opt in self.optimizer_registry:
            before = self._state_keys.get(id(opt))
            if before is not None and _state_signature(opt) != before:
                raise WaferRuleError(
                    f"{type(opt).__name__} created optimizer state inside the traced step. On the "
                    "wafer all optimizer state must exist before the first step: create every "
                    "state tensor in preinitialize() with cstorch.zeros_like/full_like.")


def _to_lazy_device(model):
    """``compile`` moves the model to the wafer: its parameters, their gradients and its buffers
    report ``lazy:0`` from now on (the same objects: optimizers built earlier keep working)."""
    for t in list(model.parameters()) + list(model.buffers()):
        t._lazydev = True
        if t._grad is not None:
            t._grad._lazydev = True


def _mixed_precision():
    """The wafer's mixed precision while compiling a step: with it enabled
    (``cstorch.amp.set_half_dtype``, ``enable_mixed_precision``), matmul, linear, addmm and
    convolutions take their floating inputs in the half dtype (float32 accumulation, result in
    the half dtype), as ``torch.autocast`` does on CPU; other ops compute as written."""
    from ..core.amp_state import _amp_state
    from ..torch._autocast import AutocastMode
    if _amp_state.enabled:
        return AutocastMode(_amp_state.half_dtype)
    return contextlib.nullcontext()


class _Traced:
    """One traced function's compiled form for the current run."""

    def __init__(self, tape, outputs, training):
        self.tape, self.outputs, self.training = tape, outputs, training


# ----- what the step may leave behind ---------------------------------------------------------------
def _modules(impl):
    for m in impl.models:
        yield from m.modules()


def _watched_leaves(impl):
    """Parameters whose .grad a step reads or writes: the compiled models' and optimizers'."""
    seen, out = set(), []
    for m in impl.models:
        for p in m.parameters():
            if id(p) not in seen:
                seen.add(id(p))
                out.append(p)
    for opt in impl.optimizer_registry:
        for g in opt.param_groups:
            for p in g["params"]:
                if id(p) not in seen:
                    seen.add(id(p))
                    out.append(p)
    return out


def _watched_objects(impl):
    """(label, object) of the Python objects whose state a traced step may touch: the compiled
    models' modules, the registered optimizers and their schedulers, the grad scalers."""
    for m in impl.models:
        for name, mod in m.named_modules():
            yield (f"{type(m).__name__}{'.' + name if name else ''}", mod)
    for opt in impl.optimizer_registry:
        yield (type(opt).__name__, opt)
        for sched in list(getattr(opt, "_schedulers_registry", {}).keys()):
            yield (type(sched).__name__, sched)
    for scaler in impl.grad_scalers:
        yield (type(scaler).__name__, scaler)


_NOT_STATE = {"_schedulers_registry", "_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
              "_state_dict_hooks", "_load_state_dict_pre_hooks", "_modules",
              "_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "optimizer", "backend",
              "_opt_called", "_last_lr"}


def _flatten(value, path, out, depth=0):
    """Leaves of ``value`` (dicts, lists, tuples) under ``path``: tensors by identity, other
    values as they are."""
    if isinstance(value, Tensor):
        out[path] = value
    elif depth < 4 and isinstance(value, dict):
        for k, v in value.items():
            key = k if isinstance(k, (str, int, float, bool, type(None))) else \
                (f"<{type(k).__name__} {list(k.shape)}>" if isinstance(k, Tensor) else repr(k))
            if isinstance(k, Tensor):
                key = (key, id(k))
            _flatten(v, path + (key,), out, depth + 1)
    elif depth < 4 and isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _flatten(v, path + (i,), out, depth + 1)
    elif isinstance(value, (int, float, bool, str, type(None), np.generic)):
        out[path] = ("value", value)


def _state_snapshot(impl):
    snap = {}
    for label, obj in _watched_objects(impl):
        leaves = {}
        for k, v in vars(obj).items():
            if k in _NOT_STATE or k in getattr(type(obj), "_capture_host_state", ()):
                continue
            _flatten(v, (k,), leaves)
        snap[id(obj)] = (label, obj, leaves)
    return snap


def _path_name(label, path):
    out = label
    for p in path:
        if isinstance(p, tuple):
            p = p[0]
        out += f".{p}" if isinstance(p, str) and p.isidentifier() else f"[{p!r}]"
    return out


def _check_state(impl, cap, before, created):
    """Compare the watched objects' state after the first (traced) step with before it.

    Tensors updated in place are what the compiled graph does. A state entry that now holds a
    tensor made in the step, where it held another tensor before, is carried: after every replay
    both the old tensor (which the graph reads) and the new one hold the step's value. Anything
    else the Python body changed -- new entries (state created in the step), Python values
    (counters), tensors swapped for others -- would be frozen by the replay: refuse it.
    Returns the carries as (old tensor, new tensor)."""
    impl._check_capture_optimizers()
    compiled = {id(p) for m in impl.models for p in m.parameters()}
    compiled |= {id(b) for m in impl.models for b in m.buffers()}
    for t in cap.externals.values():
        if t._rg and t.grad_fn is None and id(t) not in compiled:
            raise WaferRuleError(
                f"A parameter of shape {list(t.shape)} used in the traced step does not belong "
                "to a compiled model. On the wafer every model must be prepared with "
                "compiled = cstorch.compile(model, backend) and called through compiled(...)"
                " inside the traced step.")
    carry = []
    after = _state_snapshot(impl)
    for key, (label, obj, old) in before.items():
        new = after.get(key, (label, obj, {}))[2]
        for path, v in new.items():
            was = old.get(path)
            if isinstance(v, Tensor):
                if was is v:
                    continue
                if _recomputed(obj, path):
                    if id(v) in created:
                        carry.append((None, v))  # keep the Python-visible value current
                    continue
                if id(v) in created and isinstance(was, Tensor):
                    carry.append((was, v))
                    continue
                what = "created" if was is None else "replaced"
                site = created.get(id(v))
                raise WaferRuleError(
                    f"The traced step {what} the tensor {_path_name(label, path)}"
                    f"{' (made at ' + site + ')' if site else ''}. On the wafer the step is "
                    "compiled once and replayed: Python code that creates or swaps state runs "
                    "only on the first step. Create state before the first step (an optimizer's "
                    "preinitialize(), cstorch.zeros_like) and update it in place inside the step "
                    "(state.mul_(...).add_(...)), or use a cstorch optimizer.")
            if was != v and not (isinstance(was, tuple) and isinstance(v, tuple) and
                                 _same_value(was[1], v[1])):
                raise WaferRuleError(
                    f"The traced step changed the Python value {_path_name(label, path)} "
                    f"({_short(was)} -> {_short(v)}). On the wafer the step is compiled once "
                    "and replayed without running Python, so this value would stay as it is "
                    "after the first step. Keep counters and flags that the step needs as "
                    "tensors updated in place (cstorch optimizers and schedulers do), or change "
                    "them outside the traced function (e.g. in a step closure).")
    return carry


def _recomputed(obj, path):
    """Entries the step writes afresh every step before anything reads them: attributes a class
    declares so (``_capture_recomputed``, e.g. a scheduler's last values), and the param-group
    values (``lr``, ``weight_decay``) driven by a scheduler registered on an optimizer."""
    if path[0] in getattr(type(obj), "_capture_recomputed", ()):
        return True
    registry = getattr(obj, "_schedulers_registry", None)
    if registry is None or len(path) != 3 or path[0] != "param_groups":
        return False
    return any(getattr(s, "param_group_key", None) == path[2] for s in list(registry.keys()))


def _same_value(a, b):
    try:
        return bool(a == b) or (a != a and b != b)
    except Exception:
        return False


def _short(v):
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "value":
        v = v[1]
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def _check_alive(impl, cap, out):
    """A tensor made by the step and still referenced after it, other than its outputs, the
    step closures' arguments, registered state and gradients, is Python-side state that the
    replay would freeze at its first-step value: refuse it, naming where it was made. An
    attribute its class declares recomputed every step (``_capture_recomputed``, e.g. a metric's
    cached result, which a step closure refreshes) is kept current instead: returns those as
    (tensor, slot) to rebind after each replay."""
    import gc
    gc.collect()
    accounted = set()

    def account(t):
        while t is not None and id(t) not in accounted:
            accounted.add(id(t))
            _graph_tensors(t.grad_fn, accounted)
            if t._grad is not None:
                accounted.add(id(t._grad))
            t = t._base  # a view keeps its base alive

    for _, t in visit_torch_tensors(out):
        account(t)
    for closure, args, kwargs, _ in impl.step_closures:
        for _, t in visit_torch_tensors([args, kwargs]):
            account(t)
    for p in _watched_leaves(impl):
        account(p)
    for _, obj in _watched_objects(impl):
        leaves = {}
        _flatten(vars(obj), (), leaves)
        for v in leaves.values():
            if isinstance(v, Tensor):
                account(v)
    leaves = v = t = None  # (they would count as holders below)
    rebind = []
    for wr, site, slot in cap.created:
        t = wr()
        if t is None or id(t) in accounted:
            continue
        if not _owners(t):  # only the tape itself refers to it (the target of a .grad event)
            continue
        if _declared_recomputed(t):
            rebind.append((t, slot))
            continue
        raise WaferRuleError(
            f"A tensor of shape {list(t.shape)} made inside the traced step (at {site}) is "
            f"still referenced after the step ({_holders(t)}), but it is not an output of the "
            "step, a "
            "step-closure argument, a gradient, or registered module/optimizer state. On the "
            "wafer the step is replayed without running Python, so this tensor would keep "
            "its first-step value forever. Return it from the traced function, pass it to a "
            "@cstorch.step_closure, or register it as a buffer (module.register_buffer) and "
            "update it in place.")
    return rebind


def _owners(t):
    """(holder, attribute names) for every referrer of ``t``: objects holding it as attributes
    (through their ``__dict__``, which CPython may keep inline in the object, or slots), dicts
    and other containers (names None), closures. (No comprehension here names ``t``: that would
    make it a closure variable of this frame, itself a referrer.)"""
    import gc
    out = []
    frame_type = type(sys._getframe())
    for r in gc.get_referrers(t):
        if isinstance(r, (frame_type, TapeRef)) or getattr(t, "_acc", None) is r:
            continue  # (a leaf's own gradient node refers back to it)
        names = None
        if isinstance(r, dict):
            names = _keys_holding(r, t)
            owners = [o for o in gc.get_referrers(r) if getattr(o, "__dict__", None) is r]
            if owners:
                out += [(o, names) for o in owners]
                continue
            out.append((r, None))
            continue
        if hasattr(r, "__dict__") and not isinstance(r, type):
            names = _keys_holding(vars(r), t) or None
        if names is None:
            names = []
            for k in getattr(type(r), "__slots__", ()):  # a loop: no comprehension scope
                if isinstance(k, str) and getattr(r, k, None) is t:
                    names.append(k)
            names = names or None
        out.append((r, names))
    return out


def _keys_holding(d, t):
    keys = []
    for k, v in d.items():
        if v is t:
            keys.append(k)
    return keys


def _holders(t):
    """Where ``t`` is referenced from, for the error message: ``Class.attr`` or a container."""
    out = []
    for o, names in _owners(t):
        if names is not None:
            out += [f"{type(o).__name__}.{k}" for k in names]
        elif isinstance(o, dict):
            out += [f"a dict entry {k!r}" for k in _keys_holding(o, t)]
        elif type(o).__name__ == "cell":
            out.append("a closure variable")
        else:
            out.append(f"a {type(o).__name__}")
    return "held by " + ", ".join(out[:4]) if out else "held by an object the check cannot name"


def _declared_recomputed(t):
    """Whether every holder of ``t`` is an attribute its class declares ``_capture_recomputed``."""
    owners = _owners(t)
    return bool(owners) and all(
        names is not None and all(k in getattr(type(o), "_capture_recomputed", ()) for k in names)
        for o, names in owners)


def _graph_tensors(node, out, seen=None):
    if node is None:
        return
    seen = set() if seen is None else seen
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        for t, _ in versioned(n):
            out.add(id(t))
        var = getattr(n, "variable", None)  # a leaf of the graph (its AccumulateGrad node)
        if var is not None:
            out.add(id(var))
        for e in getattr(n, "next", ()) or ():
            if e is not None:
                stack.append(e[0])


def _save_device_state(impl, leaves):
    """Copies of everything a compile/validate-only capture may change (it runs on no data)."""
    from ..torch._random import default_generator
    tensors = {}
    for _, obj in _watched_objects(impl):
        found = {}
        _flatten(vars(obj), (), found)
        for v in found.values():
            if isinstance(v, Tensor) and not getattr(type(v), "_is_lazy", False):
                tensors[id(v)] = (v, v._data, np.array(v._data, copy=True))
    for p in leaves:
        tensors[id(p)] = (p, p._data, np.array(p._data, copy=True))
    grads = [(p, p._grad) for p in leaves]
    return tensors, grads, default_generator._state_array()


def _restore_device_state(saved):
    from ..torch._random import default_generator
    tensors, grads, rng = saved
    for t, arr, copy in tensors.values():
        t._data = arr
        arr[...] = copy
    for p, g in grads:
        p._grad = g
    default_generator._set_state_array(rng)


def _state_signature(opt):
    return {id(p): sorted(st) for p, st in opt.state.items() if st}


def _dtype_name(a):
    from ..torch import _dtype as D
    return D._BY_NP[a.dtype].name


def _first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"op {i}: first trace ran {x[0]} on {list(x[1])}, this trace ran {y[0]} on " \
                   f"{list(y[1])}"
    return f"the first trace recorded {len(a)} ops, this trace {len(b)}"

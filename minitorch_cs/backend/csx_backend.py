"""The emulated CSX backend: the wafer's execution model, reproduced on the CPU.

* ``@trace`` bodies run once per executor run (the first step), under graph capture; later steps
  replay the captured graph on their batch (``core.capture``). Python side effects in the body
  happen once; control flow is frozen at capture time.
* Values cannot be read inside the traced body; step closures receive real values every step
  (closures queued while tracing repeat each step).
* What the wafer rejects is rejected here with the fix in the message.
"""
from __future__ import annotations

from .. import backends as _flags
from ..core.capture import _ACTIVE, CaptureMode, value_read_guard
from ..core.device import Device
from ..distributed.cluster_config import ClusterConfig
from ..torch import _autograd, _dispatch
from ..torch._tensor import Tensor
from ..torch import _tensor as _T
from ..utils.nest import visit_torch_tensors
from ..utils.step_closures import RepeatStepClosure, snapshot
from .base_backend import BaseBackendImpl

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
        super()._exit()

    def __str__(self) -> str:
        return "CSX"

    def __repr__(self) -> str:
        return "device(type='CSX')"


class CsxBackendImpl(BaseBackendImpl):
    def __init__(self, backend_type, artifact_dir=None, compile_dir=None, compile_only=False,
                 validate_only=False, cluster_config=None, **kwargs):
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
                         artifact_dir if artifact_dir is not None else "./cerebras_logs")
        self.compile_dir = compile_dir
        self.compile_only = bool(compile_only)
        self.validate_only = bool(validate_only)
        self._cluster_config = cluster_config
        if self.compile_only or self.validate_only:
            _flags.csx.debug.drop_data = True
        self._tape = None
        self._outputs = None
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
        return model

    def on_run_start(self):
        from ..core import lazy_init
        lazy_init.materialize_all()  # e.g. optimizer state created lazily in preinitialize
        self._tape = None
        self._outputs = None
        self._state_keys = {id(o): _state_signature(o) for o in self.optimizer_registry}
        super().on_run_start()

    def on_run_end(self):
        super().on_run_end()
        self._tape = None
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
                s = cap.slot_of(t)
                if s is not None:
                    cap.tape.live.append((t, s))
        self.step_closures.append((closure, args, kwargs, repeat))

    # -- traced steps ----------------------------------------------------------------------------
    def run_traced(self, step_fn, args, kwargs):
        if not self.executors:
            from ..utils.data.data_executor import _NO_EXECUTOR
            raise RuntimeError(_NO_EXECUTOR)
        retrace = _flags.csx.debug.retrace_every_iteration
        if self._tape is None or retrace:
            first = self._tape
            out = self._capture_step(step_fn, args, kwargs)
            if first is not None and first.signature != self._tape.signature:
                raise RuntimeError(
                    "retrace_every_iteration: the traced step recorded a different sequence of "
                    f"ops on step {self.run_context.user_iteration} than on the first step "
                    f"({_first_difference(first.signature, self._tape.signature)}). The wafer "
                    "compiles one graph per run, so the step body must run the same ops every "
                    "step: move data-dependent Python control flow out of the traced function.")
            return out
        return self._replay_step(args, kwargs)

    def _capture_step(self, step_fn, args, kwargs):
        cap = CaptureMode()
        cap.save_externals = not self.is_e2e_execution
        for _, t in visit_torch_tensors([args, kwargs]):
            cap.add_input(t)
        self._capture = cap
        _ACTIVE.append(cap)
        _dispatch.push_mode(cap)
        prev_tracer = _autograd.TRACER[0]
        _autograd.TRACER[0] = cap
        _T.READ_GUARD[0] = value_read_guard
        grads_before = {id(p): p.grad for m in self.models for p in m.parameters()}
        try:
            with RepeatStepClosure():
                out = step_fn(*args, **kwargs)
        finally:
            _T.READ_GUARD[0] = None
            _autograd.TRACER[0] = prev_tracer
            _dispatch.pop_mode(cap)
            _ACTIVE.pop()
            self._capture = None
        self.body_runs += 1
        self._check_capture(cap)
        for _, t in visit_torch_tensors(out):
            s = cap.slot_of(t)
            if s is not None:
                cap.tape.live.append((t, s))
        if not self.is_e2e_execution:
            # compile/validate only: the graph is checked, but no step runs on data
            for t, saved in cap.external_inplace.values():
                t._data[...] = saved
            for m in self.models:
                for p in m.parameters():
                    p.grad = grads_before.get(id(p))
        self._tape = cap.tape
        self._outputs = out
        # Gradients the step leaves unset (zero_grad(set_to_none=True) ran in Python) must be
        # unset after every replay too, or the next run's capture would accumulate into them.
        self._unset_grads = [p for m in self.models for p in m.parameters() if p.grad is None]
        self._tape.drop_grad_writes(self._unset_grads)
        return out

    def _replay_step(self, args, kwargs):
        tape = self._tape
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
        tape.replay(arrays)
        for p in self._unset_grads:
            p.grad = None
        self.replays += 1
        return self._outputs

    def _check_capture(self, cap):
        for opt in self.optimizer_registry:
            before = self._state_keys.get(id(opt))
            if before is not None and _state_signature(opt) != before:
                raise RuntimeError(
                    f"{type(opt).__name__} created optimizer state inside the traced step. On the "
                    "wafer all optimizer state must exist before the first step: create every "
                    "state tensor in preinitialize() with cstorch.zeros_like/full_like.")
        compiled = {id(p) for m in self.models for p in m.parameters()}
        compiled |= {id(b) for m in self.models for b in m.buffers()}
        for t in cap.externals_used.values():
            if t._rg and t.grad_fn is None and id(t) not in compiled:
                raise RuntimeError(
                    f"A parameter of shape {list(t.shape)} used in the traced step does not belong "
                    "to a compiled model. On the wafer every model must be prepared with "
                    "compiled = cstorch.compile(model, backend) and called through compiled(...)"
                    " inside the traced step.")


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

"""``cstorch.backend``: the process-wide backend singleton (CPU, GPU or emulated CSX)."""
from __future__ import annotations

from enum import Enum

__all__ = ["backend", "BackendType", "Backend", "current_backend", "current_backend_impl",
           "current_torch_device", "use_cs"]

_NO_BACKEND = (
    "No active Cerebras backend found. Please make sure that your model has been prepared for "
    "compilation.\nYou can do this using a call to:\n\n\tcompiled_model = cstorch.compile(model, "
    "backend=...)\n\nOr by explicitly instantiating a backend, e.g.\n\n\tbackend = "
    "cstorch.backend(...)")


class BackendType(Enum):
    CPU = 1
    GPU = 2
    CSX = 3

    @classmethod
    def from_str(cls, name: str) -> "BackendType":
        try:
            return cls[name.upper()]
        except KeyError:
            raise ValueError(f"Invalid Cerebras PyTorch backend type specified. Expected one of "
                             f"{[t.name for t in cls]}. Got {name}. ") from None

    @property
    def is_cpu(self) -> bool:
        return self is BackendType.CPU

    @property
    def is_gpu(self) -> bool:
        return self is BackendType.GPU

    @property
    def is_csx(self) -> bool:
        return self is BackendType.CSX


_instance: list = []


class Backend:
    """The user-facing backend: a thin handle on the implementation (one per process)."""

    def __init__(self, backend_type: BackendType, *args, **kwargs):
        if _instance:
            raise RuntimeError(
                f"Cannot instantiate multiple backends. A backend with type "
                f"{_instance[0].backend_type.name} has already been instantiated.\nUse "
                "cstorch.backend() to access the existing backend, or use "
                "cstorch.backend().torch_device to access the current backend's torch device.")
        self.backend_type = backend_type
        if backend_type is BackendType.CPU:
            from .cpu_backend import CpuBackendImpl
            self._impl = CpuBackendImpl(backend_type, *args, **kwargs)
        elif backend_type is BackendType.GPU:
            from .gpu_backend import GpuBackendImpl
            self._impl = GpuBackendImpl(backend_type, *args, **kwargs)
        else:
            from .csx_backend import CsxBackendImpl
            self._impl = CsxBackendImpl(backend_type, *args, **kwargs)
        _instance.append(self)

    # properties mirrored from the implementation
    device = property(lambda self: self._impl.device)
    torch_device = property(lambda self: self._impl.torch_device)
    is_cpu = property(lambda self: self.backend_type.is_cpu)
    is_gpu = property(lambda self: self.backend_type.is_gpu)
    is_csx = property(lambda self: self.backend_type.is_csx)
    is_tracing = property(lambda self: self._impl.is_tracing)
    is_e2e_execution = property(lambda self: self._impl.is_e2e_execution)
    cluster_config = property(lambda self: self._impl.cluster_config)
    cluster = cluster_config

    @property
    def artifact_dir(self):
        return self._impl.artifact_dir

    @artifact_dir.setter
    def artifact_dir(self, value):
        self._impl.artifact_dir = value

    def to_cpu(self, tree):
        return self._impl.to_cpu(tree)

    def __repr__(self) -> str:
        return f"<cstorch backend {self.backend_type.name}>"


def backend(backend_type=None, *args, **kwargs):
    """Create the backend (``"CPU"``, ``"GPU"``, ``"CSX"``), or return the current one."""
    if backend_type is None:
        if args or kwargs:
            raise TypeError(
                'Expected backend_type when constructing a backend. Either provide one of "CSX", '
                '"CPU", "GPU" to create a new backend, or call with no arguments to get the '
                "instance of the current backend, if it exists.")
        return current_backend()
    if isinstance(backend_type, str):
        backend_type = BackendType.from_str(backend_type)
    elif not isinstance(backend_type, BackendType):
        raise TypeError(f"Expected backend_type to be of type BackendType, or a string representing "
                        f"the backend type. Got: {type(backend_type)}")
    return Backend(backend_type, *args, **kwargs)


def current_backend(raise_exception: bool = True, raise_warning: bool = True):
    """The current backend; RuntimeError (or None with ``raise_exception=False``) if none."""
    if _instance:
        return _instance[0]
    if raise_exception:
        raise RuntimeError(_NO_BACKEND)
    return None


def current_backend_impl(raise_exception: bool = True):
    b = current_backend(raise_exception)
    return b._impl if b is not None else None


def current_torch_device():
    from ..torch import device
    b = current_backend(raise_exception=False)
    return b.torch_device if b is not None else device("cpu")


def use_cs() -> bool:
    b = current_backend(raise_exception=False)
    return b is not None and b.is_csx


def _reset_for_tests() -> None:
    """Drop the singleton (tests only: the real stack has no way to do this)."""
    if _instance:
        _instance[0]._impl.shutdown()
    _instance.clear()
    from ..core import lazy_init
    lazy_init.reset()

"""``cstorch.utils``: step closures, data utilities, nest helpers (``tensorboard`` on import)."""
from . import data  # noqa: F401
from . import nest  # noqa: F401  (cstorch imports it with the package too)
from .step_closures import checkpoint_closure, step_closure  # noqa: F401


def __getattr__(name):
    if name == "CSConfig":
        raise AttributeError(f'"{name}" is no longer available. Please pass in a '
                             '"cstorch.distributed.ClusterConfig" instance to the backend '
                             'constructor instead. For example,\n\n\tbackend = cstorch.backend('
                             '\n\t\t"CSX", cluster_config=cstorch.distributed.ClusterConfig(...)'
                             '\n\t)\n')
    if name == "tensorboard":
        # As cstorch: the submodule exists only once imported (it pulls in the event writer).
        import warnings
        warnings.warn("cstorch.utils.tensorboard must be imported before it can be accessed.\n\n"
                      "\timport minitorch_cs.utils.tensorboard\n\n\t# or\n\n"
                      "\tfrom minitorch_cs.utils.tensorboard import *\n\n")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

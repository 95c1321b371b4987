"""``cstorch.utils.nest``: walking nested structures of tensors (defined in ``core.nest``, below
the backend, which walks step inputs and outputs with it)."""
from ..core.nest import *  # noqa: F401,F403
from ..core.nest import __all__  # noqa: F401

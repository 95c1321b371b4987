"""``cstorch.utils``: step closures, data utilities, nest helpers."""
from . import data  # noqa: F401
from .step_closures import checkpoint_closure, step_closure  # noqa: F401
